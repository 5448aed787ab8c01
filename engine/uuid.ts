import { randomFillSync } from 'node:crypto';

// Random bytes are drawn in blocks: one call to the system's generator per 256 ids instead of
// one per id (a create with lines takes several).
const POOL = 16 * 256;
const pool = Buffer.allocUnsafe(POOL);
let offset = POOL;

/** UUIDv7 (RFC 9562): 48-bit millisecond timestamp then random bits, so ids sort by creation. */
export function uuidv7(): string {
  if (offset === POOL) {
    randomFillSync(pool);
    offset = 0;
  }
  const b = pool.subarray(offset, (offset += 16));
  const ms = Date.now();
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
