// The admin's settings page (/admin/settings): every setting in nine tabs (the tab in the URL's
// hash, #smtp), read through the settings service with secrets blanked, written only by the
// page's script through PUT /api/settings. To a user who may not call that route the form is
// read-only, and Save, Test and Scan are not there (the API refuses them too). The script is
// admin.client.ts.
//
// Each control names the setting it edits (its ControlData): key (the setting) and sub (the
// path inside an object setting), or sub inside a block (BlockData: smtp, messengers,
// bounce.mailboxes); its name is the path the API's messages use (`smtp[1].port`), so a refusal
// is shown beside it. Secrets are never in the page: their inputs start empty (empty keeps the
// saved secret) and only say whether one is saved.
//
// Settings deliberately not on the page:
// - security.oidc: listmgr has no OIDC sign-in (docs/differences.md), so its fields would do nothing.
// - upload.s3.*: listmgr stores media on the file system only (upload.provider "s3" is refused,
//   docs/decisions.md §81); the provider is shown, not chosen.
// - Only the first of bounce.mailboxes is edited (listmonk's UI has one mailbox too); others are kept.
// Every other key of defaults.ts is on the page.
import type { Child } from 'hono/jsx';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { bind, data } from '../admin/bind.ts';
import { Field, PageData, PageHead, Time } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { adminPage, adminView, type AdminContext, type AdminDeps } from '../admin/page.tsx';
import type { ScanRecord } from '../bounces/mailbox.ts';
import type { BounceService } from '../bounces/service.ts';
import { HelpLink } from '../help/link.tsx';
import { accessOf, routesFor } from '../http/routes.ts';
import { availableLanguages } from '../i18n/index.ts';
import type { AddButton, BlockData, ControlData, ControlKind, PageSetup, PanelData, SettingsTexts, settingsPage as settingsScript, TabData } from './admin.client.ts';
import { DEFAULT_SETTINGS, smtpDefaults, type Settings } from './defaults.ts';
import type { SettingsService } from './service.ts';
import { SETTINGS_ROUTES } from './routes.ts';

/** What the settings page uses. */
interface Deps extends AdminDeps {
  settings: SettingsService;
  bounces: BounceService;
}

const route = routesFor<Deps>();
export const SETTINGS_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/settings', access: accessOf(SETTINGS_ROUTES, 'GET', '/settings'), handler: settingsPage, raw: 'text/html', summary: 'The settings, in tabs' }),
];

export const SETTINGS_TABS = ['general', 'performance', 'privacy', 'security', 'media', 'smtp', 'bounces', 'messengers', 'appearance'] as const;
/** The tabs' names: listmonk's keys. */
const TAB_LABELS: Record<(typeof SETTINGS_TABS)[number], string> = {
  general: 'settings.general.name', performance: 'settings.performance.name', privacy: 'settings.privacy.name', security: 'settings.security.name',
  media: 'settings.media.title', smtp: 'settings.smtp.name', bounces: 'settings.bounces.name', messengers: 'settings.messengers.name', appearance: 'settings.appearance.name',
};

/** A new block's starting values (the page's "Add" buttons). */
const NEW_BLOCKS = {
  smtp: { ...smtpDefaults({ enabled: true, host: '', port: 587, auth_protocol: 'login', username: '', password: '' }) },
  messengers: { uuid: '', enabled: true, name: '', root_url: '', username: '', password: '', max_conns: 1, max_msg_retries: 2, timeout: '5s' },
} as const;
const DEFAULT_MAILBOX = (DEFAULT_SETTINGS['bounce.mailboxes'] as Record<string, unknown>[])[0];

type Block = Record<string, unknown>;
type Kind = Exclude<ControlKind, 'member' | 'captcha'>;

/** What every control needs: the strings, read-only or not, the values, which secrets are saved. */
interface Ctx {
  t: Translate;
  ro: boolean;
  /** Whether the SMTP blocks offer their test (POST /api/settings/smtp/test). */
  tests: boolean;
  v: Settings;
  secretsSet: Set<string>;
}

/** Where a control's value lives: a setting (and a path inside it), or a field of a block. */
type Where = { key: string; sub?: string } | { block: string; index: number; bid: string; sub: string; value: Block };

interface ControlProps {
  c: Ctx;
  at: Where;
  label: string;
  help?: string;
  kind?: Kind;
  options?: { value: string; label: string }[];
  type?: string;
  /** The code editor's language (kind code). */
  lang?: 'css' | 'javascript';
  /** Other setting paths whose refusals belong beside this control. */
  errorKeys?: string;
  placeholder?: string;
}

function dig(v: unknown, path: string): unknown {
  return path ? path.split('.').reduce<unknown>((o, p) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[p] : undefined), v) : v;
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '');

/** name (the API's path), id, data attributes and the current value of a control. */
function place(c: Ctx, at: Where) {
  if ('block' in at) {
    const name = `${at.block}[${at.index}].${at.sub}`;
    return { name, id: `s-${slug(at.block)}-${at.bid}-${slug(at.sub)}`, where: { sub: at.sub }, value: dig(at.value, at.sub) };
  }
  const name = at.sub ? `${at.key}.${at.sub}` : at.key;
  return { name, id: `s-${slug(name)}`, where: { key: at.key, sub: at.sub ?? '' }, value: dig(c.v[at.key], at.sub ?? '') };
}

function Control(p: ControlProps): JSX.Element {
  const { c } = p;
  const kind = p.kind ?? 'text';
  const { name, id, where, value } = place(c, p.at);
  // The attributes in the order the page has always written them.
  const common = {
    id, name, ...data<Pick<ControlData, 'kind'>>({ kind }), disabled: c.ro, ...data<Pick<ControlData, 'errorKeys'>>({ errorKeys: p.errorKeys }),
    'aria-describedby': p.help ? `${id}-help ${id}-error` : `${id}-error`, ...data<Pick<ControlData, 'key' | 'sub'>>(where),
  };
  if (kind === 'bool') {
    return (
      <div class="field">
        <label class="check-label"><input type="checkbox" {...common} checked={value === true} /> {p.label}</label>
        {p.help ? <p class="help" id={`${id}-help`}>{p.help}</p> : null}
        <p class="field-error" id={`${id}-error`} data-error-for={id} role="alert"></p>
      </div>
    );
  }
  let control: Child;
  switch (kind) {
    case 'select':
      control = <select {...common}>{(p.options ?? []).map((o) => <option value={o.value} selected={o.value === String(value)}>{o.label}</option>)}</select>;
      break;
    case 'lines':
      control = <textarea rows={4} {...common}>{((value as string[]) ?? []).join('\n')}</textarea>;
      break;
    case 'json':
      control = <textarea rows={3} {...common} {...data<Pick<ControlData, 'empty'>>({ empty: '[]' })}>{JSON.stringify(value ?? [])}</textarea>;
      break;
    case 'code':
      control = <textarea rows={10} {...common} data-editor={p.lang}>{String(value ?? '')}</textarea>;
      break;
    case 'multiline':
      control = <textarea rows={3} {...common} placeholder={p.placeholder}>{String(value ?? '')}</textarea>;
      break;
    case 'colour':
      control = <input type="color" {...common} value={String(value ?? '')} />;
      break;
    case 'secret': {
      const saved = c.secretsSet.has(name);
      // A saved one is only kept for the server it was saved for: the page's script says "type it
      // again" once the server's host, port, user name or TLS differ from the saved ones.
      control = <input type="password" autocomplete="new-password" {...common} value="" placeholder={saved ? c.t('admin.settings.secretSaved') : c.t('admin.settings.secretNone')} {...data<Pick<ControlData, 'secretSaved' | 'retype'>>(saved ? { secretSaved: 'true', retype: c.t('admin.settings.secretRetype') } : {})} />;
      break;
    }
    case 'tags':
      control = <input type="text" {...common} value={((value as string[]) ?? []).join(', ')} placeholder={p.placeholder} />;
      break;
    case 'int':
      control = <input type="number" inputmode="numeric" {...common} value={value === null || value === undefined ? '' : String(value)} />;
      break;
    default:
      control = <input type={p.type ?? 'text'} {...common} value={String(value ?? '')} placeholder={p.placeholder} />;
  }
  return <Field id={id} label={p.label} help={p.help}>{control}</Field>;
}

function Panel({ id, t, children }: { id: (typeof SETTINGS_TABS)[number]; t: Translate; children: Child }): JSX.Element {
  return (
    <section class="tab-panel" role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`} {...data<PanelData>({ tabPanel: id })} hidden={id !== 'general'} tabindex={0}>
      <h2 class="visually-hidden">{t(TAB_LABELS[id])}</h2>
      {children}
    </section>
  );
}

const onOff = (t: Translate, values: string[], prefix: string) => values.map((v) => ({ value: v, label: t(`${prefix}${v}`) }));

function General({ c }: { c: Ctx }): JSX.Element {
  const { t } = c;
  const k = (key: string) => ({ key });
  return (
    <Panel id="general" t={t}>
      <div class="card">
        <div class="grid2">
          <Control c={c} at={k('app.site_name')} label={t('settings.general.siteName')} help={t('admin.settings.siteNameHelp')} />
          <Control c={c} at={k('app.root_url')} label={t('settings.general.rootURL')} help={t('admin.settings.rootUrlHelp')} type="url" />
          <Control c={c} at={k('app.site_url')} label={t('admin.settings.siteUrl')} help={t('admin.settings.siteUrlHelp')} type="url" />
          <Control c={c} at={k('app.from_email')} label={t('settings.general.fromEmail')} help={t('settings.general.fromEmailHelp')} />
          <Control c={c} at={k('app.favicon_url')} label={t('settings.general.faviconURL')} help={t('settings.general.faviconURLHelp')} type="url" />
        </div>
        <Control c={c} at={k('app.notify_emails')} kind="tags" label={t('settings.general.adminNotifEmails')} help={t('settings.general.adminNotifEmailsHelp')} />
        <Control c={c} at={k('app.lang')} kind="select" label={t('settings.general.language')} options={availableLanguages().map((l) => ({ value: l.code, label: l.name }))} />
      </div>
      <Brand c={c} />
      <div class="card">
        <Control c={c} at={k('app.enable_public_subscription_page')} kind="bool" label={t('settings.general.enablePublicSubPage')} help={t('settings.general.enablePublicSubPageHelp')} />
        <Control c={c} at={k('app.send_optin_confirmation')} kind="bool" label={t('settings.general.sendOptinConfirm')} help={t('settings.general.sendOptinConfirmHelp')} />
        <Control c={c} at={k('app.show_optin_page')} kind="bool" label={t('settings.general.showOptinPage')} help={t('settings.general.showOptinPageHelp')} />
        <Control c={c} at={k('app.enable_public_archive')} kind="bool" label={t('settings.general.enablePublicArchive')} help={t('settings.general.enablePublicArchiveHelp')} />
        <Control c={c} at={k('app.archive_new_campaigns')} kind="bool" label={t('admin.settings.archiveNewCampaigns')} help={t('admin.settings.archiveNewCampaignsHelp')} />
        <Control c={c} at={k('app.enable_public_archive_rss_content')} kind="bool" label={t('settings.general.enablePublicArchiveRSSContent')} help={t('settings.general.enablePublicArchiveRSSContentHelp')} />
        <Control c={c} at={k('app.check_updates')} kind="bool" label={t('settings.general.checkUpdates')} help={t('admin.settings.checkUpdatesHelp')} />
      </div>
    </Panel>
  );
}

/** The newsletter's brand: its logo, accent colour and postal address (the name is above). */
function Brand({ c }: { c: Ctx }): JSX.Element {
  const { t } = c;
  const k = (key: string) => ({ key });
  return (
    <section class="card" aria-labelledby="brand-title">
      <h3 id="brand-title">{t('admin.settings.brand')}</h3>
      <p class="help">{t('admin.settings.brandHelp')}</p>
      <div class="grid2">
        <div class="field">
          <Control c={c} at={k('app.logo_url')} label={t('settings.general.logoURL')} help={t('admin.settings.logoHelp')} />
          {c.ro ? null : <button type="button" class="secondary small fill" {...ui.on('click', 'pickLogo')}>{t('admin.settings.logoFromMedia')}</button>}
        </div>
        <Control c={c} at={k('app.accent_color')} kind="colour" label={t('admin.settings.accentColor')} help={t('admin.settings.accentColorHelp')} />
      </div>
      <Control c={c} at={k('app.postal_address')} kind="multiline" label={t('admin.settings.postalAddress')} help={t('admin.settings.postalAddressHelp')} placeholder={t('admin.settings.postalAddressPlaceholder')} />
    </section>
  );
}

function Performance({ c }: { c: Ctx }): JSX.Element {
  const { t } = c;
  const k = (key: string, sub?: string) => ({ key, sub });
  return (
    <Panel id="performance" t={t}>
      <div class="card">
        <div class="grid2">
          <Control c={c} at={k('app.concurrency')} kind="int" label={t('settings.performance.concurrency')} help={t('settings.performance.concurrencyHelp')} />
          <Control c={c} at={k('app.message_rate')} kind="int" label={t('settings.performance.messageRate')} help={t('settings.performance.messageRateHelp')} />
          <Control c={c} at={k('app.batch_size')} kind="int" label={t('settings.performance.batchSize')} help={t('settings.performance.batchSizeHelp')} />
          <Control c={c} at={k('app.max_send_errors')} kind="int" label={t('settings.performance.maxErrThreshold')} help={t('settings.performance.maxErrThresholdHelp')} />
          <Control c={c} at={k('app.defer_limit')} label={t('admin.settings.deferLimit')} help={t('admin.settings.deferLimitHelp')} />
        </div>
      </div>
      <div class="card">
        <Control c={c} at={k('app.message_sliding_window')} kind="bool" label={t('settings.performance.slidingWindow')} help={t('settings.performance.slidingWindowHelp')} />
        <div class="grid2">
          <Control c={c} at={k('app.message_sliding_window_duration')} label={t('settings.performance.slidingWindowDuration')} help={t('settings.performance.slidingWindowDurationHelp')} />
          <Control c={c} at={k('app.message_sliding_window_rate')} kind="int" label={t('settings.performance.slidingWindowRate')} help={t('settings.performance.slidingWindowRateHelp')} />
        </div>
      </div>
      <div class="card">
        <Control c={c} at={k('app.cache_slow_queries')} kind="bool" label={t('settings.performance.cacheSlowQueries')} help={t('admin.settings.cacheSlowQueriesHelp')} />
        <Control c={c} at={k('app.cache_slow_queries_interval')} label={t('settings.maintenance.cron')} help={t('admin.settings.cronHelp')} />
      </div>
      <div class="card">
        <Control c={c} at={k('maintenance.db', 'vacuum')} kind="bool" label={t('admin.settings.vacuum')} help={t('admin.settings.vacuumHelp')} />
        <Control c={c} at={k('maintenance.db', 'vacuum_cron_interval')} label={t('settings.maintenance.cron')} help={t('admin.settings.cronHelp')} />
      </div>
    </Panel>
  );
}

const EXPORTABLE = ['profile', 'subscriptions', 'campaign_views', 'link_clicks'] as const;

function Privacy({ c }: { c: Ctx }): JSX.Element {
  const { t } = c;
  const k = (key: string) => ({ key });
  const exportable = (c.v['privacy.exportable'] as string[]) ?? [];
  return (
    <Panel id="privacy" t={t}>
      <div class="card">
        <Control c={c} at={k('privacy.individual_tracking')} kind="bool" label={t('settings.privacy.individualSubTracking')} help={t('settings.privacy.individualSubTrackingHelp')} />
        <Control c={c} at={k('privacy.disable_tracking')} kind="bool" label={t('settings.privacy.disableTracking')} help={t('settings.privacy.disableTrackingHelp')} />
        <Control c={c} at={k('privacy.track_links')} kind="bool" label={t('admin.settings.trackLinks')} help={t('admin.settings.trackLinksHelp')} />
        <Control c={c} at={k('privacy.unsubscribe_header')} kind="bool" label={t('settings.privacy.listUnsubHeader')} help={t('settings.privacy.listUnsubHeaderHelp')} />
        <Control c={c} at={k('privacy.unsubscribe_mailto')} type="email" label={t('admin.settings.unsubscribeMailto')} help={t('admin.settings.unsubscribeMailtoHelp')} />
        <Control c={c} at={k('privacy.record_optin_ip')} kind="bool" label={t('settings.privacy.recordOptinIP')} help={t('settings.privacy.recordOptinIPHelp')} />
      </div>
      <div class="card">
        <Control c={c} at={k('privacy.allow_blocklist')} kind="bool" label={t('settings.privacy.allowBlocklist')} help={t('settings.privacy.allowBlocklistHelp')} />
        <Control c={c} at={k('privacy.allow_preferences')} kind="bool" label={t('settings.privacy.allowPrefs')} help={t('settings.privacy.allowPrefsHelp')} />
        <Control c={c} at={k('privacy.allow_export')} kind="bool" label={t('settings.privacy.allowExport')} help={t('settings.privacy.allowExportHelp')} />
        <fieldset>
          <legend>{t('admin.settings.exportable')}</legend>
          {EXPORTABLE.map((e) => (
            <label class="check-label">
              <input type="checkbox" id={`s-privacy-exportable-${e}`} name="privacy.exportable" value={e} {...data<ControlData>({ kind: 'member', key: 'privacy.exportable', sub: '' })} checked={exportable.includes(e)} disabled={c.ro} />
              {t(`admin.settings.exportables.${e}`)}
            </label>
          ))}
          <p class="field-error" id="s-privacy-exportable-profile-error" data-error-for="s-privacy-exportable-profile" role="alert"></p>
        </fieldset>
        <Control c={c} at={k('privacy.allow_wipe')} kind="bool" label={t('settings.privacy.allowWipe')} help={t('settings.privacy.allowWipeHelp')} />
      </div>
      <div class="card">
        <Control c={c} at={k('events.retention_days')} kind="int" label={t('admin.settings.eventsRetention')} help={t('admin.settings.eventsRetentionHelp')} />
      </div>
      <div class="card grid2">
        <Control c={c} at={k('privacy.domain_blocklist')} kind="lines" label={t('settings.privacy.domainBlocklist')} help={t('settings.privacy.domainBlocklistHelp')} />
        <Control c={c} at={k('privacy.domain_allowlist')} kind="lines" label={t('settings.privacy.domainAllowlist')} help={t('settings.privacy.domainAllowlistHelp')} />
      </div>
    </Panel>
  );
}

function Security({ c }: { c: Ctx }): JSX.Element {
  const { t } = c;
  const captcha = c.v['security.captcha'] as { altcha: { enabled: boolean }; hcaptcha: { enabled: boolean } };
  const mode = captcha.hcaptcha.enabled ? 'hcaptcha' : captcha.altcha.enabled ? 'altcha' : 'off';
  const cap = (sub: string) => ({ key: 'security.captcha', sub });
  return (
    <Panel id="security" t={t}>
      <div class="card" data-captcha={mode}>
        <h3>{t('admin.settings.captcha')}</h3>
        <Field id="s-security-captcha" label={t('settings.security.enableCaptcha')} help={t('settings.security.enableCaptchaHelp')}>
          <select id="s-security-captcha" name="security.captcha" {...data<ControlData>({ kind: 'captcha', key: 'security.captcha', sub: '' })} disabled={c.ro} {...ui.on('change', 'captchaChanged')} aria-describedby="s-security-captcha-help s-security-captcha-error">
            {(['off', 'altcha', 'hcaptcha'] as const).map((m) => <option value={m} selected={m === mode}>{t(`admin.settings.captchas.${m}`)}</option>)}
          </select>
        </Field>
        <div class="captcha-altcha">
          <Control c={c} at={cap('altcha.complexity')} kind="int" label={t('settings.security.altchaComplexity')} help={t('settings.security.altchaComplexityHelp')} />
        </div>
        <div class="captcha-hcaptcha grid2">
          <Control c={c} at={cap('hcaptcha.key')} label={t('settings.security.captchaKey')} help={t('settings.security.captchaKeyHelp')} errorKeys="security.captcha.hcaptcha" />
          <Control c={c} at={cap('hcaptcha.secret')} kind="secret" label={t('settings.security.captchaSecret')} help={t('admin.settings.secretHelp')} />
        </div>
      </div>
      <div class="card">
        <Control c={c} at={{ key: 'security.trusted_urls' }} kind="lines" label={t('settings.security.trustedURLs')} help={t('settings.security.trustedURLsHelp')} />
        <Control c={c} at={{ key: 'security.trusted_proxies' }} kind="lines" label={t('admin.settings.trustedProxies')} help={t('admin.settings.trustedProxiesHelp')} />
        <Control c={c} at={{ key: 'security.public_rate_limit' }} kind="int" label={t('admin.settings.publicRateLimit')} help={t('admin.settings.publicRateLimitHelp')} />
        <Control c={c} at={{ key: 'security.csv_escape_formulas' }} kind="bool" label={t('admin.settings.csvEscape')} help={t('admin.settings.csvEscapeHelp')} />
        <Control c={c} at={{ key: 'security.allow_private_outbound' }} kind="bool" label={t('admin.settings.allowPrivateOutbound')} help={t('admin.settings.allowPrivateOutboundHelp')} />
        <Control c={c} at={{ key: 'security.webhooks_allow_private' }} kind="bool" label={t('admin.settings.webhooksAllowPrivate')} help={t('admin.settings.webhooksAllowPrivateHelp')} />
        <Control c={c} at={{ key: 'security.session_idle_timeout' }} label={t('admin.settings.sessionIdleTimeout')} help={t('admin.settings.sessionIdleTimeoutHelp')} />
      </div>
    </Panel>
  );
}

function Media({ c }: { c: Ctx }): JSX.Element {
  const { t } = c;
  const k = (key: string) => ({ key });
  return (
    <Panel id="media" t={t}>
      <div class="card">
        <p><strong>{t('settings.media.provider')}:</strong> {t('admin.settings.filesystem')} <span class="muted small">{t('admin.settings.noS3')}</span></p>
        <div class="grid2">
          <Control c={c} at={k('upload.filesystem.upload_path')} label={t('settings.media.upload.path')} help={t('settings.media.upload.pathHelp')} />
          <Control c={c} at={k('upload.filesystem.upload_uri')} label={t('settings.media.upload.uri')} help={t('admin.settings.uploadUriHelp')} />
        </div>
        <Control c={c} at={k('upload.extensions')} kind="tags" label={t('settings.media.upload.extensions')} help={t('admin.settings.extensionsHelp')} />
        <Control c={c} at={k('upload.max_file_size')} kind="int" label={t('admin.settings.maxFileSize')} help={t('admin.settings.maxFileSizeHelp')} />
      </div>
    </Panel>
  );
}

const SMTP_PRESETS = ['local', 'ses', 'mailgun', 'postmark', 'sendgrid', 'brevo', 'gmail', 'fastmail', 'azure', 'mailjet', 'forwardemail', 'lettermint'] as const;

function SmtpBlock({ c, b, index, bid }: { c: Ctx; b: Block; index: number; bid: string }): JSX.Element {
  const { t } = c;
  const at = (sub: string) => ({ block: 'smtp', index, bid, sub, value: b });
  const head = `s-smtp-${bid}`;
  return (
    <fieldset class="card block" {...data<BlockData>({ block: 'smtp', uuid: String(b.uuid ?? ''), bid })}>
      <legend>{t('admin.settings.smtpServer')} <span data-block-title>{String(b.host ?? '')}</span></legend>
      <div class="inline block-head">
        <Control c={c} at={at('enabled')} kind="bool" label={t('settings.smtp.enabled')} />
        {c.ro ? null : (
          <div class="field">
            <label for={`${head}-preset`}>{t('admin.settings.preset')}</label>
            <select id={`${head}-preset`} {...ui.on('change', 'applyPreset')} aria-describedby={`${head}-preset-help`}>
              <option value="">{t('admin.settings.presetChoose')}</option>
              {SMTP_PRESETS.map((p) => <option value={p}>{t(`admin.settings.presets.${p}`)}</option>)}
            </select>
            <p class="help" id={`${head}-preset-help`}>{t('admin.settings.presetHelp')}</p>
          </div>
        )}
        {c.ro ? null : <button type="button" class="secondary small" {...ui.on('click', 'removeBlock')}>{t('admin.settings.removeServer')}</button>}
      </div>
      <div class="grid2">
        <Control c={c} at={at('host')} label={t('settings.mailserver.host')} help={t('settings.mailserver.hostHelp')} placeholder={t('admin.settings.hostPlaceholder')} />
        <Control c={c} at={at('port')} kind="int" label={t('settings.mailserver.port')} help={t('settings.mailserver.portHelp')} />
        <Control c={c} at={at('auth_protocol')} kind="select" label={t('settings.mailserver.authProtocol')} options={onOff(t, ['login', 'cram', 'plain', 'none'], 'admin.settings.auth.')} />
        <Control c={c} at={at('tls_type')} kind="select" label={t('settings.mailserver.tls')} help={t('settings.mailserver.tlsHelp')} options={onOff(t, ['STARTTLS', 'TLS', 'none'], 'admin.settings.tls.')} />
        <Control c={c} at={at('username')} label={t('settings.mailserver.username')} placeholder={t('admin.settings.usernamePlaceholder')} />
        <Control c={c} at={at('password')} kind="secret" label={t('settings.mailserver.password')} help={t('admin.settings.secretHelp')} />
        <Control c={c} at={at('name')} label={t('globals.fields.name')} help={t('settings.mailserver.nameHelp')} />
        <Control c={c} at={at('hello_hostname')} label={t('settings.smtp.heloHost')} help={t('settings.smtp.heloHostHelp')} />
        <Control c={c} at={at('max_conns')} kind="int" label={t('settings.mailserver.maxConns')} help={t('settings.mailserver.maxConnsHelp')} />
        <Control c={c} at={at('max_msg_retries')} kind="int" label={t('settings.smtp.retries')} help={t('settings.smtp.retriesHelp')} />
        <Control c={c} at={at('msg_retry_delay')} label={t('settings.smtp.retryDelay')} help={t('settings.smtp.retryDelayHelp')} />
        <Control c={c} at={at('idle_timeout')} label={t('settings.mailserver.idleTimeout')} help={t('settings.mailserver.idleTimeoutHelp')} />
        <Control c={c} at={at('wait_timeout')} label={t('settings.mailserver.waitTimeout')} help={t('admin.settings.waitTimeoutHelp')} />
        <Control c={c} at={at('tls_skip_verify')} kind="bool" label={t('settings.mailserver.skipTLS')} help={t('settings.mailserver.skipTLSHelp')} />
      </div>
      <Control c={c} at={at('email_headers')} kind="json" label={t('settings.smtp.customHeaders')} help={t('settings.smtp.customHeadersHelp')} />
      <Control c={c} at={at('from_addresses')} kind="tags" label={t('settings.smtp.fromAddresses')} help={t('admin.settings.fromAddressesHelp')} />
      {c.tests ? (
        <div class="smtp-test">
          <div class="inline">
            <div class="field grow">
              <label for={`${head}-test-to`}>{t('settings.smtp.toEmail')}</label>
              <input type="email" id={`${head}-test-to`} data-test-to autocomplete="email" aria-describedby={`${head}-test-help`} />
              <p class="help" id={`${head}-test-help`}>{t('admin.settings.testHelp')}</p>
            </div>
            <button type="button" class="secondary" {...ui.on('click', 'testSmtp')}>{t('settings.smtp.testConnection')}</button>
          </div>
          <p class="test-result" data-test-result role="status" aria-live="polite"></p>
          <button type="button" data-enable-save hidden {...ui.on('click', 'enableAndSave')}>{t('admin.settings.enableAndSave')}</button>
        </div>
      ) : null}
    </fieldset>
  );
}

/** A tab of repeatable blocks (SMTP servers, messengers): the saved ones, and a template the Add button copies. */
function BlockList({ c, id, intro, help, empty, addLabel, render }: {
  c: Ctx; id: 'smtp' | 'messengers'; intro: string; help?: JSX.Element; empty?: string; addLabel: string;
  render: (c: Ctx, b: Block, index: number, bid: string) => JSX.Element;
}): JSX.Element {
  const blocks = (c.v[id] as Block[]) ?? [];
  return (
    <Panel id={id} t={c.t}>
      <p class="muted">{intro}{help ? <> {help}</> : null}</p>
      <div data-blocks={id}>{blocks.map((b, i) => render(c, b, i, `b${i}`))}</div>
      {blocks.length === 0 && empty ? <p class="muted" data-none={id}>{empty}</p> : null}
      {c.ro ? null : (
        <>
          <template id={`${id}-template`}>{render({ ...c, secretsSet: new Set() }, NEW_BLOCKS[id], 0, '__b__')}</template>
          <button type="button" class="secondary" {...data<AddButton>({ add: id })} {...ui.on('click', 'addBlock')}>+ {addLabel}</button>
        </>
      )}
    </Panel>
  );
}

function ScanResult({ last, t }: { last: ScanRecord | null; t: Translate }): JSX.Element {
  if (!last) return <span class="muted">{t('admin.settings.scanNever')}</span>;
  return (
    <span>
      <Time value={last.at} /> · <code>{last.mailbox}</code> · {last.ok
        ? t('admin.settings.scanOk', { seen: last.seen, bounces: last.bounces })
        : <span class="danger-text">{t('admin.settings.scanFailed', { error: last.error ?? '' })}</span>}
    </span>
  );
}

/** `scans`: whether the user may scan the mailbox now (POST /api/bounces/scan); offered only on a form they may save. */
function Bounces({ c, last, scans }: { c: Ctx; last: ScanRecord | null; scans: boolean }): JSX.Element {
  const { t } = c;
  const k = (key: string, sub?: string) => ({ key, sub });
  const mailbox = ((c.v['bounce.mailboxes'] as Block[]) ?? [])[0] ?? DEFAULT_MAILBOX;
  const mb = (sub: string) => ({ block: 'bounce.mailboxes', index: 0, bid: 'b0', sub, value: mailbox });
  return (
    <Panel id="bounces" t={t}>
      <div class="card">
        <Control c={c} at={k('bounce.enabled')} kind="bool" label={t('settings.bounces.enable')} help={t('admin.settings.bouncesHelp')} />
        <div class="table-wrap">
          <table class="bounce-actions">
            <thead><tr><th scope="col">{t('settings.bounces.type')}</th><th scope="col">{t('settings.bounces.count')}</th><th scope="col">{t('settings.bounces.action')}</th></tr></thead>
            <tbody>
              {(['soft', 'hard', 'complaint'] as const).map((type) => (
                <tr>
                  <th scope="row">{t(`admin.settings.bounceTypes.${type}`)}</th>
                  <td><Control c={c} at={k('bounce.actions', `${type}.count`)} kind="int" label={t('admin.settings.bounceCount', { type: t(`admin.settings.bounceTypes.${type}`) })} /></td>
                  <td><Control c={c} at={k('bounce.actions', `${type}.action`)} kind="select" label={t('admin.settings.bounceAction', { type: t(`admin.settings.bounceTypes.${type}`) })} options={onOff(t, ['none', 'unsubscribe', 'blocklist', 'delete'], 'admin.settings.bounceActions.')} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="muted small">{t('settings.bounces.countHelp')}</p>
      </div>
      <div class="card">
        <h3>{t('admin.settings.webhooks')}</h3>
        <Control c={c} at={k('bounce.webhooks_enabled')} kind="bool" label={t('settings.bounces.enableWebhooks')} help={t('admin.settings.webhooksHelp')} />
        <fieldset>
          <legend>Amazon SES</legend>
          <Control c={c} at={k('bounce.ses_enabled')} kind="bool" label={t('settings.bounces.enableSES')} />
          <Control c={c} at={k('bounce.ses_topic_arns')} kind="lines" label={t('admin.settings.sesTopics')} help={t('admin.settings.sesTopicsHelp')} />
        </fieldset>
        <fieldset>
          <legend>SendGrid</legend>
          <Control c={c} at={k('bounce.sendgrid_enabled')} kind="bool" label={t('settings.bounces.enableSendgrid')} />
          <Control c={c} at={k('bounce.sendgrid_key')} kind="secret" label={t('settings.bounces.sendgridKey')} help={t('admin.settings.secretHelp')} />
        </fieldset>
        <fieldset>
          <legend>Postmark</legend>
          <Control c={c} at={k('bounce.postmark', 'enabled')} kind="bool" label={t('settings.bounces.enablePostmark')} />
          <div class="grid2">
            <Control c={c} at={k('bounce.postmark', 'username')} label={t('settings.bounces.postmarkUsername')} help={t('settings.bounces.postmarkUsernameHelp')} />
            <Control c={c} at={k('bounce.postmark', 'password')} kind="secret" label={t('settings.bounces.postmarkPassword')} help={t('admin.settings.secretHelp')} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Forward Email</legend>
          <Control c={c} at={k('bounce.forwardemail', 'enabled')} kind="bool" label={t('settings.bounces.enableForwardemail')} />
          <Control c={c} at={k('bounce.forwardemail', 'key')} kind="secret" label={t('settings.bounces.forwardemailKey')} help={t('admin.settings.secretHelp')} />
        </fieldset>
        <fieldset>
          <legend>Lettermint</legend>
          <Control c={c} at={k('bounce.lettermint', 'enabled')} kind="bool" label={t('settings.bounces.enableLettermint')} />
          <Control c={c} at={k('bounce.lettermint', 'key')} kind="secret" label={t('settings.bounces.lettermintKey')} help={t('admin.settings.secretHelp')} />
        </fieldset>
        <fieldset>
          <legend>Azure Communication Services</legend>
          <Control c={c} at={k('bounce.azure', 'enabled')} kind="bool" label={t('settings.bounces.enableAzure')} />
          <div class="grid2">
            <Control c={c} at={k('bounce.azure', 'shared_secret')} kind="secret" label={t('settings.bounces.azureSharedSecret')} help={t('settings.bounces.azureSharedSecretHelp')} />
            <Control c={c} at={k('bounce.azure', 'shared_secret_header')} label={t('settings.bounces.azureSharedSecretHeader')} help={t('admin.settings.azureHeaderHelp')} />
          </div>
        </fieldset>
      </div>
      <fieldset class="card block" {...data<BlockData>({ block: 'bounce.mailboxes', uuid: String(mailbox.uuid ?? ''), bid: 'b0' })}>
        <legend>{t('admin.settings.mailbox')}</legend>
        <Control c={c} at={mb('enabled')} kind="bool" label={t('settings.bounces.enableMailbox')} help={t('admin.settings.mailboxHelp')} />
        <div class="grid2">
          <Control c={c} at={mb('type')} kind="select" label={t('settings.bounces.type')} options={[{ value: 'pop', label: 'POP3' }, { value: 'imap', label: 'IMAP' }]} />
          <Control c={c} at={mb('host')} label={t('settings.mailserver.host')} />
          <Control c={c} at={mb('port')} kind="int" label={t('settings.mailserver.port')} />
          <Control c={c} at={mb('auth_protocol')} kind="select" label={t('settings.mailserver.authProtocol')} options={onOff(t, ['userpass', 'none'], 'admin.settings.auth.')} />
          <Control c={c} at={mb('username')} label={t('settings.mailserver.username')} />
          <Control c={c} at={mb('password')} kind="secret" label={t('settings.mailserver.password')} help={t('admin.settings.secretHelp')} />
          <Control c={c} at={mb('return_path')} label={t('admin.settings.returnPath')} help={t('admin.settings.returnPathHelp')} />
          <Control c={c} at={mb('scan_interval')} label={t('settings.bounces.scanInterval')} help={t('admin.settings.scanIntervalHelp')} />
          <Control c={c} at={mb('tls_enabled')} kind="bool" label={t('settings.mailserver.tls')} />
          <Control c={c} at={mb('tls_skip_verify')} kind="bool" label={t('settings.mailserver.skipTLS')} help={t('settings.mailserver.skipTLSHelp')} />
        </div>
        <div class="scan">
          <p><strong>{t('admin.settings.lastScan')}:</strong> <span id="scan-result" role="status" aria-live="polite"><ScanResult last={last} t={t} /></span></p>
          {c.ro || !scans ? null : (
            <div class="inline">
              <button type="button" class="secondary" id="scan-now" {...ui.on('click', 'scanNow')} {...ui.attr('disabled', 'scanBlocked')}>{t('admin.settings.scanNow')}</button>
              <span class="help" {...ui.show('dirty')} x-cloak>{t('admin.settings.scanSaveFirst')}</span>
            </div>
          )}
        </div>
      </fieldset>
    </Panel>
  );
}

function MessengerBlock({ c, b, index, bid }: { c: Ctx; b: Block; index: number; bid: string }): JSX.Element {
  const { t } = c;
  const at = (sub: string) => ({ block: 'messengers', index, bid, sub, value: b });
  return (
    <fieldset class="card block" {...data<BlockData>({ block: 'messengers', uuid: String(b.uuid ?? ''), bid })}>
      <legend>{t('admin.settings.messenger')} <span data-block-title>{String(b.name ?? '')}</span></legend>
      <div class="inline block-head">
        <Control c={c} at={at('enabled')} kind="bool" label={t('settings.smtp.enabled')} />
        {c.ro ? null : <button type="button" class="secondary small" {...ui.on('click', 'removeBlock')}>{t('admin.settings.removeMessenger')}</button>}
      </div>
      <div class="grid2">
        <Control c={c} at={at('name')} label={t('globals.fields.name')} help={t('settings.messengers.nameHelp')} />
        <Control c={c} at={at('root_url')} type="url" label={t('settings.messengers.url')} help={t('settings.messengers.urlHelp')} />
        <Control c={c} at={at('username')} label={t('settings.messengers.username')} />
        <Control c={c} at={at('password')} kind="secret" label={t('settings.messengers.password')} help={t('admin.settings.secretHelp')} />
        <Control c={c} at={at('max_conns')} kind="int" label={t('settings.messengers.maxConns')} help={t('settings.messengers.maxConnsHelp')} />
        <Control c={c} at={at('max_msg_retries')} kind="int" label={t('settings.messengers.retries')} help={t('settings.messengers.retriesHelp')} />
        <Control c={c} at={at('timeout')} label={t('admin.settings.messengerTimeout')} help={t('admin.settings.messengerTimeoutHelp')} />
      </div>
    </fieldset>
  );
}

/** The custom JavaScript fields are read-only but for a Super Admin (SUPER_ADMIN_SETTINGS), and say so. */
function Appearance({ c, root, superAdmin }: { c: Ctx; root: string; superAdmin: boolean }): JSX.Element {
  const { t } = c;
  const k = (key: string) => ({ key });
  const js = { ...c, ro: c.ro || !superAdmin };
  const jsHelp = c.ro || superAdmin ? undefined : t('admin.settings.customJsSuperAdmin');
  return (
    <Panel id="appearance" t={t}>
      <div class="card">
        <h3>{t('settings.appearance.adminName')}</h3>
        <p class="help">{t('admin.settings.adminAppearanceHelp')}</p>
        <Control c={c} at={k('appearance.admin.custom_css')} kind="code" lang="css" label={t('settings.appearance.customCSS')} />
        <Control c={js} at={k('appearance.admin.custom_js')} kind="code" lang="javascript" label={t('settings.appearance.customJS')} help={jsHelp} />
      </div>
      <div class="card">
        <h3>{t('settings.appearance.publicName')}</h3>
        <p class="help">{t('settings.appearance.publicHelp')} <a href={`${root}/subscription/form`} target="_blank" rel="noopener">{t('admin.settings.openPublicForm')}</a></p>
        <Control c={c} at={k('appearance.public.custom_css')} kind="code" lang="css" label={t('settings.appearance.customCSS')} />
        <Control c={js} at={k('appearance.public.custom_js')} kind="code" lang="javascript" label={t('settings.appearance.customJS')} help={jsHelp} />
      </div>
    </Panel>
  );
}

const ui = bind<typeof settingsScript>('settingsPage');

function settingsPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const { values, secretsSet } = s.settings.forForm(actor);
  const manage = view.may('PUT /api/settings');
  const ctx: Ctx = { t, ro: !manage, tests: view.may('POST /api/settings/smtp/test'), v: values, secretsSet: new Set(secretsSet) };
  return adminPage(c, s, {
    title: t('settings.title'),
    islands: ['editor'],
    body: (
      <form id="settings-form" class="settings" {...ui.root()} {...ui.on('submit', 'save')} {...ui.on('input', 'changed')} {...ui.on('change', 'changed')} novalidate
        {...data<SettingsTexts>({
          saved: t('admin.settings.saved'), unsaved: t('admin.settings.unsaved'), testNeedTo: t('admin.settings.testNeedTo'), testSending: t('admin.settings.testSending'),
          testSent: t('admin.settings.testSent'), scanning: t('admin.settings.scanning'), scanOk: t('admin.settings.scanOk'), scanFailed: t('admin.settings.scanFailed'),
        })}>
        <PageHead title={t('settings.title')}>
          {view.may('GET /admin/settings/webhooks') ? <a class="button secondary" href="/admin/settings/webhooks">{t('admin.webhooks.title')}</a> : null}
        </PageHead>
        {manage ? <p class="help">{t('admin.settings.appliesAtOnce')}</p> : <p class="banner">{t('admin.settings.readOnly')}</p>}
        <PageData<PageSetup> id="settings-data" value={{ values, blocks: { smtp: NEW_BLOCKS.smtp, messengers: NEW_BLOCKS.messengers } }} />
        <div class="settings-tabs" role="tablist" aria-label={t('settings.title')} {...ui.on('keydown', 'tabKey')}>
          {SETTINGS_TABS.map((id) => (
            <button type="button" role="tab" id={`tab-${id}`} aria-controls={`panel-${id}`} aria-selected={id === 'general' ? 'true' : 'false'} tabindex={id === 'general' ? 0 : -1} {...data<TabData>({ tab: id })} {...ui.on('click', 'selectTab')}>
              {t(TAB_LABELS[id])}
            </button>
          ))}
        </div>
        <p class="alert" data-error-for="_form" role="alert"></p>
        <General c={ctx} />
        <Performance c={ctx} />
        <Privacy c={ctx} />
        <Security c={ctx} />
        <Media c={ctx} />
        <BlockList c={ctx} id="smtp" intro={t(manage ? 'admin.settings.smtpIntro' : 'admin.settings.smtpIntroReadOnly')} help={<HelpLink topic="quickstart" anchor="3-connect-a-mail-server" t={t} />} addLabel={t('admin.settings.addServer')} render={(c, b, i, bid) => <SmtpBlock c={c} b={b} index={i} bid={bid} />} />
        <Bounces c={ctx} last={s.bounces.lastScan(actor)} scans={view.may('POST /api/bounces/scan')} />
        <BlockList c={ctx} id="messengers" intro={t('admin.settings.messengersIntro')} empty={t('admin.settings.noMessengers')} addLabel={t('admin.settings.addMessenger')}
          render={(c, b, i, bid) => <MessengerBlock c={c} b={b} index={i} bid={bid} />} />
        <Appearance c={ctx} root={s.settings.rootUrl()} superAdmin={actor.superAdmin} />
        {manage ? (
          <div class="save-bar">
            <span class="muted small" {...ui.text('status')}></span>
            <button type="submit" id="settings-save" {...ui.attr('disabled', 'cannotSave')}>{t('globals.buttons.save')}</button>
          </div>
        ) : null}
      </form>
    ),
  });
}
