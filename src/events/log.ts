// The change log (outbox). A store records its change's event inside the change's own
// transaction, so a change and its event commit or roll back together. Events of subscribers
// and subscriptions are built in SQL from the rows just changed, one statement per batch, so
// a bulk change writes its events at the speed of the change itself; the payload has the
// subscriber exactly as GET /api/subscribers/{id} gives it.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { currentActor } from '../core/actor.ts';
import { EVENT_TYPES, type EventType } from './types.ts';

/** A subscriber row's own fields (alias `s`) as the API gives them, before their `lists`: json_object arguments. */
const SUBSCRIBER_FIELDS = `'id', s.id, 'created_at', s.created_at, 'updated_at', s.updated_at, 'uuid', s.uuid, 'email', s.email,
  'name', s.name, 'attribs', json(s.attribs), 'status', s.status`;

/** The subscriptions of a subscriber row (alias `s`) as the API gives them: a JSON array. */
const SUBSCRIBER_LISTS = `(SELECT json_group_array(json_object(
      'subscription_status', esl.status, 'subscription_created_at', esl.created_at,
      'subscription_updated_at', esl.updated_at, 'subscription_source', esl.source,
      'subscription_meta', json(esl.meta), 'id', el.id, 'uuid', el.uuid, 'name', el.name, 'type', el.type,
      'optin', el.optin, 'status', el.status, 'tags', json(el.tags), 'description', el.description,
      'created_at', el.created_at, 'updated_at', el.updated_at) ORDER BY el.id)
    FROM subscriber_lists esl JOIN lists el ON el.id = esl.list_id WHERE esl.subscriber_id = s.id)`;

/** A subscriber row (alias `s`) as the API gives it, with its subscriptions (`subscriber_lists`, `lists`). */
export const SUBSCRIBER_JSON = `json_object(${SUBSCRIBER_FIELDS}, 'lists', ${SUBSCRIBER_LISTS})`;

/** A list (alias `l`) as a subscription event names it. */
export const LIST_SUMMARY_JSON = `json_object('id', l.id, 'uuid', l.uuid, 'name', l.name, 'type', l.type, 'optin', l.optin)`;

const INSERT = 'INSERT INTO events (type, actor, data) VALUES (?, ?, ?)';

const SUBSCRIBER_PAYLOAD = `json_object('subscriber', json(${SUBSCRIBER_JSON}))`;
const SUBSCRIBERS_FROM = 'FROM subscribers s WHERE s.id IN (SELECT value FROM json_each(@ids)) ORDER BY s.id';
const SUBSCRIPTION_PAYLOAD = `json_object('subscriber', json(${SUBSCRIBER_JSON}), 'list', json(${LIST_SUMMARY_JSON}), 'status', sl.status)`;
const SUBSCRIPTIONS_FROM = `FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id JOIN lists l ON l.id = sl.list_id
    WHERE sl.subscriber_id IN (SELECT value FROM json_each(@ids)) AND sl.list_id IN (SELECT value FROM json_each(@lists))
    ORDER BY s.id, l.id`;

/**
 * An INSERT of one event per row of `from`, its payload `payload` with each key of `extra` set
 * (bound as @x_<key>). json_set keeps a null value, which json_patch (RFC 7396) would drop.
 */
function insertEach(payload: string, from: string, extra: Record<string, unknown>): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  let data = payload;
  for (const [key, value] of Object.entries(extra)) {
    if (!/^[a-z_]+$/.test(key)) throw new Error(`an event payload key is a plain name: ${key}`);
    data = `json_set(${data}, '$.${key}', json(@x_${key}))`;
    params[`x_${key}`] = JSON.stringify(value);
  }
  return { sql: `INSERT INTO events (type, actor, data) SELECT @type, @actor, ${data} ${from}`, params };
}

const LISTS_OF = `SELECT ${SUBSCRIBER_LISTS} FROM subscribers s WHERE s.id = ?`;
// Subscribers @first..@last but @except, who all have the subscriptions @lists.
const ALIKE = `INSERT INTO events (type, actor, data)
  SELECT @type, @actor, json_object('subscriber', json_object(${SUBSCRIBER_FIELDS}, 'lists', json(@lists)))
  FROM subscribers s WHERE s.id BETWEEN @first AND @last AND s.id NOT IN (SELECT value FROM json_each(@except)) ORDER BY s.id`;

/** Subscriber ids go to SQLite as one JSON array per statement, in batches of this many. */
const BATCH = 5000;

export interface RecordOptions {
  /** Part of a change to many subscribers (an import, a change by query or by many ids). */
  bulk?: boolean;
}

export class EventLog {
  private readonly sql: Prepare;
  private readonly consumers: (() => ReadonlySet<string>)[] = [];

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** A reader of the log (webhooks, automations) names the types it wants: a set of types, or one holding '*'. */
  addConsumer(wanted: () => ReadonlySet<string>): void {
    this.consumers.push(wanted);
  }

  /** Whether an enabled consumer wants events of this type. */
  wants(type: EventType): boolean {
    return this.consumers.some((wanted) => {
      const set = wanted();
      return set.has('*') || set.has(type);
    });
  }

  /** The types any consumer wants, for a worker thread that writes events with its own connection. */
  wantedTypes(): EventType[] {
    return (Object.keys(EVENT_TYPES) as EventType[]).filter((t) => this.wants(t));
  }

  /**
   * Whether an event of this type is written: always for changes one at a time; per-subscriber
   * events of bulk changes, and views and clicks, only while a consumer wants them (their volume).
   */
  records(type: EventType, opts: RecordOptions = {}): boolean {
    const volume = EVENT_TYPES[type].volume;
    if (volume === 'single') return true;
    if (volume === 'bulk' && !opts.bulk) return true;
    return this.wants(type);
  }

  /** Records one event with a payload built by the caller. Must run inside the change's transaction. */
  record(type: EventType, data: Record<string, unknown>, opts: RecordOptions = {}): void {
    this.assertInTransaction();
    if (!this.records(type, opts)) return;
    this.sql(INSERT).run(type, JSON.stringify(currentActor()), JSON.stringify(data));
  }

  /** One event per subscriber, `{subscriber, ...extra}`, from the rows as they are now (before a delete, after anything else). */
  recordSubscribers(type: EventType, ids: readonly number[], extra: Record<string, unknown> = {}, opts: RecordOptions = {}): void {
    this.assertInTransaction();
    if (!ids.length || !this.records(type, opts)) return;
    const actor = JSON.stringify(currentActor());
    const insert = insertEach(SUBSCRIBER_PAYLOAD, SUBSCRIBERS_FROM, extra);
    for (let i = 0; i < ids.length; i += BATCH) {
      this.sql(insert.sql).run({ ...insert.params, type, actor, ids: JSON.stringify(ids.slice(i, i + BATCH)) });
    }
  }

  /**
   * One event per subscriber, `{subscriber}`, for the subscribers firstId..lastId less
   * `except`, who have the same subscriptions (the new subscribers of an import's batch, on
   * its lists): their lists are built once, from the first of them, not per subscriber (the
   * events of 100k imported subscribers on one list: 72k a CPU second built per subscriber,
   * 138k so, most of it now the insert itself).
   */
  recordAlike(type: EventType, firstId: number, lastId: number, except: readonly number[], opts: RecordOptions = {}): void {
    this.assertInTransaction();
    if (!this.records(type, opts)) return;
    const skipped = new Set(except);
    let first = firstId;
    while (first <= lastId && skipped.has(first)) first++;
    if (first > lastId) return;
    const lists = this.sql<[number], string>(LISTS_OF).pluck().get(first) as string;
    this.sql(ALIKE).run({ type, actor: JSON.stringify(currentActor()), lists, first, last: lastId, except: JSON.stringify(except) });
  }

  /**
   * One event per existing subscription of these subscribers to these lists,
   * `{subscriber, list, status, ...extra}`, from the rows as they are now.
   */
  recordSubscriptions(type: EventType, ids: readonly number[], lists: readonly number[], extra: Record<string, unknown> = {}, opts: RecordOptions = {}): void {
    this.assertInTransaction();
    if (!ids.length || !lists.length || !this.records(type, opts)) return;
    const actor = JSON.stringify(currentActor());
    const insert = insertEach(SUBSCRIPTION_PAYLOAD, SUBSCRIPTIONS_FROM, extra);
    for (let i = 0; i < ids.length; i += BATCH) {
      this.sql(insert.sql).run({ ...insert.params, type, actor, ids: JSON.stringify(ids.slice(i, i + BATCH)), lists: JSON.stringify(lists) });
    }
  }

  // An event written outside its change's transaction could outlive a change that rolls back.
  private assertInTransaction(): void {
    if (!this.db.inTransaction) throw new Error('an event is recorded inside the transaction of its change');
  }
}
