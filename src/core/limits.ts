// The limits on what callers send, in one place. Schemas and services read them from here.

export const LIMITS = {
  /** Names (lists, subscribers, campaigns, templates, users, roles) and passwords, in UTF-8 bytes: listmonk's 2,000. */
  name: 2000,
  /** The shortest password, in characters (the longest is `name`). */
  passwordMinChars: 8,
  /** A campaign subject, in UTF-8 bytes. */
  subject: 5000,
  /** An e-mail address, in UTF-8 bytes. */
  email: 1000,
  /** A tag, in characters after normalising. */
  tagChars: 100,
  /** The name typed into the public subscription form, in UTF-8 bytes. */
  publicName: 2000,
  /** The name a subscriber sets on the preferences page, in characters. */
  preferencesNameChars: 256,
  /** Data exports a subscriber may have mailed per hour (each mail carries the whole profile, and anyone with a link from a mail can ask). */
  subscriberExportsPerHour: 3,
  /**
   * The tracking pixel and link redirects allow this many times `security.public_rate_limit`
   * per client address (1,200 a minute at the default 60): mail clients and image proxies fetch a
   * pixel for every message opened, and must not be refused.
   */
  trackingRateMultiple: 20,
  /** The most campaigns one archive page, feed or `GET /api/public/archive` renders (`per_page=all` included). */
  archivePageItems: 50,
  /** The longest search of the public archive read, in characters (more is cut). */
  archiveSearchChars: 200,
  /** A media file name, in UTF-8 bytes. */
  mediaName: 200,
  /** The deepest nesting of arrays and objects in JSON a caller sends (listmonk's decoder: 10,000; SQLite's JSON functions: 1,000). */
  jsonDepth: 100,
  /** Largest JSON/form body on ordinary API routes; uploads set their own. */
  apiBodyBytes: 10 * 1024 * 1024,
  /**
   * Largest body of the forms anyone may post (sign-in, password reset, the subscription pages
   * and the public subscription API): a few fields, names and addresses of up to 2,000 bytes,
   * a captcha's proof, and the lists ticked.
   */
  formBodyBytes: 16 * 1024,
  /** What a multipart body carries besides its files: part headers, boundaries, small fields. */
  multipartOverheadBytes: 64 * 1024,
  /** The `source` of a bounce posted to the bounce webhook, in UTF-8 bytes. */
  bounceSource: 200,
  /** Largest bounce webhook body (SendGrid and Event Grid post batches of events). */
  webhookBodyBytes: 10 * 1024 * 1024,
  /** Largest import upload (ZIP or CSV). */
  importUploadBytes: 2 * 1024 ** 3,
  /** The import's `params` form field (a small JSON object). */
  importParamsBytes: 64 * 1024,
  /** An uploaded ZIP may expand to this much in all, each entry at most this many times its compressed size (zip bombs). */
  importUncompressedBytes: 4 * 1024 ** 3,
  importCompressionRatio: 200,
  /**
   * Largest transactional message request: JSON, or multipart with the attachments (at most
   * `txAttachmentsTotalBytes`), the message (`txMessageBytes`) and the multipart overhead.
   */
  txBodyBytes: 25 * 1024 * 1024 + 1024 * 1024 + 64 * 1024,
  /** The JSON message of a multipart tx request (its `data` field). */
  txMessageBytes: 1024 * 1024,
  /**
   * Attachments of a multipart tx request. They are held in memory while the mail is built, so
   * they are bounded in number, per file and in total (25 MB is also about the largest message
   * common mail servers accept).
   */
  txAttachments: 10,
  txAttachmentBytes: 25 * 1024 * 1024,
  txAttachmentsTotalBytes: 25 * 1024 * 1024,
  /**
   * Sends of a campaign failing in a row because the mail server cannot be used as set up
   * (connection refused, DNS, TLS, authentication) before it is paused; their recipients are
   * sent on resume. Deferrals (4xx, dropped connections, timeouts) wait for app.defer_limit.
   */
  campaignConnectionFailures: 3,
  /**
   * How long a request waits for a mail the relay defers (transactional, opt-in, test and data
   * export mails) before it answers; the retries go on in the background (app.defer_limit).
   */
  mailWaitMs: 10_000,
  /** How often the count of opt-in mails that failed for the same cause is logged. */
  optinFailureLogMs: 60_000,
  /**
   * Segment queries (`query`): how deeply subqueries may nest (each level multiplies the rows
   * read), how long one may run on its worker thread, and how many run at once (a further one
   * waits for a thread, at most the deadline, then answers 503).
   */
  segmentSubqueryDepth: 3,
  segmentDeadlineMs: 5000,
  segmentThreads: 2,
} as const;

/** A byte count as people read it: "16 KB", "2.5 MB". */
export function byteSize(bytes: number): string {
  return bytes < 1048576 ? `${Math.round(bytes / 1024)} KB` : `${Math.round((bytes / 1048576) * 10) / 10} MB`;
}
