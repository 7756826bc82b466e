// `npm run release`, then the executable it makes run as on a bare VPS: from an empty folder,
// with no node (nor anything else) on PATH, and a home whose cache folder it fills on the first
// start. install, serve (/health, a signed-in admin page and its script, a help page with its
// image, a media upload whose thumbnail needs sharp, an import whose threads run from the cache
// folder), api-user create, backup, restore, service-unit and version; and the tarball and
// SHA256SUMS beside it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { fromRoot } from '../../src/paths.ts';

const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string };
const NAME = `listmgr-${pkg.version}-linux-x64`;
const EXE = fromRoot('release', NAME);

let root: string;
let work: string;
let home: string;
let env: Record<string, string>;

function run(args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(EXE, args, { cwd: work, env: { ...env, ...extra }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

before(() => {
  const r = spawnSync(process.execPath, ['scripts/release.mjs'], { cwd: fromRoot('.'), encoding: 'utf8', timeout: 600_000 });
  assert.equal(r.status, 0, `npm run release failed:\n${r.stdout}\n${r.stderr}`);
  root = mkdtempSync(join(tmpdir(), 'listmgr-release-'));
  work = join(root, 'work');
  home = join(root, 'home');
  const bin = join(root, 'bin'); // PATH: an empty folder
  for (const d of [work, home, bin]) mkdirSync(d);
  env = { PATH: bin, HOME: home, LANG: 'C.UTF-8' };
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the release executable', () => {
  it('is one file, and no node is on the PATH it runs with', () => {
    console.log(`BENCH release_mb ${(statSync(EXE).size / 1048576).toFixed(1)}`);
    assert.ok(statSync(EXE).mode & 0o100, 'executable');
    const which = spawnSync('/bin/sh', ['-c', 'command -v node'], { env });
    assert.notEqual(which.status, 0, 'node is not found on PATH');
  });

  it('prints its version', () => {
    const r = run(['version']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out.trim(), pkg.version);
  });

  it('installs, writing its native libraries to the cache folder on first use', () => {
    const r = run(['install'], { LISTMGR_ADMIN_PASSWORD: 'admin-password-1' });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`Installed listmgr at ${join(work, 'listmgr.db')}\\.`));
    const caches = readdirSync(join(home, '.cache', 'listmgr'));
    assert.equal(caches.length, 1);
    assert.match(caches[0], new RegExp(`^${pkg.version.replace(/\./g, '\\.')}-[0-9a-f]{12}$`));
    const cache = join(home, '.cache', 'listmgr', caches[0]);
    for (const f of ['.complete', 'better_sqlite3.node', 'import-parser.cjs', 'segment-query.cjs']) assert.ok(existsSync(join(cache, f)), `${f} in the cache folder`);
  });

  let token = '';
  it('creates an API user', () => {
    const r = run(['api-user', 'create', 'deploy-bot']);
    assert.equal(r.code, 0, r.err);
    token = r.out.trim().split('\n').at(-1)!;
    assert.match(token, /^deploy-bot:\S+$/);
  });

  describe('serve', () => {
    let proc: ChildProcess;
    let url = '';
    let output = '';
    const auth = () => ({ authorization: `Basic ${Buffer.from(token).toString('base64')}` });

    before(async () => {
      proc = spawn(EXE, ['serve', '--address', '127.0.0.1:0'], { cwd: work, env });
      url = await new Promise<string>((resolve, reject) => {
        const onData = (d: Buffer) => {
          output += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(output);
          if (m) resolve(m[1]);
        };
        proc.stdout!.on('data', onData);
        proc.stderr!.on('data', onData);
        proc.once('exit', (code) => reject(new Error(`serve exited (${code}): ${output}`)));
      });
    });
    after(() => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    });

    it('answers /health', async () => {
      const res = await fetch(`${url}/health`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { data: true });
    });

    it('serves the admin: the sign-in page, a signed-in page and its script', async () => {
      const login = await fetch(`${url}/admin/login`);
      assert.equal(login.status, 200);
      const loginHtml = await login.text();
      assert.match(loginHtml, /<form[^>]*method="post"/i);
      // The executable is run as `listmgr` (the README installs it on PATH), not the repository's ./listmgr.
      assert.match(loginHtml, /<code>listmgr user reset-password admin<\/code>/);
      const signIn = await fetch(`${url}/admin/login`, {
        method: 'POST', redirect: 'manual', headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'admin', password: 'admin-password-1' }),
      });
      const session = /(?:^|,\s*)session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
      assert.ok(session, `signed in (${signIn.status})`);
      const page = await fetch(`${url}/admin/lists`, { headers: { cookie: `session=${session}` } });
      assert.equal(page.status, 200);
      const html = await page.text();
      const script = /src="(\/admin\/assets\/admin-[^"]+\.js)"/.exec(html)?.[1];
      assert.ok(script, 'the page loads the admin script');
      const js = await fetch(`${url}${script}`);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type') ?? '', /javascript/);
      assert.ok((await js.arrayBuffer()).byteLength > 1000);
      // The guides are inside the executable: the help index, a guide and an image it shows.
      const help = await fetch(`${url}/admin/help`, { headers: { cookie: `session=${session}` } });
      assert.equal(help.status, 200);
      assert.match(await help.text(), /href="\/admin\/help\/templating"/);
      const guide = await fetch(`${url}/admin/help/admin`, { headers: { cookie: `session=${session}` } });
      assert.equal(guide.status, 200);
      const guideHtml = await guide.text();
      assert.match(guideHtml, /<h1>The admin, page by page<\/h1>/);
      const image = /<img src="(\/admin\/help\/images\/[^"]+\.png)"/.exec(guideHtml)?.[1];
      assert.ok(image, 'the guide shows a screenshot');
      const png = await fetch(`${url}${image}`, { headers: { cookie: `session=${session}` } });
      assert.equal(png.status, 200);
      assert.equal(png.headers.get('content-type'), 'image/png');
      assert.ok((await png.arrayBuffer()).byteLength > 1000);
    });

    it('makes thumbnails (sharp and libvips from the cache folder)', async () => {
      const png = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#c00' } }).png().toBuffer();
      const form = new FormData();
      form.append('file', new Blob([png], { type: 'image/png' }), 'red.png');
      const res = await fetch(`${url}/api/media`, { method: 'POST', headers: auth(), body: form });
      const body = (await res.json()) as { data: { meta: { width: number; height: number } } };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.deepEqual(body.data.meta, { width: 600, height: 400 });
      assert.equal((await sharp(join(work, 'uploads', 'thumb_red.png')).metadata()).width, 250);
    });

    it('imports subscribers (the import threads run from the cache folder)', async () => {
      const list = await fetch(`${url}/api/lists`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Release', type: 'private', optin: 'single' }) });
      assert.equal(list.status, 200);
      const listId = ((await list.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.append('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [listId] }));
      form.append('file', new Blob(['email,name\none@example.com,One\ntwo@example.com,Two\n'], { type: 'text/csv' }), 'people.csv');
      const started = await fetch(`${url}/api/import/subscribers`, { method: 'POST', headers: auth(), body: form });
      assert.equal(started.status, 200, await started.text());
      let status = '';
      for (let i = 0; i < 100 && status !== 'finished' && status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = ((await (await fetch(`${url}/api/import/subscribers`, { headers: auth() })).json()) as { data: { status: string } }).data.status;
      }
      assert.equal(status, 'finished', output);
      const subs = (await (await fetch(`${url}/api/subscribers?list_id=${listId}`, { headers: auth() })).json()) as { data: { total: number } };
      assert.equal(subs.data.total, 2);
    });

    it('loads the packages it needs on first use from the cache folder (turndown, qrcode, prom-client)', async () => {
      const json = { ...auth(), 'content-type': 'application/json' };
      const md = await fetch(`${url}/api/campaigns/1/content`, { method: 'POST', headers: json, body: JSON.stringify({ from: 'html', to: 'markdown', body: '<h1>Hello</h1><p>a <strong>b</strong></p>' }) });
      assert.equal(md.status, 200, await md.clone().text());
      assert.equal(((await md.json()) as { data: string }).data.trim(), '# Hello\n\na **b**');
      const totp = await fetch(`${url}/api/users/1/twofa/totp`, { headers: auth() });
      assert.equal(totp.status, 200, await totp.clone().text());
      assert.match(((await totp.json()) as { data: { qr: string } }).data.qr, /^iVBORw0KGgo/, 'a PNG');
      const on = await fetch(`${url}/api/settings`, { method: 'PUT', headers: json, body: JSON.stringify({ 'metrics.enabled': true }) });
      assert.equal(on.status, 200, await on.clone().text());
      const metrics = await fetch(`${url}/metrics`, { headers: auth() });
      assert.equal(metrics.status, 200, await metrics.clone().text());
      assert.match(await metrics.text(), /^listmgr_/m);
    });

    it('backs up while serving, and refuses to restore under the server', () => {
      const b = run(['backup', 'backup.db']);
      assert.equal(b.code, 0, b.err);
      assert.ok(statSync(join(work, 'backup.db')).size > 0);
      const r = run(['restore', 'backup.db']);
      assert.equal(r.code, 1);
      assert.match(r.err, /a listmgr server \(pid \d+\) is serving/);
    });

    it('stops on SIGTERM', async () => {
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
      proc.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.doesNotMatch(output, /Warning:/, 'no warning from Node about the executable');
    });
  });

  it('restores the backup once the server is stopped', () => {
    const r = run(['restore', 'backup.db']);
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(join(work, 'listmgr.db.before-restore')));
    const status = run(['status']);
    assert.equal(status.code, 0, status.err);
    assert.match(status.out, /Subscribers:\s+2 /);
  });

  it('prints a service unit that starts this executable', () => {
    const r = run(['service-unit', '--user', 'lm', '--dir', '/var/lib/lm']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^ExecStart=${EXE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} serve --db /var/lib/lm/listmgr\\.db$`, 'm'));
  });
});

describe('the release folder', () => {
  it('holds the tarball (executable, README, licence, service unit) and SHA256SUMS', () => {
    const tarball = fromRoot('release', `${NAME}.tar.gz`);
    const list = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(list.stdout.trim().split('\n').filter((l) => !l.endsWith('/')).sort(), ['LICENSE', 'README.md', 'listmgr', 'listmgr.service'].map((f) => `${NAME}/${f}`));
    const unit = spawnSync('tar', ['-xzOf', tarball, `${NAME}/listmgr.service`], { encoding: 'utf8' });
    assert.match(unit.stdout, /^ExecStart=\/usr\/local\/bin\/listmgr serve --db \/var\/lib\/listmgr\/listmgr\.db$/m);
    const sums = readFileSync(fromRoot('release', 'SHA256SUMS'), 'utf8');
    assert.equal(sums, `${sha256(EXE)}  ${NAME}\n${sha256(tarball)}  ${NAME}.tar.gz\n`);
  });
});
