// A real PostgreSQL server for the tests, in a temporary folder on a free port: initdb and
// pg_ctl from the PATH or Debian's postgresql package. PostgreSQL refuses to run as root, so
// as root the server runs as the postgres user (or nobody), which owns the folder.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.ts';

export interface Postgres {
  /** The URL of a database on this server. */
  url(database: string): string;
  /** Creates an empty database. */
  createDatabase(name: string): Promise<void>;
  withClient<T>(database: string, fn: (c: pg.Client) => Promise<T>): Promise<T>;
  stop(): void;
}

function binDir(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(debian, v, 'bin', 'pg_ctl'))) return join(debian, v, 'bin');
  throw new Error('PostgreSQL (initdb, pg_ctl) is not installed: install the postgresql package (.ci/run does)');
}

/** The unprivileged account to run the server as when the tests run as root. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }));
      return { name, uid, gid };
    } catch {
      // not on this machine: try the next
    }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as');
}


export async function startPostgres(): Promise<Postgres> {
  const bin = binDir();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = user ? ['runuser', ['-u', user.name, '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    execFileSync(cmd, argv, { stdio: 'pipe', cwd: dir });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const withClient = async <T>(database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: url(database) });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    url,
    withClient,
    createDatabase: (name) => withClient('postgres', async (c) => void (await c.query(`CREATE DATABASE ${name}`))),
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
