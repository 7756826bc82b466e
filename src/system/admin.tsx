// The admin's operations pages: the server log (/admin/settings/logs: its recent lines, newest
// last, coloured by level, filtered as typed, refreshed from GET /api/logs) and About
// (/admin/settings/about: versions, the database, uptime, memory, the last backup).
import type { JSX } from 'hono/jsx/jsx-runtime';
import { arch, platform } from 'node:os';
import { adminPage, adminView, type AdminContext, type AdminDeps } from '../admin/page.tsx';
import { bind } from '../admin/bind.ts';
import { Field, PageHead, Time } from '../admin/components.tsx';
import { formatBytes } from '../admin/client/bytes.ts';
import { VERSION } from '../config.ts';
import type { AppContext } from '../context.ts';
import { accessOf, routesFor } from '../http/routes.ts';
import { LastBackup } from '../maintenance/admin.tsx';
import type { DatabaseService } from '../maintenance/service.ts';
import type { logsPage as logsScript } from './admin.client.ts';
import { logLevel } from './log-lines.ts';
import { SYSTEM_ROUTES } from './routes.ts';

/** What the logs and About pages use. */
interface Deps extends AdminDeps, Pick<AppContext, 'log' | 'startedAt'> {
  database: DatabaseService;
}

const route = routesFor<Deps>();
export const SYSTEM_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/settings/logs', access: accessOf(SYSTEM_ROUTES, 'GET', '/logs'), handler: logsPage, raw: 'text/html', summary: 'The server log' }),
  route({ method: 'GET', path: '/admin/settings/about', access: accessOf(SYSTEM_ROUTES, 'GET', '/about'), handler: aboutPage, raw: 'text/html', summary: 'Versions, the database, uptime and memory' }),
];

const logs = bind<typeof logsScript>('logsPage');

function logsPage(c: AdminContext, s: Deps) {
  const { t } = adminView(c, s);
  const lines = s.log.recent();
  return adminPage(c, s, {
    title: t('logs.title'),
    body: (
      <div {...logs.root()}>
        <PageHead title={t('logs.title')} />
        <div class="log-tools">
          <Field id="log-filter" label={t('admin.logs.filter')} help={t('admin.logs.filterHelp')}>
            <input type="search" id="log-filter" {...logs.on('input', 'filterBy')} autocomplete="off" />
          </Field>
          <label class="check-label"><input type="checkbox" {...logs.on('change', 'toggleAuto')} checked /> {t('admin.logs.autoRefresh')}</label>
          <button type="button" class="secondary" {...logs.on('click', 'refresh')}>{t('globals.buttons.refresh')}</button>
        </div>
        <p class="muted small" role="status" {...logs.text('summary()')}>{t('admin.logs.count', { n: lines.length })}</p>
        <div class="log-view" id="log-view" tabindex={0} role="log" aria-label={t('logs.title')}>
          {lines.map((line) => <div class={`log-line ${logLevel(line)}`}>{line}</div>)}
        </div>
      </div>
    ),
  });
}

function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return [d ? `${d} d` : '', d || h ? `${h} h` : '', `${m} min`].filter(Boolean).join(' ');
}

/** One card's facts: the label column has one width on every card of the page, so the values line up. */
function Facts({ rows }: { rows: [string, JSX.Element | string][] }): JSX.Element {
  return <dl class="facts aligned">{rows.map(([label, value]) => <><dt>{label}</dt><dd>{value}</dd></>)}</dl>;
}

function aboutPage(c: AdminContext, s: Deps) {
  const { t } = adminView(c, s);
  const mem = process.memoryUsage();
  const db = s.database.status();
  return adminPage(c, s, {
    title: t('admin.about.title'),
    body: (
      <>
        <PageHead title={t('admin.about.title')} />
        <section class="card" aria-labelledby="about-app">
          <h2 id="about-app">listmgr</h2>
          <Facts rows={[
            [t('admin.about.version'), VERSION],
            ['Node.js', process.version],
            ['SQLite', s.database.sqliteVersion()],
            [t('admin.about.platform'), `${platform()} ${arch()}`],
            [t('admin.about.started'), <><Time value={s.startedAt.toISOString()} /> ({uptime(Math.round((Date.now() - s.startedAt.getTime()) / 1000))})</>],
            [t('admin.about.rss'), formatBytes(mem.rss)],
            [t('admin.about.heap'), `${formatBytes(mem.heapUsed)} / ${formatBytes(mem.heapTotal)}`],
          ]} />
        </section>
        <section class="card" aria-labelledby="about-db">
          <h2 id="about-db">{t('admin.maintenance.database')}</h2>
          <Facts rows={[
            [t('admin.about.path'), <code>{db.path}</code>],
            [t('admin.maintenance.size'), formatBytes(db.bytes)],
            [t('admin.maintenance.walSize'), formatBytes(db.walBytes)],
            [t('admin.maintenance.lastBackup'), <LastBackup last={db.lastBackup} t={t} />],
          ]} />
        </section>
      </>
    ),
  });
}
