// What a subscriber does for themselves, from the public form and the links in our mails:
// subscribe, confirm an opt-in, unsubscribe or blocklist, save preferences, have their data
// mailed, wipe it. The public pages (public/routes.ts) parse the request, call one method and
// word the answer; the rules, the privacy switches and the writes are here. Holding the UUID of
// a link is the check, as in listmonk, so the subscriber a link names is authorised for changes.
// A change that writes twice (an unsubscribe and its campaign note) is one transaction.
import type { AppContext } from '../context.ts';
import { authorize, type Authorized } from '../core/authz.ts';
import { denied, invalid } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { templateCatalog, translate } from '../i18n/index.ts';
import { loggedIds } from '../log.ts';
import type { ListRow, ListStore } from '../lists/store.ts';
import type { AttemptLimiter } from '../users/attempts.ts';
import { domainRules, nameFromEmail, validateEmail } from '../mail/address.ts';
import { sendOptinQuietly } from './optin.ts';
import { exportableSections } from './service.ts';
import type { SubscriberRow, SubscriberStore, Subscription } from './store.ts';

/** The subscriber a link names. */
export type LinkedSubscriber = SubscriberRow & { id: Authorized<number> };

/** What the privacy settings let a subscriber do from the unsubscribe and preferences pages. */
export interface SelfServiceRights {
  blocklist: boolean;
  export: boolean;
  wipe: boolean;
  preferences: boolean;
}

export interface PublicSubscription {
  email: unknown;
  /** Empty or absent: the address's local part. */
  name?: string;
  listUuids: string[];
}

/** Where a confirmation came from, recorded when privacy.record_optin_ip allows. */
export interface OptinClient {
  address: string;
  userAgent: string;
}

/**
 * A request the settings or the rules refuse: `off` (the privacy setting disables it),
 * `too-many` (exports asked for too often), `name-length` (the preferences' name). The pages
 * word it in the subscriber's language.
 */
export class SelfServiceRefusal extends Error {
  constructor(readonly reason: 'off' | 'too-many' | 'name-length') {
    super(`self-service refused: ${reason}`);
  }
}

export class SubscriberSelfService {
  constructor(
    private readonly ctx: AppContext,
    private readonly subscribers: SubscriberStore,
    private readonly lists: ListStore,
    /** Data exports mailed per subscriber: anyone with a link from a mail can ask. */
    private readonly exports: AttemptLimiter,
  ) {}

  /**
   * The subscriber a link in one of our mails names by UUID; null when there is none. Holding
   * the UUID is the check, as in listmonk, so the id comes back authorised for changes.
   */
  byLink(uuid: string): LinkedSubscriber | null {
    const held = uuid.toLowerCase();
    const row = this.subscribers.rowByUuid(held);
    return row ? { ...row, id: authorize(row.id, () => row.uuid === held, () => denied("permission denied: not this subscriber's link")) } : null;
  }

  /** The lists anyone may join: public and active. */
  publicLists(): ListRow[] {
    return this.lists.publicLists();
  }

  rights(): SelfServiceRights {
    const { settings } = this.ctx;
    return {
      blocklist: settings.bool('privacy.allow_blocklist'), export: settings.bool('privacy.allow_export'),
      wipe: settings.bool('privacy.allow_wipe'), preferences: settings.bool('privacy.allow_preferences'),
    };
  }

  // Subscribing and opting in ---------------------------------------------------------------

  /**
   * The one subscription path of the public API and the form. `hasOptin` is derived from the
   * request alone, so the answer is the same for new and known addresses.
   */
  async subscribe(input: PublicSubscription): Promise<{ hasOptin: boolean }> {
    if (!input.listUuids.length) throw invalid('no lists given: choose one or more lists');
    const address = validateEmail(input.email, domainRules(this.ctx.settings));
    const name = input.name || nameFromEmail(address, 'local');
    // Only public, active lists can be joined here; unknown, private and archived UUIDs (and
    // strings that are no UUID at all, which match no list) are ignored.
    const lists = this.lists.rowsByUuids(input.listUuids.map((u) => u.toLowerCase()))
      .filter((l) => l.type === 'public' && l.status === 'active');
    if (!lists.length) throw invalid('none of the given lists can be subscribed to');
    const ids = lists.map((l) => l.id);
    const { id } = this.subscribers.subscribePublic(address, name, ids);
    await sendOptinQuietly(this.ctx, this.subscribers, id, ids);
    return { hasOptin: this.ctx.settings.bool('app.send_optin_confirmation') && lists.some((l) => l.optin === 'double') };
  }

  /** The unconfirmed subscriptions among the lists an opt-in link names (lowercase UUIDs; none: any list). */
  pendingOptin(sub: LinkedSubscriber, listUuids: string[]): ListRow[] {
    return this.subscribers.pendingConfirmation(sub.id, listUuids);
  }

  /**
   * Whether a second click on an opt-in link finds its lists confirmed: any of the lists it
   * names (any list, for a link naming none); never for a blocklisted subscriber.
   */
  alreadyConfirmed(sub: LinkedSubscriber, listUuids: string[]): boolean {
    if (sub.status === 'blocklisted') return false;
    return (this.subscribers.get(sub.id)?.lists ?? [])
      .some((l) => l.subscription_status === 'confirmed' && (!listUuids.length || listUuids.includes(l.uuid.toLowerCase())));
  }

  /**
   * Confirms the pending subscriptions among the named lists (as pendingOptin), recording when
   * and, if privacy.record_optin_ip allows, from where (`client` is asked only then). Reading
   * them and confirming them is one transaction. Returns the lists confirmed (none: nothing was pending).
   */
  confirm(sub: LinkedSubscriber, listUuids: string[], client: () => OptinClient): ListRow[] {
    return this.ctx.db.transaction(() => {
      const pending = this.subscribers.pendingConfirmation(sub.id, listUuids);
      if (pending.length) this.subscribers.confirm(sub.id, pending.map((l) => l.id), this.optinEvidence(client));
      return pending;
    }).immediate();
  }

  private optinEvidence(client: () => OptinClient): Record<string, string> {
    const evidence: Record<string, string> = { confirmed_at: new Date().toISOString() };
    if (this.ctx.settings.bool('privacy.record_optin_ip')) {
      const { address, userAgent } = client();
      evidence.optin_ip = address;
      evidence.optin_user_agent = userAgent.slice(0, 500);
    }
    return evidence;
  }

  // Leaving ---------------------------------------------------------------------------------

  /**
   * Unsubscribes from the campaign's lists; for opt-in mails (zero UUID) or unknown campaigns,
   * from every list. A subscription it ended is noted for the campaign's analytics, in the same
   * transaction. `fromCampaign`: the campaign named lists.
   */
  unsubscribe(sub: LinkedSubscriber, campaignUuid: string): { fromCampaign: boolean } {
    const campaign = campaignUuid.toLowerCase();
    const lists = this.ctx.db.transaction(() => {
      const ofCampaign = this.subscribers.campaignLists(campaign);
      const ended = this.subscribers.unsubscribe(sub.id, ofCampaign.length ? ofCampaign : null, campaign);
      if (ended > 0) this.subscribers.noteCampaignUnsubscribe(sub.id, campaign);
      return ofCampaign;
    }).immediate();
    this.ctx.log.info(`subscriber ${sub.id} unsubscribed from ${lists.length ? loggedIds('list', lists) : 'every list'} (source: unsubscribe link, campaign ${campaignUuid})`);
    return { fromCampaign: lists.length > 0 };
  }

  /**
   * Blocklists the subscriber (every subscription ended) when privacy.allow_blocklist allows,
   * noting the campaign the first time, in one transaction. False, and nothing changes, when the
   * setting is off (the unsubscribe form then unsubscribes).
   */
  blocklist(sub: LinkedSubscriber, campaignUuid: string): boolean {
    if (!this.rights().blocklist) return false;
    const campaign = campaignUuid.toLowerCase();
    this.ctx.db.transaction(() => {
      this.subscribers.blocklist([sub.id], {}, campaign);
      if (sub.status !== 'blocklisted') this.subscribers.noteCampaignUnsubscribe(sub.id, campaign);
    }).immediate();
    this.ctx.log.info(`subscriber ${sub.id} blocklisted (source: unsubscribe page, campaign ${campaignUuid})`);
    return true;
  }

  // Preferences and personal data -------------------------------------------------------------

  /** The subscriptions the preferences page offers: not private, not unsubscribed. */
  preferenceLists(sub: LinkedSubscriber): Subscription[] {
    return this.subscribers.get(sub.id)?.lists.filter((l) => l.type !== 'private' && l.subscription_status !== 'unsubscribed') ?? [];
  }

  /** A new name (1 to LIMITS.preferencesNameChars characters) and the non-private lists to stay on (lowercase UUIDs); the others are unsubscribed. */
  savePreferences(sub: LinkedSubscriber, name: string, keepUuids: string[]): void {
    if (!this.rights().preferences) throw new SelfServiceRefusal('off');
    const chars = [...name].length;
    if (chars < 1 || chars > LIMITS.preferencesNameChars) throw new SelfServiceRefusal('name-length');
    this.subscribers.savePreferences(sub.id, name, keepUuids);
    this.ctx.log.info(`subscriber ${sub.id} saved their preferences (source: preferences page), keeping ${keepUuids.length} list(s)`);
  }

  /** Mails the subscriber their data (the sections privacy.exportable names), a few times an hour at most. */
  async mailExport(sub: LinkedSubscriber): Promise<void> {
    if (!this.rights().export) throw new SelfServiceRefusal('off');
    if (this.exports.blocked(sub.uuid)) throw new SelfServiceRefusal('too-many');
    this.exports.record(sub.uuid);
    const data = this.subscribers.exportData(sub.id, exportableSections(this.ctx));
    // In the subscriber language, as the opt-in mail.
    const L = templateCatalog(this.ctx.settings.str('app.lang')).messages;
    await this.ctx.mailer.deliverWithin('email', {
      from: this.ctx.settings.str('app.from_email'), to: [sub.email], subject: translate(L, 'email.data.title'), text: translate(L, 'email.data.info'),
      attachments: [{ filename: 'data.json', content: Buffer.from(JSON.stringify(data, null, 2)), contentType: 'application/json' }],
    }, `data export mail to subscriber ${sub.id}`);
  }

  /** Refuses unless privacy.allow_wipe allows (the page asks before `wipe`). */
  assertWipeAllowed(): void {
    if (!this.rights().wipe) throw new SelfServiceRefusal('off');
  }

  /** Deletes the subscriber with their subscriptions and bounces, in one transaction. */
  wipe(sub: LinkedSubscriber): void {
    this.assertWipeAllowed();
    this.subscribers.delete([sub.id]);
  }
}
