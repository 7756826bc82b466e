// Creating (or re-creating) a database: schema, default settings, templates and the admin.
import { rmSync } from 'node:fs';
import { closeDatabase, openDatabase, type DB } from './db/connection.ts';
import { isInstalled, migrate } from './db/migrate.ts';
import { SettingsService } from './settings/service.ts';
import { emailProblem } from './mail/address.ts';
import { TemplateStore } from './templates/store.ts';
import { passwordHashFor } from './users/rules.ts';
import { randomString } from './users/secrets.ts';
import { UserStore } from './users/store.ts';
import { CLI_NAME } from './sea.ts';

/** An install refused: bad admin credentials, or the database is already installed. */
export class InstallError extends Error {}

export interface InstallOptions {
  /** Wipe an existing installation first. */
  yes?: boolean;
  adminUser?: string;
  adminPassword?: string;
  /** The admin's e-mail address, for "Forgot your password?" (default ADMIN@listmgr.localhost, which receives nothing). */
  adminEmail?: string;
  /** Stored as app.root_url (--root-url). */
  rootUrl?: string | null;
}

export interface InstallResult {
  adminUser: string;
  /** Set when the password was generated (it is printed once, never stored in clear). */
  generatedPassword: string | null;
  wiped: boolean;
}

function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

export async function install(dbPath: string, opts: InstallOptions = {}): Promise<InstallResult> {
  // Checked before the file is touched: a typo must not wipe an installation, nor leave an empty file.
  const adminUser = opts.adminUser?.trim() || 'admin';
  if (!/^[a-zA-Z0-9_\-.@]{3,2000}$/.test(adminUser)) throw new InstallError(`invalid admin username "${adminUser}": 3 or more of letters, digits, _ - . @`);
  const password = opts.adminPassword ?? '';
  if (password && password.length < 8) throw new InstallError('the admin password must be at least 8 characters long');
  const adminEmail = (opts.adminEmail?.trim() || `${adminUser.includes('@') ? adminUser : `${adminUser}@listmgr.localhost`}`).toLowerCase();
  const emailWrong = emailProblem(adminEmail, { allow: [], block: [] });
  if (emailWrong) throw new InstallError(`invalid admin e-mail: ${emailWrong}`);
  const generated = password ? null : randomString(20);
  // Hashed before the database is touched: hashing is asynchronous, a transaction is not.
  const passwordHash = await passwordHashFor(password || generated!);
  let db: DB = openDatabase(dbPath);
  let wiped = false;
  if (isInstalled(db)) {
    if (!opts.yes) {
      closeDatabase(db);
      throw new InstallError(`${dbPath} is already installed. Run "${CLI_NAME} install --yes" to wipe it and install afresh (all data is lost), or "${CLI_NAME} upgrade" to apply new migrations.`);
    }
    closeDatabase(db);
    removeDatabaseFiles(dbPath);
    db = openDatabase(dbPath);
    wiped = true;
  }
  try {
    migrate(db);
    db.transaction(() => {
      SettingsService.writeDefaults(db, opts.rootUrl ? { 'app.root_url': opts.rootUrl } : {});
      new TemplateStore(db).insertDefaults();
      const users = new UserStore(db);
      users.ensureSuperAdminRole();
      users.createLoginUser(adminUser, passwordHash, adminEmail);
      db.prepare(`INSERT INTO settings (key, value) VALUES ('app.installed_at', json_quote(strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`).run();
    }).immediate();
    return { adminUser, generatedPassword: generated, wiped };
  } finally {
    closeDatabase(db);
  }
}

/** Prints the admin credentials once, clearly (only once the install is complete). */
export function announceAdmin(user: string, generatedPassword: string | null): void {
  const reset = `  Forgotten password and no mail set up yet: ${CLI_NAME} user reset-password ${user}\n`;
  if (!generatedPassword) {
    process.stdout.write(`\nAdmin user "${user}" created with the password from LISTMGR_ADMIN_PASSWORD.\n${reset}\n`);
    return;
  }
  const line = '='.repeat(64);
  process.stdout.write(`\n${line}\n  listmgr is installed. Admin login (shown only this once):\n    username: ${user}\n    password: ${generatedPassword}\n  Create API credentials with: ${CLI_NAME} api-user create NAME\n${reset}${line}\n\n`);
}
