// Audience shorthands over the shared fixture builders for the delivery tests, and small
// polling helpers.
import type { DB } from '../../src/db/connection.ts';
import type { SubscriberStatus, SubscriptionStatus } from '../../src/subscribers/store.ts';
import { fixtures } from '../helpers/fixtures.ts';

export function addList(db: DB, name: string, optin: 'single' | 'double'): number {
  return fixtures(db).list({ name, optin }).id;
}

export function addSubscriber(db: DB, email: string, name: string, subs: [number, SubscriptionStatus][], status: SubscriberStatus = 'enabled'): number {
  return fixtures(db).subscriber({ email, name, status, lists: subs }).id;
}

/** n subscribers confirmed on one list: s{prefix}-0001@example.com … */
export function addMany(db: DB, list: number, prefix: string, n: number): string[] {
  const emails: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const e = `${prefix}-${String(i).padStart(4, '0')}@example.com`;
      addSubscriber(db, e, `Reader ${prefix} ${i}`, [[list, 'confirmed']]);
      emails.push(e);
    }
  })();
  return emails;
}

export async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
