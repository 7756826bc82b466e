// Media rows (the files live in the uploads folder; see files.ts), through drizzle.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { DB } from '../db/connection.ts';
import { param, preparedStatements } from '../db/index.ts';
import { media, toJsonText } from '../db/schema.ts';
import type { Authorized } from '../core/authz.ts';

export type MediaRow = typeof media.$inferSelect;

const statements = (db: DB) => preparedStatements(db, {
  // `query` matches part of the file name in any case; '' matches every file.
  list: (orm) => orm.select().from(media)
    .where(and(eq(media.provider, param('provider')), sql`(${param('query')} = '' OR instr(lower(${media.filename}), lower(${param('query')})) > 0)`))
    .orderBy(desc(media.created_at), desc(media.id)).prepare(),
  byId: (orm) => orm.select().from(media).where(eq(media.id, param('id'))).prepare(),
  nameTaken: (orm) => orm.select({ id: media.id }).from(media).where(eq(media.filename, param('filename'))).prepare(),
  insert: (orm) => orm.insert(media).values({
    uuid: param('uuid'), provider: param('provider'), filename: param('filename'),
    content_type: param('content_type'), thumb: param('thumb'), meta: param('meta'),
  }).returning().prepare(),
  delete: (orm) => orm.delete(media).where(eq(media.id, param('id'))).prepare(),
});

export class MediaStore {
  private readonly q: ReturnType<typeof statements>;
  constructor(db: DB) {
    this.q = statements(db);
  }

  /** Media of one provider, newest first; `query` matches part of the file name (any case). */
  list(provider: string, query: string): MediaRow[] {
    return this.q.list.all({ provider, query });
  }

  get(id: number): MediaRow | undefined {
    return this.q.byId.get({ id });
  }

  nameTaken(filename: string): boolean {
    return this.q.nameTaken.get({ filename }) !== undefined;
  }

  insert(m: { uuid: string; provider: string; filename: string; contentType: string; thumb: string | null; meta: object }): MediaRow {
    return this.q.insert.get({ uuid: m.uuid, provider: m.provider, filename: m.filename, content_type: m.contentType, thumb: m.thumb, meta: toJsonText(m.meta) })!;
  }

  delete(id: Authorized<number>): boolean {
    return this.q.delete.run({ id }).changes > 0;
  }
}
