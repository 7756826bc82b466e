// Templates: SQL and rules (types, the default template, deletion rules).
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { badRequest, notFound } from '../http/errors.ts';
import type { Authorized } from '../http/permissions.ts';
import { defaultTemplates, type TemplateType } from './defaults/index.ts';

export const TEMPLATE_TYPES: readonly TemplateType[] = ['campaign', 'campaign_visual', 'tx'];

export interface TemplateRow {
  id: number;
  name: string;
  type: TemplateType;
  subject: string;
  body: string;
  body_source: string | null;
  is_default: number;
  created_at: string;
  updated_at: string;
}

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

const SQL = {
  all: 'SELECT * FROM templates ORDER BY created_at, id',
  byId: 'SELECT * FROM templates WHERE id = ?',
  defaultTemplate: 'SELECT * FROM templates WHERE is_default = 1',
  insert: `INSERT INTO templates (name, type, subject, body, body_source, is_default) VALUES (?, ?, ?, ?, ?, ?)`,
  update: `UPDATE templates SET name = ?, subject = ?, body = ?, body_source = ?,
           updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  clearDefault: 'UPDATE templates SET is_default = 0 WHERE is_default = 1',
  setDefault: `UPDATE templates SET is_default = 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  count: 'SELECT count(*) FROM templates',
  repointCampaigns: 'UPDATE campaigns SET template_id = ? WHERE template_id = ?',
  clearArchiveRefs: 'UPDATE campaigns SET archive_template_id = NULL WHERE archive_template_id = ?',
  delete: 'DELETE FROM templates WHERE id = ?',
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
  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  all(): TemplateRow[] {
    return this.sql<[], TemplateRow>(SQL.all).all();
  }

  find(id: number): TemplateRow | undefined {
    return this.sql<[number], TemplateRow>(SQL.byId).get(id);
  }

  get(id: number): TemplateRow {
    const t = this.find(id);
    if (!t) throw notFound(`template ${id} not found`);
    return t;
  }

  defaultTemplate(): TemplateRow | undefined {
    return this.sql<[], TemplateRow>(SQL.defaultTemplate).get();
  }

  create(t: TemplateInput): TemplateRow {
    const r = this.sql(SQL.insert).run(t.name, t.type, t.type === 'tx' ? t.subject : '', t.body, t.type === 'campaign_visual' ? t.bodySource : null, 0);
    return this.get(Number(r.lastInsertRowid));
  }

  /** Writes name, subject, body and body source; the type never changes. */
  update(id: Authorized<number>, t: Omit<TemplateInput, 'type'>): TemplateRow {
    const cur = this.get(id);
    this.sql(SQL.update).run(t.name, cur.type === 'tx' ? t.subject : '', t.body, cur.type === 'campaign_visual' ? t.bodySource : null, id);
    return this.get(id);
  }

  /** Only a campaign template can be the default; the old default stops being one. */
  setDefault(id: Authorized<number>): TemplateRow {
    const t = this.get(id);
    if (t.type !== 'campaign') throw badRequest(`only a campaign template can be the default (template ${id} is ${t.type})`);
    this.db.transaction(() => {
      this.sql(SQL.clearDefault).run();
      this.sql(SQL.setDefault).run(id);
    }).immediate();
    return this.get(id);
  }

  /** Refuses the default or the only template; campaigns using it switch to the default. */
  delete(id: Authorized<number>): void {
    this.db.transaction(() => {
      const t = this.get(id);
      if (t.is_default) throw badRequest('the default template cannot be deleted');
      if ((this.sql(SQL.count).pluck().get() as number) <= 1) throw badRequest('the only template cannot be deleted');
      this.sql(SQL.repointCampaigns).run(this.defaultTemplate()?.id ?? null, id);
      this.sql(SQL.clearArchiveRefs).run(id);
      this.sql(SQL.delete).run(id);
    }).immediate();
  }

  /** Install: the shipped templates, in listmonk's order. */
  insertDefaults(): void {
    for (const d of defaultTemplates) {
      this.sql(SQL.insert).run(d.name, d.type, d.subject, d.body, d.bodySource, d.isDefault ? 1 : 0);
    }
  }
}
