// The admin's maintenance page (/admin/settings/maintenance): listmonk's clean-ups (orphan or
// blocklisted subscribers, old unconfirmed subscriptions, old analytics), the analytics export,
// compacting the database, and the backup download (a Super Admin's only). Each action asks first with the count of
// what it will touch (read from /api/maintenance/.../count) and reports what it did; each card
// shows only to a user who may call its route. The page's script is admin.client.ts.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps } from '../admin/page.tsx';
import { bind, data } from '../admin/bind.ts';
import { Field, PageHead, Time } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { formatBytes } from '../admin/client/bytes.ts';
import { routesFor } from '../http/routes.ts';
import type { Actor } from '../core/authz.ts';
import type { maintenancePage as maintenanceScript, OpForm } from './admin.client.ts';
import type { BackupRecord, DatabaseService } from './service.ts';

/** What the maintenance page uses. */
interface Deps extends AdminDeps {
  database: DatabaseService;
}

const route = routesFor<Deps>();
/** The page shows the database to those who may maintain it, and to those who may change the settings (its backup schedule). */
const showsDatabase = (d: Deps, actor: Actor) => d.routes.may(actor, 'GET /api/maintenance/database') || d.routes.may(actor, 'PUT /api/settings');
export const MAINTENANCE_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/settings/maintenance', access: 'signed-in', may: showsDatabase, handler: maintenancePage, raw: 'text/html', summary: 'Clean-ups, the analytics export, compacting and backing up the database' }),
];

/** When the last backup was made, its size and where it went (`listmgr backup` or a download). */
export function LastBackup({ last, t }: { last: BackupRecord | null; t: Translate }): JSX.Element {
  if (!last) return <>{t('admin.maintenance.noBackup')}</>;
  return <><Time value={last.at} /> <span class="muted small">({formatBytes(last.bytes)}, {last.file})</span></>;
}

const ui = bind<typeof maintenanceScript>('maintenancePage');

/** A card's form: its fields, the place for its refusal, and its button. */
function Op({ op, title, help, button, danger = true, children }: {
  op: OpForm['op']; title: string; help: string; button: string; danger?: boolean; children?: JSX.Element | JSX.Element[];
}): JSX.Element {
  return (
    <form class="card" {...data<OpForm>({ op })} {...ui.on('submit', 'run')} aria-labelledby={`op-${op}-title`}>
      <h2 id={`op-${op}-title`}>{title}</h2>
      <p class="help">{help}</p>
      {children}
      <p class="alert" data-error-for="_form" role="alert"></p>
      <div class="actions">
        <button type="submit" class={danger ? 'danger' : undefined} {...ui.attr('disabled', 'busy')}>{button}</button>
        <span class="muted small" role="status" data-result></span>
      </div>
    </form>
  );
}

function DateField({ id, name, label, t }: { id: string; name: string; label: string; t: Translate }): JSX.Element {
  return (
    <Field id={id} label={label} help={t('admin.maintenance.dateHelp')}>
      <input type="date" id={id} name={name} aria-describedby={`${id}-help ${id}-error`} />
    </Field>
  );
}

function maintenancePage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t } = view;
  const db = s.database.status();
  return adminPage(c, s, {
    title: t('maintenance.title'),
    body: (
      <div {...ui.root()}>
        <PageHead title={t('maintenance.title')} />
        <p class="muted">{t('maintenance.help')}</p>
        <div class="ops">
          {view.may('DELETE /api/maintenance/subscribers/:type') ? (
            <Op op="subscribers" title={t('globals.terms.subscribers')} help={t('maintenance.orphanHelp')} button={t('maintenance.purge')}>
              <Field id="gc-subscribers" label={t('admin.maintenance.which')}>
                <select id="gc-subscribers" name="type">
                  <option value="orphan">{t('dashboard.orphanSubs')}</option>
                  <option value="blocklisted">{t('subscribers.status.blocklisted')}</option>
                </select>
              </Field>
            </Op>
          ) : null}
          {view.may('DELETE /api/maintenance/subscriptions/unconfirmed') ? (
            <Op op="unconfirmed" title={t('maintenance.maintenance.unconfirmedOptins')} help={t('admin.maintenance.unconfirmedHelp')} button={t('maintenance.purge')}>
              <DateField id="gc-unconfirmed-date" name="before_date" label={t('maintenance.olderThan')} t={t} />
            </Op>
          ) : null}
          {view.may('DELETE /api/maintenance/analytics/:type') ? (
            <Op op="analytics" title={t('globals.terms.analytics')} help={t('admin.maintenance.analyticsHelp')} button={t('maintenance.purge')}>
              <Field id="gc-analytics" label={t('admin.maintenance.which')}>
                <select id="gc-analytics" name="type">
                  <option value="all">{t('admin.maintenance.viewsAndClicks')}</option>
                  <option value="views">{t('dashboard.campaignViews')}</option>
                  <option value="clicks">{t('dashboard.linkClicks')}</option>
                </select>
              </Field>
              <DateField id="gc-analytics-date" name="before_date" label={t('maintenance.olderThan')} t={t} />
            </Op>
          ) : null}
          {view.may('GET /api/maintenance/analytics/:type/export') ? (
            <Op op="export" title={t('admin.maintenance.export')} help={t('admin.maintenance.exportHelp')} button={t('admin.maintenance.exportButton')} danger={false}>
              <Field id="export-type" label={t('admin.maintenance.which')}>
                <select id="export-type" name="type">
                  <option value="views">{t('dashboard.campaignViews')}</option>
                  <option value="clicks">{t('dashboard.linkClicks')}</option>
                </select>
              </Field>
              <DateField id="export-since" name="since" label={t('admin.maintenance.since')} t={t} />
            </Op>
          ) : null}
          <section class="card" aria-labelledby="db-title">
            <h2 id="db-title">{t('admin.maintenance.database')}</h2>
            <dl class="facts">
              <dt>{t('admin.maintenance.size')}</dt><dd data-db-size>{formatBytes(db.bytes)}</dd>
              <dt>{t('admin.maintenance.walSize')}</dt><dd data-wal-size>{formatBytes(db.walBytes)}</dd>
              <dt>{t('admin.maintenance.free')}</dt><dd>{formatBytes(db.free)}</dd>
              <dt>{t('admin.maintenance.lastBackup')}</dt>
              <dd data-last-backup><LastBackup last={db.lastBackup} t={t} /></dd>
            </dl>
            {view.may('GET /api/maintenance/backup') ? (
              <div class="actions">
                <a class="button" href="/api/maintenance/backup" download>{t('admin.maintenance.download')}</a>
              </div>
            ) : <p class="help" data-backup-refused>{t('admin.maintenance.backupSuperAdmin')}</p>}
            <p class="help">{t('admin.maintenance.backupHelp')}</p>
          </section>
          {view.may('POST /api/maintenance/vacuum') ? (
            <Op op="vacuum" title={t('admin.maintenance.vacuum')} help={t('admin.maintenance.vacuumHelp')} button={t('admin.maintenance.vacuumButton')} danger={false} />
          ) : null}
        </div>
      </div>
    ),
  });
}
