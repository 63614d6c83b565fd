// Fixed-window request counting per project, in this process's memory. With several server processes
// each process enforces the limit on its own share of the traffic.

export interface WindowLimit {
  value: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the tightest window resets. */
  resetAt: number;
}

export class FixedWindowLimiter {
  readonly #counts = new Map<string, { window: number; count: number }>();

  /** Counts one request against every limit; the request passes only if all of them still have room. */
  hit(bucket: string, limits: readonly WindowLimit[], nowMs: number): RateDecision {
    let tightest: RateDecision | null = null;
    let allowed = true;
    const updates: Array<[string, { window: number; count: number }]> = [];
    for (const limit of limits) {
      const window = Math.floor(nowMs / limit.windowMs);
      const key = `${bucket}|${limit.windowMs}`;
      const current = this.#counts.get(key);
      const count = current && current.window === window ? current.count : 0;
      if (count >= limit.value) allowed = false;
      updates.push([key, { window, count: count + 1 }]);
      const remaining = Math.max(0, limit.value - count - 1);
      const decision = { allowed: count < limit.value, limit: limit.value, remaining, resetAt: Math.ceil(((window + 1) * limit.windowMs) / 1000) };
      if (!tightest || decision.remaining < tightest.remaining) tightest = decision;
    }
    if (allowed) for (const [key, value] of updates) this.#counts.set(key, value);
    if (this.#counts.size > 100_000) this.#counts.clear();
    return { ...(tightest ?? { limit: 0, remaining: 0, resetAt: 0 }), allowed };
  }
}
