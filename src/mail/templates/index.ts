// Sources of the system e-mails (opt-in confirmation, admin notices, password reset).
// Go template syntax for the html engine with the system function set (RootURL, LogoURL,
// Date, L, Safe + Sprig). base.html defines "header" and "footer"; every other file defines
// one template named like the file, which the caller executes after parsing all sources
// into one set. No plain-text twins: the mailer derives the text part from the HTML.
import { readAppFile } from '../../paths.ts';

export const SYSTEM_MAIL_TEMPLATES = ['base', 'optin', 'campaign-status', 'import-status', 'forgot-password'] as const;
export type SystemMailTemplate = (typeof SYSTEM_MAIL_TEMPLATES)[number];

/** The data each system mail template expects (field names as the templates use them). */
export interface SystemMailData {
  optin: { Subscriber: { Name: string; Email: string; UUID: string }; Lists: Array<{ Name: string }>; OptinURL: string };
  'campaign-status': { ID: number; Name: string; Status: string; Sent: number; ToSend: number; Reason: string };
  'import-status': { Name: string; Status: string; Imported: number; Total: number };
  'forgot-password': { Username: string; ResetURL: string };
}

/** Reads every system mail template source from the checkout, keyed by name. */
export function loadSystemMailTemplates(): Record<SystemMailTemplate, string> {
  return Object.fromEntries(
    SYSTEM_MAIL_TEMPLATES.map((name) => [name, readAppFile(`src/mail/templates/${name}.html`)]),
  ) as Record<SystemMailTemplate, string>;
}
