// The browser for the admin UI journeys: Debian's Chromium driven by playwright-core (no
// browser download is possible). Without a browser the journeys are skipped, except under
// CI=true, where a missing browser fails the run.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, ADMIN_USER, type TestServer } from './server.ts';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** Where the browser lives, or null (then the journeys are skipped, or fail under CI). */
export function chromiumPath(): string | null {
  const found = CANDIDATES.find((p): p is string => !!p && existsSync(p)) ?? null;
  if (!found && process.env.CI === 'true') throw new Error('no Chromium found (install chromium-headless-shell); CI=true does not skip the browser tests');
  return found;
}

/** The skip option of a browser test: a reason when no browser is installed. */
export function browserSkip(): string | false {
  return chromiumPath() ? false : 'no Chromium installed (apt-get install chromium-headless-shell)';
}

export function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no Chromium installed');
  return chromium.launch({ executablePath });
}

/** A browser for the enclosing describe(): launched before its tests, closed after them. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser has not started');
    return browser;
  };
}

/** Screenshots for people to look at: test-screenshots/ (git-ignored). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
}

export interface AdminTab {
  page: Page;
  /**
   * Script errors, console errors (but the browser's note of a 4xx answer) and dialogs
   * (alert/confirm opened by a page): any is a failure.
   */
  problems: string[];
  close(): Promise<void>;
}

/**
 * A new browser tab of `width` pixels signed in through the login form. Every page error,
 * console error and JavaScript dialog is recorded in `problems` (the admin opens none: its
 * confirmations are <dialog> elements), so a journey ends by asserting it is empty.
 */
export async function signedInTab(browser: Browser, t: TestServer, o: { width?: number; username?: string; password?: string; dark?: boolean } = {}): Promise<AdminTab> {
  const context = await browser.newContext({ viewport: { width: o.width ?? 1280, height: 900 }, colorScheme: o.dark ? 'dark' : 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // A refusal the page shows (4xx from the API) is logged by the browser as a failed load: expected.
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`console error: ${m.text()}`); });
  page.on('dialog', (d) => { problems.push(`dialog: ${d.type()} ${d.message()}`); void d.dismiss(); });
  await page.goto(`${t.url}/admin/login`);
  await page.getByLabel('Username').fill(o.username ?? ADMIN_USER);
  await page.getByLabel('Password').fill(o.password ?? ADMIN_PASSWORD);
  // Signed in once the browser has left the sign-in page for the admin (a pattern that the sign-in
  // page's own address, /admin/login, also matched let a journey's next page.goto race the form's
  // POST: the goto was aborted, or landed on the sign-in form before the cookie was set).
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith('/admin') && !url.pathname.startsWith('/admin/login')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return { page, problems, close: () => context.close() };
}

/**
 * Waits until a form control's value passes `ok`, polled from the test: the admin's CSP forbids
 * evaluating a string in the page, so Playwright's string predicates cannot run there.
 */
export async function waitForValue(control: Locator, ok: (value: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await control.inputValue();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`the value never passed the check; it is: ${value.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Replaces what the code editor (CodeMirror) of the field labelled `name` holds, as a person
 * selecting all and typing. Aimed at the editor's own text box: the textarea it replaces answers
 * to the same role and name until the editor island has run, and a click aimed at it then waits
 * for an element that is hidden.
 */
export async function typeInCodeEditor(page: Page, name: string, text: string): Promise<void> {
  await page.getByRole('textbox', { name }).and(page.locator('.cm-content')).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}
