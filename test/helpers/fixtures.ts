// Test data builders: `fixtures(db)` writes a list, a subscriber, a campaign in a state, a role,
// an API user, a template, a tracked link with its views and clicks, or a bounce, each with sane
// defaults, and returns what a test goes on to use (the id, the uuid, the credentials).
// Rows are written through the product's own stores where one gives the row a test needs; the
// few states no store reaches (a campaign forced into a status, a subscription per list status,
// a view or click on a past day, a session or reset link whose time is up) are written here, so
// that SQL lives in one place.
import { randomUUID } from 'node:crypto';
import type { DB } from '../../src/db/connection.ts';
import { authorize, type ListPermission, type Permission } from '../../src/core/authz.ts';
import { ListStore, type List, type ListFields } from '../../src/lists/store.ts';
import { EventLog } from '../../src/events/log.ts';
import type { SubscriberStatus, SubscriptionStatus } from '../../src/subscribers/store.ts';
import { CampaignStore, type CampaignFields, type CampaignStatus } from '../../src/campaigns/store.ts';
import { TemplateStore, type TemplateInput } from '../../src/templates/store.ts';
import { TrackingStore } from '../../src/tracking/store.ts';
import { BounceStore } from '../../src/bounces/store.ts';
import { UserStore, type UserStatus } from '../../src/users/store.ts';
import { sha256Hex } from '../../src/users/secrets.ts';

export interface Seeded {
  id: number;
  uuid: string;
}

export interface SubscriberSpec {
  email?: string;
  name?: string;
  status?: SubscriberStatus;
  attribs?: Record<string, unknown>;
  uuid?: string;
  /** Lists to subscribe to: an id (confirmed), or [id, status] and, to date it, the subscription's time. */
  lists?: (number | [number, SubscriptionStatus] | [number, SubscriptionStatus, string])[];
}

/** What a campaign can be forced into: the sending engine's counters and timestamps. */
export interface CampaignState {
  status?: CampaignStatus;
  status_reason?: string;
  to_send?: number;
  sent?: number;
  failed?: number;
  started_at?: string | null;
  created_at?: string;
}

export type CampaignSpec = Partial<CampaignFields> & CampaignState & { uuid?: string; lists?: number[] };

export interface ApiUserSpec {
  /** The user role's permissions (a role named after the user); or `roleId` of an existing one. */
  permissions?: Permission[];
  roleId?: number;
  /** A list role over these lists, each with `listPermissions` (default list:get and list:manage); or `listRoleId` of an existing one. */
  lists?: number[];
  listRoleId?: number;
  listPermissions?: ListPermission[];
  /** The list role's name; the user's name by default. */
  listRoleName?: string;
  status?: UserStatus;
}

export interface BounceSpec {
  subscriber: number;
  campaign?: number | null;
  type?: 'soft' | 'hard' | 'complaint';
  source?: string;
  meta?: Record<string, unknown>;
}

const STATE_COLUMNS = ['status', 'status_reason', 'to_send', 'sent', 'failed', 'started_at', 'created_at'] as const;

let counter = 0;
/** A name no other fixture of this process has taken. */
const unique = (prefix: string) => `${prefix}-${++counter}`;

function campaignFields(spec: CampaignSpec): CampaignFields {
  const name = spec.name ?? unique('Campaign');
  return {
    name, subject: spec.subject ?? name, from_email: spec.from_email ?? 'news@example.org', body: spec.body ?? '',
    body_source: spec.body_source ?? null, altbody: spec.altbody ?? null, content_type: spec.content_type ?? 'richtext',
    send_at: spec.send_at ?? null, headers: spec.headers ?? [], attribs: spec.attribs ?? {}, tags: spec.tags ?? [],
    type: spec.type ?? 'regular', messenger: spec.messenger ?? 'email', template_id: spec.template_id ?? null,
    archive: spec.archive ?? false, archive_slug: spec.archive_slug ?? null, archive_template_id: spec.archive_template_id ?? null,
    archive_meta: spec.archive_meta ?? {}, track_links: spec.track_links ?? false,
  };
}

export function fixtures(db: DB) {
  const users = () => new UserStore(db);

  /** A user role holding `permissions`; returns its id. */
  function role(permissions: Permission[], name = unique('role')): number {
    return users().createUserRole(name, permissions).id;
  }

  /** A list role granting `permissions` on each of `lists`; returns its id. */
  function listRole(lists: number[], permissions: ListPermission[] = ['list:get', 'list:manage'], name = unique('list-role')): number {
    return users().createListRole(name, lists.map((id) => ({ id, permissions }))).id;
  }

  /** Moves a campaign where only the sending engine (or time) would take it. */
  function forceCampaign(id: number, state: CampaignState): void {
    const cols = STATE_COLUMNS.filter((c) => state[c] !== undefined);
    if (!cols.length) return;
    db.prepare(`UPDATE campaigns SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`)
      .run({ id, ...Object.fromEntries(cols.map((c) => [c, state[c]])) });
  }

  return {
    list(f: Partial<ListFields> = {}): List {
      return new ListStore(db, new EventLog(db)).create({ name: unique('List'), type: 'private', optin: 'single', status: 'active', tags: [], description: '', ...f });
    },

    /** The store subscribes to every list with one status and now; a test often needs one per list, or a past one. */
    subscriber(f: SubscriberSpec = {}): Seeded {
      const uuid = f.uuid ?? randomUUID();
      const email = f.email ?? `${unique('reader')}@example.com`;
      const id = Number(db.prepare('INSERT INTO subscribers (uuid, email, name, attribs, status) VALUES (?, ?, ?, ?, ?)')
        .run(uuid, email, f.name ?? email, JSON.stringify(f.attribs ?? {}), f.status ?? 'enabled').lastInsertRowid);
      const subscribe = db.prepare('INSERT INTO subscriber_lists (subscriber_id, list_id, status, created_at) VALUES (?, ?, ?, ?)');
      for (const l of f.lists ?? []) {
        const [list, status, at = new Date().toISOString()] = typeof l === 'number' ? [l, 'confirmed'] : l;
        subscribe.run(id, list, status, at);
      }
      return { id, uuid };
    },

    /** A campaign on `lists`, then forced into the given state (status, counters, timestamps). */
    campaign(spec: CampaignSpec = {}): Seeded {
      const uuid = spec.uuid ?? randomUUID();
      const id = new CampaignStore(db).insert(uuid, campaignFields(spec), spec.lists ?? [], []);
      forceCampaign(id, spec);
      return { id, uuid };
    },

    /** Forces an existing campaign (one made through the API, say) into a state. */
    campaignState: forceCampaign,

    role,
    listRole,

    /** Adds `lists` to a list role's grants, keeping those it has. */
    grant(listRoleId: number, lists: number[], permissions: ListPermission[] = ['list:get', 'list:manage']): void {
      const store = users();
      const current = store.listRole(listRoleId);
      const kept = current?.lists.map((l) => ({ id: l.id, permissions: l.permissions as ListPermission[] })) ?? [];
      // A fixture is the test's own set-up, with no caller: the check is that the list role exists.
      const checked = authorize(listRoleId, () => current !== undefined, (id) => new Error(`no list role ${id}`));
      store.updateListRole(checked, current!.name, [...kept, ...lists.map((id) => ({ id, permissions }))]);
    },

    /** An API user with a user role and, with `lists`, a list role; returns its "name:token". */
    apiUser(name: string, spec: ApiUserSpec = {}): string {
      const userRoleId = spec.roleId ?? role(spec.permissions ?? [], name);
      const listRoleId = spec.listRoleId ?? (spec.lists ? listRole(spec.lists, spec.listPermissions, spec.listRoleName ?? name) : null);
      const { token } = users().createUser({ username: name, type: 'api', status: spec.status ?? 'enabled', userRoleId, listRoleId });
      return `${name}:${token}`;
    },

    template(f: Partial<TemplateInput> = {}): number {
      const name = f.name ?? unique('Template');
      return new TemplateStore(db).create({ name, type: 'campaign', subject: name, body: '{{ template "content" . }}', bodySource: null, ...f }).id;
    },

    /** A tracked URL, registered as a send registers it. */
    link(url: string): Seeded {
      const tracking = new TrackingStore(db);
      const uuid = tracking.linkUuid(url);
      return { id: tracking.link(uuid)!.id, uuid };
    },

    /** A campaign view, now or at `at` (an ISO time: the store records only now). */
    view(campaign: number, subscriber: number | null, at = new Date().toISOString()): void {
      db.prepare('INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES (?, ?, ?)').run(campaign, subscriber, at);
    },

    /** A link click, now or at `at` (an ISO time: the store records only now). */
    click(campaign: number | null, link: number, subscriber: number | null, at = new Date().toISOString()): void {
      db.prepare('INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES (?, ?, ?, ?)').run(campaign, link, subscriber, at);
    },

    /** A bounce as recorded, without the actions recording one takes (blocklisting and the like). */
    bounce(b: BounceSpec): number {
      return Number(db.prepare('INSERT INTO bounces (subscriber_id, campaign_id, type, source, meta) VALUES (?, ?, ?, ?, ?)')
        .run(b.subscriber, b.campaign ?? null, b.type ?? 'hard', b.source ?? 'api', JSON.stringify(b.meta ?? {})).lastInsertRowid);
    },

    /** Dates a session's last use (the cookie's value) `msAgo` back: an idle session without the wait. */
    sessionUsed(session: string, msAgo: number): void {
      db.prepare('UPDATE sessions SET last_used_at = ? WHERE id = ?').run(new Date(Date.now() - msAgo).toISOString(), sha256Hex(session));
    },

    /** Ends a session's lifetime (the cookie's value) a second ago: an expired session without the wait. */
    expireSession(session: string): void {
      db.prepare('UPDATE sessions SET expires_at = ? WHERE id = ?').run(new Date(Date.now() - 1000).toISOString(), sha256Hex(session));
    },

    /** Ends every password reset link's lifetime a second ago. */
    expirePasswordResets(): void {
      db.prepare('UPDATE password_resets SET expires_at = ?').run(new Date(Date.now() - 1000).toISOString());
    },

    /** Forgets the last TOTP step a user signed in with, so this period's code counts again (no 30 s wait). */
    forgetTotpStep(userId: number): void {
      db.prepare('UPDATE users SET totp_last_step = 0 WHERE id = ?').run(userId);
    },

    /** Removes every bounce, so a test starts from none. */
    clearBounces(): void {
      new BounceStore(db).deleteAll();
    },
  };
}
