import { randomBytes } from 'node:crypto';

/** UUIDv7 (RFC 9562): 48-bit millisecond timestamp then random bits, so ids sort by creation. */
export function uuidv7(): string {
  const b = randomBytes(16);
  const ms = Date.now();
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
