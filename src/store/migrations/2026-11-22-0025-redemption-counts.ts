import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// The redemption list answers `total` with every page. Counted over the records, a page filtered only by
// campaign and result read every matching index entry: 333k of them for one campaign in the benchmark,
// 25 pages a second. redemption_counts keeps those totals as the records are written (src/store/
// redemption-records.ts), so such a page adds up a few rows instead. Each (project, campaign name, result)
// is spread over several rows (`shard`, chosen per request), so concurrent redemptions of one campaign on
// PostgreSQL rarely wait for each other's row; records without a campaign (stacked parents) count under
// the name ''. Existing records are counted into shard 0.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('redemption_counts')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_name', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('redemption_counts_pkey', ['project_id', 'campaign_name', 'result', 'shard'])
    .execute();
  await sql`insert into redemption_counts (project_id, campaign_name, result, shard, n)
    select project_id, coalesce(campaign_name, ''), result, 0, count(*) from redemptions
    group by project_id, coalesce(campaign_name, ''), result`.execute(db);
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('redemption_counts').ifExists().execute();
}
