import { CompiledQuery, sql, type QueryResult } from 'kysely';
import type { TestDatabase } from './database.ts';

// The plans each database makes for the exact statements store code sends: `run` gets a handle that
// records every statement it executes (SQL text and parameters, whether built per call or prepared once,
// src/store/prepared.ts), and each one is then explained (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN
// with sequential scans disabled, since the test tables are empty and a scan would rightly win).

/** The plan text of every statement `run` sent, in order; fails when it sent none. */
export async function planOfStatements(handle: TestDatabase, run: (db: TestDatabase['db']) => Promise<unknown>): Promise<string[]> {
  const executed: CompiledQuery[] = [];
  // A handle of its own (a new executor), so recording does not touch the shared one.
  const recording = handle.db.withoutPlugins();
  const executor = recording.getExecutor();
  const execute = executor.executeQuery.bind(executor);
  Object.assign(executor, {
    executeQuery: <R>(compiled: CompiledQuery<R>): Promise<QueryResult<R>> => {
      executed.push(compiled);
      return execute(compiled);
    },
  });
  await run(recording);
  if (executed.length === 0) throw new Error('no statement captured');
  const out: string[] = [];
  for (const compiled of executed) {
    if (handle.dialect === 'sqlite') {
      const rows = await handle.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
      out.push(rows.rows.map((r) => r.detail).join('\n'));
      continue;
    }
    out.push(
      await handle.db.transaction().execute(async (tx) => {
        await sql`set local enable_seqscan = off`.execute(tx);
        const rows = await tx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
        return rows.rows.map((r) => Object.values(r)[0]).join('\n');
      }),
    );
  }
  return out;
}
