import type { FastifyInstance } from 'fastify';
import { requestsWaitingForTurn } from '../../lib/slices.ts';

// On SQLite a request's database work is synchronous: once its handler starts, it runs to the end
// without giving the event loop back. Node reads every socket that is ready in one pass of the loop and
// starts each request's handler right there, so under load one pass runs one request from every busy
// connection back to back (32 redemptions ≈ 250 ms). Node also accepts only one new connection per
// pass, so a client that connects while the server is busy waited one such pass per connection queued
// before it — measured at up to 4 s for the last of 32 new connections in the redemption benchmark.
//
// Turns fix the pass length: API requests wait for their turn, and one turn is granted per pass of the
// loop (each grant schedules the next with setImmediate, which always lands in the next
// pass). Between two turns Node accepts a connection and reads whatever arrived. Throughput is the same,
// because the work was serial anyway; the order becomes first come, first served across connections.
// Background jobs in this process let the waiting requests have their turns before their next slice
// (src/lib/slices.ts), so the count of waiting requests is kept there.

export class Turns {
  readonly #waiting: Array<() => void> = [];
  #scheduled = false;

  /** Resolves when it is this caller's turn: one caller per pass of the event loop, in arrival order. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      requestsWaitingForTurn.add();
      this.#waiting.push(() => {
        requestsWaitingForTurn.remove();
        resolve();
      });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#waiting.shift()?.();
      // The granted request runs in the microtasks that follow this callback; the next grant waits for
      // the next pass.
      this.#schedule();
    });
  }
}

/**
 * Gives every API request (`/v1`, `/client/v1`, `/management/v1`: the ones that use the database) one turn
 * per pass of the event loop. Health, readiness and metrics probes go straight through, so a busy server
 * still answers them at once. Only for SQLite: with PostgreSQL the loop is free while queries run.
 */
export function installTurns(app: FastifyInstance): void {
  const turns = new Turns();
  app.addHook('onRequest', async (request) => {
    if (!takesTurn(request.url)) return;
    await turns.next();
  });
}

/** Whether a request to `url` waits for a turn: those of the API areas. */
export function takesTurn(url: string): boolean {
  return url.startsWith('/v1/') || url.startsWith('/client/v1/') || url.startsWith('/management/v1/');
}
