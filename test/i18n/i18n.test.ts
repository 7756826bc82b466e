import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appRoot } from '../../src/paths.ts';
import { availableLanguages, isLanguageCode, loadLanguage, templateI18n, translate, translateCount } from '../../src/i18n/index.ts';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';
import { loadSystemMailTemplates } from '../../src/mail/templates/index.ts';

const en = (): NonNullable<ReturnType<typeof loadLanguage>> => {
  const pack = loadLanguage('en');
  assert.ok(pack);
  return pack;
};

test('the English pack parses, is flat and names itself', () => {
  const raw = JSON.parse(readFileSync(join(appRoot, 'src', 'i18n', 'en.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(raw['_.code'], 'en');
  assert.equal(raw['_.name'], 'English');
  for (const [key, value] of Object.entries(raw)) {
    assert.equal(typeof value, 'string', key);
    assert.ok((value as string).trim() !== '', `${key} is empty`);
    assert.match(key, /^[_a-zA-Z][\w.-]*$/, `odd key ${key}`);
  }
  assert.deepEqual(en(), raw);
});

test('the pack covers the namespaces listmonk clients read', () => {
  const keys = Object.keys(en());
  for (const ns of ['globals.', 'public.', 'email.', 'subscribers.', 'lists.', 'campaigns.', 'templates.', 'users.']) {
    assert.ok(keys.filter((k) => k.startsWith(ns)).length >= 10, `too few ${ns} keys`);
  }
  for (const key of ['globals.messages.notFound', 'public.unsubbedInfo', 'public.subOptinPending', 'subscribers.invalidEmail', 'users.invalidResetLink']) {
    assert.ok(key in en(), key);
  }
});

test('every key the shipped templates translate exists in the pack', () => {
  const sources = [...defaultTemplates.map((t) => t.body + (t.bodySource ?? '')), ...Object.values(loadSystemMailTemplates())];
  const used = new Set<string>();
  for (const src of sources) {
    for (const m of src.matchAll(/L\.T[sc]? \\?"([^"\\]+)\\?"/g)) used.add(m[1]);
  }
  assert.ok(used.size >= 20, `only ${used.size} keys found`);
  // campaign-status.html builds "campaigns.status.<status>".
  for (const status of ['draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished']) used.add(`campaigns.status.${status}`);
  const missing = [...used].filter((key) => !(key in en()));
  assert.deepEqual(missing, []);
});

test('placeholders substitute and missing keys echo the key', () => {
  const pack = en();
  assert.equal(translate(pack, 'globals.messages.notFound', { name: 'Campaign' }), 'Campaign not found');
  assert.equal(translate(pack, 'globals.messages.errorCreating', { name: 'list', error: 'boom' }), 'Could not create list: boom');
  assert.equal(translate(pack, 'globals.messages.notFound', { name: '{globals.terms.campaign}' }), 'Campaign not found');
  assert.equal(translate(pack, 'globals.messages.notFound'), '{name} not found');
  assert.equal(translate(pack, 'no.such.key', { name: 'x' }), 'no.such.key');
  assert.equal(translate(pack, 'globals.terms.campaign'), 'Campaign');
  assert.equal(translateCount(pack, 'globals.terms.campaign', 1), 'Campaign');
  assert.equal(translateCount(pack, 'globals.terms.campaign', 2), 'Campaigns');
  assert.equal(translateCount(pack, 'globals.terms.campaigns', 2), 'Campaigns');
});

test('templateI18n behaves like listmonk L', () => {
  const L = templateI18n(en());
  assert.equal(L.Code, 'en');
  assert.equal(L.Name, 'English');
  assert.equal(L.T('email.unsub'), 'Unsubscribe');
  assert.equal(L.Ts('users.loginOIDC', 'name', 'Google'), 'Log in with Google');
  assert.equal(L.Ts('users.loginOIDC', 'name'), 'users.loginOIDC: Invalid arguments');
  assert.equal(L.Tc('globals.terms.list', 3), 'Lists');
  assert.equal(L.T('missing.key'), 'missing.key');
});

test('language codes are validated and unknown ones answer null', () => {
  assert.equal(isLanguageCode('pt-BR'), true);
  assert.equal(isLanguageCode('zh_CN'), true);
  for (const bad of ['', 'toolong7', '../en', 'e n', 'en.json']) {
    assert.equal(isLanguageCode(bad), false, bad);
    assert.equal(loadLanguage(bad), null, bad);
  }
  assert.equal(loadLanguage('xx'), null);
  assert.deepEqual(availableLanguages(), [{ code: 'en', name: 'English' }]);
});
