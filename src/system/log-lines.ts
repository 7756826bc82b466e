// A server log line's level, from its form "2025-01-01T00:00:00.000Z LEVEL message" (src/log.ts),
// for the logs page's colouring on the server and in the browser.

export type LineLevel = 'info' | 'warn' | 'error';

export function logLevel(line: string): LineLevel {
  const m = /^\S+ (INFO|WARN|ERROR)\b/.exec(line);
  return m ? (m[1].toLowerCase() as LineLevel) : 'info';
}
