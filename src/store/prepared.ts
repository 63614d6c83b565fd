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
  /** The structure of the arguments it was compiled for (variantKey's, without building the key). */
  shape: ArgShape[];
  /** The compiled parameter list with these arguments' values in the slots (compiledBinder). */
  parameters: (args: Args) => unknown[];
}

/** One argument's structure: absent, a value, a row (its defined keys) or a list (its items' defined keys, null for values). */
type ArgShape = { name: string; absent: boolean; keys: readonly string[] | null; items: ReadonlyArray<readonly string[] | null> | null };

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
  return { query, shape: shapeOf(args), parameters: compiledBinder(slots) };
}

function definedKeyList(row: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const key in row) if (row[key] !== undefined) keys.push(key);
  return keys;
}

function shapeOf(args: Args): ArgShape[] {
  const shape: ArgShape[] = [];
  for (const name in args) {
    const value = args[name];
    if (Array.isArray(value)) shape.push({ name, absent: false, keys: null, items: value.map((item) => (isRow(item) ? definedKeyList(item) : null)) });
    else shape.push({ name, absent: value === undefined, keys: isRow(value) ? definedKeyList(value) : null, items: null });
  }
  return shape;
}

function hasKeys(row: unknown, keys: readonly string[] | null): boolean {
  if (keys === null) return !isRow(row);
  if (!isRow(row)) return false;
  let i = 0;
  for (const key in row) {
    if (row[key] === undefined) continue;
    if (keys[i] !== key) return false;
    i += 1;
  }
  return i === keys.length;
}

/**
 * Whether `args` has the structure `shape` was taken from: then variantKey would name the same variant.
 * Walks the arguments as variantKey does, comparing instead of building the key's text (for a
 * redemption's three 38-column records that text is about 1 KB, built and hashed on every run).
 */
function hasShape(args: Args, shape: readonly ArgShape[]): boolean {
  let i = 0;
  for (const name in args) {
    const expected = shape[i];
    i += 1;
    if (expected === undefined || expected.name !== name) return false;
    const value = args[name];
    if (value === undefined) {
      if (!expected.absent) return false;
    } else if (Array.isArray(value)) {
      const items = expected.items;
      if (items === null || items.length !== value.length) return false;
      for (let j = 0; j < value.length; j++) if (!hasKeys(value[j], items[j] ?? null)) return false;
    } else if (expected.absent || expected.items !== null || !hasKeys(value, expected.keys)) {
      return false;
    }
  }
  return i === shape.length;
}

/**
 * The parameter list of a compiled variant as one function, `(a) => [c[0], a["rows"][0]["id"], …]`, each
 * value checked as assertPlain does: a run fills it in one pass instead of interpreting the slots. Names
 * and keys are written as JSON strings, so any name is a quoted member access.
 */
function compiledBinder(slots: readonly Slot[]): (args: Args) => unknown[] {
  const constants: unknown[] = [];
  const parts = slots.map((slot) => {
    if ('constant' in slot) return `c[${constants.push(slot.constant) - 1}]`;
    let access = `a[${JSON.stringify(slot.name)}]`;
    if (slot.index !== null) access += `[${slot.index}]`;
    if (slot.key !== null) access += `[${JSON.stringify(slot.key)}]`;
    return `(v = ${access}, typeof v === 'object' && v !== null ? f(v, ${JSON.stringify(slot.name)}) : v)`;
  });
  const make = new Function('c', 'f', `return (a) => { let v; return [${parts.join(', ')}]; };`) as (c: unknown[], f: typeof assertPlain) => (args: Args) => unknown[];
  return make(constants, assertPlain);
}

function variantKey(dialect: 'pg' | 'sqlite', args: Args): string {
  let key: string = dialect;
  for (const name in args) {
    const value = args[name];
    if (value === undefined) {
      key += `|${name}:absent`;
    } else if (Array.isArray(value)) {
      key += `|${name}:${value.length}`;
      for (const item of value) if (isRow(item)) key += `(${definedKeyList(item).join(',')},)`;
    } else if (isRow(value)) {
      key += `|${name}(${definedKeyList(value).join(',')},)`;
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
  // The variant of the last run, per dialect: most call sites run one shape over and over.
  const last: { pg: Compiled | null; sqlite: Compiled | null } = { pg: null, sqlite: null };
  const compiledFor = (db: Executor, args: A): Compiled => {
    const dialect = isPostgres(db) ? 'pg' : 'sqlite';
    const recent = last[dialect];
    if (recent !== null && hasShape(args, recent.shape)) return recent;
    const key = variantKey(dialect, args);
    let compiled = variants.get(key);
    if (compiled === undefined) {
      compiled = compile(db, build, args);
      if (variants.size < MAX_VARIANTS) variants.set(key, compiled);
    }
    last[dialect] = compiled;
    return compiled;
  };
  const bind = (db: Executor, args: A): CompiledQuery<R> => {
    const { query, parameters } = compiledFor(db, args);
    return { ...query, parameters: parameters(args) } as CompiledQuery<R>;
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
