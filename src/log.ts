// The process log: every line goes to stdout and into a ring buffer served by GET /api/logs.
const MAX_LINES = 5000;

export type LogLevel = 'info' | 'warn' | 'error';

export class Logger {
  private lines: string[] = [];
  private next = 0;
  private readonly listeners = new Set<(line: string, level: LogLevel) => void>();
  constructor(private readonly quiet = false) {}

  info(msg: string): void { this.write('info', msg); }
  warn(msg: string): void { this.write('warn', msg); }
  error(msg: string): void { this.write('error', msg); }

  private write(level: LogLevel, msg: string): void {
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${msg}`;
    if (this.lines.length < MAX_LINES) this.lines.push(line);
    else {
      this.lines[this.next] = line;
      this.next = (this.next + 1) % MAX_LINES;
    }
    if (!this.quiet) (level === 'error' ? process.stderr : process.stdout).write(line + '\n');
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
