// Runs VACUUM on the `maintenance.db.vacuum_cron_interval` schedule while `maintenance.db.vacuum`
// is on. Checked once a minute, so settings changes apply without a restart.
import type { AppContext } from '../context.ts';
import { parseCron } from './cron.ts';
import type { MaintenanceStore } from './store.ts';

interface VacuumSetting {
  vacuum?: boolean;
  vacuum_cron_interval?: string;
}

export function startVacuumSchedule(ctx: AppContext, store: MaintenanceStore): { stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let warned = '';

  const check = (now: Date) => {
    const s = ctx.settings.get<VacuumSetting>('maintenance.db') ?? {};
    if (!s.vacuum) return;
    const expr = String(s.vacuum_cron_interval ?? '');
    let due: boolean;
    try {
      due = parseCron(expr).matches(now);
    } catch (e) {
      if (warned !== expr) ctx.log.error(`maintenance: not vacuuming, bad maintenance.db.vacuum_cron_interval: ${(e as Error).message}`);
      warned = expr;
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
  };

  const arm = () => {
    const now = Date.now();
    timer = setTimeout(() => {
      check(new Date());
      arm();
    }, 60_000 - (now % 60_000) + 50);
    timer.unref();
  };
  arm();
  return {
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
