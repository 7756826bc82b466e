// Moved to src/duration.ts. Kept only for src/delivery/throttle.ts, which is being reworked
// elsewhere: once its import names '../duration.ts', delete this file.
export { parseDuration } from '../duration.ts';
