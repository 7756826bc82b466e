// Per-render context: everything listmonk's template functions need that is not in the
// template data. A compiled template is reused for many renders with different contexts.

/** A flat i18n catalogue (listmonk's i18n/*.json): key -> text, "singular | plural" allowed. */
export interface I18nCatalog {
  code: string;
  name: string;
  messages: Readonly<Record<string, string>>;
}

/** The newsletter's brand (Settings → General), as templates see it through `Brand`. */
export interface BrandInfo {
  /** app.site_name. */
  name: string;
  /** app.logo_url ('' = none). */
  logoURL: string;
  /** app.accent_color, a #rrggbb colour. */
  color: string;
  /** app.postal_address ('' = none), lines separated by newlines. */
  address: string;
}

/** An issue's page in the public archive: what `ArchivePage` gives its template (nil elsewhere). */
export interface ArchivePageInfo {
  siteName: string;
  /** The archive's list of issues. */
  indexURL: string;
  /** The day the issue went out, YYYY-MM-DD. */
  date: string;
  newer: { url: string; title: string } | null;
  older: { url: string; title: string } | null;
  /** The subscription form with the issue's public lists ticked; '' when the form is off. */
  subscribeURL: string;
}

export interface RenderContext {
  /** app.root_url; a trailing slash is ignored. */
  rootURL?: string;
  /** app.logo_url (system templates' LogoURL). */
  logoURL?: string;
  /**
   * Registers `url` as a tracked link and returns the tracked URL to put in the message
   * (listmonk: ROOT/link/{linkUUID}/{campaignUUID}/{subscriberUUID}), or null when the link
   * cannot be registered (the URL is then used unchanged). `subscriberUUID` is already the
   * all-zero UUID when individual tracking is off.
   */
  trackLink?: (url: string, campaignUUID: string, subscriberUUID: string) => string | null;
  /** privacy.disable_tracking: TrackLink returns the URL, TrackView nothing. */
  disableTracking?: boolean;
  /** privacy.individual_tracking: use the subscriber's UUID in tracking URLs. */
  individualTracking?: boolean;
  /** The public subscription form's URL (SubscribeURL); '' or absent when the form is off. */
  subscribeURL?: string;
  /**
   * Set when rendering a public page (an archive entry): its URL. There is no subscriber, so
   * UnsubscribeURL, ManageURL and OptinURL give subscribeURL, MessageURL this page, and
   * TrackView nothing (a visit to the page is not a view of a mail).
   */
  publicPageURL?: string;
  /** Behind `Brand` (absent: empty name, logo and address, the default accent colour). */
  brand?: BrandInfo;
  /** Set on an archive page: behind `ArchivePage`. */
  archivePage?: ArchivePageInfo;
  /** Catalogue behind `L`. Missing: keys translate to themselves. */
  i18n?: I18nCatalog;
  /** Clock for Date/now (defaults to the system clock). */
  now?: () => Date;
}
