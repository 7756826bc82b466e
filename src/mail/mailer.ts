// All messengers by name, rebuilt from settings on start and on reload:
// "email" (every enabled SMTP server), "email-<name>" per named server when two or more are
// enabled, and postback messengers (added by the delivery module's factory).
import type { Logger } from '../log.ts';
import type { Settings } from '../settings/defaults.ts';
import { SmtpMessenger, type SmtpServerSettings } from './smtp.ts';
import type { Messenger, OutgoingMessage } from './types.ts';

export type MessengerFactory = (settings: Settings) => Messenger[];

export class Mailer {
  private messengers = new Map<string, Messenger>();
  private factories: MessengerFactory[] = [];

  constructor(private readonly log: Logger) {}

  /** Extra messenger kinds (postback) register here. */
  addFactory(f: MessengerFactory): void {
    this.factories.push(f);
  }

  rebuild(settings: Settings): void {
    const old = this.messengers;
    const next = new Map<string, Messenger>();
    const smtp = (settings.smtp as SmtpServerSettings[]).filter((s) => s.enabled);
    try {
      if (smtp.length) next.set('email', new SmtpMessenger('email', smtp));
      if (smtp.length > 1) for (const s of smtp) if (s.name) next.set(s.name, new SmtpMessenger(s.name, [s]));
      for (const f of this.factories) for (const m of f(settings)) next.set(m.name, m);
    } catch (e) {
      this.log.error(`messengers: ${(e as Error).message}`);
    }
    this.messengers = next;
    for (const m of old.values()) void m.close();
    this.log.info(`messengers ready: ${[...next.keys()].join(', ') || 'none'}`);
  }

  names(): string[] {
    return [...this.messengers.keys()];
  }

  has(name: string): boolean {
    return this.messengers.has(name);
  }

  send(messenger: string, msg: OutgoingMessage): Promise<void> {
    const m = this.messengers.get(messenger);
    if (!m) return Promise.reject(new Error(`unknown messenger "${messenger}"`));
    return m.send(msg);
  }

  async close(): Promise<void> {
    await Promise.all([...this.messengers.values()].map((m) => m.close()));
    this.messengers.clear();
  }
}
