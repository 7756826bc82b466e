// The composition root: every store, service, messenger and background worker of a running
// listmgr, built here in dependency order. `start()` sets the background work going (after the
// server listens); `stop()` ends it in reverse order before the database closes. The server and
// the tests build the same object.
import { RouteAccess } from './http/route-access.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { closeDatabase, openDatabase } from './db/connection.ts';
import { ForegroundWrites } from './db/foreground-writes.ts';
import { migrate } from './db/migrate.ts';
import type { Logger } from './log.ts';
import { makeAuth, type Guard } from './http/auth.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { removeLeftoverUploads } from './http/upload-dirs.ts';
import { Mailer } from './mail/mailer.ts';
import { postbackMessengers } from './mail/postback.ts';
import { RootUrlCheck } from './settings/root-url.ts';
import { SettingsService } from './settings/service.ts';
import { SESSION_IDLE_MS, UserStore } from './users/store.ts';
import { parseDuration } from './duration.ts';
import { UserService } from './users/service.ts';
import { SignIn } from './users/sign-in.ts';
import { ListStore } from './lists/store.ts';
import { ListService } from './lists/service.ts';
import { SegmentRunner } from './segments/index.ts';
import { SubscriberStore } from './subscribers/store.ts';
import { SubscriberService } from './subscribers/service.ts';
import { SubscriberSelfService } from './subscribers/self-service.ts';
import { TrackingStore } from './tracking/store.ts';
import { CampaignStore } from './campaigns/store.ts';
import { CampaignService } from './campaigns/service.ts';
import { DeliveryStore } from './delivery/store.ts';
import { DeliveryEngine } from './delivery/engine.ts';
import { TemplateStore } from './templates/store.ts';
import { TemplateService } from './templates/service.ts';
import { TxStore } from './tx/store.ts';
import { TxService } from './tx/service.ts';
import { MediaStore } from './media/store.ts';
import { MediaService } from './media/service.ts';
import { BounceStore } from './bounces/store.ts';
import { BounceService } from './bounces/service.ts';
import { SearchIndexer } from './imports/search-indexer.ts';
import { ImportStore } from './imports/store.ts';
import { Importer } from './imports/importer.ts';
import { MaintenanceStore } from './maintenance/store.ts';
import { DatabaseService } from './maintenance/service.ts';
import { VacuumSchedule } from './maintenance/schedule.ts';
import { BackupSchedule } from './maintenance/backups.ts';
import { Metrics } from './system/metrics.ts';
import { DashboardStore } from './dashboard/store.ts';
import { DashboardService } from './dashboard/service.ts';
import { Captcha, type CaptchaSettings } from './public/captcha.ts';
import { AttemptLimiter } from './users/attempts.ts';
import { LIMITS } from './core/limits.ts';
import { EventLog } from './events/log.ts';
import { WebhookDeliveryStore } from './webhooks/deliveries.ts';
import { WebhookSender } from './webhooks/send.ts';
import { WEBHOOK_WORKER_DEFAULTS, WebhookWorker } from './webhooks/worker.ts';
import { WebhookStore } from './webhooks/store.ts';
import { WebhookService } from './webhooks/service.ts';
import { EventStore } from './events/store.ts';
import { EventRetention } from './events/retention.ts';

export interface Services extends AppContext {
  /** The users' sessions, sign-in and password resets (the sign-in pages use it directly). */
  users: UserStore;
  userService: UserService;
  /** Authenticates a request and checks its access (route tables use it through `mount`). */
  guard: Guard;
  /** Sign-in rules and attempt limits of the sign-in pages. */
  signIn: SignIn;
  lists: ListService;
  listStore: ListStore;
  subscriberService: SubscriberService;
  /** What subscribers do for themselves on the public pages (subscribe, confirm, unsubscribe, their data). */
  selfService: SubscriberSelfService;
  subscribers: SubscriberStore;
  tracking: TrackingStore;
  campaignStore: CampaignStore;
  campaigns: CampaignService;
  delivery: DeliveryEngine;
  templates: TemplateService;
  tx: TxService;
  media: MediaService;
  bounces: BounceService;
  importer: Importer;
  maintenance: MaintenanceStore;
  /** The database's sizes, last backup and SQLite version, as the admin shows them. */
  database: DatabaseService;
  vacuum: VacuumSchedule;
  /** Scheduled backups (backup.* settings); `status()` for the About page. */
  backups: BackupSchedule;
  /** GET /metrics and the request counts behind it (off unless metrics.enabled). */
  metrics: Metrics;
  dashboard: DashboardService;
  captcha: Captcha;
  /** Per-address counts of public requests (the public API and pages share them). */
  publicLimiter: RateLimiter;
  /** The change log: stores record each change's event in the change's transaction. */
  events: EventLog;
  /** Turns the log's events into webhook deliveries and sends them; `deliverNow` for a test delivery. */
  webhookWorker: WebhookWorker;
  /** The webhooks, their secrets and deliveries (and their interest in the change log). */
  webhooks: WebhookService;
  /** The change log's reads (GET /api/changes) and its pruning. */
  eventStore: EventStore;
  /** Deletes the events older than events.retention_days, daily. */
  eventRetention: EventRetention;
  /** Who may call which route: filled from the route tables as the app mounts them (app.ts). */
  routes: RouteAccess;
  /** Re-reads settings and rebuilds the messengers (after a settings change). */
  reload(): void;
  /** Starts the background work: the sending engine, the bounce mailbox, the indexer, the vacuum, backup and change log retention schedules, the webhooks. */
  start(): void;
  /** Stops the background work in reverse order and closes the database. Idempotent. */
  stop(): Promise<void>;
}

/** Opens (and migrates) the database and builds every part of the app over it. */
export function buildServices(config: Config, log: Logger): Services {
  const db = openDatabase(config.dbPath);
  for (const m of migrate(db)) log.info(`applied migration ${String(m.version).padStart(4, '0')}_${m.name}`);
  for (const name of new TemplateStore(db).upgradeUntouched()) log.info(`template "${name}" brought up to this version's (it was never edited)`);
  // Before any upload can arrive: what a killed run of this server was receiving or importing.
  for (const dir of removeLeftoverUploads(config.dbPath)) log.info(`removed ${dir}, an upload left behind by a server that was killed`);
  // Reads that take user filters (search) run on a read-only connection; segment expressions
  // run on read-only connections of their own, on worker threads (segments/runner.ts).
  const reader = openDatabase(config.dbPath, { readonly: true });

  const settings = new SettingsService(db, config.rootUrl);
  const mailer = new Mailer(log);
  mailer.addFactory(postbackMessengers);
  const rootUrlCheck = new RootUrlCheck(settings, config.rootUrl !== null, log);
  const core: AppContext = { config, db, foregroundWrites: new ForegroundWrites(db), log, settings, rootUrlCheck, mailer, startedAt: new Date() };

  const events = new EventLog(db);
  const webhookSender = new WebhookSender({ allowPrivate: () => settings.bool('security.webhooks_allow_private') });
  const webhookWorker = new WebhookWorker(log, new WebhookDeliveryStore(db), webhookSender, { ...WEBHOOK_WORKER_DEFAULTS, ...config.webhooks });
  const eventStore = new EventStore(db);
  const users = new UserStore(db);
  users.useRootUrl(() => settings.rootUrl());
  users.useSessionIdleTimeout(() => parseDuration(settings.str('security.session_idle_timeout')) ?? SESSION_IDLE_MS);
  const listStore = new ListStore(db, events);
  const segmentRunner = new SegmentRunner(config.dbPath);
  const subscribers = new SubscriberStore(db, reader, segmentRunner, events);
  const tracking = new TrackingStore(db);
  const campaignStore = new CampaignStore(db);
  const indexed = campaignStore.indexPendingText();
  if (indexed) log.info(`the archive's search now has the text of ${indexed} campaign(s) written before it or by another writer`);
  const delivery = new DeliveryEngine(core, new DeliveryStore(db), campaignStore, tracking, subscribers);
  const searchIndexer = new SearchIndexer(core);
  const maintenance = new MaintenanceStore(db, events);
  const importer = new Importer(core, new ImportStore(db), searchIndexer);
  const campaigns = new CampaignService(core, campaignStore, tracking, delivery);

  mailer.rebuild(settings.all());

  const signIn = new SignIn(core, users);

  const s: Services = {
    ...core,
    users,
    userService: new UserService(core, users, signIn),
    guard: makeAuth(users.authenticator()),
    signIn,
    lists: new ListService(listStore, delivery),
    listStore,
    subscriberService: new SubscriberService(core, subscribers),
    // Data exports mailed per subscriber: a few an hour.
    selfService: new SubscriberSelfService(core, subscribers, listStore, new AttemptLimiter(LIMITS.subscriberExportsPerHour, 3_600_000)),
    subscribers,
    tracking,
    campaignStore,
    campaigns,
    delivery,
    templates: new TemplateService(core, new TemplateStore(db), tracking),
    tx: new TxService(core, new TxStore(db), subscribers, tracking),
    media: new MediaService(core, new MediaStore(db)),
    bounces: new BounceService(core, new BounceStore(db)),
    importer,
    maintenance,
    database: new DatabaseService(core, maintenance),
    vacuum: new VacuumSchedule(core, maintenance),
    backups: new BackupSchedule(core),
    metrics: new Metrics(core, campaignStore, importer),
    dashboard: new DashboardService(new DashboardStore(db), campaigns),
    captcha: new Captcha(() => settings.get<CaptchaSettings>('security.captcha')),
    publicLimiter: new RateLimiter(),
    events,
    webhookWorker,
    webhooks: new WebhookService(new WebhookStore(db), events, webhookWorker),
    eventStore,
    eventRetention: new EventRetention(core, eventStore),
    routes: new RouteAccess(),
    reload() {
      settings.reload();
      mailer.rebuild(settings.all());
    },
    start() {
      delivery.start();
      s.bounces.scheduler.start();
      searchIndexer.drain();
      s.vacuum.start();
      s.backups.start();
      webhookWorker.start();
      s.eventRetention.start();
    },
    stop: () => (stopping ??= stopAll()),
  };

  let stopping: Promise<void> | null = null;
  async function stopAll(): Promise<void> {
    await s.eventRetention.stop();
    await webhookWorker.stop();
    webhookSender.close();
    s.vacuum.stop();
    await s.backups.stop();
    // The indexer before the importer, so the import's end does not start it again.
    await searchIndexer.stop();
    s.importer.stop();
    await s.importer.whenIdle();
    s.bounces.scheduler.stop();
    await delivery.stop();
    await mailer.close();
    await segmentRunner.close();
    reader.close();
    closeDatabase(db);
  }
  return s;
}
