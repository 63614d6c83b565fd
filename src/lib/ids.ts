import { randomBytes } from 'node:crypto';

// Vendor-style identifiers: a type prefix and random lowercase alphanumerics (`cust_0b55b6c7e3ac2fa8f6`).
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export function randomString(length: number, alphabet = ALPHABET): string {
  // Rejection sampling keeps every character equally likely whatever the alphabet size.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export interface Ids {
  /** A new id with the given prefix, e.g. `next('cust')` → `cust_…`. */
  next(prefix: string): string;
}

/**
 * Ids that sort in creation order, as the vendor's do (`vtx_0c9dd3c2e392f78613`): 12 hex digits of
 * milliseconds, then 8 hex digits that are random for a new millisecond and count up within one. Lists
 * ordered by `id` (transactions, bin entries) are therefore chronological, and an id cursor is a plain
 * range condition.
 */
export function createSortableIds(now: () => number = Date.now): Ids {
  let lastMs = -1;
  let counter = 0;
  // A new millisecond comes with nearly every request: its random start is taken from a block of bytes
  // drawn at once, as request ids are (a draw from the CSPRNG per id was about 3 % of a validation).
  let pool = Buffer.alloc(0);
  let at = 0;
  const randomStart = (): number => {
    if (at + 4 > pool.length) {
      pool = randomBytes(4 * 1024);
      at = 0;
    }
    const value = pool.readUInt32BE(at) & 0x7fff_ffff;
    at += 4;
    return value;
  };
  return {
    next(prefix) {
      const ms = Math.max(now(), lastMs);
      if (ms === lastMs) counter = (counter + 1) % 0x1_0000_0000;
      else counter = randomStart();
      lastMs = ms;
      return `${prefix}_${ms.toString(16).padStart(12, '0')}${counter.toString(16).padStart(8, '0')}`;
    },
  };
}

export const sortableIds: Ids = createSortableIds();

// Every request takes an id; drawing 9 random bytes from the CSPRNG each time was a measurable share
// of a cheap request's CPU, so the bytes are drawn in blocks and handed out 9 at a time.
const REQUEST_ID_BYTES = 9;
const REQUEST_ID_BLOCK = REQUEST_ID_BYTES * 1024;
let requestIdPool = Buffer.alloc(0);
let requestIdAt = 0;

/** Request ids look like the vendor's: `v-` and 18 hex digits. */
export function newRequestId(): string {
  if (requestIdAt + REQUEST_ID_BYTES > requestIdPool.length) {
    requestIdPool = randomBytes(REQUEST_ID_BLOCK);
    requestIdAt = 0;
  }
  const id = `v-${requestIdPool.toString('hex', requestIdAt, requestIdAt + REQUEST_ID_BYTES)}`;
  requestIdAt += REQUEST_ID_BYTES;
  return id;
}
