// The appearance settings' custom CSS and JS stay inside their element: a stored `</style>`
// cannot start markup on the sign-in page or the public pages, and the admin custom JS is
// never put into the sign-in page (issue 16 point 14).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';

const BREAKOUT = `body{color:red}</style><script>alert('css')</script><style>`;

/** The text of the page's <style> elements (ended as a browser ends them) and every <script> outside them. */
function parts(html: string) {
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style[\s/>]/gi)].map((m) => m[1]);
  const scripts = [...html.replace(/<style\b[^>]*>[\s\S]*?<\/style[\s/>]/gi, '').matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
  return { styles, scripts };
}

describe('custom CSS and JS', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => { await t.stop(); });

  it('a </style> in the admin custom CSS does not close the sign-in page\'s style element', async () => {
    await withSettings(t, { 'appearance.admin.custom_css': BREAKOUT, 'appearance.admin.custom_js': `alert('admin-js')` }, async () => {
      const res = await fetch(`${t.url}/admin/login`);
      assert.equal(res.status, 200);
      const html = await res.text();
      const { styles, scripts } = parts(html);
      assert.equal(styles.length, 1, 'one style element');
      assert.deepEqual(scripts, [], 'no script on the sign-in page');
      assert.ok(styles[0].includes('body{color:red}<\\/style>'), 'the custom CSS is kept, its closing sequence escaped');
      assert.ok(!html.includes('admin-js'), 'the admin custom JS is not on the sign-in page');
      assert.ok(!/<\/style\s*>\s*<script/i.test(html));
    });
  });

  it('a </style> in the public custom CSS stays inside the public pages\' style element', async () => {
    await withSettings(t, { 'appearance.public.custom_css': BREAKOUT.replace('</style>', '</STYLE >') }, async () => {
      const res = await fetch(`${t.url}/subscription/form`);
      assert.equal(res.status, 200);
      const { styles, scripts } = parts(await res.text());
      assert.equal(styles.length, 1);
      assert.deepEqual(scripts, []);
      assert.ok(styles[0].includes('<\\/STYLE >'));
    });
  });
});
