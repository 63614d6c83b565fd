// How long a console sign-in must wait after failed attempts. Counted per account (so a password cannot be
// guessed from many addresses) and per client address (so many accounts cannot be tried from one). The
// first few failures cost nothing — people mistype — then each further failure doubles the wait, up to
// a ceiling; a count whose last failure is older than FRESH_MS starts again.

export const FRESH_MS = 15 * 60 * 1000;
const MAX_WAIT_MS = 15 * 60 * 1000;

export const FREE_FAILURES = { account: 5, address: 20 } as const;

/** Milliseconds to wait after `failures` recent failures, the last at `lastFailureMs`, seen at `nowMs`. */
export function signInWaitMs(failures: number, lastFailureMs: number, nowMs: number, freeFailures: number): number {
  if (nowMs - lastFailureMs >= FRESH_MS) return 0;
  if (failures < freeFailures) return 0;
  const wait = Math.min(1000 * 2 ** (failures - freeFailures), MAX_WAIT_MS);
  return Math.max(0, lastFailureMs + wait - nowMs);
}
