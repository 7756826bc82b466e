// Fixture rows for bounce tests, written straight into the test server's database (the
// subscribers and campaigns modules are not what these tests are about).
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.ts';

export interface Seeded {
  id: number;
  uuid: string;
}

export function addSubscriber(t: TestServer, email: string, opts: { status?: string; lists?: number[] } = {}): Seeded {
  const uuid = randomUUID();
  const db = t.server.ctx.db;
  const id = Number(db.prepare('INSERT INTO subscribers (uuid, email, name, status) VALUES (?, ?, ?, ?)').run(uuid, email, email, opts.status ?? 'enabled').lastInsertRowid);
  for (const l of opts.lists ?? []) db.prepare(`INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (?, ?, 'confirmed')`).run(id, l);
  return { id, uuid };
}

export function addList(t: TestServer, name: string): number {
  return Number(t.server.ctx.db.prepare('INSERT INTO lists (uuid, name) VALUES (?, ?)').run(randomUUID(), name).lastInsertRowid);
}

export function addCampaign(t: TestServer, name: string): Seeded {
  const uuid = randomUUID();
  const id = Number(t.server.ctx.db.prepare(`INSERT INTO campaigns (uuid, name, subject, from_email) VALUES (?, ?, ?, 'news@example.org')`).run(uuid, name, name).lastInsertRowid);
  return { id, uuid };
}

export function subscriberStatus(t: TestServer, id: number): string | undefined {
  return t.server.ctx.db.prepare('SELECT status FROM subscribers WHERE id = ?').pluck().get(id) as string | undefined;
}

export function subscriptionStatuses(t: TestServer, id: number): string[] {
  return t.server.ctx.db.prepare('SELECT status FROM subscriber_lists WHERE subscriber_id = ? ORDER BY list_id').pluck().all(id) as string[];
}

export function bounceCount(t: TestServer, subscriberId?: number): number {
  const db = t.server.ctx.db;
  return (subscriberId === undefined
    ? db.prepare('SELECT COUNT(*) FROM bounces').pluck().get()
    : db.prepare('SELECT COUNT(*) FROM bounces WHERE subscriber_id = ?').pluck().get(subscriberId)) as number;
}

/** A user role with the given permissions; returns "user:token" of a new API user holding it. */
export function userWith(t: TestServer, name: string, permissions: string[]): string {
  const roleId = Number(t.server.ctx.db.prepare(`INSERT INTO roles (type, name, permissions) VALUES ('user', ?, ?)`).run(name, JSON.stringify(permissions)).lastInsertRowid);
  return t.apiUser(name, roleId);
}
