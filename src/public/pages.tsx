// The markup of the subscriber-facing pages (routes.ts): the subscription form, the opt-in
// confirmation, unsubscribe and preferences, and the question before a wipe. Every text comes
// from the subscriber language through `t`; every value is escaped by JSX.
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { SelfServiceRights } from '../subscribers/self-service.ts';
import { ALTCHA_CHALLENGE_PATH, type CaptchaWidget } from './captcha.ts';
import type { Translate } from './i18n.ts';

interface ListEntry {
  uuid: string;
  name: string;
}

const listsFieldset = 'border:0;padding:0;margin:1rem 0 0';
const legendStyle = 'font-weight:600';

/** The form's captcha widget (its script is loaded in the page head). */
export function CaptchaField({ widget }: { widget: CaptchaWidget | null }): JSX.Element | null {
  switch (widget?.provider) {
    case 'altcha':
      return <altcha-widget challengeurl={ALTCHA_CHALLENGE_PATH} name="altcha"></altcha-widget>;
    case 'hcaptcha':
      return <div class="h-captcha" data-sitekey={widget.siteKey}></div>;
    default:
      return null;
  }
}

/** What the reader typed, given back with the form when it was refused. */
export interface FormValues {
  email: string;
  name: string;
  /** The list UUIDs that were ticked. */
  lists: string[];
}

export function SubscriptionForm(p: { t: Translate; lists: (ListEntry & { description: string })[]; captcha: CaptchaWidget | null; archiveLink: boolean; error?: string; values?: FormValues }): JSX.Element {
  const { t, values } = p;
  const ticked = values ? new Set(values.lists.map((u) => u.toLowerCase())) : null;
  return (
    <>
      <h1>{t('public.subTitle')}</h1>
      {p.error ? <p class="error" id="form-error" role="alert">{p.error}</p> : null}
      <p>{t('public.subIntro')}</p>
      <form method="post" action="/subscription/form">
        <label for="email">{t('subscribers.email')}</label>
        <input type="email" id="email" name="email" required autocomplete="email" value={values?.email} aria-describedby={p.error ? 'form-error' : undefined} />
        <label for="name">{t('public.subName')}</label>
        <input type="text" id="name" name="name" autocomplete="name" value={values?.name} />
        {/* The honeypot: people never see it, bots fill it in. */}
        <div style="position:absolute;left:-9999px" aria-hidden="true"><input type="text" name="nonce" tabindex={-1} autocomplete="off" /></div>
        <fieldset style={listsFieldset}>
          <legend style={legendStyle}>{t('globals.terms.lists')}</legend>
          {p.lists.map((l) => (
            <label class="check">
              <input type="checkbox" name="l" value={l.uuid} checked={ticked ? ticked.has(l.uuid.toLowerCase()) : true} />
              <span>{l.name}{l.description ? <><br /><span class="muted">{l.description}</span></> : null}</span>
            </label>
          ))}
        </fieldset>
        <CaptchaField widget={p.captcha} />
        <button type="submit">{t('public.sub')}</button>
      </form>
      {p.archiveLink ? <footer><a href="/archive">{t('public.archiveTitle')}</a></footer> : null}
    </>
  );
}

/** The double opt-in question; private lists are shown without their names. */
export function OptinConfirm(p: { t: Translate; subUuid: string; lists: (ListEntry & { type: string })[] }): JSX.Element {
  const { t } = p;
  return (
    <>
      <h1>{t('public.confirmOptinSubTitle')}</h1>
      <p>{t('public.confirmSubInfo')}</p>
      <ul>{p.lists.map((l) => <li>{l.type === 'private' ? t('public.subPrivateList') : l.name}</li>)}</ul>
      <form method="post" action={`/subscription/optin/${p.subUuid}`}>
        {p.lists.map((l) => <input type="hidden" name="l" value={l.uuid} />)}
        <input type="hidden" name="confirm" value="true" />
        <button type="submit">{t('public.confirmSub')}</button>
      </form>
    </>
  );
}

/** The question a GET of the wipe link shows; only its POST deletes. */
export function WipeConfirm({ t, subUuid }: { t: Translate; subUuid: string }): JSX.Element {
  return (
    <>
      <h1>{t('public.privacyWipe')}</h1>
      <p>{t('public.privacyConfirmWipe')}</p>
      <form method="post" action={`/subscription/wipe/${subUuid}`}><button class="danger" type="submit">{t('public.privacyWipe')}</button></form>
    </>
  );
}

function BlocklistBox({ t }: { t: Translate }): JSX.Element {
  return <label class="check"><input type="checkbox" name="blocklist" value="true" /><span>{t('public.unsubFull')}</span></label>;
}

/** Export and wipe buttons, when the privacy settings allow either. */
function DataSection({ t, subUuid, allow }: { t: Translate; subUuid: string; allow: SelfServiceRights }): JSX.Element | null {
  if (!allow.export && !allow.wipe) return null;
  return (
    <>
      <h2>{t('public.privacyTitle')}</h2>
      {allow.export ? <form method="post" action={`/subscription/export/${subUuid}`}><button class="secondary" type="submit">{t('public.privacyExport')}</button></form> : null}
      {allow.wipe ? <form method="get" action={`/subscription/wipe/${subUuid}`}><button class="danger" type="submit">{t('public.privacyWipe')}</button></form> : null}
    </>
  );
}

/** The unsubscribe page; `action` is its own path, the form's and the one-click target. */
export function Unsubscribe(p: { t: Translate; action: string; subUuid: string; allow: SelfServiceRights }): JSX.Element {
  const { t } = p;
  return (
    <>
      <h1>{t('public.unsubTitle')}</h1>
      <p>{t('public.unsubHelp')}</p>
      <form method="post" action={p.action}>
        {p.allow.blocklist ? <BlocklistBox t={t} /> : null}
        <button type="submit">{t('public.unsub')}</button>
      </form>
      {p.allow.preferences ? <p><a href={`${p.action}?manage=true`}>{t('public.managePrefs')}</a></p> : null}
      <DataSection t={t} subUuid={p.subUuid} allow={p.allow} />
    </>
  );
}

/** Manage preferences: the name, and the lists that can be unticked (none private). */
export function ManagePreferences(p: { t: Translate; action: string; subUuid: string; name: string; maxName: number; lists: ListEntry[]; allow: SelfServiceRights }): JSX.Element {
  const { t } = p;
  return (
    <>
      <h1>{t('public.managePrefs')}</h1>
      <form method="post" action={p.action}>
        <input type="hidden" name="manage" value="true" />
        <label for="name">{t('globals.fields.name')}</label>
        <input type="text" id="name" name="name" value={p.name} maxlength={p.maxName} required />
        {p.lists.length ? (
          <fieldset style={listsFieldset}>
            <legend style={legendStyle}>{t('public.managePrefsUnsub')}</legend>
            {p.lists.map((l) => <label class="check"><input type="checkbox" name="l" value={l.uuid} checked /><span>{l.name}</span></label>)}
          </fieldset>
        ) : <p class="muted">{t('public.noListsToManage')}</p>}
        {p.allow.blocklist ? <BlocklistBox t={t} /> : null}
        <button type="submit">{t('globals.buttons.save')}</button>
      </form>
      <DataSection t={t} subUuid={p.subUuid} allow={p.allow} />
    </>
  );
}

/** A link offered after an outcome (back to the site, subscribe again, manage preferences). */
export interface NextLink {
  href: string;
  label: string;
}

/** The outcome of a reader's action (confirmed, already confirmed, unsubscribed) and where to go next. */
export function Outcome({ title, text, links }: { title: string; text: string; links: NextLink[] }): JSX.Element {
  return (
    <>
      <h1>{title}</h1>
      <p>{text}</p>
      {links.length ? <ul class="next">{links.map((l) => <li><a href={l.href}>{l.label}</a></li>)}</ul> : null}
    </>
  );
}
