import { CompiledQuery } from 'kysely';
import { isPostgres, type Executor } from './db.ts';

// Several reads answered by one statement (PostgreSQL). Each statement is a round trip to the server,
// and on this 2-core machine one costs a request about 240 µs of Node.js CPU more than an in-process
// SQLite statement (GET voucher: 409 against 165 µs for its one statement, full-scale bench). Reads
// that need no result of each other and may see the same snapshot are sent as one SELECT whose columns
// are their results, each a JSON array of its rows: the counterpart of src/store/held-writes.ts for
// reads. SQLite, in-process, runs them one after another.
//
// The rows come back as JSON: a value keeps its JSON type (numbers, strings, null), so a column whose
// driver would give a string (a PostgreSQL numeric, a bigint) may arrive as a number. Callers read them
// with Number(), as they read those columns anyway.

/**
 * Adds the query's parameters to `parameters` (those of the statements before it in one combined
 * statement) and returns its SQL with each `$n` renumbered after them.
 */
export function appendParameters(parameters: unknown[], query: CompiledQuery): string {
  const offset = parameters.length;
  parameters.push(...query.parameters);
  return offset === 0 ? query.sql : renumbered(query.sql, offset);
}

// The same statements are combined at the same offsets request after request (a redemption's held
// writes: about 200 parameters in 7 parts), and rewriting their text was 1.6 % of a PostgreSQL
// redemption's CPU (profile of the quick bench). A statement's text is the one object its prepared query
// keeps, so the lookup by it is cheap; the cap bounds what unforeseen variants can add.
const MAX_RENUMBERED = 256;
const renumberedTexts = new Map<string, Map<number, string>>();
let renumberedCount = 0;

/** `sql` with each `$n` written as `$(n + offset)`. */
function renumbered(sql: string, offset: number): string {
  const known = renumberedTexts.get(sql)?.get(offset);
  if (known !== undefined) return known;
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  if (renumberedCount < MAX_RENUMBERED) {
    let byOffset = renumberedTexts.get(sql);
    if (byOffset === undefined) renumberedTexts.set(sql, (byOffset = new Map()));
    byOffset.set(offset, text);
    renumberedCount += 1;
  }
  return text;
}

/** The rows of each query, in order; one round trip on PostgreSQL. */
export async function readTogether(db: Executor, queries: readonly CompiledQuery[]): Promise<Array<Array<Record<string, unknown>>>> {
  if (!isPostgres(db) || queries.length < 2) {
    const out: Array<Array<Record<string, unknown>>> = [];
    for (const query of queries) out.push((await db.executeQuery<Record<string, unknown>>(query)).rows);
    return out;
  }
  const parameters: unknown[] = [];
  const columns = queries.map((query, i) => `(select coalesce(json_agg(q), '[]'::json) from (${appendParameters(parameters, query)}) as q) as r${i}`);
  const result = await db.executeQuery<Record<string, Array<Record<string, unknown>>>>(CompiledQuery.raw(`select ${columns.join(', ')}`, parameters));
  const row = result.rows[0];
  if (!row) throw new Error('a combined read answered no row');
  return queries.map((_, i) => row[`r${i}`] ?? []);
}
