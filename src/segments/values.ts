// Postgres' input rules for literal values, in plain JavaScript. The translator uses them to
// check and convert quoted literals once, at translation time; the registered SQL functions
// use the same rules for values that only exist row by row.

const INTEGER = /^\s*[+-]?\d+\s*$/;
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** Postgres `'…'::int`: an optional sign and digits, surrounding spaces allowed. */
export function parseInteger(text: string): number | null {
  if (!INTEGER.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** Postgres `'…'::numeric`. */
export function parseNumeric(text: string): number | null {
  return NUMERIC.test(text) ? Number(text) : null;
}

const TRUE_WORDS = new Set(['t', 'true', 'y', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['f', 'false', 'n', 'no', 'off', '0']);

/** Postgres `'…'::boolean`. */
export function parseBoolean(text: string): boolean | null {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}
export const BOOLEAN_WORDS = { true: [...TRUE_WORDS], false: [...FALSE_WORDS] };

const TIMESTAMP =
  /^\s*(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$/i;

/**
 * A timestamp literal ('2024-05-01', '2024-05-01 10:00', '2024-05-01T10:00:00.5+02:00', 'now',
 * 'today'…) as epoch milliseconds. Without a zone it is UTC, the zone listmgr stores in.
 */
export function parseTimestamp(text: string, now: Date): number | null {
  const word = text.trim().toLowerCase();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const DAY = 86_400_000;
  if (word === 'now') return now.getTime();
  if (word === 'today') return today;
  if (word === 'yesterday') return today - DAY;
  if (word === 'tomorrow') return today + DAY;
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', zone] = m;
  const ms = Math.round(Number(`0.${frac}`) * 1000);
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const check = new Date(local);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return null;
  }
  if (!zone || zone.toUpperCase() === 'Z') return local;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * 60_000;
  return local - sign * offset;
}

/** The stored shape of a timestamp: 'YYYY-MM-DDTHH:MM:SS.mmmZ'. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** A date literal as 'YYYY-MM-DD' (a time part is dropped, as Postgres' `::date`). */
export function parseDate(text: string, now: Date): string | null {
  const ms = parseTimestamp(text, now);
  return ms === null ? null : formatTimestamp(ms).slice(0, 10);
}

/** A Postgres interval, kept in its three parts because months and days vary in length. */
export interface Interval {
  months: number;
  days: number;
  ms: number;
}

const UNIT_MS: Record<string, Partial<Interval>> = {};
function unit(names: string[], value: Partial<Interval>): void {
  for (const name of names) UNIT_MS[name] = value;
}
unit(['microsecond', 'microseconds', 'us', 'usec', 'usecs'], { ms: 0.001 });
unit(['millisecond', 'milliseconds', 'ms', 'msec', 'msecs'], { ms: 1 });
unit(['second', 'seconds', 's', 'sec', 'secs'], { ms: 1000 });
unit(['minute', 'minutes', 'm', 'min', 'mins'], { ms: 60_000 });
unit(['hour', 'hours', 'h', 'hr', 'hrs'], { ms: 3_600_000 });
unit(['day', 'days', 'd'], { days: 1 });
unit(['week', 'weeks', 'w'], { days: 7 });
unit(['month', 'months', 'mon', 'mons'], { months: 1 });
unit(['year', 'years', 'y', 'yr', 'yrs'], { months: 12 });
unit(['decade', 'decades'], { months: 120 });

const INTERVAL_PART = /\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([a-z]+)|\s*([+-]?)(\d+):(\d{2})(?::(\d{2}(?:\.\d+)?))?/iy;

/**
 * Postgres interval input: '30 days', '1 day 2 hours', '-1 week', '1.5 hours', '01:30:00',
 * '3 days ago'. Fractions of months and days spill into the smaller parts, as in Postgres.
 */
export function parseInterval(text: string): Interval | null {
  let body = text.trim().toLowerCase();
  let sign = 1;
  if (body.endsWith(' ago')) {
    body = body.slice(0, -4);
    sign = -1;
  }
  const result: Interval = { months: 0, days: 0, ms: 0 };
  INTERVAL_PART.lastIndex = 0;
  let matched = false;
  while (INTERVAL_PART.lastIndex < body.length) {
    const start = INTERVAL_PART.lastIndex;
    const m = INTERVAL_PART.exec(body);
    if (!m || INTERVAL_PART.lastIndex === start) return null;
    matched = true;
    if (m[2] !== undefined) {
      const per = UNIT_MS[m[2]];
      if (!per) return null;
      const n = Number(m[1]);
      const months = n * (per.months ?? 0);
      const days = n * (per.days ?? 0) + (months - Math.trunc(months)) * 30;
      result.months += Math.trunc(months);
      result.days += Math.trunc(days);
      result.ms += n * (per.ms ?? 0) + (days - Math.trunc(days)) * 86_400_000;
    } else {
      const clockSign = m[3] === '-' ? -1 : 1;
      result.ms += clockSign * (Number(m[4]) * 3_600_000 + Number(m[5]) * 60_000 + Number(m[6] ?? 0) * 1000);
    }
  }
  if (!matched) return null;
  // `|| 0` keeps -0 out of the parts
  return { months: sign * result.months || 0, days: sign * result.days || 0, ms: sign * result.ms || 0 };
}

/** timestamp + interval as Postgres computes it: months first (clamped to the month's end), then days, then time. */
export function addInterval(ms: number, interval: Interval, sign: 1 | -1): number {
  const d = new Date(ms);
  if (interval.months !== 0) {
    const target = d.getUTCMonth() + sign * interval.months;
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(target);
    const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    d.setUTCDate(Math.min(day, lastDay));
  }
  return d.getTime() + sign * (interval.days * 86_400_000 + interval.ms);
}
