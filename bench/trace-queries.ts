import Database from 'better-sqlite3';
import { serverHeaders } from '../scripts/lib/keys.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { sortableIds } from '../src/lib/ids.ts';
import { loadPepper } from '../src/services/projects/bootstrap.ts';
import { openDatabase } from '../src/store/db.ts';
import { customerSourceId } from './seed.ts';

// Development aid: runs requests in-process against a kept SQLite benchmark database (npm run bench --
// --keep) and prints every SQL statement each one executed with its time, slowest first, then each
// statement's median and 90th percentile over the repeats. Used to find the queries behind a slow scenario.
//
//   npx tsx bench/trace-queries.ts <file.db> <METHOD> <path> [json body] [repeat]
//
// `__CODE__` in the body is replaced by a different never-redeemed coupon on every repeat, and
// `__CUSTOMER__` by a random bench customer's source_id. INORDER=1 lists the last request's statements in
// the order they ran. TWICE=1 runs every read a second time right after the first and times both (the
// second is listed as "again"): inside a request the first run of a statement costs 3-5× the second, on
// the same rows, because the request's own JavaScript has evicted SQLite's code and data from the CPU
// caches (a validation's 4 statements: 58-107 µs first, 15-21 µs again).

type Timed = { sql: string; ms: number };
const trace: Timed[] = [];
const proto = (Database as unknown as { prototype: { prepare: (sql: string) => unknown } }).prototype;
const originalPrepare = proto.prepare;
proto.prepare = function prepare(this: unknown, sql: string) {
  const statement = originalPrepare.call(this, sql) as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['all', 'run', 'get', 'iterate'] as const) {
    const original = statement[method];
    if (typeof original !== 'function') continue;
    statement[method] = (...args: unknown[]) => {
      if (process.env.TWICE && method === 'all' && /^\s*select/i.test(sql)) {
        // The first run goes under the statement's own name, the repeat under "again".
        const first = performance.now();
        original.apply(statement, args);
        trace.push({ sql, ms: performance.now() - first });
        const again = performance.now();
        try {
          return original.apply(statement, args);
        } finally {
          trace.push({ sql: `again: ${sql}`, ms: performance.now() - again });
        }
      }
      const started = performance.now();
      try {
        return original.apply(statement, args);
      } finally {
        trace.push({ sql, ms: performance.now() - started });
      }
    };
  }
  return statement;
};

const [file, method = 'GET', path = '/health', body, repeatRaw] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/trace-queries.ts <file.db> <METHOD> <path> [json body] [repeat]');
const handle = openDatabase(`sqlite:${file}`);
const config = { ...loadConfig({ DATABASE_URL: `sqlite:${file}` }), logLevel: 'silent' as const };
const pepper = await loadPepper(handle.db);
const app = await buildApp({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper, logger: false });
const repeat = Number(repeatRaw ?? 3);
const seeded = new Database(file, { readonly: true });
const codes = seeded
  .prepare("select code from vouchers where redeemed_quantity = 0 and code like 'BC-%' order by random() limit ?")
  .all(repeat) as Array<{ code: string }>;
const customerCount = (seeded.prepare("select count(*) as n from customers where source_id like 'bench-cust-%'").get() as { n: number }).n;
seeded.close();
const commits: number[] = [];
/** Each statement's times over all repeats (first 60 characters of its SQL). */
const byStatement = new Map<string, number[]>();
for (let i = 0; i < repeat; i++) {
  trace.length = 0;
  const started = performance.now();
  const response = await app.inject({
    method: method as 'GET',
    url: path,
    headers: { ...serverHeaders(), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { payload: body.replace('__CODE__', codes[i]?.code ?? '').replace('__CUSTOMER__', customerSourceId(Math.floor(Math.random() * customerCount))) } : {}),
  });
  for (const t of trace) {
    if (t.sql === 'commit') commits.push(t.ms);
    const key = t.sql.slice(0, 60);
    byStatement.set(key, [...(byStatement.get(key) ?? []), t.ms]);
  }
  const total = performance.now() - started;
  const inSql = trace.reduce((s, t) => s + t.ms, 0);
  if (repeat <= 10 || i === repeat - 1) process.stdout.write(`\n#${i + 1} ${response.statusCode} in ${total.toFixed(2)} ms, ${trace.length} statements, ${inSql.toFixed(2)} ms in SQLite\n`);
  if (i === repeat - 1) {
    for (const t of (process.env.INORDER ? trace : [...trace].sort((a, b) => b.ms - a.ms).slice(0, 25))) process.stdout.write(`${t.ms.toFixed(3).padStart(9)} ms  ${t.sql.slice(0, 400)}\n`);
    if (response.statusCode >= 300) process.stdout.write(`${response.body.slice(0, 500)}\n`);
  }
}
process.stdout.write(`\nper statement over ${repeat} requests (ms): median, 90th percentile, runs\n`);
for (const [key, times] of byStatement) {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]?.toFixed(3).padStart(8);
  process.stdout.write(`${at(0.5)} ${at(0.9)} ${String(times.length).padStart(6)}  ${key}\n`);
}
if (commits.length > 0) {
  commits.sort((a, b) => a - b);
  process.stdout.write(`\ncommit ms: median ${commits[Math.floor(commits.length / 2)]?.toFixed(2)}, max ${commits[commits.length - 1]?.toFixed(2)}\n`);
}
await app.close();
await handle.close();
