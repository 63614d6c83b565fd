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
 * How long a slice of work that runs in one transaction may take. On SQLite the transaction holds the
 * event loop and the one writer: SLICE_MS. On PostgreSQL the event loop serves requests while each of
 * the slice's statements is on the network, and the slice holds only the rows it writes; what costs is
 * the commit (a disk flush), so slices there are longer: 5 ms was one or two rows of a CSV import, and a
 * 50,000-row import took over five minutes.
 */
export function transactionSliceMs(dialect: 'sqlite' | 'postgres'): number {
  return dialect === 'sqlite' ? SLICE_MS : 100;
}

/**
 * Passes of the event loop a job waits at most for the API requests queued for their turn, so that a
 * steady stream of requests slows a job down but cannot stop it.
 */
const MAX_PASSES_FOR_REQUESTS = 16;

/** API requests waiting for their turn on SQLite; src/http/plugins/turns.ts keeps the count. */
let requestsWaiting = 0;

export const requestsWaitingForTurn = {
  get count(): number {
    return requestsWaiting;
  },
  add(): void {
    requestsWaiting++;
  },
  remove(): void {
    requestsWaiting--;
  },
};

const nextPass = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves in a later pass of the event loop, after its I/O: connections are accepted and arrived
 * requests are read and answered. The API requests waiting for their turn on SQLite take one turn per
 * pass (src/http/plugins/turns.ts); the caller waits until they have all had it (at most
 * MAX_PASSES_FOR_REQUESTS passes), so requests queued during a slice run before the next slice.
 */
export async function yieldToRequests(): Promise<void> {
  await nextPass();
  for (let passes = 1; requestsWaiting > 0 && passes < MAX_PASSES_FOR_REQUESTS; passes++) await nextPass();
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
    if (performance.now() - this.#since < this.#maxMs && requestsWaiting === 0) return;
    await yieldToRequests();
    this.#since = performance.now();
  }
}

/**
 * How many rows the next statement of a repeated bulk statement (a delete taken a slice at a time) may
 * touch, so that each one lasts about `maxMs` whatever the rows hold: it starts at one row, doubles while
 * statements end within half of `maxMs` and halves when one runs over, never past `maxRows`.
 */
export class StatementSize {
  readonly #maxRows: number;
  readonly #maxMs: number;
  #rows = 1;

  constructor(maxRows: number, maxMs = SLICE_MS) {
    this.#maxRows = maxRows;
    this.#maxMs = maxMs;
  }

  get rows(): number {
    return this.#rows;
  }

  /** Records how long the last statement took. */
  took(ms: number): void {
    if (ms > this.#maxMs) this.#rows = Math.max(1, Math.floor(this.#rows / 2));
    else if (ms < this.#maxMs / 2) this.#rows = Math.min(this.#maxRows, this.#rows * 2);
  }
}

/**
 * Turns for slices of work that may run side by side, several uploads staging at once for example: one
 * slice per pass of the event loop, in the order they asked, each after the API requests queued for
 * their turn (as yieldToRequests waits for them). Without it, five uploads that each yielded after their
 * own slice still ran their five slices back to back in every pass.
 */
export class SliceTurns {
  readonly #waiting: Array<() => void> = [];
  #scheduled = false;
  /** Passes the next grant has waited for requests. */
  #deferred = 0;

  /** Resolves in a later pass of the event loop, when it is this caller's turn. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (requestsWaiting > 0 && this.#deferred < MAX_PASSES_FOR_REQUESTS) {
        this.#deferred++;
      } else {
        this.#deferred = 0;
        // The granted slice runs in the microtasks that follow this callback; the next grant waits for the next pass.
        this.#waiting.shift()?.();
      }
      this.#schedule();
    });
  }
}
