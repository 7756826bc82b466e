// A standard 5-field cron expression (minute hour day-of-month month day-of-week) with
// numbers, `*`, ranges `a-b`, steps `*/n` and `a-b/n`, and lists `a,b`; day-of-week 0-7
// (0 and 7 are Sunday). As in cron, when both day fields are restricted either may match.
export interface CronSchedule {
  matches(d: Date): boolean;
  /** The first matching minute after `from` (local time), within a year; null if none. */
  next(from: Date): Date | null;
}

const FIELDS: [name: string, min: number, max: number][] = [
  ['minute', 0, 59], ['hour', 0, 23], ['day of month', 1, 31], ['month', 1, 12], ['day of week', 0, 7],
];

function parseField(text: string, [name, min, max]: [string, number, number]): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`invalid ${name} "${part}"`);
    const step = m[4] ? Number(m[4]) : 1;
    const lo = m[1] === '*' ? min : Number(m[2]);
    const hi = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] ? max : lo;
    if (lo < min || hi > max || lo > hi || step < 1) throw new Error(`invalid ${name} "${part}" (allowed ${min}-${max})`);
    for (let v = lo; v <= hi; v += step) out.add(name === 'day of week' && v === 7 ? 0 : v);
  }
  return out;
}

/** Throws an Error naming the bad field. */
export function parseCron(expr: string): CronSchedule {
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`"${expr}" is not a 5-field cron expression`);
  const [minute, hour, dom, month, dow] = parts.map((p, i) => parseField(p, FIELDS[i]));
  const domAny = parts[2] === '*';
  const dowAny = parts[4] === '*';
  const matches = (d: Date) => {
    if (!minute.has(d.getMinutes()) || !hour.has(d.getHours()) || !month.has(d.getMonth() + 1)) return false;
    const domOk = dom.has(d.getDate());
    const dowOk = dow.has(d.getDay());
    return domAny || dowAny ? domOk && dowOk : domOk || dowOk;
  };
  return {
    matches,
    next(from) {
      const d = new Date(from);
      d.setSeconds(0, 0);
      for (let i = 0; i < 366 * 24 * 60; i++) {
        d.setMinutes(d.getMinutes() + 1);
        if (matches(d)) return new Date(d);
      }
      return null;
    },
  };
}
