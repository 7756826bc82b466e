// Fixture rows for bounce tests, through the shared builders on the test server's database (the
// subscribers and campaigns modules are not what these tests are about), and the reads they check.
import type { Permission } from '../../src/core/authz.ts';
import type { SubscriberStatus } from '../../src/subscribers/store.ts';
import { fixtures, type Seeded } from '../helpers/fixtures.ts';
import type { TestServer } from '../helpers/server.ts';

export function addSubscriber(t: TestServer, email: string, opts: { status?: SubscriberStatus; lists?: number[] } = {}): Seeded {
  return fixtures(t.server.ctx.db).subscriber({ email, ...opts });
}

export function addList(t: TestServer, name: string): number {
  return fixtures(t.server.ctx.db).list({ name }).id;
}

export function addCampaign(t: TestServer, name: string): Seeded {
  return fixtures(t.server.ctx.db).campaign({ name });
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
export function userWith(t: TestServer, name: string, permissions: Permission[]): string {
  return fixtures(t.server.ctx.db).apiUser(name, { permissions });
}
