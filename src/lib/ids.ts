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

export const randomIds: Ids = {
  next: (prefix) => `${prefix}_${randomString(20)}`,
};

/** Request ids look like the vendor's: `v-` and 18 hex digits. */
export function newRequestId(): string {
  return `v-${randomBytes(9).toString('hex')}`;
}
