import { CompiledQuery } from 'kysely';
import { appendParameters } from './combined-reads.ts';
import { isPostgres, type Executor } from './db.ts';
import { sendAhead } from './pipelining.ts';

// Writes sent together at the end of a transaction (PostgreSQL). Every statement costs a round trip to
// the server, and a redemption ends with several writes whose outcome nobody reads before the commit:
// its records, their snapshots, the redemption and tier counts, its events. A transaction that holds its
// writes (inTransaction, src/services/context.ts) keeps those (PreparedQuery.write) and sends them just
// before the commit as one statement, each a data-modifying `WITH` part: 5 round trips become 1, and the
// counter rows every redemption moves are locked only for that last statement.
//
// Rules that keep this exact:
// - only writes whose result is not read are held, and nothing in the transaction reads the rows they
//   write before the commit (the callers of `write` say so);
// - the parts of one statement see the same snapshot and may run in any order, so one statement writes
//   each table once at most; a second write to a table starts the next statement, in the order held;
// - a savepoint that rolls back drops what it held (src/store/savepoints.ts).
// SQLite has no data-modifying WITH and no round trips: its writes are sent at once, as before.

const held = new WeakMap<object, CompiledQuery[]>();

/** PostgreSQL's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535;

/** From now on, writes sent through `tx` with PreparedQuery.write wait for flushWrites(tx) (PostgreSQL). */
export function holdWrites(tx: Executor): void {
  if (isPostgres(tx)) held.set(tx, []);
}

/** Sends `query` now, or keeps it for the commit when `db` holds its writes. */
export async function sendOrHold(db: Executor, query: CompiledQuery): Promise<void> {
  const list = held.get(db);
  if (list) list.push(query);
  else await db.executeQuery(query);
}

/** How many writes `tx` holds (a mark to go back to when a savepoint rolls back). */
export function heldWriteCount(tx: Executor): number {
  return held.get(tx)?.length ?? 0;
}

/** Forgets the writes held for `tx` after the first `mark` (their savepoint rolled back). */
export function dropHeldWrites(tx: Executor, mark: number): void {
  held.get(tx)?.splice(mark);
}

/**
 * Sends the writes `tx` holds, then `last` (the transaction's events), in as few statements as the rules
 * allow; on PostgreSQL inside a transaction without waiting for their answers: call it last, before the
 * commit. Outside a transaction each is awaited: no COMMIT would come to read an error sent ahead.
 */
export async function flushWrites(tx: Executor, last: readonly CompiledQuery[] = []): Promise<void> {
  const list = held.get(tx);
  const queries = [...(list ?? []), ...last];
  if (list) list.length = 0;
  if (queries.length === 0) return;
  if (!isPostgres(tx) || !tx.isTransaction) {
    for (const query of queries) await tx.executeQuery(query);
    return;
  }
  // Nothing reads their answers: they go out behind each other and ahead of the COMMIT, which throws
  // their error if one failed (./pipelining.ts).
  for (const group of statementGroups(queries)) await tx.executeQuery(sendAhead(group.length === 1 ? (group[0] as CompiledQuery) : combined(group)));
}

/** The table a held write changes, or null when it is not a plain INSERT/UPDATE/DELETE (sent alone). */
function targetTable(query: CompiledQuery): string | null {
  const match = /^\s*(?:insert\s+into|update|delete\s+from)\s+("[^"]+"|\w+)/i.exec(query.sql);
  return match?.[1] ?? null;
}

/** Consecutive runs of writes that may share one statement: distinct tables, parameters within the limit. */
function statementGroups(queries: readonly CompiledQuery[]): CompiledQuery[][] {
  const groups: CompiledQuery[][] = [];
  let group: CompiledQuery[] = [];
  let tables = new Set<string>();
  let parameters = 0;
  for (const query of queries) {
    const table = targetTable(query);
    const fits = table !== null && !tables.has(table) && parameters + query.parameters.length <= MAX_PARAMETERS;
    if (!fits && group.length > 0) {
      groups.push(group);
      group = [];
      tables = new Set();
      parameters = 0;
    }
    group.push(query);
    if (table === null) {
      groups.push(group);
      group = [];
      continue;
    }
    tables.add(table);
    parameters += query.parameters.length;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** `with w0 as (first), w1 as (second) … last`, each part's $n renumbered after the parts before it. */
function combined(group: readonly CompiledQuery[]): CompiledQuery {
  const parameters: unknown[] = [];
  const texts = group.map((query) => appendParameters(parameters, query));
  const main = texts.pop() as string;
  return CompiledQuery.raw(`with ${texts.map((text, i) => `w${i} as (${text})`).join(', ')} ${main}`, parameters);
}
