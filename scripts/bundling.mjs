// What the two server bundles share: dist/cli.js (scripts/build.mjs) and the release
// executable's script (scripts/release.mjs).
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Packages a few operations need, loaded on their first use rather than held in memory by every
 * server: the listmonk migration's PostgreSQL client, the bounce mailbox's IMAP client and mail
 * parser, the 2FA QR codes, /metrics, and HTML-to-markdown conversion. dist/cli.js leaves them in
 * node_modules; the executable carries each as a script of its own.
 */
export const FIRST_USE_PACKAGES = ['pg', 'imapflow', 'mailparser', 'qrcode', 'prom-client', 'turndown'];

/**
 * zod's namespace object carries its 40-odd message locales (400 KB of source, some of it not
 * ASCII, which made V8 hold the whole bundle as a two-byte string); listmgr uses English only.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (args.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'zod-locales', pluginData: args.resolveDir } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: "export { default as en } from '../locales/en.js';", resolveDir: args.pluginData }));
  },
};

/**
 * Rewrites a bundle as pure ASCII. What esbuild leaves unescaped (characters in regular
 * expression literals) made V8 hold the whole bundle as a two-byte string, twice its size:
 * \u escapes mean the same there.
 */
export function asciiOnly(path) {
  writeFileSync(path, readFileSync(path, 'utf8').replace(/[^\x00-\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
