// npm run bench:migrate — migrates a generated listmonk v6.2 database of N subscribers (default
// 1,000,000, env BENCH_MIGRATE_SUBSCRIBERS) with attributes and two subscriptions each, on a
// PostgreSQL started in a temp folder (test/helpers/postgres.ts), with the built launcher
// (`npm run build` first), and prints:
//   BENCH migrate_subscribers_per_s   subscribers per second over the whole command (all tables,
//                                     verification and the rename included)
//   BENCH migrate_peak_rss_mb         the migrating process's peak resident memory (VmHWM)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../../test/helpers/postgres.ts';
import { listmonkSchema } from '../../test/migrate/listmonk-fixture.ts';

const SUBSCRIBERS = Number(process.env.BENCH_MIGRATE_SUBSCRIBERS ?? 1_000_000);
const root = new URL('../../', import.meta.url).pathname;

function peakRssMb(pid: number): number | null {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return null; // ended meanwhile
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-bench-migrate-'));
  const pg = await startPostgres();
  try {
    await pg.createDatabase('listmonk');
    let start = performance.now();
    await pg.withClient('listmonk', async (c) => {
      await c.query(listmonkSchema('v6.2.0'));
      await c.query(`INSERT INTO lists (uuid, name, type, optin) SELECT gen_random_uuid(), 'List ' || i, 'public', 'single' FROM generate_series(1, 10) i`);
      await c.query(`INSERT INTO subscribers (uuid, email, name, attribs, status)
        SELECT gen_random_uuid(), 'user' || i || '@example' || (i % 97) || '.com', 'User ' || i,
          jsonb_build_object('city', (ARRAY['Berlin', 'Lagos', 'Lima', 'Pune'])[i % 4 + 1], 'score', i % 100, 'tags', jsonb_build_array('news', 'beta')),
          CASE WHEN i % 50 = 0 THEN 'blocklisted'::subscriber_status ELSE 'enabled' END
        FROM generate_series(1, ${SUBSCRIBERS}) i`);
      await c.query(`INSERT INTO subscriber_lists (subscriber_id, list_id, status, meta)
        SELECT id, 1 + id % 10, 'confirmed'::subscription_status, '{"optin_ip": "192.0.2.1"}'::jsonb FROM subscribers
        UNION ALL SELECT id, 1 + (id + 5) % 10, 'unconfirmed'::subscription_status, '{}'::jsonb FROM subscribers`);
      await c.query('ANALYZE');
    });
    console.log(`generated ${SUBSCRIBERS} listmonk subscribers in ${((performance.now() - start) / 1000).toFixed(1)} s`);

    start = performance.now();
    const proc = spawn(join(root, 'listmgr'), ['migrate', 'listmonk', '--from', pg.url('listmonk'), '--db', join(dir, 'listmgr.db')], {
      env: { ...process.env, LISTMGR_UPLOADS: join(dir, 'uploads') }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, peakRssMb(proc.pid!) ?? 0)), 100);
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    clearInterval(poll);
    const seconds = (performance.now() - start) / 1000;
    if (code !== 0) throw new Error(`the migration failed (${code}): ${out}`);
    console.log(out.trim());
    console.log(`BENCH migrate_subscribers_per_s ${Math.round(SUBSCRIBERS / seconds)}  (${SUBSCRIBERS} subscribers, ${2 * SUBSCRIBERS} subscriptions in ${seconds.toFixed(1)} s)`);
    console.log(`BENCH migrate_peak_rss_mb ${peak.toFixed(0)}`);
  } finally {
    pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
