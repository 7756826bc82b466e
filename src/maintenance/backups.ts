// Scheduled backups (beyond listmonk): while `backup.enabled` is on, the server writes a
// consistent copy of the database every `backup.interval` into `backup.dir`, the way
// `listmgr backup` does (db/copy.ts, recorded as the last backup), and keeps the newest
// `backup.keep` of them. The next one is due an interval after the last backup recorded, so a
// restart neither skips one nor writes an extra one, and a `listmgr backup` counts too.
// Checked every 30 s, so a settings change applies without a restart.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AppContext } from '../context.ts';
import { copyDatabase } from '../db/copy.ts';
import { parseDuration } from '../duration.ts';
import { SettingsService, type BackupRecord } from '../settings/service.ts';
import { backupFolder, backupName, folderProblem, scheduledBackups } from '../db/backup-files.ts';

const CHECK_EVERY_MS = 30_000;

/** What the admin's About page shows of the schedule. */
export interface BackupStatus {
  enabled: boolean;
  interval: string;
  keep: number;
  /** The folder, resolved. */
  dir: string;
  last: BackupRecord | null;
  /** When the next one is due (ISO time); null while disabled. */
  next_at: string | null;
  /** The scheduled backups in the folder, newest first. */
  files: string[];
}

export class BackupSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<BackupRecord | null> | null = null;

  constructor(private readonly ctx: AppContext) {}

  private settings() {
    const { settings, config } = this.ctx;
    return {
      enabled: settings.get<boolean>('backup.enabled'),
      interval: settings.get<string>('backup.interval'),
      intervalMs: parseDuration(settings.get<string>('backup.interval')) ?? 86_400_000,
      keep: settings.get<number>('backup.keep'),
      dir: backupFolder(settings.get<string>('backup.dir'), config.dbPath),
    };
  }

  /** When the next backup is due: an interval after the last one recorded, else now. */
  private dueAt(intervalMs: number): Date | null {
    const last = SettingsService.lastBackup(this.ctx.db);
    const at = last ? Date.parse(last.at) : NaN;
    return Number.isNaN(at) ? null : new Date(at + intervalMs);
  }

  status(now = new Date()): BackupStatus {
    const s = this.settings();
    const due = this.dueAt(s.intervalMs);
    return {
      enabled: s.enabled,
      interval: s.interval,
      keep: s.keep,
      dir: s.dir,
      last: SettingsService.lastBackup(this.ctx.db),
      next_at: s.enabled ? (due && due > now ? due : now).toISOString() : null,
      files: scheduledBackups(s.dir, this.ctx.config.dbPath),
    };
  }

  /**
   * One check: writes a backup when enabled and due at `now`, then removes the scheduled
   * backups past the newest `keep`. Answers the backup written, or null. Never throws: a
   * failure is logged and tried again at the next check.
   */
  tick(now = new Date()): Promise<BackupRecord | null> {
    return (this.running ??= this.run(now).finally(() => (this.running = null)));
  }

  private async run(now: Date): Promise<BackupRecord | null> {
    const s = this.settings();
    if (!s.enabled) return null;
    const due = this.dueAt(s.intervalMs);
    if (due && due > now) return null;
    const { log, config, db } = this.ctx;
    const problem = folderProblem(s.dir);
    if (problem) {
      log.error(`scheduled backup failed: ${problem}`);
      return null;
    }
    const target = join(s.dir, backupName(config.dbPath, now));
    if (existsSync(target)) {
      log.error(`scheduled backup failed: ${target} already exists`);
      return null;
    }
    // Written beside the target and renamed when complete, so a backup file is never a partial copy.
    const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
    const t0 = Date.now();
    try {
      await copyDatabase(config.dbPath, partial);
      renameSync(partial, target);
    } catch (e) {
      rmSync(partial, { force: true });
      log.error(`scheduled backup failed: ${(e as Error).message}`, { file: target });
      return null;
    }
    const record: BackupRecord = { at: now.toISOString(), file: target, bytes: statSync(target).size };
    SettingsService.recordBackup(db, record);
    log.info(`scheduled backup written to ${target} (${(record.bytes / 1048576).toFixed(1)} MB in ${Date.now() - t0} ms)`, { file: target, bytes: record.bytes });
    for (const old of scheduledBackups(s.dir, config.dbPath).slice(s.keep)) {
      try {
        rmSync(old);
        log.info(`removed the scheduled backup ${old} (backup.keep is ${s.keep})`, { file: old });
      } catch (e) {
        log.error(`could not remove the old backup ${old}: ${(e as Error).message}`);
      }
    }
    return record;
  }

  start(): void {
    const check = () => {
      void this.tick().then(() => {
        if (this.timer) this.timer = setTimeout(check, CHECK_EVERY_MS).unref();
      });
    };
    this.timer = setTimeout(check, 1000).unref();
  }

  /** Stops the checks; waits for a backup being written. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
