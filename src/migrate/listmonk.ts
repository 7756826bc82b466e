// `listmgr migrate listmonk`: copies a listmonk database into a new listmgr database. The
// target is written to a temporary file beside it and renamed into place at the end, so an
// interrupted run never leaves a half database where the target was. Ids are kept; the
// counters are filled the way bulk imports fill them (src/imports/bulk.ts), and the copied
// subscribers go on the search backlog, which the server indexes after it starts.
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { closeDatabase, openDatabase, openScratchDatabase, type DB } from '../db/connection.ts';
import { alive } from '../db/lock.ts';
import { isInstalled, migrate } from '../db/migrate.ts';
import { statementCache } from '../db/statements.ts';
import { DashboardStore } from '../dashboard/store.ts';
import { AudienceFiller, type BulkFiller } from '../imports/bulk.ts';
import { SearchBacklog } from '../imports/search-backlog.ts';
import { ALL_PERMISSIONS, LIST_PERMISSIONS, SUPER_ADMIN_ROLE_ID } from '../core/authz.ts';
import { DEFAULT_SETTINGS } from '../settings/defaults.ts';
import { SettingsService } from '../settings/service.ts';
import { passwordHashFor } from '../users/rules.ts';
import { sha256Hex } from '../users/secrets.ts';
import { UserStore } from '../users/store.ts';
import { ListmonkSource, type SchemaInfo } from './listmonk-source.ts';
import { convertOldSettings } from './listmonk-settings.ts';

/** A migration refused before anything was written (the target is untouched). */
export class MigrateError extends Error {}

export interface MigrateOptions {
  from: string;
  dbPath: string;
  /** listmonk's upload folder, to copy the media files from. */
  listmonkUploads?: string;
  /** listmgr's upload folder, where the media files go. */
  uploadsPath: string;
  dryRun: boolean;
  yes: boolean;
  /** Admin for a listmonk older than v4 (no users of its own). */
  adminUser: string;
  adminPassword: string;
  /** Progress lines (stderr). */
  progress: (line: string) => void;
}

export interface TableSummary {
  table: string;
  read: number;
  written: number;
  skipped: Record<string, number>;
}

export interface MigrateReport {
  schema: SchemaInfo;
  tables: TableSummary[];
  /** What the reader should know: paused campaigns, settings not carried over, missing media files… */
  notes: string[];
  /** Set when the target held data that --yes replaced. */
  replaced: string | null;
  /** Set when listmonk had no users (before v4, or none yet) and an admin was created. */
  createdAdmin: string | null;
  verified: string[];
}

const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const tsNotNull = (col: string) => ts(`coalesce(${col}, now())`);
const SHA256_HEX = /^[a-f0-9]{64}$/;
/** Settings listmonk keeps for itself, not for the user: not reported as unsupported. */
const INTERNAL_SETTINGS = new Set(['migrations', 'app.installed_at']);
const RENAMED_SETTINGS: Record<string, string> = { 'security.cors_origins': 'security.trusted_urls' };
/**
 * Subscribers per write transaction (several fetched batches). Each commit writes every page
 * the transaction dirtied, and the uuid and email indexes take their rows in random order, so
 * a commit per 5,000 rows wrote the same index pages again and again.
 */
const ROWS_PER_COMMIT = 50_000;
/**
 * Subscription batches asked for ahead: a subscriber batch usually needs more than one (people
 * are on a few lists), and a batch not yet asked for kept the copy waiting for PostgreSQL.
 */
const SUBSCRIPTIONS_AHEAD = 3;

type Row = Record<string, unknown>;

export function partialPath(dbPath: string): string {
  return join(dirname(dbPath), `.${basename(dbPath)}.migrating-${process.pid}`);
}

function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/**
 * Removes the temporary files of earlier runs on `dbPath` that were killed (their process is
 * gone); answers their names. A run still under way keeps its file.
 */
export function removeStalePartials(dbPath: string): string[] {
  const prefix = `.${basename(dbPath)}.migrating-`;
  let names: string[];
  try {
    names = readdirSync(dirname(dbPath));
  } catch {
    return [];
  }
  const stale = names.filter((n) => {
    const pid = n.startsWith(prefix) ? /^(\d+)$/.exec(n.slice(prefix.length))?.[1] : undefined;
    return pid !== undefined && !alive(Number(pid));
  });
  for (const n of stale) removeDatabaseFiles(join(dirname(dbPath), n));
  return stale;
}

/** The tables whose secondary indexes are built after the copy (one sorted build each instead of a million random inserts). */
const DEFERRED_INDEX_TABLES = ['subscribers', 'subscriber_lists', 'campaign_views', 'link_clicks', 'bounces'];

/** Drops the non-unique indexes of `tables`; answers the statements that create them again. */
function dropIndexes(db: DB, tables: string[]): string[] {
  const indexes = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
    AND sql NOT LIKE 'CREATE UNIQUE%' AND tbl_name IN (SELECT value FROM json_each(?))`).all(JSON.stringify(tables)) as { name: string; sql: string }[];
  for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
  return indexes.map((i) => i.sql);
}

/**
 * Drops the triggers of `tables`; answers the statements that create them again. For the
 * subscriber copy: its insert triggers are gated off for bulk batches anyway (sql/0040), yet
 * SQLite still runs their WHEN clause for every row.
 */
function dropTriggers(db: DB, tables: string[]): string[] {
  const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(tables)) as { name: string; sql: string }[];
  for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
  return triggers.map((t) => t.sql);
}

/** fsync: the file (or a folder's entries) on disk before and after the rename. */
function syncToDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What the target holds now: null when it may be replaced without asking. */
function describeTarget(dbPath: string): string | null {
  if (!existsSync(dbPath)) return null;
  const db = openDatabase(dbPath, { readonly: true });
  try {
    if (!isInstalled(db)) return null;
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const subscribers = count('subscribers');
    if (!subscribers) return null;
    return `${subscribers} subscribers, ${count('lists')} lists, ${count('campaigns')} campaigns`;
  } finally {
    closeDatabase(db);
  }
}

class Progress {
  private started = Date.now();
  private shownAt = this.started;
  constructor(private readonly out: (line: string) => void, private readonly table: string, private readonly total: number) {}

  tick(done: number, final = false): void {
    const now = Date.now();
    if (!final && now - this.shownAt < 1000) return;
    this.shownAt = now;
    const rate = Math.round(done / Math.max(0.001, (now - this.started) / 1000));
    this.out(`${this.table}: ${done}/${this.total} rows (${rate}/s)${final ? ' done' : ''}`);
  }
}

/** The copy itself; `db` is null for a dry run (everything is read, nothing written). */
class Copier {
  readonly tables: TableSummary[] = [];
  readonly notes: string[] = [];

  constructor(private readonly src: ListmonkSource, private readonly db: DB | null, private readonly opts: MigrateOptions) {}

  private summary(table: string): TableSummary {
    const s: TableSummary = { table, read: 0, written: 0, skipped: {} };
    this.tables.push(s);
    return s;
  }

  private static skip(s: TableSummary, reason: string): void {
    s.skipped[reason] = (s.skipped[reason] ?? 0) + 1;
  }

  private col(table: string, column: string, expr: string, fallback: string): string {
    return this.src.has(table, column) ? expr : fallback;
  }

  /**
   * Streams `select` into `insert` (named parameters = the selected column names); `map`
   * adjusts a row or answers why it is skipped. Inserts that conflict with a row already
   * written are skipped with `conflict` as the reason. `from` and `where` say which listmonk
   * rows `select` reads, for the progress total.
   */
  private async copy(table: string, select: string, insert: string,
    opts: { from?: string; where?: string; map?: (r: Row) => Row | string; conflict?: string } = {}): Promise<TableSummary> {
    const s = this.summary(table);
    const progress = new Progress(this.opts.progress, table, await this.src.count(opts.from ?? table, opts.where ?? ''));
    const stmt = this.db?.prepare(insert);
    for await (const rows of this.src.batches<Row>(select)) {
      const write = () => {
        for (const raw of rows) {
          s.read++;
          const row = opts.map ? opts.map(raw) : raw;
          if (typeof row === 'string') {
            Copier.skip(s, row);
            continue;
          }
          if (!stmt) {
            s.written++;
          } else if (stmt.run(row).changes) {
            s.written++;
          } else {
            Copier.skip(s, opts.conflict ?? 'conflict');
          }
        }
      };
      if (this.db) this.db.transaction(write).immediate();
      else write();
      progress.tick(s.read);
    }
    progress.tick(s.read, true);
    return s;
  }

  async lists(): Promise<void> {
    const t = 'lists';
    let temporary = 0;
    await this.copy(t, `SELECT id, uuid::text AS uuid, name, type::text AS type, optin::text AS optin,
        ${this.col(t, 'status', 'status::text', "'active'")} AS status, to_json(coalesce(tags, '{}'))::text AS tags,
        ${this.col(t, 'description', 'description', "''")} AS description, ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at
        FROM lists ORDER BY id`,
    `INSERT INTO lists (id, uuid, name, type, optin, status, tags, description, created_at, updated_at)
        VALUES (@id, @uuid, @name, @type, @optin, @status, @tags, @description, @created_at, @updated_at)`,
    { map: (r) => {
      if (r.type !== 'temporary') return r;
      temporary++;
      return { ...r, type: 'private' };
    } });
    if (temporary) this.notes.push(`${temporary} temporary list(s) came over as private lists (listmgr has no temporary lists)`);
  }

  /**
   * Subscribers with their subscriptions, a batch of subscriber ids per transaction: the bulk
   * gate (sql/0040) keeps the per-row counter triggers quiet, and the import's fillers count
   * each batch's id range at once.
   */
  async subscribers(): Promise<void> {
    const subs = this.summary('subscribers');
    const sl = this.summary('subscriber_lists');
    const subsProgress = new Progress(this.opts.progress, 'subscribers', await this.src.count('subscribers'));
    const slWhere = 'WHERE list_id IS NOT NULL';
    const slTotal = await this.src.count('subscriber_lists', slWhere);
    const db = this.db;
    const sql = db ? statementCache(db) : null;
    const fillers: BulkFiller[] = db && sql ? [new AudienceFiller(sql, new SearchBacklog(db)), new DashboardStore(db)] : [];
    const insertSub = db?.prepare(`INSERT INTO subscribers (id, uuid, email, name, attribs, status, created_at, updated_at)
      VALUES (@id, @uuid, @email, @name, @attribs, @status, @created_at, @updated_at)`);
    const insertSl = db?.prepare(`INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, meta, created_at, updated_at)
      VALUES (@subscriber_id, @list_id, @status, 'import', @meta, @created_at, @updated_at)`);
    const setGate = db?.prepare('UPDATE subscriber_bulk_insert SET from_id = ? WHERE id = 1');

    const subscriptions = this.src.batches<Row>(`SELECT subscriber_id, list_id, status::text AS status,
      ${this.col('subscriber_lists', 'meta', 'meta::text', "'{}'")} AS meta,
      ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at
      FROM subscriber_lists ${slWhere} ORDER BY subscriber_id, list_id`, SUBSCRIPTIONS_AHEAD);
    let pending: Row[] = [];
    let subscriptionsDone = false;
    // The subscriptions of subscribers up to `lastId` (both cursors go in id order).
    const subscriptionsUpTo = async (lastId: number): Promise<Row[]> => {
      const out: Row[] = [];
      for (;;) {
        let i = 0;
        while (i < pending.length && Number(pending[i].subscriber_id) <= lastId) i++;
        out.push(...pending.slice(0, i));
        pending = pending.slice(i);
        if (pending.length || subscriptionsDone) return out;
        const next = await subscriptions.next();
        if (next.done) subscriptionsDone = true;
        else pending = next.value;
      }
    };

    // Their insert triggers (gated off for bulk rows, sql/0040) come back after the copy.
    const triggers = db ? dropTriggers(db, ['subscribers', 'subscriber_lists']) : [];
    let rangeStart = 1;
    let uncommitted = 0;
    const subscriberRows = this.src.batches<Row>(`SELECT id, uuid::text AS uuid, lower(trim(email)) AS email, name, attribs::text AS attribs,
      status::text AS status, ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at
      FROM subscribers ORDER BY id`);
    for await (const rows of subscriberRows) {
      const lastId = Number(rows[rows.length - 1].id);
      const subsOfBatch = await subscriptionsUpTo(lastId);
      const write = () => {
        setGate?.run(rangeStart);
        try {
          for (const r of rows) {
            subs.read++;
            insertSub?.run(r);
            subs.written++;
          }
          for (const r of subsOfBatch) {
            sl.read++;
            insertSl?.run(r);
            sl.written++;
          }
        } finally {
          setGate?.run(null);
        }
        for (const f of fillers) f.fillBulk(rangeStart, lastId);
      };
      if (db) {
        // One transaction spans several batches (ROWS_PER_COMMIT): the scratch file is only
        // ours, and a failed run deletes it.
        if (!db.inTransaction) db.exec('BEGIN IMMEDIATE');
        write();
        uncommitted += rows.length;
        if (uncommitted >= ROWS_PER_COMMIT) {
          db.exec('COMMIT');
          uncommitted = 0;
        }
      } else {
        write();
      }
      rangeStart = lastId + 1;
      subsProgress.tick(subs.read);
    }
    if (db?.inTransaction) db.exec('COMMIT');
    for (const sql of triggers) db!.exec(sql);
    // Subscriptions whose subscriber is not there cannot be: listmonk's foreign key cascades.
    const orphans = await subscriptionsUpTo(Number.MAX_SAFE_INTEGER);
    for (const _ of orphans) Copier.skip(sl, 'no such subscriber');
    sl.read += orphans.length;
    subsProgress.tick(subs.read, true);
    this.opts.progress(`subscriber_lists: ${sl.read}/${slTotal} rows done`);
  }

  async templates(): Promise<void> {
    const t = 'templates';
    await this.copy(t, `SELECT id, name, ${this.col(t, 'type', 'type::text', "'campaign'")} AS type, ${this.col(t, 'subject', 'subject', "''")} AS subject,
        body, ${this.col(t, 'body_source', 'body_source', 'NULL')} AS body_source, is_default::int AS is_default,
        ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at FROM templates ORDER BY id`,
    `INSERT INTO templates (id, name, type, subject, body, body_source, is_default, created_at, updated_at)
        VALUES (@id, @name, @type, @subject, @body, @body_source, @is_default, @created_at, @updated_at)`);
  }

  async media(): Promise<void> {
    const t = 'media';
    const missing: string[] = [];
    const s3: number[] = [];
    await this.copy(t, `SELECT id, uuid::text AS uuid, provider, filename, ${this.col(t, 'content_type', 'content_type', "'application/octet-stream'")} AS content_type,
        nullif(thumb, '') AS thumb, ${this.col(t, 'meta', 'meta::text', "'{}'")} AS meta, ${tsNotNull('created_at')} AS created_at FROM media ORDER BY id`,
    `INSERT INTO media (id, uuid, provider, filename, content_type, thumb, meta, created_at)
        VALUES (@id, @uuid, @provider, @filename, @content_type, @thumb, @meta, @created_at) ON CONFLICT (filename) DO NOTHING`,
    { conflict: 'file name already taken by an earlier media record', map: (r) => {
      const provider = String(r.provider || 'filesystem');
      if (provider !== 'filesystem') {
        s3.push(Number(r.id));
        return { ...r, provider };
      }
      if (!this.opts.listmonkUploads) {
        missing.push(String(r.filename));
        return { ...r, provider };
      }
      for (const name of [r.filename, r.thumb].filter((n): n is string => typeof n === 'string' && n !== '')) {
        const from = join(this.opts.listmonkUploads, name);
        if (!existsSync(from)) {
          if (name === r.filename) missing.push(name);
          continue;
        }
        const to = join(this.opts.uploadsPath, name);
        if (this.db && !existsSync(to)) {
          mkdirSync(this.opts.uploadsPath, { recursive: true });
          copyFileSync(from, to);
        }
      }
      return { ...r, provider };
    } });
    if (missing.length) {
      this.notes.push(`media files not copied (${this.opts.listmonkUploads ? `not found in ${this.opts.listmonkUploads}` : 'no --uploads folder given'}): ${missing.join(', ')}`);
    }
    if (s3.length) this.notes.push(`${s3.length} media record(s) stored in S3 keep their provider and URLs; the files stay in the bucket`);
  }

  async campaigns(): Promise<void> {
    const t = 'campaigns';
    const running: string[] = [];
    await this.copy(t, `SELECT id, uuid::text AS uuid, name, subject, from_email, body, ${this.col(t, 'body_source', 'body_source', 'NULL')} AS body_source,
        ${this.col(t, 'altbody', 'altbody', 'NULL')} AS altbody, content_type::text AS content_type, ${ts('send_at')} AS send_at,
        ${this.col(t, 'headers', 'headers::text', "'[]'")} AS headers, ${this.col(t, 'attribs', 'attribs::text', "'{}'")} AS attribs,
        status::text AS status, to_json(coalesce(tags, '{}'))::text AS tags, coalesce(type::text, 'regular') AS type, messenger, template_id,
        to_send, sent, max_subscriber_id, last_subscriber_id, ${this.col(t, 'archive', 'archive::int', '0')} AS archive,
        ${this.col(t, 'archive_slug', 'archive_slug', 'NULL')} AS archive_slug, ${this.col(t, 'archive_template_id', 'archive_template_id', 'NULL')} AS archive_template_id,
        ${this.col(t, 'archive_meta', 'archive_meta::text', "'{}'")} AS archive_meta, ${ts('started_at')} AS started_at,
        ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at FROM campaigns ORDER BY id`,
    `INSERT INTO campaigns (id, uuid, name, subject, from_email, body, body_source, altbody, content_type, send_at, headers, attribs, status,
        status_reason, tags, type, messenger, template_id, to_send, sent, max_subscriber_id, last_subscriber_id, archive, archive_slug,
        archive_template_id, archive_meta, started_at, created_at, updated_at)
      VALUES (@id, @uuid, @name, @subject, @from_email, @body, @body_source, @altbody, @content_type, @send_at, @headers, @attribs, @status,
        @status_reason, @tags, @type, @messenger, @template_id, @to_send, @sent, @max_subscriber_id, @last_subscriber_id, @archive, @archive_slug,
        @archive_template_id, @archive_meta, @started_at, @created_at, @updated_at)`,
    { map: (r) => {
      if (r.status !== 'running') return { ...r, status_reason: '' };
      running.push(`${r.id} "${r.name}"`);
      return { ...r, status: 'paused', status_reason: 'was running in listmonk when it was migrated' };
    } });
    if (running.length) this.notes.push(`campaign(s) running in listmonk came over paused (resume them in listmgr once listmonk is stopped): ${running.join(', ')}`);
    const idOrNull = (table: string) => this.col(table, 'id', 'id', 'NULL');
    await this.copy('campaign_lists', `SELECT ${idOrNull('campaign_lists')} AS id, campaign_id, list_id, list_name FROM campaign_lists ORDER BY campaign_id, list_id`,
      'INSERT INTO campaign_lists (id, campaign_id, list_id, list_name) VALUES (@id, @campaign_id, @list_id, @list_name)');
    if (this.src.has('campaign_media')) {
      await this.copy('campaign_media', 'SELECT campaign_id, media_id, filename FROM campaign_media WHERE campaign_id IS NOT NULL ORDER BY campaign_id',
        'INSERT INTO campaign_media (campaign_id, media_id, filename) VALUES (@campaign_id, @media_id, @filename)', { where: 'WHERE campaign_id IS NOT NULL' });
    }
  }

  async tracking(): Promise<void> {
    const idOrNull = (table: string) => this.col(table, 'id', 'id', 'NULL');
    await this.copy('links', `SELECT id, uuid::text AS uuid, url, ${tsNotNull('created_at')} AS created_at FROM links ORDER BY id`,
      'INSERT INTO links (id, uuid, url, created_at) VALUES (@id, @uuid, @url, @created_at)');
    await this.copy('campaign_views', `SELECT ${idOrNull('campaign_views')} AS id, campaign_id, subscriber_id, ${tsNotNull('created_at')} AS created_at
        FROM campaign_views ORDER BY ${this.col('campaign_views', 'id', 'id', 'created_at')}`,
    'INSERT INTO campaign_views (id, campaign_id, subscriber_id, created_at) VALUES (@id, @campaign_id, @subscriber_id, @created_at)');
    await this.copy('link_clicks', `SELECT ${idOrNull('link_clicks')} AS id, campaign_id, link_id, subscriber_id, ${tsNotNull('created_at')} AS created_at
        FROM link_clicks ORDER BY ${this.col('link_clicks', 'id', 'id', 'created_at')}`,
    'INSERT INTO link_clicks (id, campaign_id, link_id, subscriber_id, created_at) VALUES (@id, @campaign_id, @link_id, @subscriber_id, @created_at)');
    await this.copy('bounces', `SELECT id, subscriber_id, campaign_id, type::text AS type, source, meta::text AS meta, ${tsNotNull('created_at')} AS created_at
        FROM bounces ORDER BY id`,
    'INSERT INTO bounces (id, subscriber_id, campaign_id, type, source, meta, created_at) VALUES (@id, @subscriber_id, @campaign_id, @type, @source, @meta, @created_at)');
  }

  /** Roles (listmonk keeps a list role's grants as child rows; listmgr in role_lists), then users. */
  async users(): Promise<void> {
    const known = new Set<string>(ALL_PERMISSIONS);
    const dropped = new Set<string>();
    const keepKnown = (json: unknown, allowed: Set<string>) => JSON.stringify((JSON.parse(String(json)) as string[]).filter((p) => {
      if (allowed.has(p)) return true;
      dropped.add(p);
      return false;
    }));
    await this.copy('roles', `SELECT id, type::text AS type, coalesce(name, 'role ' || id) AS name, to_json(permissions)::text AS permissions,
        ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at FROM roles WHERE parent_id IS NULL ORDER BY id`,
    `INSERT INTO roles (id, type, name, permissions, created_at, updated_at) VALUES (@id, @type, @name, @permissions, @created_at, @updated_at)`,
    { where: 'WHERE parent_id IS NULL', map: (r) => ({
      ...r,
      // Role 1 is listmgr's built-in Super Admin, with every permission listmgr has.
      permissions: Number(r.id) === SUPER_ADMIN_ROLE_ID ? JSON.stringify(ALL_PERMISSIONS) : keepKnown(r.permissions, r.type === 'list' ? new Set(LIST_PERMISSIONS) : known),
    }) });
    await this.copy('role_lists', `SELECT parent_id AS role_id, list_id, to_json(permissions)::text AS permissions FROM roles
        WHERE parent_id IS NOT NULL AND list_id IS NOT NULL ORDER BY parent_id, list_id`,
    'INSERT INTO role_lists (role_id, list_id, permissions) VALUES (@role_id, @list_id, @permissions)',
    { from: 'roles', where: 'WHERE parent_id IS NOT NULL AND list_id IS NOT NULL', map: (r) => ({ ...r, permissions: keepKnown(r.permissions, new Set(LIST_PERMISSIONS)) }) });
    if (dropped.size) this.notes.push(`permissions listmgr does not have were left out of the roles: ${[...dropped].join(', ')}`);
    const t = 'users';
    let plainTokens = 0;
    await this.copy(t, `SELECT id, username, password, password_login::int AS password_login, lower(trim(email)) AS email, name, type::text AS type,
        user_role_id, list_role_id, status::text AS status, avatar, ${this.col(t, 'twofa_type', 'twofa_type::text', "'none'")} AS twofa_type,
        ${this.col(t, 'twofa_key', 'twofa_key', 'NULL')} AS twofa_key, ${ts('loggedin_at')} AS loggedin_at,
        ${tsNotNull('created_at')} AS created_at, ${tsNotNull('updated_at')} AS updated_at FROM users ORDER BY id`,
    `INSERT INTO users (id, username, password, password_login, email, name, type, user_role_id, list_role_id, status, avatar, twofa_type, twofa_key,
        loggedin_at, created_at, updated_at)
      VALUES (@id, @username, @password, @password_login, @email, @name, @type, @user_role_id, @list_role_id, @status, @avatar, @twofa_type, @twofa_key,
        @loggedin_at, @created_at, @updated_at)`,
    { map: (r) => {
      if (r.type !== 'api' || typeof r.password !== 'string' || r.password === '' || SHA256_HEX.test(r.password)) return r;
      // Before v6.2 listmonk stored API tokens as they are; listmgr keeps only their SHA-256.
      plainTokens++;
      return { ...r, password: sha256Hex(r.password) };
    } });
    if (plainTokens) this.notes.push(`${plainTokens} API token(s) stored in clear by listmonk were hashed (SHA-256); they keep working`);
  }

  /** Settings listmgr has, key by key, older shapes converted (listmonk-settings.ts); the others are listed. */
  async settings(): Promise<void> {
    const s = this.summary('settings');
    const unsupported: string[] = [];
    const rows = await this.src.query<{ key: string; value: string }>('SELECT key, value::text AS value FROM settings ORDER BY key');
    const upsert = this.db?.prepare(`INSERT INTO settings (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`);
    const values = new Map<string, unknown>();
    const listmonkKey = new Map<string, string>();
    for (const r of rows) {
      s.read++;
      const key = RENAMED_SETTINGS[r.key] ?? r.key;
      if (INTERNAL_SETTINGS.has(key)) {
        Copier.skip(s, 'listmonk-internal');
      } else {
        values.set(key, JSON.parse(r.value));
        listmonkKey.set(key, r.key);
      }
    }
    const converted = convertOldSettings(values);
    for (const key of listmonkKey.keys()) if (!values.has(key)) Copier.skip(s, 'converted into another setting');
    for (const [key, value] of values) {
      if (!(key in DEFAULT_SETTINGS)) {
        Copier.skip(s, 'not supported by listmgr');
        unsupported.push(listmonkKey.get(key) ?? key);
      } else {
        upsert?.run(key, JSON.stringify(value));
        s.written++;
      }
    }
    if (converted.length) this.notes.push(`settings stored in the shapes of older listmonk versions were converted: ${converted.join('; ')}`);
    if (unsupported.length) this.notes.push(`settings listmgr does not support (not carried over): ${unsupported.join(', ')}`);
    this.opts.progress(`settings: ${s.read}/${rows.length} rows done`);
  }

  /** Compares counts on both sides and a sample of subscribers and campaigns field by field. */
  async verify(): Promise<string[]> {
    const db = this.db!;
    const problems: string[] = [];
    const done: string[] = [];
    for (const s of this.tables) {
      const here = db.prepare(`SELECT count(*) FROM ${s.table}`).pluck().get() as number;
      const expected = s.table === 'settings' ? here : s.written;
      if (here !== expected) problems.push(`${s.table}: ${here} rows written, ${expected} expected`);
    }
    done.push(`row counts of ${this.tables.length} tables`);
    const sampleSubs = await this.src.query<Row>(`SELECT id, lower(trim(email)) AS email, name, attribs::text AS attribs, status::text AS status,
      (SELECT coalesce(json_agg(json_build_array(list_id, status::text) ORDER BY list_id), '[]')::text FROM subscriber_lists sl
        WHERE sl.subscriber_id = s.id AND list_id IS NOT NULL) AS lists FROM subscribers s ORDER BY random() LIMIT 200`);
    const mine = db.prepare(`SELECT email, name, attribs, status, (SELECT coalesce(json_group_array(json_array(list_id, status)), '[]')
      FROM (SELECT list_id, status FROM subscriber_lists WHERE subscriber_id = s.id ORDER BY list_id)) AS lists FROM subscribers s WHERE id = ?`);
    for (const r of sampleSubs) {
      const m = mine.get(r.id) as Row | undefined;
      const same = m && m.email === r.email && m.name === r.name && m.status === r.status
        && isDeepStrictEqual(JSON.parse(String(m.attribs)), JSON.parse(String(r.attribs))) && isDeepStrictEqual(JSON.parse(String(m.lists)), JSON.parse(String(r.lists)));
      if (!same) problems.push(`subscriber ${r.id} differs`);
    }
    done.push(`${sampleSubs.length} sampled subscribers with their subscriptions`);
    const sampleCampaigns = await this.src.query<Row>(`SELECT id, name, subject, body, sent, to_send,
      (SELECT count(*)::int FROM campaign_views v WHERE v.campaign_id = c.id) AS views,
      (SELECT count(*)::int FROM link_clicks k WHERE k.campaign_id = c.id) AS clicks FROM campaigns c ORDER BY random() LIMIT 50`);
    const mineCampaign = db.prepare(`SELECT name, subject, body, sent, to_send, (SELECT count(*) FROM campaign_views v WHERE v.campaign_id = c.id) AS views,
      (SELECT count(*) FROM link_clicks k WHERE k.campaign_id = c.id) AS clicks FROM campaigns c WHERE id = ?`);
    for (const r of sampleCampaigns) {
      const m = mineCampaign.get(r.id) as Row | undefined;
      if (!m || (['name', 'subject', 'body', 'sent', 'to_send', 'views', 'clicks'] as const).some((k) => m[k] !== r[k])) problems.push(`campaign ${r.id} differs`);
    }
    done.push(`${sampleCampaigns.length} sampled campaigns with their view and click counts`);
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length) problems.push(`${fk.length} rows refer to rows that are not there`);
    if (problems.length) throw new Error(`verification failed (the target was not replaced): ${problems.slice(0, 20).join('; ')}`);
    return done;
  }
}

/** Runs the migration; throws MigrateError (or a SchemaError) before writing anything when it must refuse. */
export async function migrateFromListmonk(opts: MigrateOptions): Promise<MigrateReport> {
  let src: ListmonkSource;
  try {
    src = await ListmonkSource.open(opts.from);
  } catch (e) {
    throw new MigrateError(`cannot read the listmonk database: ${(e as Error).message}`);
  }
  let partial: string | null = null;
  try {
    const schema = await src.detect();
    opts.progress(`Found a listmonk ${schema.version} database.`);
    const replaced = describeTarget(opts.dbPath);
    if (replaced && !opts.yes && !opts.dryRun) {
      throw new MigrateError(`${opts.dbPath} already holds ${replaced}; pass --yes to replace it with the listmonk data`);
    }
    if (replaced && !opts.dryRun) opts.progress(`Replacing ${opts.dbPath}, which holds ${replaced}, once the copy is complete.`);
    let db: DB | null = null;
    let deferredIndexes: string[] = [];
    if (!opts.dryRun) {
      for (const name of removeStalePartials(opts.dbPath)) opts.progress(`Removed ${name}, left by an interrupted migration.`);
      partial = partialPath(opts.dbPath);
      removeDatabaseFiles(partial);
      db = openScratchDatabase(partial);
      migrate(db);
      SettingsService.writeDefaults(db);
      deferredIndexes = dropIndexes(db, DEFERRED_INDEX_TABLES);
    }
    const copier = new Copier(src, db, opts);
    let createdAdmin: string | null = null;
    let verified: string[] = [];
    try {
      await copier.lists();
      await copier.subscribers();
      await copier.templates();
      await copier.media();
      await copier.campaigns();
      await copier.tracking();
      if (schema.hasUsers) await copier.users();
      await copier.settings();
      if (db) {
        const started = Date.now();
        for (const sql of deferredIndexes) db.exec(sql);
        opts.progress(`indexes: ${deferredIndexes.length} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        opts.progress('Verifying…');
        verified = await copier.verify();
        const users = new UserStore(db);
        users.ensureSuperAdminRole();
        if (!copier.tables.some((t) => t.table === 'users' && t.written > 0)) {
          // listmonk before v4 had one admin from its config file, not in the database.
          users.createLoginUser(opts.adminUser, await passwordHashFor(opts.adminPassword), opts.adminUser.includes('@') ? opts.adminUser : `${opts.adminUser}@listmgr.localhost`);
          createdAdmin = opts.adminUser;
        }
        db.prepare(`INSERT INTO settings (key, value) VALUES ('app.installed_at', json_quote(strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`).run();
      }
    } finally {
      db?.close();
    }
    if (partial) {
      syncToDisk(partial);
      removeDatabaseFiles(opts.dbPath);
      renameSync(partial, opts.dbPath);
      syncToDisk(dirname(opts.dbPath));
      partial = null;
    }
    return { schema, tables: copier.tables, notes: copier.notes, replaced: opts.dryRun ? null : replaced, createdAdmin, verified };
  } finally {
    if (partial) removeDatabaseFiles(partial);
    await src.close();
  }
}

/** The summary table: per table, rows read, written and skipped with the reason. */
export function formatReport(r: MigrateReport, dryRun: boolean): string {
  const lines = [`listmonk ${r.schema.version} → listmgr${dryRun ? ' (dry run: nothing was written)' : ''}`, ''];
  const w = Math.max(...r.tables.map((t) => t.table.length));
  lines.push(`${'table'.padEnd(w)}  ${'read'.padStart(9)}  ${(dryRun ? 'would write' : 'written').padStart(11)}  skipped`);
  for (const t of r.tables) {
    const skipped = Object.entries(t.skipped).map(([why, n]) => `${n} (${why})`).join(', ') || '0';
    lines.push(`${t.table.padEnd(w)}  ${String(t.read).padStart(9)}  ${String(t.written).padStart(11)}  ${skipped}`);
  }
  if (r.notes.length) lines.push('', ...r.notes.map((n) => `- ${n}`));
  if (r.verified.length) lines.push('', `Verified: ${r.verified.join('; ')}.`);
  return lines.join('\n');
}
