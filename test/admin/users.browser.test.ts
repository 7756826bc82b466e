// Browser journeys through the users, roles and profile pages: a restricted reader made from
// two roles sees only their list; two-factor sign-in is enrolled from the shown secret and then
// asked for at sign-in; an API user's token is shown once, works, and is replaced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOTP } from 'otpauth';
import { adminSession, apiAs, getPage, HOSTILE } from '../helpers/admin.ts';
import { browserSkip, screenshot, signedInTab, useBrowser, waitForValue } from '../helpers/browser.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const totp = (secret: string) => new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 });

async function health(t: TestServer, creds: string): Promise<number> {
  const res = await fetch(`${t.url}/api/health`, { headers: { authorization: `Basic ${Buffer.from(creds).toString('base64')}` } });
  return res.status;
}

describe('admin users, roles and profile in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('shows the sign-in page styled under its policy without scripts, the browser refusing nothing', async () => {
    const t = server();
    for (const width of [1280, 390]) {
      const context = await browser().newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') refused.push(m.text()); });
      const res = await page.goto(`${t.url}/admin/login`);
      assert.match(res!.headers()['content-security-policy'] ?? '', /^default-src 'none'; style-src 'nonce-/);
      // The stylesheet applied: the button has the accent colour, not the browser's grey.
      const background = await page.evaluate(`getComputedStyle(document.querySelector('button[type=submit]')).backgroundColor`);
      assert.equal(background, 'rgb(36, 86, 211)');
      await screenshot(page, 'sign-in');
      assert.deepEqual(refused, []);
      await context.close();
    }
  });

  it('makes a subscriber-reader role, a one-list role and a user with both, who then sees only that list', async () => {
    const t = server();
    const staff = (await t.request('POST', '/api/lists', { name: 'Staff news', type: 'private', optin: 'single' })).body.data.id;
    const other = (await t.request('POST', '/api/lists', { name: 'Customers', type: 'public', optin: 'single' })).body.data.id;
    for (const [email, list] of [['inside@example.com', staff], ['outside@example.com', other]] as const) {
      assert.equal((await t.request('POST', '/api/subscribers', { email, name: email, lists: [list], preconfirm_subscriptions: true })).status, 200);
    }
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    const nav = page.getByRole('navigation', { name: 'Main menu' });

    await nav.getByRole('link', { name: 'User roles' }).click();
    await page.getByRole('link', { name: '+ New user role' }).click();
    await page.getByLabel('Name').fill('Subscriber readers');
    // Select-all of a group ticks its permissions; the group's box follows them.
    await page.getByLabel('All of Subscribers').check();
    assert.equal(await page.getByLabel('subscribers:sql_query').isChecked(), true);
    await page.getByLabel('All of Subscribers').uncheck();
    await page.getByLabel('subscribers:get', { exact: true }).check();
    await screenshot(page, 'user-role-form');
    await page.getByRole('button', { name: 'New user role' }).click();
    await page.getByText('Role created').waitFor();
    await page.getByRole('row').filter({ hasText: 'Subscriber readers' }).waitFor();

    await nav.getByRole('link', { name: 'List roles' }).click();
    await page.getByRole('link', { name: '+ New list role' }).click();
    await page.getByLabel('Name').fill('Staff news readers');
    await page.getByLabel('Find a list').fill('staff');
    await page.getByLabel('List', { exact: true }).selectOption({ label: 'Staff news' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    assert.equal(await page.getByLabel('Read: Staff news').isChecked(), true);
    assert.equal(await page.getByLabel('Manage: Staff news').isChecked(), false);
    await screenshot(page, 'list-role-form');
    await page.getByRole('button', { name: 'New list role' }).click();
    await page.getByText('Role created').waitFor();
    const roles = await t.request('GET', '/api/roles/lists');
    assert.deepEqual(roles.body.data.map((r: { name: string; lists: unknown }) => [r.name, r.lists]), [['Staff news readers', [{ id: staff, name: 'Staff news', permissions: ['list:get'] }]]]);

    await nav.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('link', { name: '+ New user' }).click();
    await page.getByLabel('Username').fill('reader');
    await page.getByLabel('Name', { exact: true }).fill('Rita Reader');
    await page.getByLabel('E-mail').fill('rita@example.com');
    // A list role beside a user role that reaches every list changes nothing: the form says so.
    await page.getByLabel('User role').selectOption({ label: 'Super Admin' });
    await page.getByLabel('List role').selectOption({ label: 'Staff news readers' });
    await page.getByText('the list role changes nothing').waitFor();
    await page.getByLabel('User role').selectOption({ label: 'Subscriber readers' });
    await page.getByText('the list role changes nothing').waitFor({ state: 'hidden' });
    await page.getByLabel('Password', { exact: true }).fill('rita-password-1');
    await page.getByLabel('Repeat the password').fill('something else');
    await page.getByRole('button', { name: 'New user' }).click();
    // The two passwords differ: said beside the second, nothing sent, what was typed kept.
    await page.locator('#user-password2-error').getByText('The two passwords are not the same.').waitFor();
    assert.equal(await page.getByLabel('Repeat the password').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Username').inputValue(), 'reader');
    await page.getByLabel('Repeat the password').fill('rita-password-1');
    await screenshot(page, 'user-form');
    await page.getByRole('button', { name: 'New user' }).click();
    await page.getByRole('heading', { name: 'reader' }).waitFor();
    await page.getByText('User created').waitFor();

    // The reader, in a browser of their own.
    const reader = await signedInTab(browser(), t, { username: 'reader', password: 'rita-password-1' });
    const rnav = reader.page.getByRole('navigation', { name: 'Main menu' });
    await rnav.getByRole('link', { name: 'All subscribers' }).click();
    await reader.page.getByRole('link', { name: 'inside@example.com' }).first().waitFor();
    assert.equal(await reader.page.getByText('outside@example.com').count(), 0, 'a subscriber of another list is not shown');
    const links = await rnav.getByRole('link').allInnerTexts();
    for (const hidden of ['Users', 'User roles', 'List roles', 'All campaigns', 'Templates', 'Import', 'Bounces', 'Media']) assert.ok(!links.includes(hidden), `${hidden} is not in the reader's menu: ${links.join(', ')}`);
    await screenshot(reader.page, 'reader-subscribers');
    assert.deepEqual(reader.problems, []);
    await reader.close();
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('enrols two-factor sign-in from the shown secret, then asks for a code at sign-in; a new password ends other sessions', async () => {
    const t = server();
    const role = await t.request('POST', '/api/roles/users', { name: 'Nothing much', permissions: ['bounces:get'] });
    assert.equal((await t.request('POST', '/api/users', {
      username: 'tess', name: 'Tess', email: 'tess@example.com', type: 'user', status: 'enabled', password_login: true, password: 'tess-password-1', user_role_id: role.body.data.id,
    })).status, 200);
    const elsewhere = await adminSession(t, 'tess', 'tess-password-1');
    for (const width of [390, 1280]) {
      const tab = await signedInTab(browser(), t, { width, username: 'tess', password: width === 390 ? 'tess-password-1' : 'tess-password-2' });
      const { page } = tab;
      await page.getByRole('link', { name: 'Profile' }).click();
      await page.getByRole('heading', { name: 'Your profile' }).waitFor();
      if (width === 390) {
        // The password first: the page says other sessions end, and they do.
        await page.getByText('signs you out everywhere else').waitFor();
        await page.getByLabel('New password').fill('tess-password-2');
        await page.getByLabel('Repeat the password').fill('tess-password-2');
        await page.getByLabel('Current password').fill('wrong-password');
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.getByText('wrong current password').waitFor();
        await page.getByLabel('Current password').fill('tess-password-1');
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.getByText('your other sessions are signed out').waitFor();
        assert.equal((await getPage(t, elsewhere, '/admin')).status, 307, 'the other session has ended');
        assert.equal((await page.goto(`${t.url}/admin/profile`))?.status(), 200, 'this one goes on');
        await screenshot(page, 'profile');
        await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
        await page.getByLabel('Your password, to turn it on').waitFor();
        await screenshot(page, 'profile-twofa-enrol');
        await tab.close();
        continue;
      }
      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      const secretText = page.locator('code.secret');
      await secretText.waitFor();
      const secret = (await secretText.innerText()).trim();
      assert.match(secret, /^[A-Z2-7]{32}$/);
      await page.getByRole('img', { name: /QR code/ }).waitFor();
      await screenshot(page, 'profile-twofa-enrol');
      await page.getByLabel('Authentication code').fill('000000');
      await page.getByLabel('Your password, to turn it on').fill('tess-password-2');
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByText(/invalid "code"/).waitFor();
      // Turning it on asks for the password (a stolen session cannot enrol its own device) and
      // signs the other sessions out.
      const other = await adminSession(t, 'tess', 'tess-password-2');
      await page.getByLabel('Authentication code').fill(totp(secret).generate());
      await page.getByLabel('Your password, to turn it on').fill('wrong-password');
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.locator('#twofa-on-password-error').getByText('wrong password').waitFor();
      await screenshot(page, 'profile-twofa-wrong-password');
      await page.getByLabel('Your password, to turn it on').fill('tess-password-2');
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).waitFor();
      assert.equal((await getPage(t, other, '/admin')).status, 307, 'the other session has ended');
      assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone from the page once enrolled');
      assert.ok(!(await page.content()).includes(secret));

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Username').waitFor();
      await page.getByLabel('Username').fill('tess');
      await page.getByLabel('Password').fill('tess-password-2');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
      // The enrolment code's time step is used up: the next step's code (one step of drift is allowed).
      await page.getByLabel('Code from your authenticator app').fill(totp(secret).generate({ timestamp: Date.now() + 30_000 }));
      await Promise.all([page.waitForURL(/\/admin$/), page.getByRole('button', { name: 'Verify' }).click()]);
      await page.getByText('Signed in as Tess').waitFor();
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('turns off another user\'s two-factor sign-in after asking, confirmed with the admin\'s password', async () => {
    const t = server();
    const role = await t.request('POST', '/api/roles/users', { name: 'Phone users', permissions: ['bounces:get'] });
    for (const width of [1280, 390]) {
      const username = `lost-phone-${width}`;
      const user = await t.request('POST', '/api/users', {
        username, name: username, email: `${username}@example.com`, type: 'user', status: 'enabled', password_login: true, password: 'phone-password-1', user_role_id: role.body.data.id,
      });
      const session = await adminSession(t, username, 'phone-password-1');
      const id = user.body.data.id;
      const { secret } = (await apiAs(t, session, 'GET', `/api/users/${id}/twofa/totp`)).body.data;
      assert.equal((await apiAs(t, session, 'PUT', `/api/users/${id}/twofa`, { secret, code: totp(secret).generate(), password: 'phone-password-1' })).status, 200);

      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/users/${id}`);
      const section = page.getByRole('region', { name: 'Two-factor authentication' });
      await section.getByText('On', { exact: true }).waitFor();
      await screenshot(page, 'user-twofa-on');
      const turnOff = section.getByRole('button', { name: 'Turn off two-factor sign-in' });
      await turnOff.click();
      const dialog = page.getByRole('dialog', { name: `Turn off two-factor sign-in for "${username}"?` });
      await dialog.waitFor();
      await screenshot(page, 'user-twofa-confirm');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal((await t.request('GET', `/api/users/${id}`)).body.data.twofa_type, 'totp', 'cancelled: still on');

      await turnOff.click();
      await dialog.getByLabel('Your password, to confirm').fill('not-my-password');
      assert.equal(await dialog.getByRole('button', { name: 'Turn off two-factor sign-in' }).getAttribute('class'), 'danger', 'styled as the destructive action it is');
      await dialog.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
      await page.getByRole('alert').filter({ hasText: 'wrong password' }).waitFor();
      assert.equal((await t.request('GET', `/api/users/${id}`)).body.data.twofa_type, 'totp', 'a wrong password changes nothing');

      await turnOff.click();
      await dialog.getByLabel('Your password, to confirm').fill('admin-password-1');
      await dialog.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
      await page.getByText(`Two-factor sign-in is off for "${username}".`).waitFor();
      await section.waitFor({ state: 'detached' });
      assert.equal(await page.locator('.ids').getByText('2FA', { exact: true }).count(), 0, 'the 2FA tag is gone');
      assert.equal((await t.request('GET', `/api/users/${id}`)).body.data.twofa_type, 'none');
      await screenshot(page, 'user-twofa-off');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('creates an API user and shows its token once; the token works, and "regenerate" replaces it', async () => {
    const t = server();
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/users/new`);
      await page.getByRole('radio', { name: /^API/ }).check();
      // An API user has no e-mail or password.
      await page.getByLabel('E-mail').waitFor({ state: 'hidden' });
      assert.equal(await page.getByLabel('Password login').isVisible(), false);
      await page.getByLabel('Username').fill(`crm-${width}`);
      await page.getByLabel('User role').selectOption({ label: 'Super Admin' });
      await page.getByRole('button', { name: 'New user' }).click();
      const token = page.getByRole('textbox', { name: 'Token', exact: true });
      const first = await waitForValue(token, (v) => v.length === 48);
      await page.getByText('it will not be shown again').waitFor();
      await screenshot(page, 'api-token');
      assert.equal(await health(t, `crm-${width}:${first}`), 200);

      await page.getByRole('link', { name: 'I have copied it' }).click();
      await page.getByRole('heading', { name: `crm-${width}` }).waitFor();
      assert.ok(!(await page.content()).includes(first), 'the token is not shown again');
      assert.equal(await page.getByRole('textbox', { name: 'Token', exact: true }).isVisible(), false);

      await page.getByRole('button', { name: 'Regenerate token' }).click();
      const dialog = page.getByRole('dialog');
      assert.match(await dialog.innerText(), /stops working at once/);
      await dialog.getByRole('button', { name: 'Make a new token' }).click();
      const second = await waitForValue(page.getByRole('textbox', { name: 'Token', exact: true }), (v) => v.length === 48 && v !== first);
      assert.equal(await health(t, `crm-${width}:${first}`), 403, 'the old token no longer works');
      assert.equal(await health(t, `crm-${width}:${second}`), 200);
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('shows the API\'s refusal when deleting the last Super Admin, and disables and deletes other users', async () => {
    const t = server();
    const role = await t.request('POST', '/api/roles/users', { name: 'Short-lived', permissions: [] });
    for (const username of ['temp-one', 'temp-two']) {
      assert.equal((await t.request('POST', '/api/users', { username, type: 'api', status: 'enabled', user_role_id: role.body.data.id })).status, 200);
    }
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/users`);
    // The own row offers no Delete; disabling the last enabled Super Admin (oneself) is refused.
    const adminRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'admin', exact: true }) });
    assert.equal(await adminRow.getByRole('button', { name: 'Delete' }).count(), 0);
    await adminRow.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('alert').filter({ hasText: 'at least one enabled Super Admin user must remain' }).waitFor();

    const one = page.getByRole('row').filter({ hasText: 'temp-one' });
    await one.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await page.getByText('"temp-one" disabled').waitFor();
    await page.getByRole('row').filter({ hasText: 'temp-one' }).getByRole('button', { name: 'Enable' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'temp-two' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('"temp-two" deleted').waitFor();
    const users = (await t.request('GET', '/api/users')).body.data as { username: string; status: string }[];
    assert.deepEqual(users.filter((u) => u.username.startsWith('temp')).map((u) => [u.username, u.status]), [['temp-one', 'disabled']]);
    await screenshot(page, 'users');

    // Editing: a refusal beside the field it names, the rest kept; then saved.
    await page.getByRole('link', { name: 'temp-one' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Temporary one');
    await page.getByLabel('Username').fill('no spaces allowed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#user-username-error').getByText(/invalid username/).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Temporary one');
    await page.getByLabel('Username').fill('temp-1');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'temp-1' }).waitFor();
    await page.getByText('Saved', { exact: true }).waitFor();
    const edited = (await t.request('GET', '/api/users')).body.data.find((u: { username: string }) => u.username === 'temp-1');
    assert.equal(edited.name, 'Temporary one');
    assert.equal(edited.status, 'disabled', 'what was not touched kept its value');

    // A role in use: its delete is refused with the API's 409 message.
    await page.goto(`${t.url}/admin/users/roles/users`);
    await page.getByRole('row').filter({ hasText: 'Short-lived' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: 'the role is in use by 1 user' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Short-lived' }).getByRole('button', { name: 'Clone' }).click();
    await page.getByRole('dialog').getByLabel('Name of the copy').fill('Short-lived 2');
    await page.getByRole('dialog').getByRole('button', { name: 'Clone' }).click();
    await page.getByRole('heading', { name: 'Short-lived 2' }).waitFor();
    await screenshot(page, 'user-role-clone');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('lays the users and roles pages out on a phone, hostile names inert; a role is cloned as its own kind', async () => {
    const t = server();
    const hostileRole = await t.request('POST', '/api/roles/users', { name: HOSTILE, permissions: ['subscribers:get'] });
    assert.equal((await t.request('POST', '/api/users', { username: 'hostile', name: HOSTILE, type: 'api', status: 'enabled', user_role_id: hostileRole.body.data.id })).status, 200);
    const list = (await t.request('POST', '/api/lists', { name: 'A list with a rather long name for a phone', type: 'private', optin: 'single' })).body.data.id;
    const role = await t.request('POST', '/api/roles/lists', { name: 'One list', lists: [{ id: list, permissions: ['list:get', 'list:manage'] }] });
    const tab = await signedInTab(browser(), t, { width: 390 });
    const { page } = tab;
    for (const [path, name] of [['/admin/users', 'users'], ['/admin/users/1', 'user-form'], ['/admin/users/roles/users', 'user-roles'], ['/admin/users/roles/users/new', 'user-role-form'],
      ['/admin/users/roles/lists', 'list-roles'], [`/admin/users/roles/lists/${role.body.data.id}`, 'list-role-form']] as const) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await screenshot(page, name);
    }
    await page.goto(`${t.url}/admin/users/roles/users`);
    await page.getByRole('row').filter({ hasText: HOSTILE }).getByRole('button', { name: 'Clone' }).click();
    assert.equal(await page.getByRole('dialog').getByLabel('Name of the copy').inputValue(), `Copy of ${HOSTILE}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Clone' }).click();
    await page.getByRole('heading', { name: `Copy of ${HOSTILE}` }).waitFor();
    // A list role's copy is a list role with the same grants (it once asked for the user roles).
    await page.goto(`${t.url}/admin/users/roles/lists`);
    await page.getByRole('row').filter({ hasText: 'One list' }).getByRole('button', { name: 'Clone' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clone' }).click();
    await page.getByRole('heading', { name: 'Copy of One list' }).waitFor();
    const listRoles = (await t.request('GET', '/api/roles/lists')).body.data as { name: string; lists: { id: number; permissions: string[] }[] }[];
    assert.deepEqual(listRoles.find((r) => r.name === 'Copy of One list')?.lists.map((l) => [l.id, [...l.permissions].sort()]), [[list, ['list:get', 'list:manage']]]);
    await page.goto(`${t.url}/admin/users?query=hostile`);
    await page.getByRole('link', { name: 'hostile', exact: true }).click();
    await page.getByRole('heading', { name: 'hostile' }).waitFor();
    assert.equal(await page.locator('img[src="x"]').count(), 0, 'no hostile markup became an element');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });
});
