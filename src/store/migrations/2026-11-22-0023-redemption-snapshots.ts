import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// A redemption record kept five JSON snapshots (order, customer, voucher, tier, reward: ~6 KB for a
// stacked coupon) in its own row, so every row filled most of a 4 KB page, and anything that walks many
// records (exports, filtered lists, campaign totals, rule facts) read one page per record; with the
// database larger than the file cache that was one disk read per record (measured: 200k exported records
// read 923 MB). The snapshots move to a side table read only when a record is shown whole; the record
// keeps the three order amounts that totals and facts add up, as plain columns instead of JSON members.
//
// Cost of the upgrade (README "Upgrading"): SQLite rewrites the records table (about 45 s per 300k
// records); PostgreSQL only marks the columns dropped, so existing rows stay wide until rewritten.

const SNAPSHOTS = ['order_snapshot', 'customer_snapshot', 'voucher_snapshot', 'promotion_tier_snapshot', 'reward_snapshot'] as const;
const ORDER_AMOUNTS = [
  { column: 'order_amount', member: 'amount' },
  { column: 'order_total_discount_amount', member: 'total_discount_amount' },
  { column: 'order_total_applied_discount_amount', member: 'total_applied_discount_amount' },
] as const;

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  let table = db.schema
    .createTable('redemption_snapshots')
    .addColumn('redemption_id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull());
  for (const column of SNAPSHOTS) table = table.addColumn(column, 'text');
  await table.execute();
  for (const { column } of ORDER_AMOUNTS) await db.schema.alterTable('redemptions').addColumn(column, 'bigint').execute();

  await sql`insert into redemption_snapshots (redemption_id, project_id, ${sql.join(SNAPSHOTS.map((c) => sql.ref(c)))})
    select id, project_id, ${sql.join(SNAPSHOTS.map((c) => sql.ref(c)))} from redemptions`.execute(db);
  const member = (name: string) =>
    isPostgres(db) ? sql`((order_snapshot::jsonb ->> ${name})::numeric)::bigint` : sql`json_extract(order_snapshot, ${'$.' + name})`;
  await sql`update redemptions set ${sql.join(ORDER_AMOUNTS.map(({ column, member: name }) => sql`${sql.ref(column)} = ${member(name)}`))}
    where order_snapshot is not null`.execute(db);
  for (const column of SNAPSHOTS) await db.schema.alterTable('redemptions').dropColumn(column).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const column of SNAPSHOTS) await db.schema.alterTable('redemptions').addColumn(column, 'text').execute();
  const fromSide = (column: string) =>
    sql`(select s.${sql.ref(column)} from redemption_snapshots as s where s.redemption_id = redemptions.id and s.project_id = redemptions.project_id)`;
  await sql`update redemptions set ${sql.join(SNAPSHOTS.map((c) => sql`${sql.ref(c)} = ${fromSide(c)}`))}`.execute(db);
  for (const { column } of ORDER_AMOUNTS) await db.schema.alterTable('redemptions').dropColumn(column).execute();
  await db.schema.dropTable('redemption_snapshots').execute();
}
