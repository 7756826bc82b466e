// The sizes of the database's files, for the status command, the maintenance and About pages,
// /metrics and restore's checks. A leaf module.
import { statSync } from 'node:fs';

/** A file's size in bytes; 0 for a file that is not there (or cannot be read). */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The database file's size and its write-ahead log's, in bytes (0 for a file that is not there). */
export function databaseFiles(dbPath: string): { bytes: number; walBytes: number } {
  return { bytes: fileSize(dbPath), walBytes: fileSize(`${dbPath}-wal`) };
}
