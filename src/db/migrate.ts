// Numbered SQL migrations from sql/NNNN_name.sql, applied in order, each in its own transaction.
import { listAppFiles, readAppFile } from '../paths.ts';
import type { DB } from './connection.ts';

export interface Migration {
  version: number;
  name: string;
  /** Its path from the repository's root (read with readAppFile). */
  file: string;
}

const FILE_RE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function listMigrations(dir = 'sql'): Migration[] {
  return listAppFiles(dir)
    .map((f) => FILE_RE.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2], file: `${dir}/${m[0]}` }))
    .sort((a, b) => a.version - b.version);
}

function ensureTable(db: DB): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`);
}

export function appliedVersions(db: DB): Set<number> {
  ensureTable(db);
  return new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
}

export function pendingMigrations(db: DB): Migration[] {
  const done = appliedVersions(db);
  return listMigrations().filter((m) => !done.has(m.version));
}

/** Applies pending migrations; returns the ones applied. Safe to run repeatedly. */
export function migrate(db: DB, onApply?: (m: Migration) => void): Migration[] {
  const pending = pendingMigrations(db);
  for (const m of pending) {
    const sql = readAppFile(m.file);
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name);
    }).immediate();
    onApply?.(m);
  }
  return pending;
}

/** True once install has run (the settings table exists and holds the install marker). */
export function isInstalled(db: DB): boolean {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get();
  if (!hasTable) return false;
  return db.prepare("SELECT 1 FROM settings WHERE key = 'app.installed_at'").get() !== undefined;
}
