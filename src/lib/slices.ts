// Background work shares the Node process with the API (`punchcard start` runs the worker inside). On
// SQLite every database call is synchronous, so a job that runs transaction after transaction without
// giving the event loop back holds every request, health probes included, until it ends: a 100,000-item
// bulk job kept /health from answering for five minutes. On SQLite the job's transactions also hold the
// one database writer that API requests need.
//
// So background work goes in slices: a slice does a bounded amount of work (a few items, a few
// milliseconds) and commits together with the job's progress, then the job yields to the event loop so
// the requests that arrived meanwhile run before the next slice. A crash between slices resumes after
// the last committed one.

/** How long one slice of background work may hold the event loop (and, on SQLite, the writer). */
export const SLICE_MS = 5;

/**
 * Resolves in the next pass of the event loop, after its I/O: connections are accepted, arrived requests
 * are read and answered, and the API requests waiting for their turn on SQLite (src/http/plugins/turns.ts)
 * take it, all before the caller continues.
 */
export function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One slice of work: full after `maxItems` items or `maxMs` milliseconds, whichever comes first. */
export class Slice {
  readonly #startedAt = performance.now();
  readonly #maxItems: number;
  readonly #maxMs: number;
  #items = 0;

  constructor(maxItems: number, maxMs = SLICE_MS) {
    this.#maxItems = maxItems;
    this.#maxMs = maxMs;
  }

  /** Counts `n` items done; answers whether the slice is now full. */
  add(n = 1): boolean {
    this.#items += n;
    return this.#items >= this.#maxItems || performance.now() - this.#startedAt >= this.#maxMs;
  }
}

/**
 * For loops whose steps are short transactions of their own (one card, one batch): `between()` after
 * each step yields to the event loop once `maxMs` of work has gone by since the last yield, so the loop
 * runs in slices of about that length without paying for a pass of the event loop after every step.
 */
export class Pacer {
  readonly #maxMs: number;
  #since = performance.now();

  constructor(maxMs = SLICE_MS) {
    this.#maxMs = maxMs;
  }

  async between(): Promise<void> {
    if (performance.now() - this.#since < this.#maxMs) return;
    await yieldToRequests();
    this.#since = performance.now();
  }
}
