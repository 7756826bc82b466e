// Browser journeys through the template pages: write a template in the code editor, preview it
// in the sandboxed frame, see the engine's error beside the body without losing it, and a
// template's script kept out of the admin page.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkip, screenshot, signedInTab, typeInCodeEditor, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('admin templates in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  for (const width of [1280, 390]) {
    it(`creates a template, previews it, shows a compile error beside the body, makes it the default, clones and deletes (${width} px)`, async () => {
      const t = server();
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/campaigns/templates`);
      await page.getByRole('link', { name: '+ New template' }).click();
      await page.getByLabel('Name').fill(`Letterhead ${width}`);
      await typeInCodeEditor(page, 'Body', '<html><body><h1>Our letterhead</h1>\n{{ template "content" . }}\n</body></html>');
      await page.getByRole('button', { name: 'Preview (F9)' }).click();
      const frame = page.frameLocator('#template-preview');
      await frame.getByRole('heading', { name: 'Our letterhead' }).waitFor();
      await frame.getByRole('heading', { name: 'A section heading' }).waitFor();
      await page.getByRole('button', { name: 'New template' }).click();
      await page.getByText('Template created').waitFor();
      await page.getByRole('heading', { name: `Letterhead ${width}` }).waitFor();
      await frame.getByRole('heading', { name: 'Our letterhead' }).waitFor();
      await screenshot(page, 'template-page');

      // A body that does not compile: F9 shows the engine's message with its line (base:LINE:COLUMN) beside the body, and the text stays.
      const broken = '<html><body>\n<p>fine</p>\n{{ nosuchfunc .Subscriber.Name }}\n{{ template "content" . }}\n</body></html>';
      await typeInCodeEditor(page, 'Body', broken);
      await page.keyboard.press('F9');
      const error = page.locator('#t-body-error');
      await error.filter({ hasText: /base:3:3: function "nosuchfunc" not defined/ }).waitFor();
      assert.equal(await page.evaluate<string>('String(getSelection())'), '{{ nosuchfunc .Subscriber.Name }}', 'the editor selects the line the error names');
      assert.match(await page.getByRole('textbox', { name: 'Body' }).innerText(), /\{\{ nosuchfunc \.Subscriber\.Name \}\}/);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await error.filter({ hasText: /base:3:3: function "nosuchfunc" not defined/ }).waitFor();
      assert.match(await page.getByRole('textbox', { name: 'Body' }).innerText(), /\{\{ nosuchfunc \.Subscriber\.Name \}\}/, 'a refused save keeps the body');
      await screenshot(page, 'template-error');

      await page.getByRole('link', { name: '← Templates' }).click();
      const row = page.getByRole('row').filter({ hasText: `Letterhead ${width}` });
      await row.getByRole('button', { name: 'Make default' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Make default' }).click();
      await page.getByText(`"Letterhead ${width}" is now the default template`).waitFor();
      await page.getByRole('row').filter({ hasText: `Letterhead ${width}` }).getByText('Default', { exact: true }).waitFor();
      await screenshot(page, 'templates');
      // A new campaign starts with the new default template.
      await page.goto(`${t.url}/admin/campaigns/new`);
      assert.equal(await page.locator('#c-template option:checked').innerText(), `Letterhead ${width}`);
      await page.goto(`${t.url}/admin/campaigns/templates`);

      // Clone asks for the copy's name and opens the copy; delete asks first.
      await page.getByRole('row').filter({ hasText: `Letterhead ${width}` }).getByRole('button', { name: 'Clone' }).click();
      await page.getByLabel('Name of the copy').fill(`Copy ${width}`);
      await page.getByRole('dialog').getByRole('button', { name: 'Clone' }).click();
      await page.getByRole('heading', { name: `Copy ${width}` }).waitFor();
      assert.match(await page.getByRole('textbox', { name: 'Body' }).innerText(), /Our letterhead/);
      await page.getByRole('link', { name: '← Templates' }).click();
      await page.getByRole('row').filter({ hasText: `Copy ${width}` }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText(`"Copy ${width}" deleted`).waitFor();
      assert.equal(await page.getByRole('row').filter({ hasText: `Copy ${width}` }).count(), 0);
      assert.deepEqual(tab.problems, []);
      await tab.close();
    });
  }

  it('creates a transactional template: the starting body and the subject follow the type', async () => {
    const t = server();
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/templates/new`);
    assert.equal(await page.getByLabel('Subject').isVisible(), false, 'no subject for a campaign template');
    await page.getByLabel('Type').selectOption({ label: 'Transactional' });
    await page.getByRole('textbox', { name: 'Body' }).getByText('{{ .Tx.Data.order_id }}', { exact: false }).waitFor();
    await page.getByLabel('Name').fill('Order shipped');
    await page.getByLabel('Subject').fill('Order {{ .Tx.Data.order_id }} shipped');
    await page.keyboard.press('F9');
    await page.frameLocator('#template-preview').getByText('Hello Demo').waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByText('Template created').waitFor();
    const list = await t.request('GET', '/api/templates');
    const tx = list.body.data.find((tp: { name: string }) => tp.name === 'Order shipped');
    assert.equal(tx.type, 'tx');
    assert.equal(tx.subject, 'Order {{ .Tx.Data.order_id }} shipped');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('previews a template holding a script without the script reaching the admin page', async () => {
    const t = server();
    const tab = await signedInTab(browser(), t, { dark: true });
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/templates/new`);
    await page.getByLabel('Name').fill('Scripted');
    await typeInCodeEditor(page, 'Body', '<html><body><script>alert(1)</script><p id="marker">Marker text</p>\n{{ template "content" . }}\n</body></html>');
    await page.keyboard.press('F9');
    await page.frameLocator('#template-preview').getByText('Marker text').waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByText('Template created').waitFor();
    await page.frameLocator('#template-preview').getByText('Marker text').waitFor();
    // The table's preview dialog loads the stored template in its own sandboxed frame.
    await page.getByRole('link', { name: '← Templates' }).click();
    await page.getByRole('row').filter({ hasText: 'Scripted' }).getByRole('button', { name: 'Preview' }).click();
    await page.frameLocator('#preview-frame').getByText('Marker text').waitFor();
    await screenshot(page, 'template-preview-dark');
    // The browser reports each script it refused to run in the sandboxed frame: those are the
    // proof, anything else (a dialog above all) is a failure.
    const blocked = /^console error: Blocked script execution in '[^']+\/api\/templates\/(\d+\/)?preview' because the document's frame is sandboxed/;
    assert.ok(tab.problems.some((p) => blocked.test(p)), 'the script was blocked');
    assert.deepEqual(tab.problems.filter((p) => !blocked.test(p)), [], 'no dialog opened, no other error');
    await tab.close();
  });
});
