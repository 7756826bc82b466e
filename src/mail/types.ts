// A message ready to hand to a messenger.
export interface Attachment {
  filename: string;
  content: Buffer;
  contentType?: string;
}

export interface OutgoingMessage {
  from: string;
  to: string[];
  subject: string;
  html?: string;
  text?: string;
  /** Extra headers (custom, List-Unsubscribe, ...). */
  headers?: Record<string, string>;
  attachments?: Attachment[];
  /** Envelope-only recipients (Cc/Bcc moved out of the headers). */
  cc?: string[];
  bcc?: string[];
  /**
   * Transfer encoding of the text parts when not 7bit. Unset, nodemailer scans every message
   * to choose; a campaign chooses once for all its messages (textEncodingFor).
   */
  textEncoding?: 'quoted-printable' | 'base64';
  /** The subscriber/campaign the message is for, for postback messengers. */
  meta?: Record<string, unknown>;
}

export interface Messenger {
  readonly name: string;
  send(msg: OutgoingMessage): Promise<void>;
  close(): Promise<void>;
}
