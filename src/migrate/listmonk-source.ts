// Reading a listmonk PostgreSQL database: one REPEATABLE READ, READ ONLY transaction (a
// consistent snapshot; listmonk keeps running and nothing is written there), tables streamed
// through server-side cursors in batches so memory stays bounded whatever their size.
import type pg from 'pg';

/** Rows per FETCH: large enough that round trips do not dominate, small enough to stay light. */
const FETCH_ROWS = 5000;

/** Every table listmgr reads from listmonk v2 onwards, with the columns it cannot do without. */
const REQUIRED: Record<string, string[]> = {
  settings: ['key', 'value'],
  subscribers: ['id', 'uuid', 'email', 'name', 'attribs', 'status', 'created_at', 'updated_at'],
  lists: ['id', 'uuid', 'name', 'type', 'optin', 'tags', 'created_at', 'updated_at'],
  subscriber_lists: ['subscriber_id', 'list_id', 'status', 'created_at', 'updated_at'],
  templates: ['id', 'name', 'body', 'is_default', 'created_at', 'updated_at'],
  campaigns: ['id', 'uuid', 'name', 'subject', 'from_email', 'body', 'content_type', 'send_at', 'status', 'tags', 'type', 'messenger',
    'template_id', 'to_send', 'sent', 'max_subscriber_id', 'last_subscriber_id', 'started_at', 'created_at', 'updated_at'],
  campaign_lists: ['campaign_id', 'list_id', 'list_name'],
  campaign_views: ['campaign_id', 'subscriber_id', 'created_at'],
  media: ['id', 'uuid', 'provider', 'filename', 'thumb', 'created_at'],
  links: ['id', 'uuid', 'url', 'created_at'],
  link_clicks: ['campaign_id', 'link_id', 'subscriber_id', 'created_at'],
  bounces: ['id', 'subscriber_id', 'campaign_id', 'type', 'source', 'meta', 'created_at'],
};

/** v4's users and roles: present together or not at all. */
const USERS: Record<string, string[]> = {
  roles: ['id', 'type', 'parent_id', 'list_id', 'permissions', 'name', 'created_at', 'updated_at'],
  users: ['id', 'username', 'password_login', 'password', 'email', 'name', 'avatar', 'type', 'user_role_id', 'list_role_id', 'status', 'loggedin_at', 'created_at', 'updated_at'],
};

/** A listmonk database listmgr cannot read: the message names what is missing. */
export class SchemaError extends Error {}

export interface SchemaInfo {
  /** The version as listmonk recorded it (its `migrations` setting), else as the columns tell. */
  version: string;
  hasUsers: boolean;
}

export class ListmonkSource {
  private cursors = 0;
  private columns = new Map<string, Set<string>>();

  private constructor(private readonly client: pg.Client) {}

  /** Connects and opens the snapshot transaction. */
  static async open(url: string): Promise<ListmonkSource> {
    // Imported here, so the bundle loads pg only when this command runs.
    const { default: { Client } } = await import('pg');
    const client = new Client({ connectionString: url, application_name: 'listmgr migrate' });
    await client.connect();
    const source = new ListmonkSource(client);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()');
      for (const r of rows) {
        if (!source.columns.has(r.table_name)) source.columns.set(r.table_name, new Set());
        source.columns.get(r.table_name)!.add(r.column_name);
      }
    } catch (e) {
      await source.close();
      throw e;
    }
    return source;
  }

  has(table: string, column?: string): boolean {
    const cols = this.columns.get(table);
    return cols !== undefined && (column === undefined || cols.has(column));
  }

  /** Recognises the schema, or throws a SchemaError naming every missing table and column. */
  async detect(): Promise<SchemaInfo> {
    const missing = (spec: Record<string, string[]>) => Object.entries(spec).flatMap(([table, cols]) =>
      !this.has(table) ? [`table ${table}`] : cols.filter((c) => !this.has(table, c)).map((c) => `column ${table}.${c}`));
    const lacking = missing(REQUIRED);
    const hasUsers = this.has('users') || this.has('roles');
    if (hasUsers) lacking.push(...missing(USERS));
    if (lacking.length) {
      throw new SchemaError(`this is not a listmonk database listmgr can read (listmonk v2 to v6.2): missing ${lacking.join(', ')}`);
    }
    const recorded = await this.query<{ v: string | null }>(
      "SELECT (SELECT value->>-1 FROM settings WHERE key = 'migrations' AND jsonb_typeof(value) = 'array') AS v");
    let version = recorded[0]?.v ?? '';
    if (!/^v\d+\.\d+\.\d+/.test(version)) {
      version = this.has('lists', 'status') ? 'v6 or later' : this.has('templates', 'body_source') ? 'v5' : hasUsers ? 'v4' : this.has('campaigns', 'archive_slug') ? 'v3' : 'v2';
    }
    return { version, hasUsers };
  }

  async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query<T>(sql, params)).rows;
  }

  async count(table: string, where = ''): Promise<number> {
    const [{ n }] = await this.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} ${where}`);
    return Number(n);
  }

  /**
   * The rows of `sql` in batches, through a cursor of the snapshot transaction. The next
   * `ahead` batches are asked for before this one is handed out, so PostgreSQL reads them while
   * the caller writes (more than one for a table read faster than another it goes along with).
   */
  async *batches<T extends pg.QueryResultRow>(sql: string, ahead = 1): AsyncGenerator<T[]> {
    const name = `listmgr_${++this.cursors}`;
    await this.client.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`);
    const fetch = () => this.client.query<T>(`FETCH ${FETCH_ROWS} FROM ${name}`);
    const next = Array.from({ length: ahead }, fetch);
    try {
      for (;;) {
        const { rows } = await next.shift()!;
        if (rows.length < FETCH_ROWS) {
          if (rows.length) yield rows;
          return;
        }
        next.push(fetch());
        yield rows;
      }
    } finally {
      // Fetches still under way (the caller stopped early) must end before the cursor closes.
      for (const f of next) await f.catch(() => undefined);
      await this.client.query(`CLOSE ${name}`);
    }
  }

  /** Ends the transaction (it only read) and the connection. */
  async close(): Promise<void> {
    try {
      await this.client.query('ROLLBACK');
    } finally {
      await this.client.end();
    }
  }
}
