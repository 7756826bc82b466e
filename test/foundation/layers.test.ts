// The layer rule of scripts/check-cycles.mjs: services and stores never import http/, pages
// never import a store (by type either). Run on small trees, so the rule cannot pass silently.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureChecker } from '../helpers/check-cycles.ts';

const { check } = fixtureChecker();

/** A tree that keeps the rule: the route reads the request and calls the service; the page sees the service only. */
const clean: Record<string, string> = {
  'http/schema.ts': 'export const pathId = (s: string) => Number(s);\n',
  'core/errors.ts': 'export const denied = (m: string) => new Error(m);\n',
  'things/store.ts': 'export interface Thing { id: number }\nexport class ThingStore { get(id: number): Thing { return { id }; } }\n',
  'things/service.ts': "import { denied } from '../core/errors.ts';\nimport { ThingStore, type Thing } from './store.ts';\nexport class ThingService { store = new ThingStore(); get(id: number): Thing { if (id < 1) throw denied('no'); return this.store.get(id); } }\n",
  'things/routes.ts': "import { pathId } from '../http/schema.ts';\nimport { ThingService } from './service.ts';\nexport const get = (id: string) => new ThingService().get(pathId(id));\n",
  'things/admin.tsx': "import type { ThingService } from './service.ts';\nexport const Page = (s: ThingService) => s.get(1).id;\n",
  // Names that only look like a store: db/restore.ts is not one.
  'db/restore.ts': 'export const restore = () => 1;\n',
  'admin/page.tsx': "import { restore } from '../db/restore.ts';\nexport const shell = () => restore();\n",
};

describe('layer rule', () => {
  it('passes a tree that keeps it', () => {
    const r = check('clean', clean);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /no layer violations/);
  });

  it('reports a service that imports http/ and a page that imports a store, type-only included, and fails', () => {
    const r = check('broken', {
      ...clean,
      'things/service.ts': "import { pathId } from '../http/schema.ts';\nimport { ThingStore } from './store.ts';\nexport class ThingService { store = new ThingStore(); get(id: string) { return this.store.get(pathId(id)); } }\n",
      'things/admin.tsx': "import type { Thing } from './store.ts';\nexport const Page = (t: Thing) => t.id;\n",
    });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /Layer rule broken/);
    assert.match(r.out, /things\/service\.ts → http\/schema\.ts/);
    assert.match(r.out, /things\/admin\.tsx → things\/store\.ts/);
    assert.match(r.out, /2 import\(s\) across a layer/);
    assert.doesNotMatch(r.out, /import cycles/);
  });

  it('counts *-service.ts and *-store.ts files (not in http/), pages named *admin*.tsx or pages.tsx, and files in an admin/ folder', () => {
    const r = check('named', {
      'http/auth.ts': 'export interface Authenticator { ok: boolean }\n',
      'mail/send-store.ts': 'export const sent = () => 0;\n',
      'mail/queue-service.ts': "import type { Authenticator } from '../http/auth.ts';\nexport const q = (a: Authenticator) => a.ok;\n",
      'mail/stats-admin.tsx': "import { sent } from './send-store.ts';\nexport const Stats = () => sent();\n",
      'mail/pages.tsx': "import { sent } from './send-store.ts';\nexport const Public = () => sent();\n",
      'admin/nav.ts': "import { sent } from '../mail/send-store.ts';\nexport const nav = () => sent();\n",
      // The edge's own store is part of the edge.
      'http/session-store.ts': "import type { Authenticator } from './auth.ts';\nexport const session = (a: Authenticator) => a.ok;\n",
      // A browser script is not a page (it cannot reach a store at run time anyway).
      'admin/client/pages/mail.ts': "import type { sent } from '../../../mail/send-store.ts';\nexport type S = typeof sent;\n",
    });
    assert.equal(r.code, 1, r.out);
    const reported = r.out.split('\n').filter((l) => l.includes(' → ')).map((l) => l.trim());
    assert.deepEqual(reported, [
      'admin/nav.ts → mail/send-store.ts',
      'mail/pages.tsx → mail/send-store.ts',
      'mail/queue-service.ts → http/auth.ts',
      'mail/stats-admin.tsx → mail/send-store.ts',
    ]);
  });
});
