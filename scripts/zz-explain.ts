import { Kysely, SqliteDialect, PostgresDialect, sql } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { migrateToLatest } from '../src/store/migrate.ts';
import * as src from '../src/store/export-sources.ts';
import { lowerExportFilter, parseExportFilter } from '../src/domain/exports/filters.ts';
import type { Database } from '../src/store/schema.ts';

const captured: { sql: string; params: readonly unknown[] }[] = [];
const dialectName = process.argv[2] === 'pg' ? 'postgres' : 'sqlite';
let db: Kysely<Database>;
let raw: SqliteDatabase.Database | null = null;
if (dialectName === 'sqlite') {
  raw = new SqliteDatabase(':memory:');
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }), log: (e) => { if (e.level === 'query') captured.push({ sql: e.query.sql, params: e.query.parameters }); } });
} else {
  const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', options: '-c search_path=zz_explain' });
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await admin.connect(); await admin.query('drop schema if exists zz_explain cascade; create schema zz_explain'); await admin.end();
  db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: (e) => { if (e.level === 'query') captured.push({ sql: e.query.sql, params: e.query.parameters }); } });
}
await migrateToLatest(db, dialectName === 'postgres' ? { schema: 'zz_explain' } : {});
if (dialectName === 'postgres') await sql`set enable_seqscan = off`.execute(db);
const none = lowerExportFilter(parseExportFilter('voucher', undefined), new Date());
const cases: [string, (d: typeof db, q: src.ExportBatchQuery) => Promise<unknown>, string[]][] = [
  ['voucher', src.readVoucherBatch, ['created_at', 'updated_at', 'code']],
  ['redemption', src.readRedemptionBatch, ['id', 'voucher_code', 'tracking_id', 'customer_id', 'created_at']],
  ['customer', src.readCustomerBatch, ['name', 'id', 'email', 'source_id', 'created_at', 'updated_at']],
  ['publication', src.readPublicationBatch, ['id', 'tracking_id', 'customer_id', 'created_at', 'channel', 'voucher_code']],
  ['order', src.readOrderBatch, ['created_at', 'updated_at', 'status']],
  ['points_expiration', src.readBucketBatch, ['expires_at']],
  ['voucher_transactions', src.readTransactionBatch, ['created_at']],
];
for (const [name, read, keys] of cases) {
  for (const key of keys) {
    captured.length = 0;
    await read(db, { projectId: 'p', dialect: dialectName, sortKey: key, descending: true, predicate: none, bound: { ties: { key: 'k', id: 'i' } }, limit: 500, campaignId: null });
    const q = captured[0]!;
    let plan: string;
    if (raw) plan = (raw.prepare('explain query plan ' + q.sql).all(...q.params.map((p) => (p === true ? 1 : p === false ? 0 : p))) as { detail: string }[]).map((r) => r.detail).join(' | ');
    else plan = (await sql.raw(`explain ${q.sql.replace(/\$(\d+)/g, (_m, n) => { const v = q.params[Number(n) - 1]; return typeof v === 'number' ? String(v) : `'${String(v)}'`; })}`).execute(db)).rows.map((r) => Object.values(r as object)[0]).join(' | ');
    console.log(`${name}.${key}: ${plan.slice(0, 400)}`);
  }
}
await db.destroy();
