import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Vouchers, publications and referral programs: the holders of referral codes (referrer and referees),
// the record of each referred customer, and the indexes that serve the voucher and publication lists and
// the campaign summary without scanning a project's whole tables.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // Who holds a referral code, in which role: the referrer (set when the code is published to them) and
  // the referees added to it. A customer holds one code once, whatever the role.
  await db.schema
    .createTable('redeemable_holders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('holder_role', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('redeemable_holders_unique')
    .on('redeemable_holders')
    .columns(['project_id', 'voucher_id', 'customer_id'])
    .unique()
    .execute();
  await db.schema.createIndex('redeemable_holders_voucher').on('redeemable_holders').columns(['project_id', 'voucher_id', 'id']).execute();

  // One row per referred customer and referral campaign: the conversion that made the customer a referee.
  // The unique index makes a customer count once per program, also under concurrent conversions.
  await db.schema
    .createTable('referrals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('referrer_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('related_object_type', 'text', (c) => c.notNull())
    .addColumn('related_object_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('referrals_referee').on('referrals').columns(['project_id', 'campaign_id', 'customer_id']).unique().execute();
  await db.schema.createIndex('referrals_customer').on('referrals').columns(['project_id', 'customer_id', 'created_at']).execute();
  await db.schema.createIndex('referrals_referrer').on('referrals').columns(['project_id', 'referrer_id', 'created_at']).execute();

  // GET /v1/publications?campaign=… and the campaign summary count a campaign's publications.
  await db.schema.createIndex('publications_campaign').on('publications').columns(['project_id', 'campaign_id', 'created_at', 'id']).execute();
  // The campaign summary counts a campaign's redemptions and rollbacks.
  await db.schema.createIndex('redemptions_campaign_id').on('redemptions').columns(['project_id', 'campaign_id', 'created_at']).execute();

  const live = sql<boolean>`binned_at is null`;
  await db.schema.createIndex('vouchers_category').on('vouchers').columns(['project_id', 'category_id', 'created_at', 'id']).where(live).execute();
  // The voucher list sorts on exactly these expressions (src/store/voucher-list.ts).
  await db.schema
    .createIndex('vouchers_last_change')
    .on('vouchers')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .where(live)
    .execute();
  // Binned vouchers of a campaign, for the summary's `vouchers_deleted`.
  await db.schema
    .createIndex('vouchers_binned')
    .on('vouchers')
    .columns(['project_id', 'campaign_id', 'binned_at'])
    .where(sql<boolean>`binned_at is not null`)
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const index of ['vouchers_binned', 'vouchers_last_change', 'vouchers_category', 'redemptions_campaign_id', 'publications_campaign']) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  await db.schema.dropTable('referrals').ifExists().execute();
  await db.schema.dropTable('redeemable_holders').ifExists().execute();
}
