// The floor under `npm run bench:footprint`: listmgr's web and database stack with no listmgr in
// it (hono on @hono/node-server, better-sqlite3 with the database open in WAL mode) answering
// /health. What listmgr itself costs is the difference. Usage: node footprint-floor.mjs DB PORT
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';

const [dbPath, port] = process.argv.slice(2);
const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
const alive = db.prepare('SELECT 1').pluck();
const app = new Hono();
app.get('/health', (c) => c.json({ data: alive.get() === 1 }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(port) });
