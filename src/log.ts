// The process log: every line goes to stdout (stderr for errors) and into a ring buffer served
// by GET /api/logs. On stdout a line is readable text by default, or with
// LISTMGR_LOG_FORMAT=json one JSON object per line ({"time", "level", "msg", ...fields}) for
// journald and log shippers; the buffer always holds the text form the admin's log view shows.
const MAX_LINES = 5000;

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];
/** Structured details of a line (a backup's file and size…): keys and plain values. */
export type LogFields = Record<string, string | number | boolean | null>;

export class Logger {
  private lines: string[] = [];
  private next = 0;
  private readonly listeners = new Set<(line: string, level: LogLevel) => void>();
  constructor(private readonly quiet = false, private readonly format: LogFormat = 'text') {}

  info(msg: string, fields?: LogFields): void { this.write('info', msg, fields); }
  warn(msg: string, fields?: LogFields): void { this.write('warn', msg, fields); }
  error(msg: string, fields?: LogFields): void { this.write('error', msg, fields); }

  private write(level: LogLevel, msg: string, fields?: LogFields): void {
    const time = new Date().toISOString();
    const extra = fields ? Object.entries(fields).map(([k, v]) => ` ${k}=${typeof v === 'string' && /[\s"=]/.test(v) ? JSON.stringify(v) : String(v)}`).join('') : '';
    const line = `${time} ${level.toUpperCase().padEnd(5)} ${msg}${extra}`;
    if (this.lines.length < MAX_LINES) this.lines.push(line);
    else {
      this.lines[this.next] = line;
      this.next = (this.next + 1) % MAX_LINES;
    }
    if (!this.quiet) {
      // The message's own keys come first: a field cannot pass for the time, level or message.
      const out = this.format === 'json' ? JSON.stringify({ ...fields, time, level, msg }) : line;
      (level === 'error' ? process.stderr : process.stdout).write(out + '\n');
    }
    for (const listener of this.listeners) listener(line, level);
  }

  /** Calls `listener` with every line written from now on (GET /api/events); returns the way to stop. */
  follow(listener: (line: string, level: LogLevel) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Buffered lines, oldest first. */
  recent(): string[] {
    return this.lines.length < MAX_LINES ? [...this.lines] : [...this.lines.slice(this.next), ...this.lines.slice(0, this.next)];
  }
}

/**
 * Failures of one kind that may come by the thousand with one cause (every opt-in mail while the
 * mail server is down): the first of a cause is logged in full, the repeats are counted and
 * logged as one line every `everyMs`, and when the cause changes.
 */
export class RepeatedFailures {
  private cause = '';
  private repeats = 0;
  private timer: NodeJS.Timeout | null = null;

  /** `what`: the plural of what fails ("opt-in mails"). */
  constructor(private readonly log: Logger, private readonly what: string, private readonly everyMs: number) {}

  /** A failure: `detail` says which one failed (logged with the first of its cause only). */
  add(detail: string, cause: string): void {
    if (cause === this.cause) {
      this.repeats++;
      this.timer ??= setTimeout(() => this.flush(), this.everyMs).unref();
      return;
    }
    this.flush();
    this.cause = cause;
    this.log.error(`${detail} failed: ${cause} (more ${this.what} failing so are counted, not logged one by one)`);
  }

  /** Logs the count of repeats not logged yet. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.repeats) this.log.error(`${this.repeats} more ${this.what} failed: ${this.cause}`);
    this.repeats = 0;
  }
}

/** Ids in a log line: "subscriber 5", or "3 subscribers (5, 6, 9)", the first 20 ids only. */
export function loggedIds(noun: string, ids: readonly number[]): string {
  if (ids.length === 1) return `${noun} ${ids[0]}`;
  const shown = ids.slice(0, 20).join(', ');
  return `${ids.length} ${noun}s${ids.length ? ` (${shown}${ids.length > 20 ? ', …' : ''})` : ''}`;
}
