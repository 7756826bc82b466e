// npm run bench:crud — the store calls of plain CRUD (drizzle or named SQL, see docs/architecture.md
// "Database access"), in-process on a freshly installed database, in CPU time so that other
// load on the machine disturbs the figures less:
//   BENCH <call>_us                 CPU µs per store call (with what the method does around
//                                   its SQL: row mapping, JSON parsing, hashing a token)
//   BENCH drizzle_<shape>_extra_us  CPU µs a prepared drizzle statement costs more than the
//                                   same named SQL statement (negative: less), for a one-column
//                                   row, a wide row (a user with its role's permissions), 10 rows
// Each figure is the median of 30 rounds of BENCH_CRUD_N calls (2,000 by default); in the
// drizzle/SQL pairs the two alternate round by round.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, eq, getTableColumns, gt } from 'drizzle-orm';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { param, preparedStatements } from '../../src/db/index.ts';
import { lists as listsTable, roles, sessions, users as usersTable } from '../../src/db/schema.ts';
import { authorize, can } from '../../src/core/authz.ts';
import { install } from '../../src/install.ts';
import { ListStore } from '../../src/lists/store.ts';
import { EventLog } from '../../src/events/log.ts';
import { MediaStore } from '../../src/media/store.ts';
import { TemplateStore } from '../../src/templates/store.ts';
import { UserStore } from '../../src/users/store.ts';

const N = Number(process.env.BENCH_CRUD_N ?? 2000);
const ROUNDS = 30;

let sink: unknown;
const cpuPerCall = (fn: () => unknown) => {
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) sink = fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const dir = mkdtempSync(join(tmpdir(), 'listmgr-bench-crud-'));
const path = join(dir, 'crud.db');
try {
  await install(path, { adminUser: 'admin', adminPassword: 'bench-password-1' });
  const db = openDatabase(path);
  const lists = new ListStore(db, new EventLog(db));
  const templates = new TemplateStore(db);
  const media = new MediaStore(db);
  const users = new UserStore(db);

  const fields = { name: 'Bench list', type: 'public', optin: 'single', status: 'active', tags: ['a', 'b'], description: 'x' } as const;
  const list = lists.create({ ...fields, tags: [...fields.tags] });
  for (let i = 0; i < 9; i++) lists.create({ ...fields, name: `List ${i}`, tags: [] });
  db.exec(`INSERT INTO subscribers (uuid, email, name) VALUES ('b1', 'b1@example.com', 'B1'), ('b2', 'b2@example.com', 'B2')`);
  db.prepare(`INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (1, ?, 'confirmed'), (2, ?, 'unconfirmed')`).run(list.id, list.id);
  const template = templates.all()[0];
  const m = media.insert({ uuid: '0190f0f0-0000-7000-8000-000000000001', provider: 'filesystem', filename: 'a.png', contentType: 'image/png', thumb: 'thumb_a.png', meta: { width: 10, height: 10 } });
  const listRole = users.createListRole('Bench role', [{ id: list.id, permissions: ['list:get', 'list:manage'] }]);
  const { user: apiUser, token } = users.createUser({ username: 'benchapi', type: 'api', status: 'enabled', userRoleId: 1, listRoleId: listRole.id });
  const adminId = (await users.checkLogin('admin', 'bench-password-1'))!.id;
  const session = users.createSession(adminId);
  const auth = users.authenticator();
  const listToUpdate = authorize(list.id, (id) => can(users.loadAuthUser(adminId, 'session')!, 'list:manage', id), () => new Error('the admin manages every list'));

  const calls: [string, () => unknown][] = [
    ['lists_get', () => lists.get(list.id)],
    ['lists_public', () => lists.publicLists()],
    ['lists_update', () => lists.update(listToUpdate, { ...fields, tags: ['a', 'b'] })],
    ['templates_get', () => templates.get(template.id)],
    ['templates_all', () => templates.all()],
    ['templates_default', () => templates.defaultTemplate()],
    ['media_get', () => media.get(m.id)],
    ['user_by_token', () => auth.byToken(apiUser.username, token!)],
    ['user_by_session', () => auth.bySession(session)],
    ['users_get', () => users.getUser(adminId)],
    ['roles_list', () => users.listListRoles()],
  ];
  for (const [name, fn] of calls) {
    if (fn() == null) throw new Error(`${name} answered nothing`);
    cpuPerCall(fn);
    const rounds = Array.from({ length: ROUNDS }, () => cpuPerCall(fn));
    console.log(`BENCH ${name}_us ${median(rounds).toFixed(2)}`);
  }

  // The same statement as named SQL and as prepared drizzle (both prepared once).
  const now = new Date().toISOString();
  const sid = db.prepare('SELECT id FROM sessions LIMIT 1').pluck().get() as string;
  const d = preparedStatements(db, {
    narrow: (orm) => orm.select({ user_id: sessions.user_id }).from(sessions)
      .where(and(eq(sessions.id, param('id')), gt(sessions.expires_at, param('now')))).prepare(),
    wide: (orm) => orm.select({ ...getTableColumns(usersTable), permissions: roles.permissions }).from(usersTable)
      .innerJoin(roles, eq(roles.id, usersTable.user_role_id)).where(eq(usersTable.username, param('username'))).prepare(),
    rows: (orm) => orm.select().from(listsTable).where(and(eq(listsTable.type, 'public'), eq(listsTable.status, 'active')))
      .orderBy(asc(listsTable.id)).prepare(),
  });
  const narrow = db.prepare('SELECT user_id FROM sessions WHERE id = ? AND expires_at > ?');
  const wide = db.prepare('SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id WHERE u.username = ?');
  const rows = db.prepare(`SELECT * FROM lists WHERE type = 'public' AND status = 'active' ORDER BY id`);
  const pairs: [string, () => unknown, () => unknown][] = [
    ['narrow', () => narrow.get(sid, now), () => d.narrow.get({ id: sid, now })],
    ['wide', () => wide.get(apiUser.username), () => d.wide.get({ username: apiUser.username })],
    ['10rows', () => rows.all(), () => d.rows.all()],
  ];
  for (const [shape, namedSql, drizzle] of pairs) {
    if (JSON.stringify(namedSql()) !== JSON.stringify(drizzle())) throw new Error(`${shape}: drizzle and SQL rows differ`);
    cpuPerCall(namedSql);
    cpuPerCall(drizzle);
    const extra: number[] = [];
    for (let r = 0; r < ROUNDS; r++) extra.push(cpuPerCall(drizzle) - cpuPerCall(namedSql));
    console.log(`BENCH drizzle_${shape}_extra_us ${median(extra).toFixed(2)}`);
  }
  void sink;
  closeDatabase(db);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
