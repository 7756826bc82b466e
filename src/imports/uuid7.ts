// Time-ordered UUIDs (RFC 9562 version 7): 48 bits of Unix milliseconds, then a 12-bit
// sequence that keeps ids strictly increasing within a millisecond, then 62 random bits.
// Ids made one after another sort in creation order, so inserting them appends to the
// uuid index instead of touching random pages (what makes bulk imports fast).
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const POOL_SIZE = 8 * 1024;

export class Uuid7Generator {
  private lastMs = 0;
  private seq = 0;
  private readonly pool = Buffer.alloc(POOL_SIZE);
  private poolPos = POOL_SIZE;

  next(now = Date.now()): string {
    let ms = now;
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      if (++this.seq > 0xfff) {
        ms += 1; // sequence exhausted: borrow the next millisecond to stay ordered
        this.seq = 0;
      }
    } else {
      this.seq = 0;
    }
    this.lastMs = ms;
    if (this.poolPos + 8 > POOL_SIZE) {
      randomFillSync(this.pool);
      this.poolPos = 0;
    }
    const r = this.pool;
    const p = this.poolPos;
    this.poolPos += 8;
    const hi = Math.floor(ms / 0x10000);
    const lo = ms % 0x10000;
    const timeHex = hi.toString(16).padStart(8, '0') + '-' + lo.toString(16).padStart(4, '0');
    const verSeq = (0x7000 | this.seq).toString(16);
    const variant = HEX[0x80 | (r[p] & 0x3f)] + HEX[r[p + 1]];
    return `${timeHex}-${verSeq}-${variant}-${HEX[r[p + 2]]}${HEX[r[p + 3]]}${HEX[r[p + 4]]}${HEX[r[p + 5]]}${HEX[r[p + 6]]}${HEX[r[p + 7]]}`;
  }
}
