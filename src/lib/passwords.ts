import { randomBytes, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { DedicatedThread } from './dedicated-thread.ts';

// Console passwords are stored as scrypt output (node:crypto, memory-hard), never in clear. The stored
// form carries its parameters — `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64url — so the cost can be
// raised later without invalidating existing passwords. The parameters follow OWASP's scrypt guidance
// (N = 2^15 with r = 8 and p = 3: 32 MiB and about 300 ms of one core per hash on the development machine).
//
// Hashing runs in threads of its own, never on the event loop and never in libuv's shared pool: a burst of
// sign-ins there once held every fs call behind it, the WAL fsync each SQLite answer waits for included,
// and stalled the whole API for 14 s. The threads take at most half the cores (at least one), and only
// HASHING_QUEUE calls per thread may wait: beyond that a hash is refused at once (HashingBusyError), so a
// burst costs bounded CPU and a bounded wait instead of a queue that grows with the attack.

const LOG_N = 15;
const R = 8;
const P = 3;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

/** Shortest and longest passwords accepted (long enough to resist guessing; bounded so hashing stays cheap). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

/** Calls that may wait per hashing thread, besides the one it runs. */
const HASHING_QUEUE = 4;

interface ScryptCall {
  password: string;
  salt: Uint8Array;
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

const SCRYPT_HANDLER = `({ password, salt, N, r, p, keyLength }) =>
  require('node:crypto').scryptSync(password, Buffer.from(salt), keyLength, { N, r, p, maxmem: 256 * N * r })`;

/** The hash was not computed: every hashing thread has its queue full. Nothing was checked; try again shortly. */
export class HashingBusyError extends Error {}

let threads: Array<DedicatedThread<ScryptCall, Uint8Array>> | null = null;

function hashingThreads(): Array<DedicatedThread<ScryptCall, Uint8Array>> {
  threads ??= Array.from({ length: Math.max(1, Math.floor(availableParallelism() / 2)) }, (_, i) => new DedicatedThread<ScryptCall, Uint8Array>(`password hashing ${i + 1}`, SCRYPT_HANDLER));
  return threads;
}

/** Whether a hash asked for now would be accepted (a sign-in checks before it counts an attempt). */
export function hashingHasRoom(): boolean {
  return hashingThreads().some((thread) => thread.pending <= HASHING_QUEUE);
}

async function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const thread = hashingThreads().reduce((best, next) => (next.pending < best.pending ? next : best));
  if (thread.pending > HASHING_QUEUE) throw new HashingBusyError('Too many passwords are being checked at once');
  const key = await thread.run({ password: password.normalize('NFKC'), salt, N: 2 ** logN, r, p, keyLength: KEY_LENGTH });
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
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
 * A stored form no password matches (a random salt and key), verified against when a sign-in names an
 * unknown account, so that the answer takes as long as for a known one and does not tell which e-mail
 * addresses have accounts. Random bytes in place of a real hash cost the same to check.
 */
const decoy = ['scrypt', LOG_N, R, P, randomBytes(SALT_BYTES).toString('base64url'), randomBytes(KEY_LENGTH).toString('base64url')].join('$');
export function decoyHash(): string {
  return decoy;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `must have at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must have at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim() === '') return 'must not be only spaces';
  return null;
}
