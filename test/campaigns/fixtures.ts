// Audience fixtures written straight into the test server's database (the lists/subscribers
// API lives on another branch), and small polling helpers.
import { randomUUID } from 'node:crypto';
import type { DB } from '../../src/db/connection.ts';

export function addList(db: DB, name: string, optin: 'single' | 'double'): number {
  return Number(db.prepare('INSERT INTO lists (uuid, name, optin) VALUES (?, ?, ?)').run(randomUUID(), name, optin).lastInsertRowid);
}

export function addSubscriber(db: DB, email: string, name: string, subs: [number, 'unconfirmed' | 'confirmed' | 'unsubscribed'][], status = 'enabled'): number {
  const id = Number(db.prepare('INSERT INTO subscribers (uuid, email, name, status) VALUES (?, ?, ?, ?)').run(randomUUID(), email, name, status).lastInsertRowid);
  for (const [list, st] of subs) db.prepare('INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (?, ?, ?)').run(id, list, st);
  return id;
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
