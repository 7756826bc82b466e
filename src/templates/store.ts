// Templates: queries and rules (types, the default template, deletion rules). The templates'
// own rows go through drizzle; the two statements that repoint campaigns stay named SQL.
import { count, eq, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import type { DB } from '../db/connection.ts';
import { NOW, templates } from '../db/schema.ts';
import { param, preparedStatements } from '../db/index.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { invalid, notFound } from '../core/errors.ts';
import type { Authorized } from '../core/authz.ts';
import { defaultTemplates, type TemplateType } from './defaults/index.ts';

export const TEMPLATE_TYPES: readonly TemplateType[] = ['campaign', 'campaign_visual', 'tx'];

export type TemplateRow = typeof templates.$inferSelect;

/** The template object of the API; `body` is omitted when empty (no_body), as listmonk. */
export function templateJson(r: TemplateRow, noBody = false) {
  return {
    id: r.id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    name: r.name,
    subject: r.subject,
    type: r.type,
    ...(noBody || r.body === '' ? {} : { body: r.body }),
    body_source: noBody ? null : r.body_source,
    is_default: r.is_default === 1,
  };
}

/**
 * `is_default = 1` as a literal: with the 1 bound as a parameter, SQLite recompiles the statement
 * on every run to match it against the partial index templates_one_default (4x slower).
 */
const isDefault = sql`${templates.is_default} = 1`;

/** The templates' rows (drizzle, prepared once per connection). */
const statements = (db: DB) => preparedStatements(db, {
  all: (orm) => orm.select().from(templates).orderBy(templates.created_at, templates.id).prepare(),
  byId: (orm) => orm.select().from(templates).where(eq(templates.id, param('id'))).prepare(),
  defaultTemplate: (orm) => orm.select().from(templates).where(isDefault).prepare(),
  insert: (orm) => orm.insert(templates).values({
    name: param('name'), type: param('type'), subject: param('subject'), body: param('body'),
    body_source: param('body_source'), is_default: param('is_default'),
  }).prepare(),
  update: (orm) => orm.update(templates)
    .set({ name: param('name'), subject: param('subject'), body: param('body'), body_source: param('body_source'), updated_at: NOW })
    .where(eq(templates.id, param('id'))).prepare(),
  clearDefault: (orm) => orm.update(templates).set({ is_default: 0 }).where(isDefault).prepare(),
  setDefault: (orm) => orm.update(templates).set({ is_default: 1, updated_at: NOW }).where(eq(templates.id, param('id'))).prepare(),
  count: (orm) => orm.select({ n: count() }).from(templates).prepare(),
  delete: (orm) => orm.delete(templates).where(eq(templates.id, param('id'))).prepare(),
});

/** Campaigns' references to a template being deleted. */
const SQL = {
  repointCampaigns: 'UPDATE campaigns SET template_id = ? WHERE template_id = ?',
  clearArchiveRefs: 'UPDATE campaigns SET archive_template_id = NULL WHERE archive_template_id = ?',
  // A shipped template, found by its type and install-time name.
  shippedRows: 'SELECT id, body FROM templates WHERE type = ? AND name = ?',
  setBody: `UPDATE templates SET body = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
};

export interface TemplateInput {
  name: string;
  type: TemplateType;
  subject: string;
  body: string;
  bodySource: string | null;
}

export class TemplateStore {
  private readonly sql: Prepare;
  private readonly q: ReturnType<typeof statements>;
  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
    this.q = statements(db);
  }

  all(): TemplateRow[] {
    return this.q.all.all();
  }

  find(id: number): TemplateRow | undefined {
    return this.q.byId.get({ id });
  }

  get(id: number): TemplateRow {
    const t = this.find(id);
    if (!t) throw notFound(`template ${id} not found`);
    return t;
  }

  defaultTemplate(): TemplateRow | undefined {
    return this.q.defaultTemplate.get();
  }

  create(t: TemplateInput): TemplateRow {
    const r = this.q.insert.run({
      name: t.name, type: t.type, subject: t.type === 'tx' ? t.subject : '', body: t.body,
      body_source: t.type === 'campaign_visual' ? t.bodySource : null, is_default: 0,
    });
    return this.get(Number(r.lastInsertRowid));
  }

  /** Writes name, subject, body and body source; the type never changes. */
  update(id: Authorized<number>, t: Omit<TemplateInput, 'type'>): TemplateRow {
    const cur = this.get(id);
    this.q.update.run({
      id, name: t.name, subject: cur.type === 'tx' ? t.subject : '', body: t.body,
      body_source: cur.type === 'campaign_visual' ? t.bodySource : null,
    });
    return this.get(id);
  }

  /** Only a campaign template can be the default; the old default stops being one. */
  setDefault(id: Authorized<number>): TemplateRow {
    const t = this.get(id);
    if (t.type !== 'campaign') throw invalid(`only a campaign template can be the default (template ${id} is ${t.type})`);
    this.db.transaction(() => {
      this.q.clearDefault.run();
      this.q.setDefault.run({ id });
    }).immediate();
    return this.get(id);
  }

  /** Refuses the default or the only template; campaigns using it switch to the default. */
  delete(id: Authorized<number>): void {
    this.db.transaction(() => {
      const t = this.get(id);
      if (t.is_default) throw invalid('the default template cannot be deleted');
      if (this.q.count.get()!.n <= 1) throw invalid('the only template cannot be deleted');
      this.sql(SQL.repointCampaigns).run(this.defaultTemplate()?.id ?? null, id);
      this.sql(SQL.clearArchiveRefs).run(id);
      this.q.delete.run({ id });
    }).immediate();
  }

  /**
   * Brings the shipped templates nobody edited (their body is one an earlier version shipped)
   * up to this version's body; edited ones are left alone. Answers the names of those upgraded.
   */
  upgradeUntouched(): string[] {
    const upgraded: string[] = [];
    this.db.transaction(() => {
      for (const d of defaultTemplates) {
        if (!d.earlierBodies.length) continue;
        const rows = this.sql<[string, string], { id: number; body: string }>(SQL.shippedRows).all(d.type, d.name);
        for (const r of rows.filter((x) => d.earlierBodies.includes(createHash('sha256').update(x.body).digest('hex')))) {
          this.sql(SQL.setBody).run(d.body, r.id);
          upgraded.push(d.name);
        }
      }
    }).immediate();
    return upgraded;
  }

  /** Install: the shipped templates, in listmonk's order. */
  insertDefaults(): void {
    for (const d of defaultTemplates) {
      this.q.insert.run({ name: d.name, type: d.type, subject: d.subject, body: d.body, body_source: d.bodySource, is_default: d.isDefault ? 1 : 0 });
    }
  }
}
