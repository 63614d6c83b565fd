import Database from 'better-sqlite3';
import { serverHeaders } from '../scripts/lib/keys.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { sortableIds } from '../src/lib/ids.ts';
import { loadPepper } from '../src/services/projects/bootstrap.ts';
import { openDatabase } from '../src/store/db.ts';

// Development aid: runs requests in-process against a kept SQLite benchmark database (npm run bench --
// --keep) and prints every SQL statement each one executed with its time, slowest first. Used to find
// the queries behind a slow scenario.
//
//   npx tsx bench/trace-queries.ts <file.db> <METHOD> <path> [json body] [repeat]
//
// `__CODE__` in the body is replaced by a different never-redeemed coupon on every repeat.

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
const codes = new Database(file, { readonly: true })
  .prepare("select code from vouchers where redeemed_quantity = 0 and code like 'BC-%' order by random() limit ?")
  .all(repeat) as Array<{ code: string }>;
const commits: number[] = [];
for (let i = 0; i < repeat; i++) {
  trace.length = 0;
  const started = performance.now();
  const response = await app.inject({
    method: method as 'GET',
    url: path,
    headers: { ...serverHeaders(), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { payload: body.replace('__CODE__', codes[i]?.code ?? '') } : {}),
  });
  for (const t of trace) if (t.sql === 'commit') commits.push(t.ms);
  const total = performance.now() - started;
  const inSql = trace.reduce((s, t) => s + t.ms, 0);
  process.stdout.write(`\n#${i + 1} ${response.statusCode} in ${total.toFixed(2)} ms, ${trace.length} statements, ${inSql.toFixed(2)} ms in SQLite\n`);
  if (i === repeat - 1) {
    for (const t of (process.env.INORDER ? trace : [...trace].sort((a, b) => b.ms - a.ms).slice(0, 25))) process.stdout.write(`${t.ms.toFixed(3).padStart(9)} ms  ${t.sql.slice(0, 400)}\n`);
    if (response.statusCode >= 300) process.stdout.write(`${response.body.slice(0, 500)}\n`);
  }
}
if (commits.length > 0) {
  commits.sort((a, b) => a - b);
  process.stdout.write(`\ncommit ms: median ${commits[Math.floor(commits.length / 2)]?.toFixed(2)}, max ${commits[commits.length - 1]?.toFixed(2)}\n`);
}
await app.close();
await handle.close();
