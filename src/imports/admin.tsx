// The admin's import page (/admin/subscribers/import): the upload form (mode, subscription
// status, delimiter, overwrite switches, the lists the user may manage, the file), and while an
// import runs or after it ended, its progress, log and summary. The page is rendered from the
// importer itself, so a reload during an import shows that import; the browser script
// (admin.client.ts) uploads through POST /api/import/subscribers and polls its status.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { bind, data, ref } from '../admin/bind.ts';
import { Field, formatNumber, PageData, PageHead } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { adminPage, adminView, type AdminContext, type AdminDeps } from '../admin/page.tsx';
import { HelpLink } from '../help/link.tsx';
import type { Actor } from '../core/authz.ts';
import { accessOf, routesFor } from '../http/routes.ts';
import { readAppFile } from '../paths.ts';
import type { List, ListService } from '../lists/service.ts';
import type { ImportList, importPage as importScript, ImportRefs } from './admin.client.ts';
import { countsSentence, formatDuration, onFileText, IMPORT_PAGE_STATES, importedSubscribersUrl, skipReasons, stateLabel, type ImportPageData } from './summary.ts';
import type { Importer, ImportRun, ImportStatus } from './importer.ts';
import { IMPORT_ROUTES } from './routes.ts';

/** What the import page uses. */
interface Deps extends AdminDeps {
  importer: Importer;
  lists: ListService;
}

const route = routesFor<Deps>();
export const IMPORT_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/subscribers/import', access: accessOf(IMPORT_ROUTES, 'POST', '/import/subscribers'), handler: importPage, raw: 'text/html', summary: 'The import page: the upload form, or the running or last import' }),
  route({ method: 'GET', path: '/admin/subscribers/import/example.csv', access: accessOf(IMPORT_ROUTES, 'POST', '/import/subscribers'), handler: exampleCsv, raw: 'text/csv', summary: 'An example CSV file for the import' }),
];

/** docs/examples/subscribers.csv: a test imports that very file, so it stays valid. */
const EXAMPLE_CSV = readAppFile('docs/examples/subscribers.csv');

const ui = bind<typeof importScript>('importPage');

const DELIMITERS = [[',', 'admin.import.delimComma'], [';', 'admin.import.delimSemicolon'], ['\t', 'admin.import.delimTab'], ['|', 'admin.import.delimPipe']] as const;

function exampleCsv(c: AdminContext) {
  return c.body(EXAMPLE_CSV, 200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="subscribers.csv"' });
}

/** Every list the actor may import into, by name. */
function manageableLists(s: Deps, actor: Actor): List[] {
  const { results } = s.lists.query(actor, { search: '', tags: [], orderBy: 'l.name', order: 'ASC', limit: -1, offset: 0, minimal: true });
  return results.filter((l) => s.importer.importsInto(actor, l.id)).sort((a, b) => a.name.localeCompare(b.name));
}

function UploadForm({ t, lists, preselect, hidden }: { t: Translate; lists: List[]; preselect: number | null; hidden: boolean }): JSX.Element {
  return (
    <form class="card" {...ref<ImportRefs>('form')} novalidate hidden={hidden} {...ui.attr('hidden', 'formHidden')} {...ui.on('submit', 'submit')} aria-labelledby="import-form-title">
      <h2 id="import-form-title">{t('import.upload')} <HelpLink topic="import" t={t} /></h2>
      <fieldset>
        <legend>{t('admin.import.mode')}</legend>
        <div class="inline">
          <label class="check-label"><input type="radio" name="mode" value="subscribe" checked {...ui.on('change', 'setMode')} /> {t('import.subscribe')}</label>
          <label class="check-label"><input type="radio" name="mode" value="blocklist" {...ui.on('change', 'setMode')} /> {t('import.blocklist')}</label>
        </div>
        <p class="help muted small">{t('admin.import.modeHelp')}</p>
      </fieldset>
      <div class="grid2">
        <Field id="import-status" label={t('admin.import.subscriptionStatus')}>
          <select id="import-status" name="subscription_status" {...ref<ImportRefs>('status')} aria-describedby="import-optin-help">
            <option value="unconfirmed" selected>{t('subscribers.status.unconfirmed')}</option>
            <option value="confirmed">{t('subscribers.status.confirmed')}</option>
            <option value="unsubscribed" disabled>{t('subscribers.status.unsubscribed')}</option>
          </select>
          <p class="callout small" id="import-optin-help" hidden={!lists.some((l) => l.id === preselect && l.optin === 'double')} {...ui.attr('hidden', 'optinHelpHidden')}>{t('admin.import.optinHelp')}</p>
        </Field>
        <Field id="import-delim" label={t('import.csvDelim')} help={t('import.csvDelimHelp')}>
          <select id="import-delim" name="delim" {...ui.on('change', 'fileChosen')}>
            {DELIMITERS.map(([value, key]) => <option value={value}>{t(key)}</option>)}
          </select>
        </Field>
      </div>
      <fieldset {...ui.attr('hidden', 'blocklisting')}>
        <legend>{t('import.overwrite')}</legend>
        <label class="check-label"><input type="checkbox" name="overwrite_userinfo" id="import-overwrite-userinfo" /> {t('admin.import.overwriteUserinfo')}</label>
        <label class="check-label"><input type="checkbox" name="overwrite_subscription_status" id="import-overwrite-status" /> {t('admin.import.overwriteStatus')}</label>
      </fieldset>
      <fieldset {...ui.attr('hidden', 'blocklisting')} aria-describedby="import-lists-help import-lists-error" {...ui.on('change', 'listsChanged')}>
        <legend>{t('globals.terms.lists')}</legend>
        {lists.length ? (
          <div class="choices">
            {lists.map((l) => (
              <label class="check-label">
                <input type="checkbox" name="lists" value={String(l.id)} checked={l.id === preselect} {...data<ImportList>({ optin: l.optin, name: l.name })} /> {l.name}
                {l.optin === 'double' ? <span class="tag">{t('admin.import.doubleOptin')}</span> : null}
              </label>
            ))}
          </div>
        ) : <p class="muted">{t('admin.import.noLists')}</p>}
        <p class="help muted small" id="import-lists-help">{t('import.listSubHelp')}</p>
        <p class="field-error" id="import-lists-error" data-error-for="import-lists" role="alert"></p>
      </fieldset>
      <div class="field">
        <label for="import-file">{t('import.csvFile')}</label>
        <div class="dropzone" {...ui.attr('class', 'dropClass')} {...ui.on('dragover', 'dragOver')} {...ui.on('dragleave', 'dragLeave')} {...ui.on('drop', 'drop')}>
          <p>{t('import.csvFileHelp')}</p>
          <input type="file" id="import-file" name="file" accept=".csv,.zip,text/csv,application/zip" {...ref<ImportRefs>('file')} aria-describedby="import-file-error" {...ui.on('change', 'fileChosen')} />
        </div>
        <p class="field-error" id="import-file-error" data-error-for="import-file" role="alert"></p>
      </div>
      <section class="columns-map" hidden {...ui.attr('hidden', 'mappingHidden')} aria-labelledby="import-columns-title">
        <h3 id="import-columns-title">{t('admin.import.columns')}</h3>
        <p class="help muted small" {...ui.text('mappingNote')}></p>
        <div class="table-wrap" {...ref<ImportRefs>('mapping')}></div>
      </section>
      <p class="alert" data-error-for="_form" role="alert"></p>
      <div class="actions">
        <button type="submit" {...ui.attr('disabled', 'busy')}>{t('admin.import.start')}</button>
      </div>
    </form>
  );
}

function Instructions({ t }: { t: Translate }): JSX.Element {
  return (
    <section class="card" aria-labelledby="import-help-title">
      <h2 id="import-help-title">{t('import.instructions')}</h2>
      <p>{t('import.instructionsHelp')}</p>
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">{t('admin.import.column')}</th><th scope="col">{t('admin.import.required')}</th><th scope="col">{t('globals.fields.description')}</th></tr></thead>
          <tbody>
            <tr><td><code>email</code></td><td>{t('admin.import.yes')}</td><td>{t('admin.import.columnEmail')}</td></tr>
            <tr><td><code>name</code></td><td>{t('admin.import.no')}</td><td>{t('admin.import.columnName')}</td></tr>
            <tr><td><code>attributes</code></td><td>{t('admin.import.no')}</td><td>{t('admin.import.columnAttributes')}</td></tr>
          </tbody>
        </table>
      </div>
      <h3 class="small">{t('import.csvExample')}</h3>
      <pre>{EXAMPLE_CSV}</pre>
      <p><a href="/admin/subscribers/import/example.csv" download="subscribers.csv">{t('admin.import.downloadExample')}</a></p>
    </section>
  );
}

function Progress({ t, status, log, label, tookMs, lists, mode, hidden }: {
  t: Translate; status: ImportStatus; log: string; label: string; tookMs: number | null; lists: number[]; mode: 'subscribe' | 'blocklist'; hidden: boolean;
}): JSX.Element {
  const ended = status.status === 'finished' || status.status === 'failed';
  const reasons = ended ? skipReasons(log) : [];
  return (
    <div hidden={hidden} {...ui.attr('hidden', 'progressHidden')}>
      <section class="card" aria-labelledby="import-progress-title">
        <h2 id="import-progress-title">{t('admin.import.file')}: <span {...ui.text('status.name')}>{status.name}</span></h2>
        <p><span class="tag accent" {...ui.text('stateText')}>{label}</span></p>
        <label for="import-progress">{t('campaigns.progress')}</label>
        <progress id="import-progress" value={String(status.imported)} max={String(Math.max(1, status.total))} {...ui.attr('value', 'status.imported')} {...ui.attr('max', 'progressMax')}></progress>
        <dl class="facts">
          <dt>{t('admin.import.rows')}</dt><dd {...ui.text('countText')}>{formatNumber(status.imported)} / {formatNumber(status.total)}</dd>
          <dt>{t('admin.import.rate')}</dt><dd {...ui.text('rateText')}>—</dd>
          <dt>{t('admin.import.timeLeft')}</dt><dd {...ui.text('timeLeftText')}>—</dd>
        </dl>
        <div class="actions">
          <button type="button" class="danger" {...ui.attr('hidden', 'stopHidden')} hidden={ended} {...ui.on('click', 'stop')}>{t('import.stopImport')}</button>
        </div>
      </section>
      <section class="card" aria-labelledby="import-summary-title" hidden={!ended} {...ui.attr('hidden', 'summaryHidden')}>
        <h2 id="import-summary-title">{t('admin.import.summary')}</h2>
        <p class="lead" {...ui.text('countsText')}>{countsSentence(status)}</p>
        <dl class="facts">
          <dt>{t('admin.import.new')}</dt><dd {...ui.text('newText')}>{formatNumber(status.new)}</dd>
          <dt>{t('admin.import.onFile')}</dt><dd {...ui.text('onFileText')}>{onFileText(status)}</dd>
          <dt>{t('admin.import.skipped')}</dt><dd {...ui.text('skippedText')}>{formatNumber(status.skipped)}</dd>
          <dt>{t('admin.import.duplicates')}</dt><dd {...ui.text('duplicatesText')}>{formatNumber(status.duplicates)}</dd>
          <dt>{t('admin.import.took')}</dt><dd {...ui.text('tookText')}>{tookMs === null ? '—' : formatDuration(tookMs)}</dd>
        </dl>
        <ul class="reasons" {...ref<ImportRefs>('reasons')}>
          {reasons.map((r) => <li><strong>{formatNumber(r.count)}</strong> × {r.reason}</li>)}
        </ul>
        <div class="callout" hidden {...ui.attr('hidden', 'optinHidden')} aria-labelledby="import-optin-title" role="region">
          <h3 id="import-optin-title">{t('admin.import.optinTitle')}</h3>
          <p>{t('admin.import.optinText')}</p>
          <ul class="optin-lists" {...ref<ImportRefs>('optin')}></ul>
          <p class="small" {...ref<ImportRefs>('optinResult')} role="status"></p>
          <div class="actions">
            <button type="button" class="secondary" {...ui.attr('hidden', 'keepHidden')} {...ui.on('click', 'keepUnconfirmed')}>{t('admin.import.optinKeep')}</button>
          </div>
        </div>
        <div class="actions">
          <a class="button secondary" {...ui.attr('href', 'subscribersUrl')} href={importedSubscribersUrl(mode, lists)}>{t('admin.import.viewSubscribers')}</a>
          <button type="button" {...ui.on('click', 'reset')}>{t('admin.import.newImport')}</button>
        </div>
      </section>
      <section class="card" aria-labelledby="import-log-title">
        <h2 id="import-log-title">{t('admin.import.log')}</h2>
        <pre class="log" {...ref<ImportRefs>('log')} {...ui.text('log')} tabindex={0} aria-label={t('admin.import.log')}>{log}</pre>
      </section>
    </div>
  );
}

function importPage(c: AdminContext, s: Deps) {
  const { t, actor } = adminView(c, s);
  const status = s.importer.status();
  const log = s.importer.logs();
  const run: ImportRun | null = s.importer.lastRun();
  const now = Date.now();
  const lists = manageableLists(s, actor);
  const labels = Object.fromEntries(IMPORT_PAGE_STATES.map((st) => [st, t(`admin.import.state.${st}`)])) as ImportPageData['labels'];
  const pageData: ImportPageData = {
    status, log,
    mode: run?.mode ?? 'subscribe',
    lists: run?.lists ?? [],
    elapsedMs: run ? now - run.startedAt.getTime() : null,
    tookMs: run?.endedAt ? run.endedAt.getTime() - run.startedAt.getTime() : null,
    subscriptionStatus: run?.subscriptionStatus ?? 'unconfirmed',
    optinLists: run ? lists.filter((l) => l.optin === 'double' && run.lists.includes(l.id)).map((l) => ({ id: l.id, name: l.name })) : [],
    labels,
  };
  const asked = Number(c.req.query('list_id'));
  const preselect = lists.some((l) => l.id === asked) ? asked : null;
  const idle = status.status === 'none';
  return adminPage(c, s, {
    title: t('import.title'),
    body: (
      <div {...ui.root()}>
        <PageHead title={t('import.title')} />
        <PageData<ImportPageData> id="import-data" value={pageData} />
        <div class="split">
          <UploadForm t={t} lists={lists} preselect={preselect} hidden={!idle} />
          <Progress t={t} status={status} log={log} label={stateLabel(status, log, labels)} tookMs={pageData.tookMs} lists={pageData.lists} mode={pageData.mode} hidden={idle} />
          <Instructions t={t} />
        </div>
      </div>
    ),
  });
}
