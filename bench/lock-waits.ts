import pg from 'pg';

// How often the servers' PostgreSQL connections wait on a lock, for issue 18's "sampled waits on row
// locks < 5 % of busy connections". While a measured window runs, a connection of its own reads
// pg_stat_activity every few milliseconds and counts, over the server connections of the bench's
// database, those that are busy (inside a statement or a transaction: state other than idle) and, of
// those, the ones waiting on a heavyweight lock (wait_event_type 'Lock': a row, tuple or transaction id
// another transaction holds). The ratio of the two sums is the share of busy connection time spent
// waiting for someone else's lock; a hot row every redemption touched would show as most of it.

export interface LockWaits {
  samples: number;
  /** Busy server connections, summed over the samples. */
  busy: number;
  /** Of those, connections waiting on a lock. */
  waiting: number;
}

export interface LockSampler {
  stop(): Promise<LockWaits>;
}

// The sampler's own queries run on the cores it measures. Every 20 ms its client alone took 25 ms of CPU
// per second (about 370 µs per sample, measured by itself: code called 50 times a second is barely
// optimised), 125 µs per redemption at 200/s, charged to the load generator and taken from the server and
// PostgreSQL on two cores. Every 50 ms it takes 12-14 ms per second (an idle process 1.6 ms), and a quick
// run's 5-second window still gathers about 100 samples, each counting every busy server connection.
const INTERVAL_MS = 50;

export async function sampleLockWaits(url: string): Promise<LockSampler> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const totals: LockWaits = { samples: 0, busy: 0, waiting: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ busy: string; waiting: string }>({
        name: 'bench_lock_waits',
        text: `select count(*) filter (where state <> 'idle') as busy,
                count(*) filter (where state <> 'idle' and wait_event_type = 'Lock') as waiting
           from pg_stat_activity
          where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
      });
      totals.samples++;
      totals.busy += Number(rows[0]?.busy ?? 0);
      totals.waiting += Number(rows[0]?.waiting ?? 0);
      await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return totals;
    },
  };
}

export function lockWaitShare(waits: LockWaits): number {
  return waits.busy === 0 ? 0 : waits.waiting / waits.busy;
}
