// Go duration strings ("10ms", "15s", "1h30m"), which listmonk settings use. A leaf module at the
// root of src/: settings validate durations with it, and the modules that read settings (mail,
// bounces, delivery) parse them with it, so none of them imports another folder for it.
const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or null when the text is not a Go duration. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return null;
    total += Number(m[1]) * UNITS[m[2]];
    pos = re.lastIndex;
  }
  return pos > 0 ? total : null;
}
