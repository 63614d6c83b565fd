import { type Compilable, type CompiledQuery, type QueryResult } from 'kysely';
import { isPostgres, type Db, type Executor } from './db.ts';
import { sendOrHold } from './held-writes.ts';

// Queries built once and run many times. Building a Kysely query (parsing references, cloning and
// freezing the operation tree, compiling it to text) costs 10–120 µs, several times what SQLite takes to
// run an indexed lookup, so on hot paths the build dominated the request. A prepared query is built and
// compiled once per dialect with a placeholder standing in for each argument; every run only fills the
// arguments into the compiled parameter list.
//
//   const customerById = prepared((db, p: { projectId: string; id: string }) =>
//     db.selectFrom('customers').selectAll().where('project_id', '=', p.projectId).where('id', '=', p.id));
//   const row = await customerById.first(db, { projectId, id });
//
// The build function must use its arguments only as values, never to decide the query's shape: it sees
// placeholders, not the real values. What may shape the query is the dialect (the build gets the handle)
// and the structure of the arguments, each of which is compiled once:
// - an argument that is undefined is absent (the build may leave its condition out);
// - an array of values stands for a value list (`in (…)`): one compilation per list length;
// - an object stands for a row to insert or a set of columns to update, and an array of objects for
//   several rows: one compilation per set of keys (keys whose value is undefined are left out, as
//   Kysely leaves them out).

/** Arguments of a prepared query: values, value lists, rows (objects) and lists of rows. */
type Args = Record<string, unknown>;

const MARK = '\u0000prepared:';
/** Past this many variants (dialect, list lengths, row keys) a query is compiled per call instead of cached. */
const MAX_VARIANTS = 64;

type Slot = { constant: unknown } | { name: string; index: number | null; key: string | null };

interface Compiled {
  query: CompiledQuery;
  slots: Slot[];
}

function isRow(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Only plain values are bound; an expression or other object must be written into the build. */
function assertPlain(value: unknown, name: string): void {
  if (value === null || value === undefined || typeof value !== 'object') return;
  throw new Error(`prepared query argument "${name}" holds an object where a plain value is expected`);
}

function placeholder(name: string, index: number | null, key: string | null): string {
  return `${MARK}${name}${index === null ? '' : `[${index}]`}${key === null ? '' : `.${key}`}`;
}

function rowPlaceholders(row: Record<string, unknown>, name: string, index: number | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in row) {
    assertPlain(row[key], `${name}.${key}`);
    if (row[key] !== undefined) out[key] = placeholder(name, index, key);
  }
  return out;
}

function placeholdersFor(args: Args): Args {
  const out: Args = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      out[name] = value.map((item, i) => {
        if (isRow(item)) return rowPlaceholders(item, name, i);
        assertPlain(item, name);
        return placeholder(name, i, null);
      });
    } else if (isRow(value)) {
      out[name] = rowPlaceholders(value, name, null);
    } else {
      assertPlain(value, name);
      out[name] = placeholder(name, null, null);
    }
  }
  return out;
}

function parseSlot(value: unknown): Slot {
  if (typeof value !== 'string' || !value.startsWith(MARK)) return { constant: value };
  const match = /^(.*?)(?:\[(\d+)\])?(?:\.(.*))?$/.exec(value.slice(MARK.length));
  return { name: match?.[1] ?? '', index: match?.[2] === undefined ? null : Number(match[2]), key: match?.[3] ?? null };
}

function definedKeys(row: Record<string, unknown>): string {
  let keys = '';
  for (const key in row) if (row[key] !== undefined) keys += `${key},`;
  return keys;
}

function compile<A extends Args>(db: Executor, build: (db: Db, p: A) => Compilable<unknown>, args: A): Compiled {
  const query = build(db as Db, placeholdersFor(args) as A).compile();
  if (query.sql.includes(MARK)) throw new Error('a prepared query put an argument into its SQL text instead of a parameter');
  const slots = query.parameters.map(parseSlot);
  const used = new Set(slots.flatMap((s) => ('name' in s ? [s.name] : [])));
  for (const name of Object.keys(args)) {
    if (args[name] === undefined) continue;
    // An unused argument means the build ignored it or turned it into something other than a parameter.
    if (!used.has(name) && !(Array.isArray(args[name]) && (args[name] as unknown[]).length === 0)) {
      throw new Error(`prepared query argument "${name}" is not a parameter of the compiled query`);
    }
  }
  return { query, slots };
}

function variantKey(db: Executor, args: Args): string {
  let key = isPostgres(db) ? 'pg' : 'sqlite';
  for (const name in args) {
    const value = args[name];
    if (value === undefined) {
      key += `|${name}:absent`;
    } else if (Array.isArray(value)) {
      key += `|${name}:${value.length}`;
      for (const item of value) if (isRow(item)) key += `(${definedKeys(item)})`;
    } else if (isRow(value)) {
      key += `|${name}(${definedKeys(value)})`;
    }
  }
  return key;
}

export interface PreparedQuery<A extends Args, R> {
  /** Every row. */
  all(db: Executor, args: A): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Executor, args: A): Promise<R | undefined>;
  /** The raw result (affected and inserted row counts for writes). */
  run(db: Executor, args: A): Promise<QueryResult<R>>;
  /** The compiled statement with these arguments bound, to send later (src/store/held-writes.ts). */
  bind(db: Executor, args: A): CompiledQuery<R>;
  /**
   * A write whose outcome the caller does not read: sent now, or, in a transaction that holds its writes
   * (PostgreSQL), with the others in one statement just before the commit (src/store/held-writes.ts).
   */
  write(db: Executor, args: A): Promise<void>;
}

export function prepared<A extends Args, R>(build: (db: Db, p: A) => Compilable<R>): PreparedQuery<A, R> {
  const variants = new Map<string, Compiled>();
  const compiledFor = (db: Executor, args: A): Compiled => {
    const key = variantKey(db, args);
    let compiled = variants.get(key);
    if (compiled === undefined) {
      compiled = compile(db, build, args);
      if (variants.size < MAX_VARIANTS) variants.set(key, compiled);
    }
    return compiled;
  };
  const bind = (db: Executor, args: A): CompiledQuery<R> => {
    const { query, slots } = compiledFor(db, args);
    const parameters = slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      const list = slot.index === null ? args[slot.name] : (args[slot.name] as unknown[])[slot.index];
      const value = slot.key === null ? list : (list as Record<string, unknown>)[slot.key];
      assertPlain(value, slot.name);
      return value;
    });
    return { ...query, parameters } as CompiledQuery<R>;
  };
  const run = async (db: Executor, args: A): Promise<QueryResult<R>> => db.executeQuery<R>(bind(db, args));
  return {
    run,
    bind,
    write: async (db, args) => sendOrHold(db, bind(db, args)),
    all: async (db, args) => (await run(db, args)).rows,
    first: async (db, args) => (await run(db, args)).rows[0],
  };
}
