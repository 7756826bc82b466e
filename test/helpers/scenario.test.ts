// The scenario helper and the server helpers it relies on: a refusal that changed the database
// fails, the expectations mean what they say, groups get their own database, and settings a
// test changes come back.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { diffSnapshots, runScenario, runScenarios, snapshotDatabase } from './scenario.ts';
import { fixtures } from './fixtures.ts';
import { keepSettings, startTestServer, useFreshServer, withSettings, type TestServer } from './server.ts';

describe('the database snapshot', () => {
  const t = useFreshServer();

  it('sees a row added, a row changed and nothing when nothing happened', () => {
    const db = t().server.ctx.db;
    const a = snapshotDatabase(t().dbPath);
    assert.deepEqual(diffSnapshots(a, snapshotDatabase(t().dbPath)), []);
    assert.ok(a.subscribers && a.settings && a.subscribers_fts_data, 'every table, the search index\'s shadow tables too');
    assert.equal(a.subscribers_fts, undefined, 'virtual tables are read through their shadow tables');
    // A first list, so that its table and the change log's have their sqlite_sequence rows.
    fixtures(db).list({ name: 'First' });
    const before = snapshotDatabase(t().dbPath);
    const list = fixtures(db).list({ name: 'Snap' });
    const b = snapshotDatabase(t().dbPath);
    assert.deepEqual(diffSnapshots(before, b), [`events: ${before.events.rows} → ${before.events.rows + 1} rows`, `lists: ${before.lists.rows} → ${before.lists.rows + 1} rows`, 'sqlite_sequence: rows changed']);
    // A change in place, as no store makes it: what the snapshot must see is a row that differs.
    db.prepare(`UPDATE lists SET name = 'Snapped' WHERE id = ?`).run(list.id);
    assert.deepEqual(diffSnapshots(b, snapshotDatabase(t().dbPath)), ['lists: rows changed']);
  });
});

describe('a scenario', () => {
  const t = useFreshServer();
  /** Sends the request after writing a row, as a refusal that wrongly wrote would. */
  const writesFirst: TestServer['request'] = (method, path, body, opts) => {
    fixtures(t().server.ctx.db).list({ name: 'Leak' });
    return t().request(method, path, body, opts);
  };

  it('fails when a refusal changed the database, naming the table', async () => {
    await assert.rejects(
      runScenario(t(), { name: 'x', method: 'GET', path: '/api/lists/9999', status: 404 }, { request: writesFirst }),
      /GET \/api\/lists\/9999 \(404\) changed the database: .*lists: \d+ → \d+ rows/,
    );
  });

  it('passes such a refusal when it gives the reason', async () => {
    await runScenario(t(), { name: 'x', method: 'GET', path: '/api/lists/9999', status: 404, changes: 'the test writes a row itself' }, { request: writesFirst });
  });

  it('checks a success only when asked', async () => {
    await runScenario(t(), { name: 'x', method: 'GET', path: '/api/lists', status: 200 }, { request: writesFirst });
    await assert.rejects(runScenario(t(), { name: 'x', method: 'GET', path: '/api/lists', status: 200, unchanged: true }, { request: writesFirst }), /changed the database/);
  });

  it('fails on another status, showing the answer', async () => {
    await assert.rejects(runScenario(t(), { name: 'x', method: 'GET', path: '/api/lists/abc', status: 404 }), /answered 400: .*message/);
  });

  it('matches strings and regexps in the text or the decoded error message, and predicates on the body', async () => {
    const s = { name: 'x', method: 'POST', path: '/api/lists', body: { type: 'public', optin: 'single' }, status: 400 };
    await runScenario(t(), { ...s, contains: ['"name"', /name/, (b) => typeof b.message === 'string'], notContains: ['"data"', /^\{"data"/, (b) => 'data' in b] });
    await assert.rejects(runScenario(t(), { ...s, contains: ['no such words'] }), /the answer lacks "no such words"/);
    await assert.rejects(runScenario(t(), { ...s, notContains: [/name/] }), /the answer holds \/name\//);
    await assert.rejects(runScenario(t(), { ...s, contains: [(b) => b.message === 'other'] }), /the answer lacks what/);
  });

  it('sends JSON, forms, raw bodies, headers and credentials', async () => {
    const created = await runScenario(t(), { name: 'x', method: 'POST', path: '/api/templates', form: { name: 'Form', body: '{{ template "content" . }}' }, status: 200 });
    assert.equal(created.body.data.name, 'Form');
    await runScenario(t(), {
      name: 'x', method: 'PUT', path: '/api/settings', raw: '{"app.site_name": ', headers: { 'content-type': 'application/json' }, status: 400, contains: [/JSON/i],
    });
    await runScenario(t(), { name: 'x', method: 'GET', path: '/api/lists', auth: null, status: 403 });
    await runScenario(t(), { name: 'x', method: 'GET', path: () => '/api/lists', auth: () => t().token, status: 200 });
  });

  it('runs its set-up before reading the database, and its side effects after the checks', async () => {
    const order: string[] = [];
    await runScenario(t(), {
      name: 'x', method: 'GET', path: '/api/lists/9999', status: 404,
      before: (srv) => {
        fixtures(srv.server.ctx.db).list({ name: 'Set up' });
        order.push('before');
      },
      after: (res, srv) => {
        assert.equal(res.status, 404);
        assert.equal(srv, t());
        order.push('after');
      },
    });
    assert.deepEqual(order, ['before', 'after']);
  });
});

describe('runScenarios', () => {
  const t = useFreshServer();
  runScenarios(t, [
    { name: 'makes one test per scenario (a read)', method: 'GET', path: '/api/lists', status: 200, contains: ['"results"'] },
    { name: 'makes one test per scenario (a refusal)', method: 'GET', path: '/api/lists/abc', status: 400 },
  ]);
});

describe('fresh servers', () => {
  describe('a group that changes a setting', () => {
    const t = useFreshServer();
    it('changes it', async () => {
      assert.equal((await t().request('PUT', '/api/settings', { 'app.site_name': 'Changed by a group' })).status, 200);
    });
  });
  describe('another group', () => {
    const t = useFreshServer();
    it('does not see it, and has its own copy of the installed database', async () => {
      assert.equal((await t().request('GET', '/api/settings')).body.data['app.site_name'], 'Mailing list');
      assert.equal((await t().request('GET', '/api/templates')).body.data.length, 4);
      assert.equal((await t().request('GET', '/api/profile')).body.data.username, 'tester');
    });
  });
});

describe('withSettings', () => {
  const t = useFreshServer();
  const stored = () => t().server.ctx.settings;

  it('sets the values for the length of the function and puts back the old ones, secrets included', async () => {
    assert.equal((await t().request('PUT', '/api/settings', { 'bounce.sendgrid_key': 'before-key' })).status, 200);
    const seen = await withSettings(t(), { 'app.site_name': 'During', 'bounce.sendgrid_key': 'during-key' }, () => [stored().str('app.site_name'), stored().str('bounce.sendgrid_key')]);
    assert.deepEqual(seen, ['During', 'during-key']);
    assert.equal(stored().str('app.site_name'), 'Mailing list');
    assert.equal(stored().str('bounce.sendgrid_key'), 'before-key');
  });

  it('puts back a secret that was empty (which a PUT would keep as it is)', async () => {
    assert.equal(stored().get<{ password: string }>('bounce.postmark').password, '');
    await withSettings(t(), { 'bounce.postmark': { enabled: true, username: 'pm', password: 'pm-secret' } }, () => {
      assert.equal(stored().get<{ password: string }>('bounce.postmark').password, 'pm-secret');
    });
    assert.deepEqual(stored().get('bounce.postmark'), { enabled: false, username: '', password: '' });
  });

  it('puts them back when the function fails, and rethrows', async () => {
    await assert.rejects(withSettings(t(), { 'privacy.domain_blocklist': ['x.example'] }, () => {
      throw new Error('boom');
    }), /boom/);
    assert.deepEqual(stored().get('privacy.domain_blocklist'), []);
  });

  it('refuses values the server refuses', async () => {
    await assert.rejects(withSettings(t(), { 'app.batch_size': 'lots' }, () => 1), /could not set app\.batch_size: .*integer/);
  });
});

describe('keepSettings', () => {
  const t = useFreshServer();
  describe('after each test', () => {
    keepSettings(t, ['app.site_name'], { each: true });
    it('a test changes a setting', async () => {
      assert.equal((await t().request('PUT', '/api/settings', { 'app.site_name': 'Changed by a test' })).status, 200);
    });
    it('the next test finds it as it was', () => assert.equal(t().server.ctx.settings.str('app.site_name'), 'Mailing list'));
  });
  describe('after the group', () => {
    keepSettings(t, ['app.site_name', 'security.captcha']);
    before(async () => {
      const captcha = { altcha: { enabled: false, complexity: 1000 }, hcaptcha: { enabled: true, key: 'k', secret: 's' } };
      assert.equal((await t().request('PUT', '/api/settings', { 'app.site_name': 'Group', 'security.captcha': captcha })).status, 200);
    });
    it('its tests see what its hooks set', () => assert.equal(t().server.ctx.settings.str('app.site_name'), 'Group'));
  });
  it('the next group finds them as they were', () => {
    assert.equal(t().server.ctx.settings.str('app.site_name'), 'Mailing list');
    assert.equal(t().server.ctx.settings.get<{ hcaptcha: { secret: string } }>('security.captcha').hcaptcha.secret, '');
  });
});

describe('startTestServer', () => {
  it('runs setup on the copy before the server opens it', async () => {
    const t = await startTestServer({ setup: (db) => db.prepare(`UPDATE settings SET value = '"From setup"' WHERE key = 'app.site_name'`).run() });
    try {
      assert.equal((await t.request('GET', '/api/settings')).body.data['app.site_name'], 'From setup');
    } finally {
      await t.stop();
    }
  });
});
