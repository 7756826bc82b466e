// The bounce domain of one running app: the store, the SNS verifier (certificate fetcher
// injectable), the mailbox scheduler, and recording with the actions currently configured.
import type { AppContext } from '../context.ts';
import { badRequest } from '../http/errors.ts';
import { parseBounceMail } from './dsn.ts';
import { activeMailbox, MailboxScheduler } from './mailbox.ts';
import { PROVIDERS, type ProviderRequest } from './providers.ts';
import { SnsVerifier } from './sns.ts';
import type { BounceActions, BounceInput, BounceStore, RecordOutcome } from './store.ts';

const DONE = { blocklist: 'blocklisted', unsubscribe: 'unsubscribed from all lists', delete: 'deleted' } as const;

export class BounceService {
  readonly sns = new SnsVerifier();
  readonly scheduler: MailboxScheduler;

  constructor(private readonly ctx: AppContext, readonly store: BounceStore) {
    this.scheduler = new MailboxScheduler(ctx.settings, ctx.log, (raw) => this.recordMail(raw));
  }

  /** Records one bounce with the current bounce.actions (one transaction). */
  record(b: BounceInput): RecordOutcome {
    const out = this.store.record(b, this.ctx.settings.get<BounceActions>('bounce.actions'));
    if (out.subscriberId === null) this.ctx.log.info(`bounce (${b.source}, ${b.type}) for an unknown subscriber ignored`);
    else if (out.action !== 'none') this.ctx.log.info(`bounce (${b.source}, ${b.type}): subscriber ${out.subscriberId} ${DONE[out.action]}`);
    return out;
  }

  /**
   * A provider's notification (POST /webhooks/service/:name): authenticated and recorded in one
   * transaction; returns the provider's reply body, or null for the usual `{"data": true}`.
   */
  async receive(name: string, req: ProviderRequest): Promise<Record<string, string> | null> {
    const provider = Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name] : undefined;
    if (!provider?.enabled(this.ctx.settings)) throw badRequest(`unknown or disabled bounce service "${name}"`);
    const { bounces, reply } = await provider.receive(req, this.ctx.settings, this.sns);
    this.ctx.db.transaction(() => {
      for (const b of bounces) this.record(b);
    }).immediate();
    return reply ?? null;
  }

  /** A message from the bounce mailbox: true when it was a bounce (recorded, to be deleted). */
  private async recordMail(raw: Buffer): Promise<boolean> {
    const parsed = await parseBounceMail(raw);
    if (!parsed) return false;
    this.record({
      email: parsed.email || undefined,
      subscriberUuid: parsed.subscriberUuid || undefined,
      campaignUuid: parsed.campaignUuid || undefined,
      type: parsed.type,
      source: activeMailbox(this.ctx.settings)?.host ?? 'mailbox',
      meta: parsed.meta,
    });
    return true;
  }
}
