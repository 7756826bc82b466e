// Media rows (the files live in the uploads folder; see files.ts).
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { Authorized } from '../http/permissions.ts';

export interface MediaRow {
  id: number;
  uuid: string;
  provider: string;
  filename: string;
  content_type: string;
  thumb: string | null;
  meta: string;
  created_at: string;
}

const SQL = {
  list: `SELECT * FROM media WHERE provider = :provider AND (:query = '' OR instr(lower(filename), lower(:query)) > 0)
    ORDER BY created_at DESC, id DESC`,
  byId: 'SELECT * FROM media WHERE id = ?',
  nameTaken: 'SELECT 1 FROM media WHERE filename = ?',
  insert: `INSERT INTO media (uuid, provider, filename, content_type, thumb, meta)
    VALUES (:uuid, :provider, :filename, :contentType, :thumb, :meta) RETURNING *`,
  delete: 'DELETE FROM media WHERE id = ?',
};

export class MediaStore {
  private readonly sql: Prepare;
  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  /** Media of one provider, newest first; `query` matches part of the file name (any case). */
  list(provider: string, query: string): MediaRow[] {
    return this.sql<[object], MediaRow>(SQL.list).all({ provider, query });
  }

  get(id: number): MediaRow | undefined {
    return this.sql<[number], MediaRow>(SQL.byId).get(id);
  }

  nameTaken(filename: string): boolean {
    return this.sql(SQL.nameTaken).get(filename) !== undefined;
  }

  insert(m: { uuid: string; provider: string; filename: string; contentType: string; thumb: string | null; meta: object }): MediaRow {
    return this.sql<[object], MediaRow>(SQL.insert).get({ ...m, meta: JSON.stringify(m.meta) }) as MediaRow;
  }

  delete(id: Authorized<number>): boolean {
    return this.sql(SQL.delete).run(id).changes > 0;
  }
}
