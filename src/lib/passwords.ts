import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Console passwords are stored as scrypt output (node:crypto, memory-hard), never in clear. The stored
// form carries its parameters — `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64url — so the cost can be
// raised later without invalidating existing passwords. The parameters follow OWASP's scrypt guidance
// (N = 2^15 with r = 8 and p = 3: 32 MiB per hash). scrypt runs in libuv's thread pool, so a sign-in never
// blocks the event loop.

const LOG_N = 15;
const R = 8;
const P = 3;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

/** Shortest and longest passwords accepted (long enough to resist guessing; bounded so hashing stays cheap). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; false for any malformed stored value. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !logN || !r || !p || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of a random password, verified against when a sign-in names an unknown account, so that the
 * answer takes as long as for a known one and does not tell which e-mail addresses have accounts.
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `must have at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must have at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim() === '') return 'must not be only spaces';
  return null;
}
