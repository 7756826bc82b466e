// /api/templates over real HTTP and a real database, as scenario tables: each row is a
// request, the status it must get, what the answer must (not) hold, and the side effects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

let t: TestServer;
const db = () => t.server.ctx.db;

// Install creates these four, in this order.
const DEFAULT_CAMPAIGN = 1;
const ARCHIVE = 2;
const SAMPLE_TX = 3;
const SAMPLE_VISUAL = 4;
const TEMPLATE_KEYS = ['body', 'body_source', 'created_at', 'id', 'is_default', 'name', 'subject', 'type', 'updated_at'];
const ZERO = '00000000-0000-0000-0000-000000000000';
const LAYOUT = '<div class="wrap">{{ template "content" . }}</div>';

const run = (scenarios: Scenario[]) => runScenarios(() => t, scenarios);

const row = (id: number) => db().prepare('SELECT * FROM templates WHERE id = ?').get(id) as Record<string, unknown> | undefined;
const count = () => db().prepare('SELECT count(*) FROM templates').pluck().get() as number;
const defaultId = () => db().prepare('SELECT id FROM templates WHERE is_default = 1').pluck().get() as number | undefined;
function insertCampaign(templateId: number | null, archiveTemplateId: number | null, body = '<p>Hi {{ .Subscriber.FirstName }}</p>'): number {
  return fixtures(db()).campaign({ name: 'Spring news', subject: 'Spring', from_email: 'News <news@example.com>', body, template_id: templateId, archive_template_id: archiveTemplateId }).id;
}
function unchanged(id: number): () => void {
  let before: unknown;
  return () => {
    if (before === undefined) before = row(id);
    else assert.deepEqual(row(id), before, `template ${id} changed`);
  };
}

before(async () => {
  t = await startTestServer();
});
after(() => t.stop());

describe('reading templates', () => {
  run([
    {
      name: 'the list holds the four installed templates in creation order, with bodies (no_body missing = false)',
      method: 'GET', path: '/api/templates', status: 200,
      after: ({ body }) => {
        const list = body.data as Array<Record<string, unknown>>;
        assert.deepEqual(list.map((x) => [x.id, x.type, x.is_default]), [
          [DEFAULT_CAMPAIGN, 'campaign', true], [ARCHIVE, 'campaign', false], [SAMPLE_TX, 'tx', false], [SAMPLE_VISUAL, 'campaign_visual', false],
        ]);
        for (const x of list) {
          assert.deepEqual(Object.keys(x).sort(), TEMPLATE_KEYS);
          assert.match(x.body as string, /<!doctype html>/);
          assert.ok(!Number.isNaN(Date.parse(x.created_at as string)));
        }
        assert.equal(list[2].subject, 'Welcome {{ .Subscriber.Name }}');
        assert.equal(typeof JSON.parse(list[3].body_source as string), 'object');
        assert.equal(list[0].body_source, null);
      },
    },
    {
      name: 'no_body=true omits body and nulls body_source',
      method: 'GET', path: '/api/templates?no_body=true', status: 200,
      notContains: ['"body":', '<!doctype'],
      after: ({ body }) => {
        assert.equal(body.data.length, 4);
        for (const x of body.data) {
          assert.deepEqual(Object.keys(x).sort(), TEMPLATE_KEYS.filter((k) => k !== 'body'));
          assert.equal(x.body_source, null);
        }
      },
    },
    {
      name: 'no_body=false keeps bodies',
      method: 'GET', path: '/api/templates?no_body=false', status: 200,
      after: ({ body }) => assert.ok(body.data.every((x: { body?: string }) => x.body)),
    },
    {
      name: 'one template by id',
      method: 'GET', path: `/api/templates/${SAMPLE_VISUAL}`, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.name, 'Sample visual template');
        assert.ok(body.data.body_source.length > 100);
      },
    },
    {
      name: 'one template with no_body',
      method: 'GET', path: `/api/templates/${SAMPLE_VISUAL}?no_body=true`, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.body, undefined);
        assert.equal(body.data.body_source, null);
      },
    },
    { name: 'unknown id is 404', method: 'GET', path: '/api/templates/999', status: 404, contains: ['template 999 not found'] },
    { name: 'a malformed id is 400', method: 'GET', path: '/api/templates/abc', status: 400, contains: ['invalid ID'] },
  ]);
});

describe('creating templates', () => {
  let before = 0;
  it('(count before)', () => {
    before = count();
  });
  run([
    {
      name: 'a campaign template: type defaults to campaign, subject forced empty, nulls mean not given',
      method: 'POST', path: '/api/templates', body: { name: 'Plain wrap', subject: null, is_default: null, body: LAYOUT }, status: 200,
      after: ({ body }) => {
        const x = body.data;
        assert.deepEqual(Object.keys(x).sort(), TEMPLATE_KEYS);
        assert.equal(x.type, 'campaign');
        assert.equal(x.subject, '');
        assert.equal(x.is_default, false);
        assert.equal(x.body, LAYOUT);
        assert.equal(row(x.id)?.name, 'Plain wrap');
      },
    },
    {
      name: 'a campaign template ignores a subject and may use the campaign functions and shorthands',
      method: 'POST', path: '/api/templates',
      body: { name: 'Footer wrap', type: 'campaign', subject: 'ignored', body: `${LAYOUT}<a href="{{ UnsubscribeURL }}">x</a>{{ TrackView }}<a href="https://example.com@TrackLink">y</a>` },
      status: 200, after: ({ body }) => assert.equal(body.data.subject, ''),
    },
    {
      name: 'a tx template with a templated subject',
      method: 'POST', path: '/api/templates',
      body: { name: 'Receipt', type: 'tx', subject: 'Order {{ .Tx.Data.order_id }}', body: '<p>Thanks {{ .Subscriber.Name }}</p>' }, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.type, 'tx');
        assert.equal(body.data.subject, 'Order {{ .Tx.Data.order_id }}');
      },
    },
    {
      name: 'a visual template keeps its body_source',
      method: 'POST', path: '/api/templates',
      body: { name: 'Blocks', type: 'campaign_visual', body: '<!doctype html><p>{{ .Subscriber.Name }}</p>', body_source: '{"root":{}}' }, status: 200,
      after: ({ body }) => assert.equal(body.data.body_source, '{"root":{}}'),
    },
    {
      name: 'a form body is accepted too',
      method: 'POST', path: '/api/templates', form: { name: 'From a form', type: 'campaign', body: LAYOUT }, status: 200,
      after: ({ body }) => assert.equal(body.data.name, 'From a form'),
    },
  ]);
  it('(five created)', () => assert.equal(count(), before + 5));

  run([
    { name: 'missing name', method: 'POST', path: '/api/templates', body: { type: 'campaign', body: LAYOUT }, status: 400, contains: ['"name" is required'] },
    { name: 'blank name', method: 'POST', path: '/api/templates', body: { name: '  ', body: LAYOUT }, status: 400, contains: ['"name"'] },
    { name: 'name over 2000 bytes', method: 'POST', path: '/api/templates', body: { name: 'é'.repeat(1001), body: LAYOUT }, status: 400, contains: ['2000 bytes'] },
    { name: 'unknown type', method: 'POST', path: '/api/templates', body: { name: 'x', type: 'newsletter', body: LAYOUT }, status: 400, contains: ['"type"', 'newsletter'] },
    { name: 'type of the wrong shape', method: 'POST', path: '/api/templates', body: { name: 'x', type: 3, body: LAYOUT }, status: 400, contains: ['"type"'] },
    { name: 'campaign template without the placeholder', method: 'POST', path: '/api/templates', body: { name: 'x', body: '<p>no slot</p>' }, status: 400, contains: ['{{ template "content" . }}'] },
    { name: 'campaign template without a body', method: 'POST', path: '/api/templates', body: { name: 'x' }, status: 400, contains: ['placeholder'] },
    { name: 'the placeholder with trim markers does not count (listmonk rule)', method: 'POST', path: '/api/templates', body: { name: 'x', body: '{{- template "content" . -}}' }, status: 400, contains: ['placeholder'] },
    { name: 'tx template without a subject', method: 'POST', path: '/api/templates', body: { name: 'x', type: 'tx', body: '<p>hi</p>' }, status: 400, contains: ['"subject" is required'] },
    { name: 'tx template with a blank subject', method: 'POST', path: '/api/templates', body: { name: 'x', type: 'tx', subject: '   ', body: '<p>hi</p>' }, status: 400, contains: ['"subject"'] },
    {
      name: 'syntax error in a campaign template names line and column',
      method: 'POST', path: '/api/templates', body: { name: 'x', body: `<html>\n<body>\n  ${LAYOUT}\n  {{ .Subscriber.Name | nosuchfunc }}\n</body>` }, status: 400,
      after: ({ body }) => assert.match(body.message, /^the template does not compile: body: template: base:4:\d+: function "nosuchfunc" not defined$/),
    },
    {
      name: 'syntax error in a tx body names line and column',
      method: 'POST', path: '/api/templates', body: { name: 'x', type: 'tx', subject: 'Hi', body: '<p>\n  {{ if }}\n</p>' }, status: 400,
      after: ({ body }) => assert.match(body.message, /^the template does not compile: body: template: base:2:\d+: /),
    },
    {
      name: 'syntax error in a tx subject',
      method: 'POST', path: '/api/templates', body: { name: 'x', type: 'tx', subject: 'Hi {{ .Subscriber.Name | }}', body: '<p>hi</p>' }, status: 400,
      after: ({ body }) => assert.match(body.message, /subject: template: base:1:\d+: /),
    },
    {
      name: 'a tx template cannot use campaign-only functions',
      method: 'POST', path: '/api/templates', body: { name: 'x', type: 'tx', subject: 'Hi', body: '<a href="{{ UnsubscribeURL . }}">u</a>' }, status: 400,
      contains: ['function "UnsubscribeURL" not defined'],
    },
    {
      name: 'an unknown function in a campaign template',
      method: 'POST', path: '/api/templates', body: { name: 'x', body: `${LAYOUT}{{ readFile "/etc/passwd" }}` }, status: 400,
      contains: ['function "readFile" not defined'],
    },
    { name: 'an empty request body', method: 'POST', path: '/api/templates', status: 400, contains: ['"name" is required'] },
  ]);
  it('no refused request created anything', () => assert.equal(count(), before + 5));
});

describe('updating templates', () => {
  let campaignTpl = 0;
  let txTpl = 0;
  it('(fixtures)', () => {
    const f = fixtures(db());
    campaignTpl = f.template({ name: 'Wrap', body: LAYOUT });
    txTpl = f.template({ name: 'Notice', type: 'tx', body: '<p>Hello {{ .Subscriber.Name }}</p>', subject: 'Notice for {{ .Subscriber.Name }}' });
  });
  const guard = { campaign: () => unchanged(campaignTpl), tx: () => unchanged(txTpl) };
  let snapshot: () => void = () => {};

  run([
    {
      name: 'rename and new body',
      method: 'PUT', path: () => `/api/templates/${campaignTpl}`, body: { name: 'Wrap v2', body: `<section>${LAYOUT}</section>` }, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.name, 'Wrap v2');
        assert.equal(body.data.body, `<section>${LAYOUT}</section>`);
        assert.equal(row(campaignTpl)?.body, `<section>${LAYOUT}</section>`);
      },
    },
    {
      name: 'an empty body keeps the stored body; the type never changes',
      method: 'PUT', path: () => `/api/templates/${campaignTpl}`, body: { name: 'Wrap v3', type: 'tx', body: '', subject: 'nope' }, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.body, `<section>${LAYOUT}</section>`);
        assert.equal(body.data.type, 'campaign');
        assert.equal(body.data.subject, '');
      },
    },
    {
      name: 'an empty or null subject keeps the stored tx subject (listmonk would put the name there)',
      method: 'PUT', path: () => `/api/templates/${txTpl}`, body: { name: 'Notice v2', subject: null, body: '<p>Bye {{ .Subscriber.Name }}</p>' }, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.subject, 'Notice for {{ .Subscriber.Name }}');
        assert.equal(body.data.body, '<p>Bye {{ .Subscriber.Name }}</p>');
      },
    },
    {
      name: 'a full object rebuilt from a GET is accepted',
      method: 'PUT', path: () => `/api/templates/${txTpl}`,
      body: { id: 1, created_at: '2020-01-01T00:00:00Z', name: 'Notice v3', type: 'tx', subject: 'New {{ .Tx.Data.x }}', body: '<p>x</p>', body_source: null, is_default: false }, status: 200,
      after: ({ body }) => {
        assert.equal(body.data.id, txTpl);
        assert.equal(body.data.subject, 'New {{ .Tx.Data.x }}');
      },
    },
  ]);

  describe('refused updates change nothing', () => {
    it('(snapshot)', () => {
      snapshot = guard.campaign();
      snapshot();
    });
    run([
      { name: 'missing name', method: 'PUT', path: () => `/api/templates/${campaignTpl}`, body: { body: LAYOUT }, status: 400, contains: ['"name" is required'] },
      { name: 'removing the placeholder (the stored type rules)', method: 'PUT', path: () => `/api/templates/${campaignTpl}`, body: { name: 'x', type: 'tx', subject: 's', body: '<p>gone</p>' }, status: 400, contains: ['placeholder'] },
      {
        name: 'syntax error names line and column', method: 'PUT', path: () => `/api/templates/${campaignTpl}`, body: { name: 'x', body: `${LAYOUT}\n\n{{ end }}` }, status: 400,
        after: ({ body }) => assert.match(body.message, /template: base:3:\d+: unexpected/),
      },
      { name: 'an invalid type value', method: 'PUT', path: () => `/api/templates/${campaignTpl}`, body: { name: 'x', type: 'weird', body: LAYOUT }, status: 400, contains: ['"type"'] },
    ]);
    it('(campaign template unchanged)', () => snapshot());
    it('(snapshot tx)', () => {
      snapshot = guard.tx();
      snapshot();
    });
    run([
      { name: 'tx body with a campaign-only function', method: 'PUT', path: () => `/api/templates/${txTpl}`, body: { name: 'x', body: '{{ TrackView }}' }, status: 400, contains: ['TrackView'] },
      {
        name: 'tx subject with a syntax error', method: 'PUT', path: () => `/api/templates/${txTpl}`, body: { name: 'x', subject: '{{ if }}' }, status: 400,
        after: ({ body }) => assert.match(body.message, /subject: template: base:1:\d+/),
      },
    ]);
    it('(tx template unchanged)', () => snapshot());
  });

  run([{ name: 'unknown id is 404', method: 'PUT', path: '/api/templates/999', body: { name: 'x', body: LAYOUT }, status: 404 }]);
});

describe('the default template', () => {
  let second = 0;
  it('(fixture)', () => {
    second = fixtures(db()).template({ name: 'Second campaign layout', body: LAYOUT });
  });
  run([
    {
      name: 'a campaign template becomes the default; the answer is the bare template object',
      method: 'PUT', path: () => `/api/templates/${second}/default`, status: 200,
      after: ({ body }) => {
        assert.equal(body.data, undefined);
        assert.deepEqual(Object.keys(body).sort(), TEMPLATE_KEYS);
        assert.equal(body.id, second);
        assert.equal(body.is_default, true);
        assert.equal(defaultId(), second);
        assert.equal(row(DEFAULT_CAMPAIGN)?.is_default, 0);
      },
    },
    { name: 'a tx template cannot be the default', method: 'PUT', path: `/api/templates/${SAMPLE_TX}/default`, status: 400, contains: ['only a campaign template'], after: () => assert.equal(defaultId(), second) },
    { name: 'a visual template cannot be the default', method: 'PUT', path: `/api/templates/${SAMPLE_VISUAL}/default`, status: 400, after: () => assert.equal(defaultId(), second) },
    { name: 'unknown id is 404 and the default stays', method: 'PUT', path: '/api/templates/999/default', status: 404, after: () => assert.equal(defaultId(), second) },
    {
      name: 'the installed template becomes the default again',
      method: 'PUT', path: `/api/templates/${DEFAULT_CAMPAIGN}/default`, status: 200,
      after: ({ body }) => {
        assert.equal(body.is_default, true);
        assert.equal(defaultId(), DEFAULT_CAMPAIGN);
        assert.equal(row(second)?.is_default, 0);
      },
    },
  ]);
});

describe('deleting templates', () => {
  let inUse = 0;
  let campaign = 0;
  let tx = 0;
  it('(fixtures: a campaign using a template for its body and its archive)', () => {
    const f = fixtures(db());
    inUse = f.template({ name: 'Soon gone', body: LAYOUT });
    tx = f.template({ name: 'Old notice', type: 'tx', body: '<p>x</p>', subject: 'x' });
    campaign = insertCampaign(inUse, inUse);
  });
  run([
    { name: 'the default template is refused', method: 'DELETE', path: `/api/templates/${DEFAULT_CAMPAIGN}`, status: 400, contains: ['default template'], after: () => assert.ok(row(DEFAULT_CAMPAIGN)) },
    { name: 'unknown id is 404', method: 'DELETE', path: '/api/templates/999', status: 404 },
    {
      name: 'a template in use: campaigns switch to the default, archive references are cleared',
      method: 'DELETE', path: () => `/api/templates/${inUse}`, status: 200,
      after: ({ body }) => {
        assert.equal(body.data, true);
        assert.equal(row(inUse), undefined);
        const c = db().prepare('SELECT template_id, archive_template_id FROM campaigns WHERE id = ?').get(campaign) as { template_id: number; archive_template_id: number | null };
        assert.deepEqual(c, { template_id: DEFAULT_CAMPAIGN, archive_template_id: null });
      },
    },
    { name: 'a tx template', method: 'DELETE', path: () => `/api/templates/${tx}`, status: 200, after: () => assert.equal(row(tx), undefined) },
    { name: 'deleted means gone', method: 'GET', path: () => `/api/templates/${tx}`, status: 404 },
  ]);
});

describe('previews', () => {
  const sandboxed = (res: ApiResponse) => {
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(res.headers.get('content-security-policy'), 'sandbox');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  };
  const jsonError = (res: ApiResponse) => {
    assert.match(res.headers.get('content-type') ?? '', /json/);
    assert.equal(typeof res.body.message, 'string');
  };
  run([
    {
      name: 'the default campaign template around the sample body, with the demo subscriber and dummy UUIDs',
      method: 'GET', path: `/api/templates/${DEFAULT_CAMPAIGN}/preview`, status: 200,
      contains: ['Hello Demo Subscriber,', 'A section heading', `/subscription/${ZERO}/${ZERO}`, `/campaign/${ZERO}/${ZERO}/px.png`, '>Unsubscribe</a>', `/${ZERO}/${ZERO}"`],
      notContains: ['{{', 'email.unsub'],
      after: (res) => {
        sandboxed(res);
        assert.match(res.text, /href="http[^"]*\/link\/[0-9a-f-]{36}\/0{8}-0{4}-0{4}-0{4}-0{12}\/0{8}-/, 'the sample link is tracked with dummy UUIDs');
      },
    },
    { name: 'the sample tx template with the demo subscriber', method: 'GET', path: `/api/templates/${SAMPLE_TX}/preview`, status: 200, contains: ['Demo Subscriber'], after: sandboxed },
    { name: 'the sample visual template as a full document', method: 'GET', path: `/api/templates/${SAMPLE_VISUAL}/preview`, status: 200, contains: ['<strong>Demo Subscriber</strong>'], notContains: ['A section heading'], after: sandboxed },
    {
      name: 'a posted stored-template preview with a form body overriding the stored body',
      method: 'POST', path: `/api/templates/${ARCHIVE}/preview`, form: { body: '<main>{{ template "content" . }}</main><i>{{ .Subscriber.Attribs.city }}</i>' }, status: 200,
      contains: ['<main>', '<i>Bengaluru</i>', 'Hello Demo Subscriber,'], after: sandboxed,
    },
    {
      name: 'a posted body for the stored tx template is rendered as tx',
      method: 'POST', path: `/api/templates/${SAMPLE_TX}/preview`, form: { body: '<p>{{ .Subscriber.Email }}</p>' }, status: 200,
      contains: ['<p>demo@listmonk.app</p>'], after: sandboxed,
    },
    {
      name: 'a GET carries the body to preview in its query string, as listmonk reads form values',
      method: 'GET', path: `/api/templates/${SAMPLE_TX}/preview?template_type=tx&body=${encodeURIComponent('<p>Q {{ .Subscriber.Email }}</p>')}`, status: 200,
      contains: ['<p>Q demo@listmonk.app</p>'], after: sandboxed,
    },
    { name: 'unknown template id is 404', method: 'GET', path: '/api/templates/999/preview', status: 404, after: jsonError },
    {
      name: 'an unsaved campaign template (form)',
      method: 'POST', path: '/api/templates/preview', form: { template_type: 'campaign', body: `<h1>{{ .Campaign.Subject }}</h1>${LAYOUT}` }, status: 200,
      contains: ['<h1>Sample campaign subject</h1>', '<div class="wrap">', 'Hello Demo Subscriber,'], after: sandboxed,
    },
    {
      name: 'template_type defaults to campaign; JSON is accepted too',
      method: 'POST', path: '/api/templates/preview', body: { body: `${LAYOUT}<p>{{ .Subscriber.FirstName }}</p>` }, status: 200,
      contains: ['<p>Demo</p>', 'A section heading'], after: sandboxed,
    },
    {
      name: 'an unsaved tx template has an empty .Tx',
      method: 'POST', path: '/api/templates/preview', form: { template_type: 'tx', body: '<p>{{ .Subscriber.Name }}|{{ .Tx.Data.order_id }}|{{ len .Tx.Data }}</p>' }, status: 200,
      contains: ['<p>Demo Subscriber||0</p>'], after: sandboxed,
    },
    {
      name: 'a script in a template is served, but sandboxed',
      method: 'POST', path: '/api/templates/preview', form: { body: `${LAYOUT}<script>fetch('/api/settings')</script>` }, status: 200,
      contains: ['<script>'], after: sandboxed,
    },
    { name: 'campaign type without the placeholder', method: 'POST', path: '/api/templates/preview', form: { body: '<p>none</p>' }, status: 400, contains: ['placeholder'], after: jsonError },
    {
      name: 'a syntax error names line and column',
      method: 'POST', path: '/api/templates/preview', form: { body: `${LAYOUT}\n{{ range }}` }, status: 400,
      after: (res) => {
        jsonError(res);
        assert.match(res.body.message, /^the template does not compile: .*base:2:\d+/);
      },
    },
    {
      name: 'a render error is a 400 too',
      method: 'POST', path: '/api/templates/preview', form: { body: `${LAYOUT}{{ fail "stop here" }}` }, status: 400,
      after: (res) => {
        jsonError(res);
        assert.match(res.body.message, /^the template does not render: .*stop here/);
      },
    },
    { name: 'a tx body with a campaign-only function', method: 'POST', path: '/api/templates/preview', form: { template_type: 'tx', body: '{{ TrackView }}' }, status: 400, contains: ['TrackView'] },
    { name: 'an unknown template_type', method: 'POST', path: '/api/templates/preview', form: { template_type: 'poster', body: LAYOUT }, status: 400, contains: ['"template_type"'] },
  ]);

  describe('campaign previews send the same headers', () => {
    let campaign = 0;
    it('(fixture)', () => {
      campaign = insertCampaign(DEFAULT_CAMPAIGN, null, '<p>Dear {{ .Subscriber.Name }}</p>');
    });
    run([
      { name: 'GET preview', method: 'GET', path: () => `/api/campaigns/${campaign}/preview`, status: 200, contains: ['Dear Demo Subscriber'], after: sandboxed },
      { name: 'POST preview with a body', method: 'POST', path: () => `/api/campaigns/${campaign}/preview`, form: { body: '<p>Edited</p>' }, status: 200, contains: ['<p>Edited</p>'], after: sandboxed },
      {
        name: 'plain text preview',
        method: 'POST', path: () => `/api/campaigns/${campaign}/text`, form: { body: 'Plain {{ .Subscriber.Name }}', content_type: 'plain' }, status: 200,
        contains: ['Plain Demo Subscriber'],
        after: (res) => {
          assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
          assert.equal(res.headers.get('content-security-policy'), 'sandbox');
          assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        },
      },
    ]);
  });
});

describe('permissions', () => {
  let reader = '';
  let nobody = '';
  let keep: () => void = () => {};
  it('(API users: one may only read templates, one has no template permission)', () => {
    const f = fixtures(db());
    reader = f.apiUser('tpl-reader', { permissions: ['templates:get'] });
    nobody = f.apiUser('tpl-nobody', { permissions: ['campaigns:get'] });
    keep = unchanged(ARCHIVE);
    keep();
  });
  const asReader = () => reader;
  const asNobody = () => nobody;
  run([
    { name: 'reader lists templates', method: 'GET', path: '/api/templates', auth: asReader, status: 200 },
    { name: 'reader previews', method: 'GET', path: `/api/templates/${ARCHIVE}/preview`, auth: asReader, status: 200 },
    { name: 'reader previews an unsaved body', method: 'POST', path: '/api/templates/preview', form: { body: LAYOUT }, auth: asReader, status: 200 },
    { name: 'reader cannot create', method: 'POST', path: '/api/templates', body: { name: 'x', body: LAYOUT }, auth: asReader, status: 403, contains: ['templates:manage'] },
    { name: 'reader cannot update', method: 'PUT', path: `/api/templates/${ARCHIVE}`, body: { name: 'x', body: LAYOUT }, auth: asReader, status: 403, contains: ['templates:manage'] },
    { name: 'reader cannot set the default', method: 'PUT', path: `/api/templates/${ARCHIVE}/default`, auth: asReader, status: 403 },
    { name: 'reader cannot delete', method: 'DELETE', path: `/api/templates/${ARCHIVE}`, auth: asReader, status: 403 },
    { name: 'without templates:get no list', method: 'GET', path: '/api/templates', auth: asNobody, status: 403, contains: ['templates:get'] },
    { name: 'without templates:get no template', method: 'GET', path: `/api/templates/${ARCHIVE}`, auth: asNobody, status: 403 },
    { name: 'without templates:get no preview', method: 'POST', path: '/api/templates/preview', form: { body: LAYOUT }, auth: asNobody, status: 403 },
    { name: 'no credentials', method: 'GET', path: '/api/templates', auth: () => '', status: 403 },
  ]);
  it('nothing changed', () => {
    keep();
    assert.equal(defaultId(), DEFAULT_CAMPAIGN);
  });
});

describe('the only template', () => {
  run([
    {
      name: 'cannot be deleted',
      method: 'DELETE', path: `/api/templates/${ARCHIVE}`,
      before: () => {
        // Leave one non-default template (a state only reachable by hand in the database).
        db().prepare('UPDATE templates SET is_default = 0').run();
        db().prepare('DELETE FROM templates WHERE id <> ?').run(ARCHIVE);
      },
      status: 400, contains: ['only template'],
      after: () => assert.equal(count(), 1),
    },
  ]);
});
