import { sql } from 'kysely';
import type { Dialect, Executor } from './db.ts';

// PostgreSQL plans each query from statistics that autovacuum refreshes in the background, at its own
// pace (a minute apart by default, never where it is turned off). A job that fills an empty table with
// tens of thousands of rows outruns it: with statistics that still say "empty", a lookup by source_id
// was planned as a scan of another index and took 170 ms at 20,000 rows, and a 50,000-row CSV import
// slowed to a few rows a second. So such a job refreshes the statistics of the table it fills itself,
// each time the rows it added have doubled. SQLite plans from its indexes without statistics.

export type FilledTable = 'customers' | 'products' | 'skus' | 'vouchers';

/** Counts the rows a job adds and refreshes the table's statistics after 1,000, 2,000, 4,000, … of them. */
export class StatisticsRefresher {
  readonly #table: FilledTable;
  readonly #dialect: Dialect;
  #added = 0;
  #nextAt = 1_000;

  constructor(dialect: Dialect, table: FilledTable) {
    this.#dialect = dialect;
    this.#table = table;
  }

  async added(db: Executor, rows: number): Promise<void> {
    this.#added += rows;
    if (this.#dialect !== 'postgres' || this.#added < this.#nextAt) return;
    this.#nextAt = this.#added * 2;
    await sql`analyze ${sql.table(this.#table)}`.execute(db);
  }
}
