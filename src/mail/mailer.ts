// All messengers by name, rebuilt from settings on start and on reload:
// "email" (every enabled SMTP server), "email-<name>" per named server when two or more are
// enabled, and postback messengers (added by the delivery module's factory).
// A rebuild retires the old messengers: each is closed once the messages it was handed
// before the rebuild have settled, so saving settings during a send fails nothing.
// Mail other than campaigns (transactional, opt-in, notices, password resets) goes through
// deliver(): a transient failure (a 4xx, a dropped connection, a timeout) is tried again with
// backoff for up to app.defer_limit, not failed at once (docs/decisions.md §97).
import type { Logger } from '../log.ts';
import { LIMITS } from '../core/limits.ts';
import type { Settings } from '../settings/defaults.ts';
import { SmtpMessenger, type SmtpServerSettings } from './smtp.ts';
import { classifySendFailure, deferBackoff, deferLimitMs, NO_MESSENGER, spokenDuration } from './failures.ts';
import type { Messenger, OutgoingMessage } from './types.ts';

/** Why nothing can be sent through the `email` messenger (the one system and opt-in mails use). */
export const NO_SMTP = 'no SMTP server is enabled: set one up in Settings → SMTP';


export type MessengerFactory = (settings: Settings) => Messenger[];

/** A messenger with a count of the sends it has not finished. */
class CountedMessenger {
  private inFlight = 0;
  private closing: Promise<void> | null = null;
  private settled: (() => void) | null = null;

  constructor(readonly messenger: Messenger) {}

  send(msg: OutgoingMessage): Promise<void> {
    this.inFlight++;
    let sent: Promise<void>;
    try {
      sent = this.messenger.send(msg);
    } catch (e) {
      sent = Promise.reject(e);
    }
    return sent.finally(() => {
      if (--this.inFlight === 0) this.settled?.();
    });
  }

  /** Closes the messenger after its in-flight sends settle (at once when there are none). */
  retire(): Promise<void> {
    this.closing ??= (this.inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => (this.settled = r))).then(() => this.messenger.close());
    return this.closing;
  }
}

export class Mailer {
  private messengers = new Map<string, CountedMessenger>();
  /** Old messengers still finishing sends they were given before a rebuild. */
  private readonly retiring = new Set<Promise<void>>();
  private factories: MessengerFactory[] = [];
  /** Sends accepted, failed and deferred (a transient failure: mail/failures.ts) since the start, by messenger (GET /metrics). */
  private readonly tally = new Map<string, { sent: number; failed: number; deferred: number }>();
  /** How long deliver() goes on trying a deferred message (app.defer_limit). */
  private deferLimit = deferLimitMs(undefined);
  /** Waits of deliver() between tries, ended by close(). */
  private readonly backoffs = new Set<() => void>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  /** Extra messenger kinds (postback) register here. */
  addFactory(f: MessengerFactory): void {
    this.factories.push(f);
  }

  rebuild(settings: Settings): void {
    this.deferLimit = deferLimitMs(settings['app.defer_limit']);
    const old = this.messengers;
    const next = new Map<string, CountedMessenger>();
    const smtp = (settings.smtp as SmtpServerSettings[]).filter((s) => s.enabled);
    try {
      if (smtp.length) next.set('email', new CountedMessenger(new SmtpMessenger('email', smtp)));
      if (smtp.length > 1) for (const s of smtp) if (s.name) next.set(s.name, new CountedMessenger(new SmtpMessenger(s.name, [s])));
      for (const f of this.factories) for (const m of f(settings)) next.set(m.name, new CountedMessenger(m));
    } catch (e) {
      this.log.error(`messengers: ${(e as Error).message}`);
    }
    this.messengers = next;
    for (const m of old.values()) {
      const done = m.retire().catch((e: Error) => this.log.error(`closing messenger ${m.messenger.name}: ${e.message}`));
      this.retiring.add(done);
      void done.finally(() => this.retiring.delete(done));
    }
    this.log.info(`messengers ready: ${[...next.keys()].join(', ') || 'none'}`);
    if (!next.has('email')) this.log.warn(`${NO_SMTP}; until then no campaign can be sent by e-mail, and opt-in, notification and password-reset mails are not sent`);
  }

  names(): string[] {
    return [...this.messengers.keys()];
  }

  has(name: string): boolean {
    return this.messengers.has(name);
  }

  /** Why messages cannot be sent through `name`, or null when they can. */
  unavailable(name: string): string | null {
    if (this.messengers.has(name)) return null;
    return name === 'email' ? NO_SMTP : `messenger "${name}" is not configured`;
  }

  send(messenger: string, msg: OutgoingMessage): Promise<void> {
    const m = this.messengers.get(messenger);
    if (!m) return Promise.reject(Object.assign(new Error(this.unavailable(messenger)!), { code: NO_MESSENGER }));
    let counts = this.tally.get(messenger);
    if (!counts) this.tally.set(messenger, (counts = { sent: 0, failed: 0, deferred: 0 }));
    const n = counts;
    return m.send(msg).then(() => void n.sent++, (e: unknown) => {
      if (classifySendFailure(e) === 'transient') n.deferred++;
      else n.failed++;
      throw e;
    });
  }

  /**
   * send() of `what` ("tx message to 5", for the log), tried again after a transient failure with backoff (1 s doubling) until the message
   * goes through or it has been deferred for app.defer_limit. Throws a failure that is not
   * transient at once, the last transient one when the limit passes or the mailer closes.
   */
  async deliver(messenger: string, msg: OutgoingMessage, what: string): Promise<void> {
    const since = Date.now();
    for (let n = 1; ; n++) {
      try {
        return await this.send(messenger, msg);
      } catch (e) {
        if (this.closed || classifySendFailure(e) !== 'transient') throw e;
        const wait = deferBackoff(n, this.deferLimit);
        if (Date.now() + wait - since > this.deferLimit) {
          throw Object.assign(new Error(`deferred for longer than ${spokenDuration(this.deferLimit)}; last: ${(e as Error).message}`), { cause: e });
        }
        if (n === 1) this.log.warn(`${what}: deferred by the mail server (${(e as Error).message}); trying again with backoff`);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.backoffs.delete(done);
            resolve();
          };
          const timer = setTimeout(done, wait);
          this.backoffs.add(done);
        });
        if (this.closed) throw e;
      }
    }
  }

  /**
   * deliver(), waited for at most LIMITS.mailWaitMs (a request should not hang while a relay
   * defers): 'sent' once the message went through, 'deferred' when it is still being tried
   * then; its outcome is logged later as `what` ("tx message to 5"), a failure through `late`
   * when given. Throws a failure within the wait.
   */
  async deliverWithin(messenger: string, msg: OutgoingMessage, what: string, late?: (e: Error) => void): Promise<'sent' | 'deferred'> {
    const delivery = this.deliver(messenger, msg, what);
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      delivery.then(() => 'sent' as const),
      new Promise<'deferred'>((resolve) => (timer = setTimeout(() => resolve('deferred'), LIMITS.mailWaitMs))),
    ]).finally(() => clearTimeout(timer));
    if (waited === 'deferred') {
      this.log.warn(`${what}: still deferred by the mail server after ${LIMITS.mailWaitMs / 1000} s; tried again in the background`);
      delivery.then(
        () => this.log.info(`${what}: sent after the mail server deferred it`),
        (e: Error) => (late ? late(e) : this.log.error(`${what} failed: ${e.message}`)),
      );
    }
    return waited;
  }

  /** Sends accepted, failed and deferred since the start, by messenger. */
  outcomes(): ReadonlyMap<string, { readonly sent: number; readonly failed: number; readonly deferred: number }> {
    return this.tally;
  }

  /** Closes every messenger once its in-flight sends settle (shutdown, after the senders stopped). */
  async close(): Promise<void> {
    this.closed = true;
    for (const end of [...this.backoffs]) end();
    const current = [...this.messengers.values()];
    this.messengers.clear();
    await Promise.all([...current.map((m) => m.retire()), ...this.retiring]);
  }
}
