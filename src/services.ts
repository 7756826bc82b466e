// The composition root: every store, service, messenger and background worker of a running
// listmgr, built here in dependency order. `start()` sets the background work going (after the
// server listens); `stop()` ends it in reverse order before the database closes. The server and
// the tests build the same object.
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { closeDatabase, openDatabase } from './db/connection.ts';
import { ForegroundWrites } from './db/foreground-writes.ts';
import { ormFor } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import type { Logger } from './log.ts';
import { makeAuth, type Guard } from './http/auth.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { removeLeftoverUploads } from './http/upload-dirs.ts';
import { Mailer } from './mail/mailer.ts';
import { postbackMessengers } from './mail/postback.ts';
import { SettingsService } from './settings/service.ts';
import { UserStore } from './users/store.ts';
import { ListStore } from './lists/store.ts';
import { ListService } from './lists/service.ts';
import { registerSegmentFunctions } from './segments/index.ts';
import { SubscriberStore } from './subscribers/store.ts';
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
import { BounceStore } from './bounces/store.ts';
import { BounceService } from './bounces/service.ts';
import { SearchIndexer } from './imports/search-indexer.ts';
import { ImportStore } from './imports/store.ts';
import { Importer } from './imports/importer.ts';
import { MaintenanceStore } from './maintenance/store.ts';
import { VacuumSchedule } from './maintenance/schedule.ts';
import { DashboardStore } from './dashboard/store.ts';
import { Captcha } from './public/captcha.ts';

export interface Services extends AppContext {
  users: UserStore;
  /** Authenticates a request and checks its access (route tables use it through `mount`). */
  guard: Guard;
  lists: ListService;
  listStore: ListStore;
  subscribers: SubscriberStore;
  tracking: TrackingStore;
  campaignStore: CampaignStore;
  campaigns: CampaignService;
  delivery: DeliveryEngine;
  templates: TemplateService;
  templateStore: TemplateStore;
  tx: TxService;
  media: MediaStore;
  bounces: BounceService;
  importer: Importer;
  searchIndexer: SearchIndexer;
  maintenance: MaintenanceStore;
  vacuum: VacuumSchedule;
  dashboard: DashboardStore;
  captcha: Captcha;
  /** Per-address counts of public requests (the public API and pages share them). */
  publicLimiter: RateLimiter;
  /** Re-reads settings and rebuilds the messengers (after a settings change). */
  reload(): void;
  /** Starts the background work: the sending engine, the bounce mailbox, the indexer, the vacuum schedule. */
  start(): void;
  /** Stops the background work in reverse order and closes the database. Idempotent. */
  stop(): Promise<void>;
}

/** Opens (and migrates) the database and builds every part of the app over it. */
export function buildServices(config: Config, log: Logger): Services {
  const db = openDatabase(config.dbPath);
  for (const m of migrate(db)) log.info(`applied migration ${String(m.version).padStart(4, '0')}_${m.name}`);
  // Before any upload can arrive: what a killed run of this server was receiving or importing.
  for (const dir of removeLeftoverUploads(config.dbPath)) log.info(`removed ${dir}, an upload left behind by a server that was killed`);
  // User-written segment expressions run on a read-only connection: a second wall behind the translator.
  const reader = openDatabase(config.dbPath, { readonly: true });
  registerSegmentFunctions(reader);

  const settings = new SettingsService(db, config.rootUrl);
  const mailer = new Mailer(log);
  mailer.addFactory(postbackMessengers);
  const core: AppContext = { config, db, foregroundWrites: new ForegroundWrites(db), orm: ormFor(db), log, settings, mailer, startedAt: new Date() };

  const users = new UserStore(db);
  const listStore = new ListStore(db);
  const subscribers = new SubscriberStore(db, reader);
  const tracking = new TrackingStore(db);
  const campaignStore = new CampaignStore(db);
  const delivery = new DeliveryEngine(core, new DeliveryStore(db), campaignStore, tracking);
  const templateStore = new TemplateStore(db);
  const searchIndexer = new SearchIndexer(core);
  const maintenance = new MaintenanceStore(db);

  mailer.rebuild(settings.all());

  const s: Services = {
    ...core,
    users,
    guard: makeAuth(users.authenticator()),
    lists: new ListService(listStore),
    listStore,
    subscribers,
    tracking,
    campaignStore,
    campaigns: new CampaignService(core, campaignStore, tracking, delivery),
    delivery,
    templates: new TemplateService(core, templateStore, tracking),
    templateStore,
    tx: new TxService(core, new TxStore(db), subscribers, tracking),
    media: new MediaStore(db),
    bounces: new BounceService(core, new BounceStore(db)),
    importer: new Importer(core, new ImportStore(db), searchIndexer),
    searchIndexer,
    maintenance,
    vacuum: new VacuumSchedule(core, maintenance),
    dashboard: new DashboardStore(db),
    captcha: new Captcha(settings),
    publicLimiter: new RateLimiter(),
    reload() {
      settings.reload();
      mailer.rebuild(settings.all());
    },
    start() {
      delivery.start();
      s.bounces.scheduler.start();
      searchIndexer.drain();
      s.vacuum.start();
    },
    stop: () => (stopping ??= stopAll()),
  };

  let stopping: Promise<void> | null = null;
  async function stopAll(): Promise<void> {
    s.vacuum.stop();
    // The indexer before the importer, so the import's end does not start it again.
    await searchIndexer.stop();
    s.importer.stop();
    await s.importer.whenIdle();
    s.bounces.scheduler.stop();
    await delivery.stop();
    await mailer.close();
    reader.close();
    closeDatabase(db);
  }
  return s;
}
