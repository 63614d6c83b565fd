import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// `GET /v1/vouchers` and `GET /v1/customers` answer `total` with every page. Counted over the rows, the
// first page of an unfiltered list read every live voucher or customer of the project: 41.5 ms at 600k
// vouchers, 5–10 ms per 100k customers. voucher_counts (per project and campaign, '' for vouchers without
// one) and customer_counts keep those totals as rows come and go (src/store/list-counts.ts), so such a
// page adds up a few rows instead.
//
// The counts move in the database itself, in the same transaction as the change: triggers count every
// voucher or customer that is inserted, deleted, binned, restored or moved to another campaign, whatever
// code path wrote it (creates, imports, code generation jobs, permanent deletions, campaign deletions).
// Live means `binned_at` / `deleted_at` is null, as the lists read it.
//
// Hot rows: on SQLite writers take turns anyway, so each count is one row (shard 0), moved by row
// triggers; updates run them only when they set binned_at, campaign_id or deleted_at to another value. On
// PostgreSQL each count is spread over 16 rows chosen by the writing transaction's id, so concurrent
// transactions (a redemption creating its customer, two imports) rarely wait for the same row, and one
// transaction always writes one count's same row. There, inserts, deletes and voucher updates are counted
// once per statement from its transition tables: moving one count row thousands of times in a transaction
// is slow on PostgreSQL (a 5,000-voucher chunk of a campaign deletion took 0.8–1.1 s with a row trigger,
// 0.10–0.16 s without, 0.3 s with the statement trigger), and a code generation chunk is one aggregate. A
// voucher update that moves nothing (a redemption's) writes no count and costs about 10 µs. Customers
// leave one at a time, so their update trigger is a row trigger that only fires when deleted_at changes:
// the updates of their redemption and order counters never run it.
//
// Existing rows are counted into shard 0. On PostgreSQL the triggers are created before the count in the
// same transaction, and creating a trigger locks its table against writes until the commit, so no row is
// counted twice or missed.

const TRIGGERS = [
  'vouchers_count_insert',
  'vouchers_count_delete',
  'vouchers_count_update',
  'customers_count_insert',
  'customers_count_delete',
  'customers_count_update',
];
const POSTGRES_FUNCTIONS = [
  'punchcard_count_inserted_vouchers',
  'punchcard_count_deleted_vouchers',
  'punchcard_count_moved_vouchers',
  'punchcard_count_inserted_customers',
  'punchcard_count_deleted_customers',
  'punchcard_count_moved_customer',
];

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('voucher_counts')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('voucher_counts_pkey', ['project_id', 'campaign_id', 'shard'])
    .execute();
  await db.schema
    .createTable('customer_counts')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_counts_pkey', ['project_id', 'shard'])
    .execute();

  if (isPostgres(db)) await createPostgresTriggers(db);
  else await createSqliteTriggers(db);

  await sql`insert into voucher_counts (project_id, campaign_id, shard, n)
    select project_id, coalesce(campaign_id, ''), 0, count(*) from vouchers where binned_at is null
    group by project_id, coalesce(campaign_id, '')`.execute(db);
  await sql`insert into customer_counts (project_id, shard, n)
    select project_id, 0, count(*) from customers where deleted_at is null group by project_id`.execute(db);
}

async function createSqliteTriggers(db: Kysely<MigrationDb>): Promise<void> {
  const voucher = (row: 'new' | 'old', n: number) =>
    `insert into voucher_counts (project_id, campaign_id, shard, n) select ${row}.project_id, coalesce(${row}.campaign_id, ''), 0, ${n} where ${row}.binned_at is null ` +
    `on conflict (project_id, campaign_id, shard) do update set n = n + excluded.n;`;
  const customer = (row: 'new' | 'old', n: number) =>
    `insert into customer_counts (project_id, shard, n) select ${row}.project_id, 0, ${n} where ${row}.deleted_at is null ` +
    `on conflict (project_id, shard) do update set n = n + excluded.n;`;
  for (const statement of [
    `create trigger vouchers_count_insert after insert on vouchers begin ${voucher('new', 1)} end`,
    `create trigger vouchers_count_delete after delete on vouchers begin ${voucher('old', -1)} end`,
    `create trigger vouchers_count_update after update of binned_at, campaign_id on vouchers ` +
      `when old.binned_at is not new.binned_at or old.campaign_id is not new.campaign_id begin ${voucher('old', -1)} ${voucher('new', 1)} end`,
    `create trigger customers_count_insert after insert on customers begin ${customer('new', 1)} end`,
    `create trigger customers_count_delete after delete on customers begin ${customer('old', -1)} end`,
    `create trigger customers_count_update after update of deleted_at on customers ` +
      `when old.deleted_at is not new.deleted_at begin ${customer('old', -1)} ${customer('new', 1)} end`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}

async function createPostgresTriggers(db: Kysely<MigrationDb>): Promise<void> {
  const shard = '(txid_current() % 16)::integer';
  const upsertVouchers = `insert into voucher_counts (project_id, campaign_id, shard, n)`;
  const onVoucherConflict = `on conflict (project_id, campaign_id, shard) do update set n = voucher_counts.n + excluded.n`;
  const upsertCustomers = `insert into customer_counts (project_id, shard, n)`;
  const onCustomerConflict = `on conflict (project_id, shard) do update set n = customer_counts.n + excluded.n`;
  const fn = (name: string, body: string) => `create function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`;
  // Statement triggers: one aggregate over the statement's rows, in key order so that two transactions
  // that happen to share a shard take its rows in the same order.
  for (const statement of [
    fn(
      'punchcard_count_inserted_vouchers',
      `${upsertVouchers} select project_id, coalesce(campaign_id, ''), ${shard}, count(*) from inserted where binned_at is null ` +
        `group by 1, 2 order by 1, 2 ${onVoucherConflict};`,
    ),
    fn(
      'punchcard_count_deleted_vouchers',
      `${upsertVouchers} select project_id, coalesce(campaign_id, ''), ${shard}, -count(*) from deleted where binned_at is null ` +
        `group by 1, 2 order by 1, 2 ${onVoucherConflict};`,
    ),
    fn(
      'punchcard_count_moved_vouchers',
      `${upsertVouchers} select project_id, campaign_id, ${shard}, sum(d) from (` +
        `select project_id, coalesce(campaign_id, '') as campaign_id, -1 as d from before_update where binned_at is null ` +
        `union all select project_id, coalesce(campaign_id, ''), 1 from after_update where binned_at is null) as moves ` +
        `group by 1, 2 having sum(d) <> 0 order by 1, 2 ${onVoucherConflict};`,
    ),
    fn(
      'punchcard_count_inserted_customers',
      `${upsertCustomers} select project_id, ${shard}, count(*) from inserted where deleted_at is null group by 1 order by 1 ${onCustomerConflict};`,
    ),
    fn(
      'punchcard_count_deleted_customers',
      `${upsertCustomers} select project_id, ${shard}, -count(*) from deleted where deleted_at is null group by 1 order by 1 ${onCustomerConflict};`,
    ),
    fn(
      'punchcard_count_moved_customer',
      `if old.deleted_at is null then ${upsertCustomers} values (old.project_id, ${shard}, -1) ${onCustomerConflict}; end if; ` +
        `if new.deleted_at is null then ${upsertCustomers} values (new.project_id, ${shard}, 1) ${onCustomerConflict}; end if;`,
    ),
    `create trigger vouchers_count_insert after insert on vouchers referencing new table as inserted for each statement execute function punchcard_count_inserted_vouchers()`,
    `create trigger vouchers_count_delete after delete on vouchers referencing old table as deleted for each statement execute function punchcard_count_deleted_vouchers()`,
    `create trigger vouchers_count_update after update on vouchers referencing old table as before_update new table as after_update ` +
      `for each statement execute function punchcard_count_moved_vouchers()`,
    `create trigger customers_count_insert after insert on customers referencing new table as inserted for each statement execute function punchcard_count_inserted_customers()`,
    `create trigger customers_count_delete after delete on customers referencing old table as deleted for each statement execute function punchcard_count_deleted_customers()`,
    `create trigger customers_count_update after update of deleted_at on customers for each row ` +
      `when (old.deleted_at is distinct from new.deleted_at) execute function punchcard_count_moved_customer()`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  if (isPostgres(db)) {
    for (const trigger of TRIGGERS) await sql.raw(`drop trigger if exists ${trigger} on ${trigger.split('_')[0]}`).execute(db);
    for (const fn of POSTGRES_FUNCTIONS) await sql.raw(`drop function if exists ${fn}()`).execute(db);
  } else {
    for (const trigger of TRIGGERS) await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  }
  await db.schema.dropTable('customer_counts').ifExists().execute();
  await db.schema.dropTable('voucher_counts').ifExists().execute();
}
