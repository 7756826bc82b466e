// List rules and who may see or change which list: reads are limited to the lists the actor's
// role grants, changes to the ones it may manage. Routes pass the actor and typed input.
import { invalid, denied, notFound } from '../core/errors.ts';
import { authorize, authorizeEach, can, permittedLists, type Actor, type Authorized } from '../core/authz.ts';
import type { List, ListFields, ListQuery, ListStore, OptinCounts } from './store.ts';

// What callers (routes, pages) use of a list, without reaching the store.
export { LIST_ORDER_COLUMNS, type List, type OptinCounts } from './store.ts';

/** A listing as a caller asks for it: the store's query, less what the service decides. */
export interface ListQueryInput extends Omit<ListQuery, 'visible' | 'words'> {
  /** Words that must all occur in the name. */
  search: string;
}

/** What a PUT may change; absent or empty fields keep the stored value. */
export type ListChanges = Partial<ListFields>;

/** The words of a list search: every word must occur in the name. */
function searchWords(q: string): string[] {
  return q.trim().split(/\s+/).filter((w) => w !== '');
}

/** What the list rules need of the sending engine, which sends the queued opt-in mails. */
export interface OptinSender {
  /** Why opt-in mails cannot be sent now (no SMTP server enabled), or null. */
  optinsUnavailable(): string | null;
  /** Send the queued opt-in mails now rather than at the next scan. */
  wake(): void;
}

export class ListService {
  constructor(private readonly store: ListStore, private readonly optins: OptinSender) {}

  /** Whether the actor may see at least one list (every list, or some through the list role). */
  seesAny(actor: Actor): boolean {
    const lists = permittedLists(actor, 'get');
    return lists === 'all' || lists.length > 0;
  }

  /** Whether the actor may change (and delete) the list: the check of every change below. */
  manages(actor: Actor, id: number): boolean {
    return can(actor, 'list:manage', id);
  }

  /** A page of the lists the actor may see, with the total. */
  query(actor: Actor, q: ListQueryInput): { results: List[]; total: number } {
    return this.store.query({
      visible: permittedLists(actor, 'get'),
      words: q.minimal ? [] : searchWords(q.search),
      status: q.status,
      type: q.minimal ? undefined : q.type,
      optin: q.minimal ? undefined : q.optin,
      tags: q.minimal ? [] : q.tags,
      orderBy: q.orderBy,
      order: q.order,
      limit: q.limit,
      offset: q.offset,
      minimal: q.minimal,
    });
  }

  get(actor: Actor, id: number): List {
    this.authorize(actor, id, 'list:get');
    const list = this.store.get(id);
    if (!list) throw notFound(`list ${id} not found`);
    return list;
  }

  create(actor: Actor, fields: ListFields): List {
    if (!can(actor, 'lists:manage_all')) throw denied('permission denied: lists:manage_all');
    return this.store.create(fields);
  }

  /** Fields present replace the stored ones; absent or empty keep them. */
  update(actor: Actor, id: number, changes: ListChanges): List {
    const checked = this.authorize(actor, id, 'list:manage');
    const cur = this.store.get(id);
    if (!cur) throw notFound(`list ${id} not found`);
    return this.store.update(checked, {
      name: changes.name || cur.name,
      type: changes.type ?? cur.type,
      optin: changes.optin ?? cur.optin,
      status: changes.status ?? cur.status,
      tags: changes.tags ?? cur.tags,
      description: changes.description ?? cur.description,
    });
  }

  delete(actor: Actor, id: number): void {
    if (!this.store.delete([this.authorize(actor, id, 'list:manage')])) throw notFound(`list ${id} not found`);
  }

  /**
   * By ids: those the actor may not manage are ignored (listmonk refuses them all). By search
   * (or every list): limited to the lists the actor may manage.
   */
  deleteMany(actor: Actor, by: { ids: number[]; search: string; all: boolean }): void {
    if (by.ids.length) {
      this.store.delete(authorizeEach(by.ids, (id) => this.manages(actor, id)));
      return;
    }
    if (!by.search.trim() && !by.all) throw invalid('give "id" (repeatable), "query", or "all=true"');
    const { results } = this.store.query({
      visible: permittedLists(actor, 'manage'), words: by.all ? [] : searchWords(by.search), tags: [], orderBy: 'l.id', order: 'ASC',
      limit: -1, offset: 0, minimal: true,
    });
    this.store.delete(authorizeEach(results.map((l) => l.id), (id) => can(actor, 'list:manage', id)));
  }

  /** A double opt-in list's unconfirmed subscribers and how many its opt-in action would mail now. */
  optinCounts(actor: Actor, id: number): OptinCounts {
    this.doubleOptin(this.authorize(actor, id, 'list:manage'));
    return this.store.optinCounts(id);
  }

  /**
   * Queues the opt-in confirmation mail for the list's unconfirmed subscribers (each at most
   * once per 24 hours); the sending engine sends them under its rate limits. Returns how many.
   */
  queueOptins(actor: Actor, id: number): { queued: number } {
    const checked = this.authorize(actor, id, 'list:manage');
    this.doubleOptin(checked);
    const unavailable = this.optins.optinsUnavailable();
    if (unavailable) throw invalid(`the opt-in mails cannot be sent: ${unavailable}`);
    const queued = this.store.queueOptins(checked);
    if (queued) this.optins.wake();
    return { queued };
  }

  /** 404 for no such list, 400 for a single opt-in one (its subscribers have nothing to confirm). */
  private doubleOptin(id: number): void {
    const list = this.store.get(id);
    if (!list) throw notFound(`list ${id} not found`);
    if (list.optin !== 'double') throw invalid(`list ${id} is single opt-in: its subscribers need no confirmation; opt-in mails are for double opt-in lists`);
  }

  private authorize(actor: Actor, id: number, permission: 'list:get' | 'list:manage'): Authorized<number> {
    const allowed = (id: number) => (permission === 'list:manage' ? this.manages(actor, id) : can(actor, permission, id));
    return authorize(id, allowed, (id) => denied(`permission denied: you do not have ${permission === 'list:get' ? 'access to' : 'manage rights on'} list ${id}`));
  }
}
