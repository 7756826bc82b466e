// User-written regular expressions (segment operators, Sprig's regex functions in templates)
// must not hold the main thread for hours: "(a+)+$", or "a*a*a*b" over a long value, backtrack
// exponentially or polynomially. V8 moves an expression that backtracks excessively to its
// linear-time engine; the second flag lets runsInLinearTime ask (flag "l") whether a pattern
// can run there. Both are set when this module loads, before any such pattern is compiled;
// the server's other expressions only gain.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
setFlagsFromString('--enable-experimental-regexp-engine');

/**
 * Whether V8's linear engine can run the pattern with these flags: not with backreferences,
 * lookaround, or the i, u and d flags. Such a pattern, compiled without "l", backtracks until
 * that would take long, then runs in linear time.
 */
export function runsInLinearTime(source: string, flags = ''): boolean {
  try {
    new RegExp(source, `${flags}l`);
    return true;
  } catch {
    return false;
  }
}
