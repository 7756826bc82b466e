// The bounce domain of one running app: the store, the SNS verifier (certificate fetcher
// injectable), the mailbox scheduler, recording with the actions currently configured, and who
// may read or remove bounce records (bounces:get, bounces:manage).
import type { AppContext } from '../context.ts';
import { denied, invalid, notFound, unavailable } from '../core/errors.ts';
import type { Paging } from '../core/paging.ts';
import { authorize, can, type Actor, type Authorized, type Permission } from '../core/authz.ts';
import { parseBounceMail } from './dsn.ts';
import { activeMailbox, MailboxScheduler, type ScanRecord } from './mailbox.ts';
import { NotConfigured, PROVIDERS, type ProviderRequest } from './providers.ts';
import { SnsVerifier } from './sns.ts';
import type { Bounce, BounceActions, BounceFilter, BounceInput, BounceStore, RecordOutcome } from './store.ts';

// What callers (routes, pages) use of a bounce, without reaching the store.
export { BOUNCE_ORDER_COLUMNS, BOUNCE_TYPES, type Bounce, type BounceType } from './store.ts';

const DONE = { blocklist: 'blocklisted', unsubscribe: 'unsubscribed from all lists', delete: 'deleted' } as const;

export interface BounceQueryInput extends BounceFilter {
  /** An ORDER BY column from BOUNCE_ORDER_COLUMNS. */
  orderBy: string;
  order: 'ASC' | 'DESC';
  paging: Paging;
}

export class BounceService {
  readonly sns = new SnsVerifier();
  readonly scheduler: MailboxScheduler;

  constructor(private readonly ctx: AppContext, private readonly store: BounceStore) {
    this.scheduler = new MailboxScheduler(ctx.settings, ctx.log, (raw) => this.recordMail(raw));
  }

  /** A page of bounce records, with the total. */
  query(actor: Actor, q: BounceQueryInput): { results: Bounce[]; total: number } {
    this.require(actor, 'bounces:get');
    return this.store.query({ campaignId: q.campaignId, source: q.source, type: q.type }, q.paging, q.orderBy, q.order);
  }

  get(actor: Actor, id: number): Bounce {
    this.require(actor, 'bounces:get');
    const b = this.store.get(id);
    if (!b) throw notFound('bounce not found');
    return b;
  }

  delete(actor: Actor, id: number): void {
    if (!this.store.delete(this.authorize(actor, id))) throw notFound('bounce not found');
  }

  /** Deletes the bounces with these ids, or every bounce. */
  deleteMany(actor: Actor, by: { ids: number[]; all: boolean }): void {
    this.require(actor, 'bounces:manage');
    if (!by.all && !by.ids.length) throw invalid('give bounce ids (?id=1&id=2) or all=true');
    const n = by.all ? this.store.deleteAll() : this.store.deleteMany(by.ids.map((id) => this.authorize(actor, id)));
    this.ctx.log.info(`${n} bounce(s) deleted by ${actor.username}`);
  }

  /** Blocklists every subscriber with a bounce record (and unsubscribes them from every list). */
  blocklistBounced(actor: Actor): void {
    this.require(actor, 'bounces:manage');
    const n = this.store.blocklistBounced();
    this.ctx.log.info(`${n} bounced subscriber(s) blocklisted by ${actor.username}`);
  }

  /** The last scan of the bounce mailbox since the server started (null before the first). */
  lastScan(actor: Actor): ScanRecord | null {
    this.requireAny(actor, ['bounces:get', 'settings:get']);
    return this.scheduler.lastScan();
  }

  /** Scans the bounce mailbox now (the saved settings); a failing mailbox is a record with its error, not a refusal. */
  async scanNow(actor: Actor): Promise<ScanRecord> {
    this.requireAny(actor, ['bounces:manage', 'settings:manage']);
    if (!activeMailbox(this.ctx.settings)) {
      throw invalid('no bounce mailbox to scan: turn on bounce processing (bounce.enabled) and enable the mailbox (bounce.mailboxes), then save');
    }
    this.ctx.log.info(`bounce mailbox scan started by ${actor.username}`);
    await this.scheduler.scanNow().catch(() => null); // the failure is in the record (and the log)
    const last = this.scheduler.lastScan();
    if (!last) throw invalid('no bounce mailbox to scan: the settings changed during the scan');
    return last;
  }

  /** A bounce posted to POST /webhooks/bounce by a caller with webhooks:post_bounce. */
  recordPosted(actor: Actor, b: BounceInput): RecordOutcome {
    this.require(actor, 'webhooks:post_bounce');
    this.assertProcessing();
    return this.record(b);
  }

  /** Records one bounce with the current bounce.actions (one transaction). */
  private record(b: BounceInput): RecordOutcome {
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
    this.assertProcessing();
    const provider = Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name] : undefined;
    if (!provider?.enabled(this.ctx.settings)) throw invalid(`unknown or disabled bounce service "${name}"`);
    let result;
    try {
      result = await provider.receive(req, this.ctx.settings, this.sns);
    } catch (e) {
      if (e instanceof NotConfigured) this.ctx.log.warn(`bounce webhook ${name}: ${e.message}`);
      throw e;
    }
    const { bounces, reply } = result;
    this.ctx.db.transaction(() => {
      for (const b of bounces) this.record(b);
    }).immediate();
    return reply ?? null;
  }

  /** bounce.enabled is the master switch (read at each request): off, the webhooks answer 503. */
  private assertProcessing(): void {
    if (!this.ctx.settings.bool('bounce.enabled')) throw unavailable('bounce processing is disabled (bounce.enabled)');
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

  private require(actor: Actor, permission: Permission): void {
    if (!can(actor, permission)) throw denied(`permission denied: ${permission}`);
  }

  private requireAny(actor: Actor, permissions: Permission[]): void {
    if (!permissions.some((p) => can(actor, p))) throw denied(`permission denied: ${permissions.join(' or ')}`);
  }

  private authorize(actor: Actor, id: number): Authorized<number> {
    return authorize(id, () => can(actor, 'bounces:manage'), () => denied('permission denied: bounces:manage'));
  }
}
