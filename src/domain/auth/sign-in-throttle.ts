// How long a console sign-in must wait after failed attempts. Counted three ways:
// - per address and account together: the wait a person who mistypes meets, and the one that slows down
//   guessing one account's password from one address;
// - per client address, so many accounts cannot be tried from one;
// - per account from anywhere, so a password cannot be guessed from many addresses. Its allowance is far
//   above what one address may try, so a stranger who knows an admin's e-mail cannot keep the admin out.
// The first few failures cost nothing, then each further failure doubles the wait, up to a ceiling; a
// count whose last failure is older than FRESH_MS starts again. An attempt is counted before its password
// is checked (src/services/users/sessions.ts), so attempts sent at once get no more guesses than the same
// attempts one after another.

export const FRESH_MS = 15 * 60 * 1000;
const MAX_WAIT_MS = 15 * 60 * 1000;

export const FREE_FAILURES = { pair: 5, address: 20, account: 100 } as const;

export type ThrottleKind = keyof typeof FREE_FAILURES;

/** Milliseconds to wait after `failures` recent failures, the last at `lastFailureMs`, seen at `nowMs`. */
export function signInWaitMs(failures: number, lastFailureMs: number, nowMs: number, freeFailures: number): number {
  if (nowMs - lastFailureMs >= FRESH_MS) return 0;
  if (failures < freeFailures) return 0;
  const wait = Math.min(1000 * 2 ** (failures - freeFailures), MAX_WAIT_MS);
  return Math.max(0, lastFailureMs + wait - nowMs);
}
