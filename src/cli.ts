// The listmgr command line. This contract is fixed: other tools depend on it.
import { Command, CommanderError } from 'commander';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { setFlagsFromString } from 'node:v8';
import { loadConfig, VERSION, type Config } from './config.ts';
import { DashboardStore } from './dashboard/store.ts';
import { closeDatabase, openDatabase, type DB } from './db/connection.ts';
import { copyDatabase } from './db/copy.ts';
import { databaseFiles } from './db/files.ts';
import { acquireServeLock, LockError, serverHolding } from './db/lock.ts';
import { isInstalled, migrate, pendingMigrations } from './db/migrate.ts';
import { restoreDatabase, RestoreError } from './db/restore.ts';
import { DomainError } from './core/errors.ts';
import { announceAdmin, install, InstallError, type InstallResult } from './install.ts';
import { Logger } from './log.ts';
import { installProcessGuards } from './process-guard.ts';
import { CLI_NAME, inSea } from './sea.ts';
import { startServer } from './server.ts';
import { serviceUnit, ServiceUnitError } from './service-unit.ts';
import { DEFAULT_SETTINGS } from './settings/defaults.ts';
import { RootUrlCheck } from './settings/root-url.ts';
import { SettingsService } from './settings/service.ts';
import { passwordHashFor } from './users/rules.ts';
import { randomString } from './users/secrets.ts';
import { UserStore } from './users/store.ts';

class CliError extends Error {}

/** Opens an installed database for a maintenance command. */
function openInstalled(dbPath: string): DB {
  if (!existsSync(dbPath)) throw new CliError(`no database at ${dbPath}; run "${CLI_NAME} install" first (or pass --db FILE)`);
  const db = openDatabase(dbPath);
  if (!isInstalled(db)) {
    closeDatabase(db);
    throw new CliError(`${dbPath} is not an installed listmgr database; run "${CLI_NAME} install" first`);
  }
  return db;
}

/** Runs `fn` on the installed database at `db` (else the configured one), then closes it. */
function withInstalled<T>(db: string | undefined, fn: (db: DB) => T): T {
  const handle = openInstalled(loadConfig({ db }).dbPath);
  try {
    return fn(handle);
  } finally {
    closeDatabase(handle);
  }
}

/** Prints rows under a header, each column as wide as its widest cell; `empty` when there are none. */
function printTable(header: string[], rows: string[][], empty: string): void {
  if (!rows.length) {
    console.log(empty);
    return;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows]) console.log(r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}

/** `listmgr status`: label and value per line. */
function statusLines(config: Config, db: DB): [string, string][] {
  const files = databaseFiles(config.dbPath);
  const wal = files.walBytes;
  const counts = new DashboardStore(db).counts();
  const byStatus = counts.campaigns.by_status ?? {};
  const settings = new SettingsService(db, config.rootUrl);
  const pid = serverHolding(config.dbPath);
  const backup = SettingsService.lastBackup(db);
  const rootWarning = new RootUrlCheck(settings, config.rootUrl !== null, new Logger(true)).warning();
  const smtp = settings.get<{ enabled: boolean; host: string; port: number }[]>('smtp').filter((b) => b.enabled);
  const messengers = settings.get<{ enabled: boolean; name: string }[]>('messengers').filter((m) => m.enabled);
  const mail = [...smtp.map((b) => `SMTP ${b.host}:${b.port}`), ...messengers.map((m) => `messenger ${m.name}`)];
  return [
    ['Database', `${config.dbPath} (${humanSize(files.bytes)}${wal ? `, WAL ${humanSize(wal)}` : ''})`],
    ['Server', pid ? `running on this database (pid ${pid})` : 'not running on this database'],
    ['Subscribers', `${counts.subscribers.total ?? 0} (${counts.subscribers.blocklisted ?? 0} blocklisted)`],
    ['Lists', String(counts.lists.total)],
    ['Campaigns', `${byStatus.running ?? 0} running, ${byStatus.scheduled ?? 0} scheduled, ${counts.campaigns.total} in all`],
    ['Last backup', backup ? `${backup.at} to ${backup.file} (${humanSize(backup.bytes)})` : 'none recorded (listmgr backup FILE)'],
    ['Root URL', `${settings.rootUrl()}${rootWarning ? `: ${rootWarning}` : ''}`],
    ['Mail', mail.length ? `enabled: ${mail.join(', ')}` : 'not configured: no SMTP server or messenger is enabled, so nothing can be sent'],
  ];
}

const humanSize = (n: number) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);

/** Reads a line from the terminal without echoing it. */
function askHidden(prompt: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const stdin = process.stdin;
    process.stdout.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let line = '';
    const done = (err: Error | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stdout.write('\n');
      if (err) reject(err);
      else resolvePromise(line);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new CliError('cancelled'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Reads a line from the terminal. */
async function ask(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(prompt)).trim();
  } finally {
    rl.close();
  }
}

/** A new password: typed twice on a terminal, else LISTMGR_PASSWORD, else generated. */
async function newPassword(): Promise<{ password: string; generated: boolean }> {
  if (process.stdin.isTTY) {
    const first = await askHidden('New password: ');
    if (first !== (await askHidden('Repeat the password: '))) throw new CliError('the passwords do not match');
    return { password: first, generated: false };
  }
  const fromEnv = process.env.LISTMGR_PASSWORD;
  if (fromEnv) return { password: fromEnv, generated: false };
  return { password: randomString(20), generated: true };
}

export function buildCli(): Command {
  const program = new Command('listmgr')
    .description('listmgr: a self-hosted newsletter and mailing-list manager (listmonk-compatible API)')
    .version(VERSION, '-v, --version', 'print the version')
    .showHelpAfterError('(run "listmgr --help" for usage)');

  const dbOption = (cmd: Command) => cmd.option('--db <file>', 'SQLite database file (env LISTMGR_DB, default ./listmgr.db)');

  dbOption(program.command('install'))
    .description('create the database: schema, default settings and templates, and the admin user (LISTMGR_ADMIN_USER / LISTMGR_ADMIN_PASSWORD, else a generated password is printed)')
    .option('--yes', 'wipe an existing installation and install afresh (destroys all data)')
    .option('--root-url <url>', 'public root URL used in links, stored as app.root_url (env LISTMGR_ROOT_URL; later under Settings → General)')
    .option('--admin-email <email>', "the admin's e-mail address, for password resets (env LISTMGR_ADMIN_EMAIL; asked for on a terminal)")
    .action(async (opts: { db?: string; yes?: boolean; rootUrl?: string; adminEmail?: string }) => {
      const { dbPath, rootUrl } = loadConfig({ db: opts.db, rootUrl: opts.rootUrl });
      const adminEmail = opts.adminEmail ?? process.env.LISTMGR_ADMIN_EMAIL ?? (process.stdin.isTTY ? await ask('Admin e-mail address, for password resets (Enter to skip): ') : undefined);
      const release = acquireServeLock(dbPath, 'installing would replace the database it is using');
      let r: InstallResult;
      try {
        r = await install(dbPath, { yes: opts.yes, adminUser: process.env.LISTMGR_ADMIN_USER, adminPassword: process.env.LISTMGR_ADMIN_PASSWORD, adminEmail, rootUrl });
      } catch (e) {
        if (e instanceof InstallError) throw new CliError(e.message);
        throw e;
      } finally {
        release();
      }
      if (r.wiped) console.log(`Wiped the existing installation at ${dbPath}.`);
      console.log(`Installed listmgr at ${dbPath}.`);
      if (!rootUrl) console.log(`The root URL (used in every link in mail) is ${DEFAULT_SETTINGS['app.root_url']}: set it under Settings → General, or with "serve --root-url URL".`);
      announceAdmin(r.adminUser, r.generatedPassword);
    });

  dbOption(program.command('upgrade'))
    .description('apply pending database migrations (safe to run repeatedly)')
    .action((opts: { db?: string }) => {
      const { dbPath } = loadConfig({ db: opts.db });
      const release = acquireServeLock(dbPath, 'the server would run its old code on the new schema (serve applies pending migrations itself at start)');
      try {
        const db = openInstalled(dbPath);
        try {
          const pending = pendingMigrations(db);
          if (!pending.length) console.log('The database is up to date; nothing to do.');
          migrate(db, (m) => console.log(`applied migration ${String(m.version).padStart(4, '0')}_${m.name}`));
        } finally {
          closeDatabase(db);
        }
      } finally {
        release();
      }
    });

  dbOption(program.command('serve'))
    .description('run the HTTP server (installs a new database on first start)')
    .option('--address <host:port>', 'address to listen on (env LISTMGR_ADDRESS, default localhost:9000)')
    .option('--root-url <url>', 'public root URL used in links (env LISTMGR_ROOT_URL; overrides the app.root_url setting)')
    .option('--uploads <dir>', 'media folder (env LISTMGR_UPLOADS, default ./uploads)')
    .action(async (opts: { db?: string; address?: string; rootUrl?: string; uploads?: string }) => {
      // Signals are caught from the start, so one arriving while the server starts up still
      // shuts it down gracefully.
      let server: Awaited<ReturnType<typeof startServer>> | null = null;
      let signalled: string | null = null;
      const shutdown = () => {
        server!.ctx.log.info(`received ${signalled}`);
        server!.stop().then(() => process.exit(0), (e) => {
          console.error(`listmgr: shutdown failed: ${(e as Error).message}`);
          process.exit(1);
        });
      };
      const onSignal = (sig: string) => {
        if (signalled) return;
        signalled = sig;
        if (server) shutdown();
      };
      process.once('SIGINT', () => onSignal('SIGINT'));
      process.once('SIGTERM', () => onSignal('SIGTERM'));
      installProcessGuards(() => server?.ctx.log ?? null);
      // A full GC once the old generation has grown 25% over what survived the last one (V8
      // otherwise lets it grow up to 4×). Sending promotes a steady trickle of short-lived
      // message data; in the 100,000-message bench one run with V8's default peaked at 194 MB
      // RSS (old space 80 MB for 24 MB live), runs with this cap at 140 MB, at the same throughput.
      setFlagsFromString('--heap-growing-percent=25');
      server = await startServer(loadConfig(opts));
      if (signalled) shutdown();
    });

  const apiUser = program.command('api-user').description('manage API users (token authentication)');
  dbOption(apiUser.command('create <name>'))
    .description('create an API user and print NAME:TOKEN as the last line (the token is shown only now)')
    .option('--role <role>', 'user role name (default: the Super Admin role, all permissions)')
    .action((name: string, opts: { db?: string; role?: string }) => {
      const db = openInstalled(loadConfig({ db: opts.db }).dbPath);
      try {
        const users = new UserStore(db);
        let roleId: number | undefined;
        if (opts.role) {
          roleId = users.roleIdByName(opts.role);
          if (roleId === undefined) throw new CliError(`no user role named "${opts.role}"`);
        }
        if (!/^[a-zA-Z0-9_\-.@]{3,2000}$/.test(name)) throw new CliError(`invalid name "${name}": 3 or more of letters, digits, _ - . @`);
        const { token } = users.createApiUser(name, roleId);
        console.log(`Created API user "${name}". Use these credentials (HTTP Basic, or "Authorization: token NAME:TOKEN"); the token is not shown again:`);
        console.log(`${name}:${token}`);
      } finally {
        closeDatabase(db);
      }
    });
  dbOption(apiUser.command('revoke <name>'))
    .description('delete an API user; its token stops working at once')
    .action((name: string, opts: { db?: string }) => {
      const db = openInstalled(loadConfig({ db: opts.db }).dbPath);
      try {
        if (!new UserStore(db).revokeApiUser(name)) throw new CliError(`no API user named "${name}"`);
        console.log(`Revoked API user "${name}".`);
      } finally {
        closeDatabase(db);
      }
    });

  dbOption(apiUser.command('list'))
    .description('list the API users: name, role, status and last use (recorded at most once an hour); never their tokens')
    .action((opts: { db?: string }) => {
      withInstalled(opts.db, (db) => {
        const rows = new UserStore(db).listUsers().filter((u) => u.type === 'api');
        printTable(['NAME', 'ROLE', 'STATUS', 'LAST USE'], rows.map((u) => [u.username, u.user_role.name, u.status, u.loggedin_at ?? 'never']), `No API users. Create one with: ${CLI_NAME} api-user create NAME`);
      });
    });

  const user = program.command('user').description('manage login users (password sign-in at /admin/login)');
  dbOption(user.command('list'))
    .description('list the login users: name, role, status, two-factor, e-mail and last sign-in')
    .action((opts: { db?: string }) => {
      withInstalled(opts.db, (db) => {
        const rows = new UserStore(db).listUsers().filter((u) => u.type === 'user');
        printTable(['NAME', 'ROLE', 'STATUS', '2FA', 'E-MAIL', 'LAST SIGN-IN'], rows.map((u) => [u.username, u.user_role.name, u.status, u.twofa_type, u.email ?? '', u.loggedin_at ?? 'never']), 'No login users.');
      });
    });
  dbOption(user.command('create <name>'))
    .description('create a login user; the password is asked for on a terminal, else read from LISTMGR_PASSWORD, else generated and printed')
    .requiredOption('--role <role>', 'user role name (e.g. "Super Admin")')
    .option('--email <email>', 'e-mail address (for password resets; default NAME@listmgr.localhost)')
    .action(async (name: string, opts: { db?: string; role: string; email?: string }) => {
      const db = openInstalled(loadConfig({ db: opts.db }).dbPath);
      try {
        const users = new UserStore(db);
        const roleId = users.roleIdByName(opts.role);
        if (roleId === undefined) throw new CliError(`no user role named "${opts.role}"`);
        const { password, generated } = await newPassword();
        users.createLoginUser(name, await passwordHashFor(password), opts.email ?? `${name.includes('@') ? name : `${name}@listmgr.localhost`}`, roleId);
        console.log(`Created user "${name}" with the role "${opts.role}".`);
        if (generated) console.log(`Generated password (shown only now): ${password}`);
      } finally {
        closeDatabase(db);
      }
    });
  dbOption(user.command('reset-password <name>'))
    .description("set a login user's password (asked for on a terminal, else LISTMGR_PASSWORD, else generated and printed) and end all their sessions")
    .action(async (name: string, opts: { db?: string }) => {
      const db = openInstalled(loadConfig({ db: opts.db }).dbPath);
      try {
        const { password, generated } = await newPassword();
        new UserStore(db).resetPasswordByName(name, await passwordHashFor(password));
        console.log(`Set a new password for "${name}"; their sessions were ended.`);
        if (generated) console.log(`Generated password (shown only now): ${password}`);
      } finally {
        closeDatabase(db);
      }
    });

  dbOption(program.command('backup <file>'))
    .description('write a consistent copy of the database to FILE (safe while the server runs)')
    .action(async (file: string, opts: { db?: string }) => {
      const target = resolve(file);
      const { dbPath } = loadConfig({ db: opts.db });
      if (target === dbPath) throw new CliError('the backup file must not be the database itself');
      if (existsSync(target)) throw new CliError(`${target} already exists; choose a new file name`);
      const db = openInstalled(dbPath);
      // What the copy will hold: the pages in use (VACUUM INTO leaves the free ones out).
      const expected = ((db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number)) * (db.pragma('page_size', { simple: true }) as number);
      closeDatabase(db);
      // Written beside the target and renamed when complete, so FILE is never a partial copy.
      const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
      try {
        await copyDatabase(dbPath, partial, (written) => {
          console.log(`Backing up: ${humanSize(written)} of about ${humanSize(expected)} written (${Math.min(99, Math.floor((written / Math.max(1, expected)) * 100))}%)`);
        });
        if (existsSync(target)) throw new CliError(`${target} appeared meanwhile; the copy is left at ${partial}`);
        renameSync(partial, target);
      } catch (e) {
        if (!(e instanceof CliError)) rmSync(partial, { force: true });
        throw e;
      }
      const bytes = statSync(target).size;
      withInstalled(opts.db, (db) => SettingsService.recordBackup(db, { at: new Date().toISOString(), file: target, bytes }));
      console.log(`Backed up ${dbPath} to ${target} (${humanSize(bytes)}).`);
    });

  dbOption(program.command('restore <file>'))
    .description('replace the database with a backup: checks it first (integrity, a listmgr database, migrations this version can apply), keeps the replaced database as <db>.before-restore; refuses while a server runs on the database')
    .action((file: string, opts: { db?: string }) => {
      const { dbPath } = loadConfig({ db: opts.db });
      const r = restoreDatabase(file, dbPath, (m) => console.log(`applied migration ${String(m.version).padStart(4, '0')}_${m.name} to the backup`));
      if (r.keptAs) console.log(`The replaced database is kept as ${r.keptAs}.`);
      console.log(`Restored ${resolve(file)} to ${dbPath}.`);
    });

  program.command('service-unit')
    .description('print a systemd unit that runs the server as its own user, allowed to write only its data folder')
    .option('--user <user>', 'the system user (and group) it runs as', 'listmgr')
    .option('--dir <dir>', 'the data folder: the database, uploads and cache', '/var/lib/listmgr')
    .option('--exec <path>', 'the executable (default: this one, when it is the release executable, else /usr/local/bin/listmgr)')
    .option('--address <host:port>', 'where the server listens; the reverse proxy forwards to it', '127.0.0.1:9000')
    .action((opts: { user: string; dir: string; exec?: string; address: string }) => {
      process.stdout.write(serviceUnit({ user: opts.user, dir: opts.dir, exec: opts.exec ?? (inSea ? process.execPath : '/usr/local/bin/listmgr'), address: opts.address }));
    });

  dbOption(program.command('vacuum'))
    .description('compact the database file (VACUUM) and refresh query statistics; refuses while a server runs on it')
    .action((opts: { db?: string }) => {
      const { dbPath } = loadConfig({ db: opts.db });
      // VACUUM holds the write lock from start to end: every write of a running server would
      // wait for it, and its sends could not record their outcomes.
      const release = acquireServeLock(dbPath, 'vacuuming holds the database locked from start to end, and the writes of the server would wait for it');
      try {
        const db = openInstalled(dbPath);
        try {
          const before = statSync(dbPath).size;
          db.exec('VACUUM');
          db.pragma('optimize');
          console.log(`Vacuumed ${dbPath}: ${humanSize(before)} → ${humanSize(statSync(dbPath).size)}.`);
        } finally {
          closeDatabase(db);
        }
      } finally {
        release();
      }
    });

  const migrateCmd = program.command('migrate').description('bring data over from another newsletter manager');
  dbOption(migrateCmd.command('listmonk'))
    .description('copy a listmonk database (v2 to v6.2) into a new listmgr database: subscribers, lists, campaigns with their statistics, templates, media, users and roles (old API tokens and passwords keep working), settings')
    .requiredOption('--from <url>', 'the listmonk PostgreSQL database, postgres://USER:PASS@HOST:PORT/DB (read in one read-only transaction; nothing is written there)')
    .option('--uploads <dir>', "listmonk's upload folder, to copy the media files from (the files go to LISTMGR_UPLOADS, default ./uploads)")
    .option('--dry-run', 'read everything and print what would come over, writing nothing')
    .option('--yes', 'replace a target database that already holds subscribers')
    .action(async (opts: { db?: string; from: string; uploads?: string; dryRun?: boolean; yes?: boolean }) => {
      const { dbPath, uploadsPath } = loadConfig({ db: opts.db });
      // As for serve: the copy promotes a steady stream of short-lived rows, and V8's default
      // lets the old generation grow far past what is live.
      setFlagsFromString('--heap-growing-percent=25');
      // Loaded here: pg is needed by this command only.
      const { migrateFromListmonk, formatReport, MigrateError } = await import('./migrate/listmonk.ts');
      const { SchemaError } = await import('./migrate/listmonk-source.ts');
      // Checked before the copy: the admin (for a listmonk without users) is created at its end.
      if (process.env.LISTMGR_ADMIN_PASSWORD && process.env.LISTMGR_ADMIN_PASSWORD.length < 8) throw new CliError('the admin password must be at least 8 characters long');
      const adminPassword = process.env.LISTMGR_ADMIN_PASSWORD || randomString(20);
      const release = opts.dryRun ? () => {} : acquireServeLock(dbPath, 'the migration replaces the database it is using');
      try {
        const report = await migrateFromListmonk({
          from: opts.from, dbPath, uploadsPath, listmonkUploads: opts.uploads ? resolve(opts.uploads) : undefined,
          dryRun: opts.dryRun ?? false, yes: opts.yes ?? false,
          adminUser: process.env.LISTMGR_ADMIN_USER?.trim() || 'admin', adminPassword,
          progress: (line) => process.stderr.write(`${line}\n`),
        });
        if (report.replaced) console.log(`Replaced the database at ${dbPath}, which held ${report.replaced}.`);
        console.log(formatReport(report, opts.dryRun ?? false));
        if (!opts.dryRun) console.log(`\nMigrated listmonk into ${dbPath}.`);
        if (report.createdAdmin) announceAdmin(report.createdAdmin, process.env.LISTMGR_ADMIN_PASSWORD ? null : adminPassword);
      } catch (e) {
        if (e instanceof MigrateError || e instanceof SchemaError) throw new CliError(e.message);
        throw e;
      } finally {
        release();
      }
    });

  dbOption(program.command('status'))
    .description('what the database holds and how it is set up: its size, subscribers, lists, campaigns running or scheduled, the last backup, whether a server runs on it, the root URL and mail')
    .action((opts: { db?: string }) => {
      const config = loadConfig({ db: opts.db });
      withInstalled(opts.db, (db) => {
        for (const [label, value] of statusLines(config, db)) console.log(`${`${label}:`.padEnd(14)}${value}`);
      });
    });

  program.command('version').description('print the version').action(() => console.log(VERSION));

  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildCli();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode);
    if (e instanceof CliError || e instanceof LockError || e instanceof DomainError || e instanceof RestoreError || e instanceof ServiceUnitError) {
      console.error(`listmgr: ${e.message}`);
      process.exit(1);
    }
    const err = e as NodeJS.ErrnoException;
    console.error(`listmgr: ${err.code === 'EADDRINUSE' ? `the address is already in use (${err.message})` : err.message}`);
    process.exit(1);
  }
}

// Run when executed (the bundle's entry), not when imported by tests.
if (process.argv[1] && /(?:cli\.(?:js|ts))$/.test(process.argv[1])) void main(process.argv);
