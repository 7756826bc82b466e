import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';
import { loadSystemMailTemplates, SYSTEM_MAIL_TEMPLATES } from '../../src/mail/templates/index.ts';
import { shieldActions } from '../../src/content/template-actions.ts';

const PLACEHOLDER = /\{\{\s*template\s+"content"\s*\.\s*\}\}/; // listmonk's check for campaign templates
const CAMPAIGN_ONLY_FUNCS = ['TrackLink', 'TrackView', 'UnsubscribeURL', 'ManageURL', 'OptinURL', 'MessageURL', 'ArchiveURL'];
const byName = (name: string) => {
  const t = defaultTemplates.find((x) => x.name === name);
  assert.ok(t, `missing template ${name}`);
  return t;
};
const actionsOf = (src: string) => src.match(/\{\{[\s\S]*?\}\}/g) ?? [];

test('install templates come in listmonk order with one default campaign template', () => {
  assert.deepEqual(
    defaultTemplates.map((t) => [t.name, t.type, t.isDefault]),
    [
      ['Default campaign template', 'campaign', true],
      ['Default archive template', 'campaign', false],
      ['Sample transactional template', 'tx', false],
      ['Sample visual template', 'campaign_visual', false],
    ],
  );
  for (const t of defaultTemplates) {
    assert.ok(t.body.length > 500, `${t.name} has a body`);
    assert.equal(t.subject === '', t.type !== 'tx', `${t.name}: only tx has a subject`);
    assert.equal(t.bodySource !== null, t.type === 'campaign_visual', `${t.name}: only visual has a body source`);
  }
});

test('every template action is well formed and no HTML comment relies on the escaper keeping it', () => {
  const sources: Array<[string, string]> = [
    ...defaultTemplates.map((t): [string, string] => [t.name, t.body]),
    ...Object.entries(loadSystemMailTemplates()),
  ];
  for (const [name, src] of sources) {
    const rest = shieldActions(src).text;
    assert.ok(!rest.includes('{{') && !rest.includes('}}'), `${name}: unbalanced action`);
    // html/template strips comments from template text; Outlook ones must go through Safe.
    assert.ok(!rest.includes('<!--'), `${name}: HTML comment outside Safe`);
    assert.match(src, /^(?:\{\{ define "[a-z-]+" \}\}\n?)?<!doctype html>|\{\{ template "header" \. \}\}/, `${name}: document start`);
  }
});

test('campaign templates hold the content placeholder and the footer links', () => {
  const campaign = byName('Default campaign template').body;
  assert.match(campaign, PLACEHOLDER);
  for (const needed of ['{{ UnsubscribeURL }}', '{{ MessageURL }}', '{{ TrackView }}', 'L.T "email.unsub"', 'L.T "email.viewInBrowser"']) {
    assert.ok(campaign.includes(needed), `campaign template lacks ${needed}`);
  }
  for (const a11y of ['<html lang="en"', 'role="presentation"', 'name="color-scheme"', 'prefers-color-scheme: dark', 'max-width: 600px']) {
    assert.ok(campaign.includes(a11y), `campaign template lacks ${a11y}`);
  }
  // Every layout table is marked presentational.
  assert.equal((campaign.match(/<table /g) ?? []).length, (campaign.match(/<table role=\\?"presentation\\?"/g) ?? []).length);

  const archive = byName('Default archive template').body;
  assert.match(archive, PLACEHOLDER);
  assert.ok(!archive.includes('UnsubscribeURL') && !archive.includes('TrackView'), 'archive template has no unsubscribe link or pixel');
});

test('the sample tx template greets the subscriber, uses .Tx.Data and no campaign-only function', () => {
  const tx = byName('Sample transactional template');
  assert.equal(tx.subject, 'Welcome {{ .Subscriber.Name }}');
  assert.ok(tx.body.includes('{{ .Tx.Data.order_id }}'));
  assert.ok(tx.body.includes('{{ .Subscriber.Name }}'));
  assert.ok(!PLACEHOLDER.test(tx.body));
  for (const action of actionsOf(tx.body)) {
    for (const fn of [...CAMPAIGN_ONLY_FUNCS, 'RootURL']) {
      assert.ok(!new RegExp(`(?<![.\\w])${fn}\\b`).test(action.replace(/"(?:[^"\\]|\\.)*"/g, '')), `tx template calls ${fn}: ${action}`);
    }
  }
});

test('the sample visual template has a block document matching its HTML', () => {
  const visual = byName('Sample visual template');
  const doc = JSON.parse(visual.bodySource ?? '') as Record<string, { type: string; data: { childrenIds?: string[] } }>;
  assert.equal(doc.root.type, 'EmailLayout');
  const children = doc.root.data.childrenIds ?? [];
  assert.deepEqual([...children].sort(), Object.keys(doc).filter((k) => k !== 'root').sort());
  assert.deepEqual(children.map((id) => doc[id].type), ['Heading', 'Text', 'Button', 'Divider', 'Text']);
  for (const needed of ['{{ UnsubscribeURL }}', '{{ MessageURL }}', '{{ TrackView }}', 'https://example.com@TrackLink', '{{ .Subscriber.FirstName }}']) {
    assert.ok(visual.body.includes(needed), `visual HTML lacks ${needed}`);
    assert.ok(visual.bodySource?.includes(needed), `visual JSON lacks ${needed}`);
  }
  assert.ok(!PLACEHOLDER.test(visual.body), 'a visual template is a whole document, not a wrapper');
});

test('system mail templates define their own names and use only system functions', () => {
  const sources = loadSystemMailTemplates();
  assert.deepEqual(Object.keys(sources), [...SYSTEM_MAIL_TEMPLATES]);
  assert.ok(sources.base.startsWith('{{ define "header" }}<!doctype html>'), 'doctype within the first 256 bytes');
  assert.ok(sources.base.includes('{{ define "footer" }}'));
  const data: Record<string, string[]> = {
    optin: ['.Subscriber.Name', '.Lists', '.OptinURL'],
    'campaign-status': ['.ID', '.Name', '.Status', '.Sent', '.ToSend', '.Reason'],
    'import-status': ['.Name', '.Status', '.Imported', '.Total'],
    'forgot-password': ['.Username', '.ResetURL'],
  };
  for (const [name, fields] of Object.entries(data)) {
    const src = sources[name as keyof typeof sources];
    assert.ok(src.startsWith(`{{ define "${name}" }}`), `${name} defines itself`);
    assert.ok(src.includes('{{ template "header" . }}') && src.includes('{{ template "footer" . }}'), `${name} uses the layout`);
    for (const field of fields) assert.ok(src.includes(field), `${name} shows ${field}`);
    for (const action of actionsOf(src)) {
      // A function call, not a data field such as .OptinURL.
      for (const fn of CAMPAIGN_ONLY_FUNCS) assert.ok(!new RegExp(`(?<![.\\w])${fn}\\b`).test(action), `${name} calls ${fn}`);
    }
  }
});
