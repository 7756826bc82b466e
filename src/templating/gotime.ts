// Go's time.Time as templates see it: formatting and parsing with Go reference layouts
// ("2006-01-02 15:04:05"), fixed offsets and IANA zones (through Intl). Intl is slow (about
// 10 µs a lookup, 50 µs a new zone), so renders are charged for it (meter.ts).

import { chargePerChar, chargeWalk } from './meter.ts';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export class GoTime {
  /** Milliseconds since the Unix epoch. */
  readonly ms: number;
  /** Nanoseconds within the millisecond (0-999999). */
  readonly subNanos: number;
  /** Zone offset east of UTC in seconds, and its abbreviation. */
  readonly offset: number;
  readonly zone: string;

  constructor(ms: number, offset: number, zone: string, subNanos = 0) {
    this.ms = ms;
    this.offset = offset;
    this.zone = zone;
    this.subNanos = subNanos;
  }

  /** Wall-clock fields in this time's zone (a Date whose UTC fields are the local fields). */
  private wall(): Date {
    return new Date(this.ms + this.offset * 1000);
  }

  // Methods reachable from templates, with Go's names.
  Format(layout: string): string { return formatGoTime(this, layout); }
  Year(): bigint { return BigInt(this.wall().getUTCFullYear()); }
  Month(): string { return MONTHS[this.wall().getUTCMonth()]; }
  Day(): bigint { return BigInt(this.wall().getUTCDate()); }
  Hour(): bigint { return BigInt(this.wall().getUTCHours()); }
  Minute(): bigint { return BigInt(this.wall().getUTCMinutes()); }
  Second(): bigint { return BigInt(this.wall().getUTCSeconds()); }
  Weekday(): string { return DAYS[this.wall().getUTCDay()]; }
  YearDay(): bigint { return BigInt(yearDay(this.wall())); }
  Unix(): bigint { return BigInt(Math.floor(this.ms / 1000)); }
  UnixMilli(): bigint { return BigInt(this.ms); }
  IsZero(): boolean { return this.ms === ZERO_MS && this.subNanos === 0; }
  UTC(): GoTime { return new GoTime(this.ms, 0, 'UTC', this.subNanos); }
  Local(): GoTime { return localTime(this.ms, this.subNanos); }
  String(): string { return formatGoTime(this, '2006-01-02 15:04:05.999999999 -0700 MST'); }
}

/** Go's zero time (0001-01-01 00:00:00 UTC). */
const ZERO_MS = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return d.getTime();
})();

export function zeroTime(): GoTime {
  return new GoTime(ZERO_MS, 0, 'UTC');
}

function yearDay(d: Date): number {
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return Math.round((day - start) / 86400000) + 1;
}

/** Units charged for an Intl lookup, and for making a formatter for a zone (or failing to). */
const INTL_LOOKUP = 200;
const INTL_NEW_ZONE = 1000;

// Zone names are case-insensitive for Intl, so templates can make any number of them: the
// caches keep a few hundred.
const zoneNameCache = new Map<string, Intl.DateTimeFormat>();
const invalidZones = new Set<string>();

function zoneFormatter(tz: string | undefined): Intl.DateTimeFormat {
  const key = tz ?? '';
  let f = zoneNameCache.get(key);
  if (!f) {
    chargeWalk(INTL_NEW_ZONE);
    if (zoneNameCache.size >= 500) zoneNameCache.clear();
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, timeZoneName: 'short', hourCycle: 'h23',
      year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    zoneNameCache.set(key, f);
  }
  return f;
}

/** Offset (seconds east of UTC) and abbreviation of IANA zone `tz` (undefined = local) at `ms`. */
// Every subscriber's timestamps are shown in the process's local zone: its offset comes from
// the native Date, and its name (the slow Intl part) is looked up once per offset.
const localZoneNames = new Map<number, string>();

export function zoneAt(ms: number, tz: string | undefined): { offset: number; zone: string } {
  if (tz === 'UTC' || tz === 'Etc/UTC') return { offset: 0, zone: 'UTC' };
  if (tz === undefined && Number.isFinite(ms) && ms >= 0) { // (older dates may have second-precise offsets)
    const offset = -new Date(ms).getTimezoneOffset() * 60;
    let zone = localZoneNames.get(offset);
    if (zone === undefined) {
      zone = intlZoneAt(ms, undefined).zone;
      localZoneNames.set(offset, zone);
    }
    return { offset, zone };
  }
  return intlZoneAt(ms, tz);
}

function intlZoneAt(ms: number, tz: string | undefined): { offset: number; zone: string } {
  chargeWalk(INTL_LOOKUP);
  const parts = zoneFormatter(tz).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const wall = new Date(0);
  wall.setUTCFullYear(get('year'), get('month') - 1, get('day'));
  wall.setUTCHours(get('hour'), get('minute'), get('second'), 0);
  const asUTC = wall.getTime();
  const offset = Math.round((asUTC - Math.floor(ms / 1000) * 1000) / 1000);
  let zone = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'UTC';
  if (zone === 'GMT' && offset === 0 && tz === undefined) zone = 'UTC';
  if (zone.startsWith('GMT') && zone !== 'GMT') zone = formatOffset(offset, '-0700').slice(0, offset % 3600 ? 5 : 3);
  return { offset, zone };
}

export function localTime(ms: number, subNanos = 0): GoTime {
  const z = zoneAt(ms, undefined);
  return new GoTime(ms, z.offset, z.zone, subNanos);
}

export function inZone(t: GoTime, tz: string): GoTime {
  if (tz === 'Local' || tz === '') return t.Local();
  const z = zoneAt(t.ms, tz);
  return new GoTime(t.ms, z.offset, z.zone, t.subNanos);
}

export function isValidZone(tz: string): boolean {
  if (tz === 'UTC' || tz === 'Local' || tz === '') return true;
  if (invalidZones.has(tz)) return false;
  try {
    zoneFormatter(tz);
    return true;
  } catch {
    if (invalidZones.size >= 500) invalidZones.clear();
    invalidZones.add(tz);
    return false;
  }
}

function pad(n: number, w: number, ch = '0'): string {
  const s = String(n);
  return s.length >= w ? s : ch.repeat(w - s.length) + s;
}

function formatOffset(offset: number, kind: string): string {
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const hh = pad(Math.floor(a / 3600), 2);
  const mm = pad(Math.floor((a % 3600) / 60), 2);
  const ss = pad(a % 60, 2);
  switch (kind) {
    case '-07': return sign + hh;
    case '-0700': return sign + hh + mm;
    case '-07:00': return `${sign}${hh}:${mm}`;
    case '-070000': return sign + hh + mm + ss;
    default: return `${sign}${hh}:${mm}:${ss}`;
  }
}

/** One layout element: a literal run or a Go std chunk name. */
type Chunk = { lit: string } | { std: string };

const layoutCache = new Map<string, Chunk[]>();

/** Splits a Go layout into literals and std chunks (Go's nextStdChunk rules). */
function layoutChunks(layout: string): Chunk[] {
  const cached = layoutCache.get(layout);
  if (cached) return cached;
  chargePerChar(layout);
  const out: Chunk[] = [];
  let lit = '';
  let i = 0;
  const starts = (s: string) => layout.startsWith(s, i);
  const push = (std: string) => {
    if (lit) out.push({ lit });
    lit = '';
    out.push({ std });
    i += std.length;
  };
  while (i < layout.length) {
    const c = layout[i];
    if (c === 'J' && starts('January')) { push('January'); continue; }
    if (c === 'J' && starts('Jan')) { push('Jan'); continue; }
    if (c === 'M' && starts('Monday')) { push('Monday'); continue; }
    if (c === 'M' && starts('Mon')) { push('Mon'); continue; }
    if (c === 'M' && starts('MST')) { push('MST'); continue; }
    if (c === '0' && /^0[1-6]/.test(layout.slice(i, i + 2))) { push(layout.slice(i, i + 2)); continue; }
    if (c === '0' && starts('002')) { push('002'); continue; }
    if (c === '1' && starts('15')) { push('15'); continue; }
    if (c === '1') { push('1'); continue; }
    if (c === '2' && starts('2006')) { push('2006'); continue; }
    if (c === '2') { push('2'); continue; }
    if (c === '_' && starts('_2') && !starts('_2006')) { push('_2'); continue; }
    if (c === '_' && starts('__2')) { push('__2'); continue; }
    if (c === '3' || c === '4' || c === '5') { push(c); continue; }
    if (c === 'P' && starts('PM')) { push('PM'); continue; }
    if (c === 'p' && starts('pm')) { push('pm'); continue; }
    if (c === '-' || c === 'Z') {
      const tail = c === '-' ? '' : 'Z';
      const forms = ['-07:00:00', '-070000', '-07:00', '-0700', '-07'];
      const f = forms.find((x) => starts(tail ? 'Z' + x.slice(1) : x));
      if (f) { push(tail ? 'Z' + f.slice(1) : f); continue; }
    }
    if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const d = layout[i + 1];
      let j = i + 1;
      while (layout[j] === d) j++;
      if (!/[0-9]/.test(layout[j] ?? '')) { push(layout.slice(i, j)); continue; }
    }
    lit += c;
    i++;
  }
  if (lit) out.push({ lit });
  // Templates can make any number of layouts: keep a few short ones.
  if (layout.length <= 256) {
    if (layoutCache.size >= 500) layoutCache.clear();
    layoutCache.set(layout, out);
  }
  return out;
}

export function formatGoTime(t: GoTime, layout: string): string {
  const w = new Date(t.ms + t.offset * 1000);
  const year = w.getUTCFullYear();
  const hour = w.getUTCHours();
  const nanos = (((t.ms % 1000) + 1000) % 1000) * 1e6 + t.subNanos;
  let s = '';
  const chunks = layoutChunks(layout);
  chargeWalk(chunks.length);
  for (const ch of chunks) {
    if ('lit' in ch) { s += ch.lit; continue; }
    const std = ch.std;
    switch (std) {
      case '2006': s += pad(year, 4); break;
      case '06': s += pad(year % 100, 2); break;
      case 'January': s += MONTHS[w.getUTCMonth()]; break;
      case 'Jan': s += MONTHS[w.getUTCMonth()].slice(0, 3); break;
      case '01': s += pad(w.getUTCMonth() + 1, 2); break;
      case '1': s += w.getUTCMonth() + 1; break;
      case 'Monday': s += DAYS[w.getUTCDay()]; break;
      case 'Mon': s += DAYS[w.getUTCDay()].slice(0, 3); break;
      case '02': s += pad(w.getUTCDate(), 2); break;
      case '2': s += w.getUTCDate(); break;
      case '_2': s += pad(w.getUTCDate(), 2, ' '); break;
      case '002': s += pad(yearDay(w), 3); break;
      case '__2': s += pad(yearDay(w), 3, ' '); break;
      case '15': s += pad(hour, 2); break;
      case '03': s += pad(hour % 12 || 12, 2); break;
      case '3': s += hour % 12 || 12; break;
      case '04': s += pad(w.getUTCMinutes(), 2); break;
      case '4': s += w.getUTCMinutes(); break;
      case '05': s += pad(w.getUTCSeconds(), 2); break;
      case '5': s += w.getUTCSeconds(); break;
      case 'PM': s += hour >= 12 ? 'PM' : 'AM'; break;
      case 'pm': s += hour >= 12 ? 'pm' : 'am'; break;
      case 'MST': s += t.zone || formatOffset(t.offset, '-0700'); break;
      default:
        if (std[0] === 'Z') {
          s += t.offset === 0 ? 'Z' : formatOffset(t.offset, '-' + std.slice(1));
        } else if (std[0] === '-') {
          s += formatOffset(t.offset, std);
        } else {
          // Fractional seconds: .000 fixed width, .999 trailing zeros removed.
          const digits = std.length - 1;
          let frac = pad(nanos, 9).slice(0, digits);
          if (std[1] === '9') {
            frac = frac.replace(/0+$/, '');
            if (frac) s += std[0] + frac;
          } else {
            s += std[0] + frac;
          }
        }
    }
  }
  return s;
}

/** time.ParseInLocation for the common layout elements; `tz` undefined = local zone. */
export function parseGoTime(layout: string, value: string, tz: string | undefined): GoTime {
  const fail = (): never => {
    throw new Error(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse`);
  };
  let year = 1, month = 1, day = 1, hour = 0, min = 0, sec = 0, nanos = 0, pm: boolean | null = null;
  let offset: number | null = null;
  let i = 0;
  const num = (min: number, max: number): number => {
    let j = i;
    while (j < value.length && j - i < max && value[j] >= '0' && value[j] <= '9') j++;
    if (j - i < min) fail();
    const n = Number(value.slice(i, j));
    i = j;
    return n;
  };
  const word = (list: string[], len?: number): number => {
    for (let k = 0; k < list.length; k++) {
      const w = len ? list[k].slice(0, len) : list[k];
      if (value.slice(i, i + w.length).toLowerCase() === w.toLowerCase()) {
        i += w.length;
        return k;
      }
    }
    return fail();
  };
  for (const ch of layoutChunks(layout)) {
    if ('lit' in ch) {
      if (!value.startsWith(ch.lit, i)) fail();
      i += ch.lit.length;
      continue;
    }
    switch (ch.std) {
      case '2006': year = num(4, 4); break;
      case '06': year = 2000 + num(2, 2); if (year >= 2069) year -= 100; break;
      case 'January': month = word(MONTHS) + 1; break;
      case 'Jan': month = word(MONTHS, 3) + 1; break;
      case '01': month = num(2, 2); break;
      case '1': month = num(1, 2); break;
      case 'Monday': word(DAYS); break;
      case 'Mon': word(DAYS, 3); break;
      case '02': day = num(2, 2); break;
      case '2': day = num(1, 2); break;
      case '_2': if (value[i] === ' ') i++; day = num(1, 2); break;
      case '002': case '__2': num(3, 3); break;
      case '15': hour = num(1, 2); break;
      case '03': hour = num(2, 2); break;
      case '3': hour = num(1, 2); break;
      case '04': min = num(2, 2); break;
      case '4': min = num(1, 2); break;
      case '05': sec = num(2, 2); break;
      case '5': sec = num(1, 2); break;
      case 'PM': case 'pm': pm = word(['AM', 'PM']) === 1; break;
      case 'MST': {
        const m = /^[A-Z]{3,5}/.exec(value.slice(i));
        if (!m) fail();
        i += m![0].length;
        if (m![0] === 'UTC' || m![0] === 'GMT') offset = 0;
        break;
      }
      default:
        if ((ch.std[0] === 'Z' && value[i] === 'Z')) { i++; offset = 0; break; }
        if (ch.std[0] === 'Z' || ch.std[0] === '-') {
          const m = /^([+-])(\d\d):?(\d\d)?(?::?(\d\d))?/.exec(value.slice(i));
          if (!m) fail();
          i += m![0].length;
          offset = (m![1] === '-' ? -1 : 1) * (Number(m![2]) * 3600 + Number(m![3] ?? 0) * 60 + Number(m![4] ?? 0));
          break;
        }
        // Fractional seconds.
        if (value[i] === '.' || value[i] === ',') {
          i++;
          const j0 = i;
          while (i < value.length && value[i] >= '0' && value[i] <= '9') i++;
          nanos = Number(value.slice(j0, i).padEnd(9, '0').slice(0, 9));
        }
    }
    // A fractional second may follow seconds even when the layout has none.
    if ((ch.std === '05' || ch.std === '5') && value[i] === '.' && !layout.includes('.', 0)) {
      i++;
      const j0 = i;
      while (i < value.length && value[i] >= '0' && value[i] <= '9') i++;
      nanos = Number(value.slice(j0, i).padEnd(9, '0').slice(0, 9));
    }
  }
  if (i !== value.length) throw new Error(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(value.slice(i))}`);
  if (pm !== null) {
    if (hour > 12) fail();
    if (pm && hour < 12) hour += 12;
    if (!pm && hour === 12) hour = 0;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59) {
    throw new Error(`parsing time ${JSON.stringify(value)}: value out of range`);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, min, sec, Math.floor(nanos / 1e6));
  const wallMs = d.getTime();
  const subNanos = nanos % 1e6;
  if (offset !== null) return new GoTime(wallMs - offset * 1000, offset, offset === 0 ? 'UTC' : '', subNanos);
  // Resolve the wall time in the zone: guess with the offset at that instant, then correct.
  let z = zoneAt(wallMs, tz);
  z = zoneAt(wallMs - z.offset * 1000, tz);
  return new GoTime(wallMs - z.offset * 1000, z.offset, z.zone, subNanos);
}
