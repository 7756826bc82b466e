// The serving process's last-resort handlers. A promise rejected with nobody to handle it ends
// a Node process by default: one missed error path in one request (a file write failing on a
// full disk was one) would take the server down for everyone. It is logged instead, with the
// request it came from where that is known, and the server goes on; the code paths that write
// state handle their errors themselves, so a stray rejection leaves nothing half done.
// Uncaught exceptions still end the process: their state is unknown.
import type { Logger } from './log.ts';
import { requestScope } from './http/request-scope.ts';

/** Installs the handlers; `log` answers the server's log once it exists (stderr before). */
export function installProcessGuards(log: () => Logger | null): void {
  process.on('unhandledRejection', (reason) => {
    const scope = requestScope.getStore();
    const where = scope ? ` in request ${scope.id} (${scope.method} ${scope.path})` : '';
    const what = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    const line = `unhandled promise rejection${where}, the server goes on: ${what}`;
    const logger = log();
    if (logger) logger.error(line);
    else console.error(`listmgr: ${line}`);
  });
  // The log may go to a file on the disk that filled up, or to a pipe that closed: a failed
  // write of a log line is dropped rather than ending the process.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}
