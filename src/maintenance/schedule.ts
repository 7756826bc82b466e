// Runs VACUUM on the `maintenance.db.vacuum_cron_interval` schedule while `maintenance.db.vacuum`
// is on. Checked once a minute, so settings changes apply without a restart.
import type { AppContext } from '../context.ts';
import { parseCron } from './cron.ts';
import type { MaintenanceStore } from './store.ts';

interface VacuumSetting {
  vacuum?: boolean;
  vacuum_cron_interval?: string;
}

export class VacuumSchedule {
  private timer: NodeJS.Timeout | null = null;
  private warned = '';

  constructor(private readonly ctx: AppContext, private readonly store: MaintenanceStore) {}

  private check(now: Date): void {
    const { ctx, store } = this;
    const s = ctx.settings.get<VacuumSetting>('maintenance.db') ?? {};
    if (!s.vacuum) return;
    const expr = String(s.vacuum_cron_interval ?? '');
    let due: boolean;
    try {
      due = parseCron(expr).matches(now);
    } catch (e) {
      if (this.warned !== expr) ctx.log.error(`maintenance: not vacuuming, bad maintenance.db.vacuum_cron_interval: ${(e as Error).message}`);
      this.warned = expr;
      return;
    }
    if (!due) return;
    const t0 = Date.now();
    try {
      store.vacuum();
      ctx.log.info(`maintenance: VACUUM done in ${Date.now() - t0} ms`);
    } catch (e) {
      ctx.log.error(`maintenance: VACUUM failed: ${(e as Error).message}`);
    }
  }

  /** Checks at the start of every minute. */
  start(): void {
    const now = Date.now();
    this.timer = setTimeout(() => {
      this.check(new Date());
      this.start();
    }, 60_000 - (now % 60_000) + 50);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
