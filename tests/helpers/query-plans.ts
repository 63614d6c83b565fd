import { CompiledQuery, sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type UnknownRow } from 'kysely';
import type { TestDatabase } from './database.ts';

// The plans each database makes for the exact statements store code sends: `run` gets a handle that
// records every statement, and each one is then explained (SQLite: EXPLAIN QUERY PLAN; PostgreSQL:
// EXPLAIN with sequential scans disabled, since the test tables are empty and a scan would rightly win).

class Capture implements KyselyPlugin {
  readonly queries: PluginTransformQueryArgs[] = [];
  transformQuery(args: PluginTransformQueryArgs) {
    this.queries.push(args);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The plan text of every statement `run` sent, in order; fails when it sent none. */
export async function planOfStatements(handle: TestDatabase, run: (db: TestDatabase['db']) => Promise<unknown>): Promise<string[]> {
  const capture = new Capture();
  await run(handle.db.withPlugin(capture));
  if (capture.queries.length === 0) throw new Error('no statement captured');
  const out: string[] = [];
  for (const args of capture.queries) {
    const compiled = handle.db.getExecutor().compileQuery(args.node, args.queryId);
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
