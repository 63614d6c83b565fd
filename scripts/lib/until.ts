import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` every 100 ms until it answers something other than null, and answers that; fails once
 * `timeoutMs` has passed. For work a client can only watch through the API (jobs, exports).
 */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not finish within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}
