// The first-run checklist on the dashboard: what a fresh installation needs before its first
// campaign. Each step is ticked by the state of the installation (a setting changed from its
// default, a list that exists, a subscription made through the public form...), never by a
// click; the checklist goes once every step is done, or when the user dismisses it (kept per
// user: each admin decides for their own dashboard). Shown to those who may change settings.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { bind, data } from '../admin/bind.ts';
import type { AdminView } from '../admin/page.tsx';
import type { SmtpServerSettings } from '../mail/smtp.ts';
import { DEFAULT_SETTINGS } from '../settings/defaults.ts';
import type { SettingsService } from '../settings/service.ts';
import { CLI_NAME } from '../sea.ts';
import type { UserService } from '../users/service.ts';
import type { DismissButton, firstRun as firstRunScript, TrackingButton } from './admin.client.ts';
import type { DashboardService } from './service.ts';

/** What the checklist reads. */
export interface FirstRunDeps {
  dashboard: DashboardService;
  settings: SettingsService;
  userService: UserService;
}

export interface FirstRunStep {
  key: 'root' | 'smtp' | 'list' | 'form' | 'campaign';
  done: boolean;
  href: string;
}

/** The steps, each with whether it is done and where it is done. */
export function firstRunSteps(s: FirstRunDeps): FirstRunStep[] {
  const { settings } = s;
  const counts = s.dashboard.counts();
  const sent = (counts.messages ?? 0) > 0 || (counts.campaigns.by_status?.finished ?? 0) > 0;
  const rootSet = settings.rootUrl() !== DEFAULT_SETTINGS['app.root_url'];
  const fromSet = settings.str('app.from_email') !== DEFAULT_SETTINGS['app.from_email'];
  const smtpOn = settings.get<SmtpServerSettings[]>('smtp').some((b) => b.enabled && b.host.trim() !== '');
  return [
    { key: 'root', done: rootSet && fromSet, href: '/admin/settings#general' },
    // A campaign that went out proves the mail set-up as well as a test message does.
    { key: 'smtp', done: smtpOn && (settings.smtpTestSent() !== null || sent), href: '/admin/settings#smtp' },
    { key: 'list', done: counts.lists.total > 0, href: '/admin/lists/new' },
    { key: 'form', done: s.dashboard.formSubscription(), href: '/admin/lists/forms' },
    { key: 'campaign', done: sent, href: '/admin/campaigns/new' },
  ];
}

const ui = bind<typeof firstRunScript>('firstRun');

/**
 * The choice of how opens and clicks are counted (privacy.individual_tracking, off by default):
 * per subscriber, or anonymously; the current one pressed, the other one click away (the
 * `firstRun` script saves it through PUT /api/settings).
 */
function TrackingChoice({ individual, t }: { individual: boolean; t: AdminView['t'] }): JSX.Element {
  const option = (value: boolean, label: string) => (
    <button type="button" class={value === individual ? 'small' : 'secondary small'} aria-pressed={value === individual ? 'true' : 'false'}
      {...data<TrackingButton>({ individual: String(value), done: t(value ? 'admin.firstRun.trackingSetIndividual' : 'admin.firstRun.trackingSetAnonymous') })} {...ui.on('click', 'setTracking')}>{t(label)}</button>
  );
  return (
    <div class="tracking-choice" role="group" aria-labelledby="tracking-choice-title" aria-describedby="tracking-choice-help">
      <h3 id="tracking-choice-title">{t('admin.firstRun.trackingQuestion')}</h3>
      <p class="help" id="tracking-choice-help">{t('admin.firstRun.trackingTradeOff')}</p>
      <div class="actions">
        {option(true, 'admin.firstRun.trackingIndividual')}
        {option(false, 'admin.firstRun.trackingAnonymous')}
      </div>
    </div>
  );
}

/** The checklist, or nothing once every step is done, once dismissed, or for those who cannot change settings. */
export function FirstRun({ s, view }: { s: FirstRunDeps; view: AdminView }): JSX.Element | null {
  const { t, actor } = view;
  if (!view.may('PUT /api/settings') || s.userService.firstRunDismissed(actor)) return null;
  const steps = firstRunSteps(s);
  const left = steps.filter((st) => !st.done).length;
  if (left === 0) return null;
  return (
    <section class="card first-run" aria-labelledby="first-run-title" {...ui.root()}>
      <h2 id="first-run-title">{t('admin.firstRun.title')}</h2>
      <p class="muted">{t('admin.firstRun.intro', { done: steps.length - left, total: steps.length })}</p>
      <ol class="checklist">
        {steps.map((st) => (
          <li class={st.done ? 'done' : undefined}>
            <span class="tick" aria-hidden="true">{st.done ? '✓' : ''}</span>
            <span>
              <a href={st.href}>{t(`admin.firstRun.${st.key}`)}</a>
              <span class="visually-hidden"> ({st.done ? t('admin.firstRun.isDone') : t('admin.firstRun.toDo')})</span>
              <span class="help">{t(`admin.firstRun.${st.key}Help`)}</span>
            </span>
          </li>
        ))}
      </ol>
      <TrackingChoice individual={s.settings.bool('privacy.individual_tracking')} t={t} />
      <p class="help">{t('admin.firstRun.password')} <code>{CLI_NAME} user reset-password {actor.username}</code></p>
      <div class="actions">
        <button type="button" class="secondary small" {...ui.on('click', 'dismiss')} {...data<DismissButton>({ confirm: t('admin.firstRun.dismissConfirm'), done: t('admin.firstRun.dismissed') })}>
          {t('admin.firstRun.dismiss')}
        </button>
      </div>
    </section>
  );
}
