// What the admin shows of the database (the maintenance and About pages, and
// GET /api/maintenance/database): its files' sizes, the space VACUUM would return, the last
// backup and SQLite's version. Pages read it here, never the database handle or the store.
import type { AppContext } from '../context.ts';
import { databaseFiles } from '../db/files.ts';
import { SettingsService, type BackupRecord } from '../settings/service.ts';
import type { MaintenanceStore } from './store.ts';

export type { BackupRecord };

export interface DatabaseStatus {
  /** The database file's path, as configured. */
  path: string;
  /** The file's size and its write-ahead log's, in bytes. */
  bytes: number;
  walBytes: number;
  /** The bytes of the pages in use, and of the free ones VACUUM would return. */
  used: number;
  free: number;
  lastBackup: BackupRecord | null;
}

export class DatabaseService {
  constructor(private readonly ctx: Pick<AppContext, 'config' | 'db'>, private readonly store: MaintenanceStore) {}

  status(): DatabaseStatus {
    const { pageSize, pages, free } = this.store.pages();
    const { bytes, walBytes } = databaseFiles(this.ctx.config.dbPath);
    return { path: this.ctx.config.dbPath, bytes, walBytes, used: (pages - free) * pageSize, free: free * pageSize, lastBackup: SettingsService.lastBackup(this.ctx.db) };
  }

  sqliteVersion(): string {
    return this.store.sqliteVersion();
  }
}
