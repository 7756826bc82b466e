// Every setting with its install-time default (listmonk's keys and values, plus ours marked).
export type Settings = Record<string, unknown>;

export const smtpDefaults = (over: Record<string, unknown>) => ({
  name: '',
  uuid: '',
  enabled: true,
  host: 'smtp.yoursite.com',
  hello_hostname: '',
  port: 25,
  auth_protocol: 'cram',
  username: 'username',
  password: 'password',
  email_headers: [],
  max_conns: 10,
  max_msg_retries: 2,
  msg_retry_delay: '10ms',
  idle_timeout: '15s',
  wait_timeout: '5s',
  tls_type: 'STARTTLS',
  tls_skip_verify: false,
  from_addresses: [],
  ...over,
});

export const DEFAULT_SETTINGS: Settings = {
  'app.site_name': 'Mailing list',
  'app.root_url': 'http://localhost:9000',
  // listmgr: where the reader pages' "back to the site" links lead ('' = the root URL), for a
  // site that is not where listmgr runs.
  'app.site_url': '',
  'app.logo_url': '',
  'app.favicon_url': '',
  // listmgr (brand): the accent colour (#rrggbb) of the default templates' links and buttons,
  // and the postal address their footers show when set (CAN-SPAM asks for one in commercial mail).
  'app.accent_color': '#0b57d0',
  'app.postal_address': '',
  'app.from_email': 'listmgr <noreply@listmgr.yoursite.com>',
  'app.notify_emails': [],
  'app.enable_public_subscription_page': true,
  'app.enable_public_archive': true,
  'app.enable_public_archive_rss_content': true,
  // listmgr: a new campaign whose lists are all public is published to the archive (an
  // `archive` given on create wins); off, new campaigns stay out of it unless published.
  'app.archive_new_campaigns': true,
  'app.show_optin_page': true,
  'app.send_optin_confirmation': true,
  'app.check_updates': false,
  'app.lang': 'en',
  'app.batch_size': 1000,
  'app.concurrency': 10,
  'app.message_rate': 10,
  'app.max_send_errors': 1000,
  'app.message_sliding_window': false,
  'app.message_sliding_window_duration': '1h',
  'app.message_sliding_window_rate': 10000,
  // listmgr: how long mail the relay keeps deferring (4xx replies, dropped connections,
  // timeouts) is tried again with backoff before a campaign is paused, or another message
  // given up (docs/decisions.md §97).
  'app.defer_limit': '30m',
  'app.cache_slow_queries': false,
  'app.cache_slow_queries_interval': '0 3 * * *',

  'privacy.individual_tracking': false,
  'privacy.disable_tracking': false,
  'privacy.unsubscribe_header': true,
  // listmgr: new campaigns track every literal link of their body (their track_links), except
  // those marked @NoTrack; privacy.disable_tracking still turns all tracking off.
  'privacy.track_links': true,
  // listmgr: an address added to List-Unsubscribe as a mailto: target ('' = none).
  'privacy.unsubscribe_mailto': '',
  'privacy.allow_blocklist': true,
  'privacy.allow_preferences': true,
  'privacy.allow_export': true,
  'privacy.allow_wipe': true,
  'privacy.exportable': ['profile', 'subscriptions', 'campaign_views', 'link_clicks'],
  'privacy.record_optin_ip': false,
  'privacy.domain_blocklist': [],
  'privacy.domain_allowlist': [],

  'security.captcha': { altcha: { enabled: false, complexity: 300000 }, hcaptcha: { enabled: false, key: '', secret: '' } },
  'security.oidc': {
    enabled: false, provider_url: '', provider_name: '', client_id: '', client_secret: '',
    auto_create_users: false, default_user_role_id: null, default_list_role_id: null,
  },
  'security.trusted_urls': [],
  // listmgr: public endpoints' requests per minute per client address (0 = off).
  'security.public_rate_limit': 60,
  // listmgr: reverse proxies whose X-Forwarded-For is believed (IP addresses).
  'security.trusted_proxies': [],
  // listmgr: CSV exports prefix a ' to cells that start with = + - @ tab or CR (OWASP), so a
  // spreadsheet does not run a name from the public form as a formula (false = as stored).
  'security.csv_escape_formulas': true,
  // listmgr: postback messengers, and SMTP tests of servers typed but not saved, may connect to
  // loopback, private (RFC 1918, fc00::/7) and link-local addresses (metadata and unspecified
  // addresses stay refused).
  'security.allow_private_outbound': false,
  // listmgr: webhooks may be sent to loopback, private, link-local and CGNAT addresses (a
  // receiver on this machine or its LAN; metadata, unspecified and multicast stay refused).
  'security.webhooks_allow_private': false,
  // listmgr: an admin session unused this long ends (a Go duration, 1m to 24h; a session ends
  // 24 hours after sign-in whatever its use).
  'security.session_idle_timeout': '8h',

  'upload.provider': 'filesystem',
  'upload.extensions': ['jpg', 'jpeg', 'png', 'gif', 'svg', '*'],
  // listmgr: largest accepted media upload, in kilobytes.
  'upload.max_file_size': 5000,
  'upload.filesystem.upload_path': 'uploads',
  'upload.filesystem.upload_uri': '/uploads',
  'upload.s3.url': 'https://ap-south-1.s3.amazonaws.com',
  'upload.s3.public_url': '',
  'upload.s3.aws_access_key_id': '',
  'upload.s3.aws_default_region': 'ap-south-1',
  'upload.s3.aws_secret_access_key': '',
  'upload.s3.bucket': '',
  'upload.s3.bucket_domain': '',
  'upload.s3.bucket_path': '/',
  'upload.s3.bucket_type': 'public',
  'upload.s3.expiry': '167h',

  // listmgr: one empty, disabled server (listmonk ships two enabled placeholders,
  // smtp.yoursite.com and smtp.gmail.com, with the password "password"): the admin shows empty
  // fields to fill, no password claims to be saved, and the server says mail is not set up
  // until a server is enabled (§96). sql/0105 moves databases still holding the placeholders.
  smtp: [smtpDefaults({ enabled: false, host: '', port: 587, auth_protocol: 'login', username: '', password: '' })],
  messengers: [],

  'bounce.enabled': false,
  'bounce.webhooks_enabled': false,
  'bounce.actions': {
    soft: { count: 2, action: 'none' },
    hard: { count: 1, action: 'blocklist' },
    complaint: { count: 1, action: 'blocklist' },
  },
  'bounce.ses_enabled': false,
  // listmgr: the SNS topic ARNs whose SES notifications are accepted (none: every SNS message,
  // subscription confirmations included, is refused; listmonk takes any topic).
  'bounce.ses_topic_arns': [],
  'bounce.sendgrid_enabled': false,
  'bounce.sendgrid_key': '',
  'bounce.azure': { enabled: false, shared_secret: '', shared_secret_header: '' },
  'bounce.postmark': { enabled: false, username: '', password: '' },
  'bounce.forwardemail': { enabled: false, key: '' },
  'bounce.lettermint': { enabled: false, key: '' },
  'bounce.mailboxes': [{
    uuid: '', enabled: false, type: 'pop', host: 'pop.yoursite.com', port: 995, auth_protocol: 'userpass',
    return_path: 'bounce@listmgr.yoursite.com', username: 'username', password: 'password',
    tls_enabled: true, tls_skip_verify: false, scan_interval: '15m',
  }],

  // listmgr: the change log's events (webhooks, GET /api/changes) are kept this many days, then
  // deleted with their deliveries by a daily prune (2-3650).
  'events.retention_days': 30,
  'maintenance.db': { vacuum: false, vacuum_cron_interval: '0 2 * * *' },
  // listmgr: scheduled online backups of the database file (maintenance/backups.ts). `dir`
  // relative to the database file's folder; the newest `keep` of them are kept.
  'backup.enabled': false,
  'backup.interval': '24h',
  'backup.keep': 7,
  'backup.dir': 'backups',
  // listmgr: GET /metrics (Prometheus), off by default; scrapers send the token as
  // "Authorization: Bearer TOKEN" ('' = signed-in users with settings:get only).
  'metrics.enabled': false,
  'metrics.token': '',
  'appearance.admin.custom_css': '',
  'appearance.admin.custom_js': '',
  'appearance.public.custom_css': '',
  'appearance.public.custom_js': '',
};

/** Secret fields of top-level object settings: [setting key, path inside it]. */
export const OBJECT_SECRETS: [string, string[]][] = [
  ['security.captcha', ['hcaptcha', 'secret']],
  ['security.oidc', ['client_secret']],
  ['bounce.azure', ['shared_secret']],
  ['bounce.postmark', ['password']],
  ['bounce.forwardemail', ['key']],
  ['bounce.lettermint', ['key']],
];
/** Settings whose whole value is a secret string. */
export const STRING_SECRETS = ['upload.s3.aws_secret_access_key', 'bounce.sendgrid_key', 'metrics.token'];
/**
 * Settings only a Super Admin may change: custom JavaScript runs in the browser of every admin
 * (their session, their permissions) or every reader, so with it settings:manage would reach
 * everything the Super Admin can.
 */
export const SUPER_ADMIN_SETTINGS = ['appearance.admin.custom_js', 'appearance.public.custom_js'];
/** Arrays of blocks (matched by uuid) whose `password` is secret. */
export const BLOCK_SECRETS = ['smtp', 'messengers', 'bounce.mailboxes'];
