import Database from 'better-sqlite3';
import pg from 'pg';

// Raw bulk access to a benchmark database, below Kysely: seeding millions of rows through the query
// builder would cost more than the inserts themselves. Rows are plain objects keyed by column name, as
// the database hands them back, so a template row read from the database can be cloned and written again.

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

export interface Bulk {
  readonly dialect: 'sqlite' | 'postgres';
  query(sql: string, params?: Cell[]): Promise<Row[]>;
  exec(sql: string): Promise<void>;
  /** Inserts rows (all with the columns of the first) inside one transaction per call. */
  insert(table: string, rows: Row[]): Promise<void>;
  /** Drops the table's secondary indexes (not those backing primary keys or constraints); returns their DDL. */
  dropIndexes(table: string): Promise<string[]>;
  close(): Promise<void>;
}

function sqliteValue(value: Cell): string | number | null {
  return value === true ? 1 : value === false ? 0 : value;
}

export function openSqliteBulk(file: string): Bulk {
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  // A throwaway database being filled: losing it in a crash costs only a re-run, so skip the fsyncs.
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const statements = new Map<string, Database.Statement>();
  return {
    dialect: 'sqlite',
    async query(sql, params = []) {
      const statement = db.prepare(sql);
      if (!statement.reader) {
        statement.run(params.map(sqliteValue));
        return [];
      }
      return statement.all(params.map(sqliteValue)) as Row[];
    },
    async exec(sql) {
      db.exec(sql);
    },
    async insert(table, rows) {
      const first = rows[0];
      if (!first) return;
      const columns = Object.keys(first);
      const key = `${table}(${columns.join(',')})`;
      let statement = statements.get(key);
      if (!statement) {
        statement = db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
        statements.set(key, statement);
      }
      const stmt = statement;
      db.transaction(() => {
        for (const row of rows) stmt.run(columns.map((c) => sqliteValue(row[c] ?? null)));
      })();
    },
    async dropIndexes(table) {
      const indexes = db.prepare(`select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null`).all(table) as Array<{ name: string; sql: string }>;
      for (const index of indexes) db.exec(`drop index ${index.name}`);
      return indexes.map((i) => i.sql);
    },
    async close() {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

export async function openPostgresBulk(url: string): Promise<Bulk> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Throwaway data: no need to wait for each commit's WAL flush.
  await client.query('set synchronous_commit = off');
  await client.query("set maintenance_work_mem = '512MB'");
  return {
    dialect: 'postgres',
    async query(sql, params = []) {
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      return (await client.query(text, params)).rows as Row[];
    },
    async exec(sql) {
      await client.query(sql);
    },
    async insert(table, rows) {
      const first = rows[0];
      if (!first) return;
      const columns = Object.keys(first);
      // PostgreSQL takes at most 65535 parameters per statement.
      const perStatement = Math.max(1, Math.floor(60_000 / columns.length));
      await client.query('begin');
      try {
        for (let i = 0; i < rows.length; i += perStatement) {
          const slice = rows.slice(i, i + perStatement);
          const params: Cell[] = [];
          const tuples = slice.map((row) => `(${columns.map((c) => `$${params.push(row[c] ?? null)}`).join(', ')})`);
          await client.query(`insert into ${table} (${columns.join(', ')}) values ${tuples.join(', ')}`, params);
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    },
    async dropIndexes(table) {
      const { rows } = await client.query<{ name: string; def: string }>(
        `select i.relname as name, pg_get_indexdef(i.oid) as def
           from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
          where t.relname = $1 and t.relnamespace = current_schema()::regnamespace
            and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
        [table],
      );
      for (const index of rows) await client.query(`drop index ${index.name}`);
      return rows.map((r) => r.def);
    },
    async close() {
      await client.end();
    },
  };
}
