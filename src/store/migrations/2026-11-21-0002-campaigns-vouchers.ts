import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// The shared core of promotions and loyalty: campaigns of every type, vouchers (discount codes, gift
// cards and loyalty cards), their balance ledger (transactions and points buckets), publications, and
// redemption records.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('campaign_type', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('auto_join', 'boolean', (c) => c.notNull())
    .addColumn('join_once', 'boolean', (c) => c.notNull())
    .addColumn('use_voucher_metadata_schema', 'boolean', (c) => c.notNull())
    .addColumn('vouchers_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_date', 'text')
    .addColumn('expiration_date', 'text')
    .addColumn('validity_timeframe', 'text')
    .addColumn('validity_day_of_week', 'text')
    .addColumn('validity_hours', 'text')
    .addColumn('activity_duration_after_publishing', 'text')
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text')
    .addColumn('creation_status', 'text', (c) => c.notNull())
    .addColumn('vouchers_generation_status', 'text', (c) => c.notNull())
    .addColumn('protected', 'boolean', (c) => c.notNull())
    .addColumn('voucher_template', 'text')
    .addColumn('referral_program', 'text')
    .addColumn('loyalty_tiers_expiration', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('binned_at', 'text')
    .execute();
  // A campaign's name is unique among the project's live campaigns (a binned name is free again).
  await db.schema
    .createIndex('campaigns_name')
    .on('campaigns')
    .columns(['project_id', 'name'])
    .unique()
    .where(sql.ref('binned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('campaigns_created')
    .on('campaigns')
    .columns(['project_id', 'created_at', 'id'])
    .where(sql.ref('binned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('campaigns_type')
    .on('campaigns')
    .columns(['project_id', 'campaign_type', 'created_at', 'id'])
    .where(sql.ref('binned_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('vouchers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    // The code as compared: the code itself, or lower-cased in projects whose codes ignore case.
    .addColumn('code_key', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('category_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('discount', 'text')
    // Gift card credits: `gift_balance` is what can be spent; the others are lifetime counters.
    .addColumn('gift_amount', 'bigint')
    .addColumn('gift_subtracted_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('gift_balance', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('gift_effect', 'text')
    // Loyalty card points: `loyalty_balance` is spendable; the others are lifetime counters.
    .addColumn('loyalty_points', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('loyalty_balance', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('loyalty_expired_points', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('loyalty_subtracted_points', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('loyalty_pending_points', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_date', 'text')
    .addColumn('expiration_date', 'text')
    .addColumn('validity_timeframe', 'text')
    .addColumn('validity_day_of_week', 'text')
    .addColumn('validity_hours', 'text')
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('additional_info', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('is_referral_code', 'boolean', (c) => c.notNull())
    .addColumn('holder_id', 'text')
    .addColumn('referrer_id', 'text')
    // null = unlimited redemptions.
    .addColumn('redemption_quantity', 'bigint')
    .addColumn('redeemed_quantity', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redeemed_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redeemed_points', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('publish_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('binned_at', 'text')
    .addCheckConstraint('vouchers_gift_balance_not_negative', sql`gift_balance >= 0`)
    .addCheckConstraint('vouchers_loyalty_balance_not_negative', sql`loyalty_balance >= 0`)
    .execute();
  // Codes are unique across the whole project, among live vouchers.
  await db.schema
    .createIndex('vouchers_code')
    .on('vouchers')
    .columns(['project_id', 'code_key'])
    .unique()
    .where(sql.ref('binned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('vouchers_campaign')
    .on('vouchers')
    .columns(['project_id', 'campaign_id', 'created_at', 'id'])
    .where(sql.ref('binned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('vouchers_created')
    .on('vouchers')
    .columns(['project_id', 'created_at', 'id'])
    .where(sql.ref('binned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('vouchers_holder')
    .on('vouchers')
    .columns(['project_id', 'holder_id', 'campaign_id'])
    .where(sql.ref('binned_at'), 'is', null)
    .execute();

  // Every change of a gift card's credits or a loyalty card's points, signed.
  await db.schema
    .createTable('voucher_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text')
    .addColumn('source', 'text')
    .addColumn('reason', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('total_after', 'bigint', (c) => c.notNull())
    .addColumn('operation_type', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    // Which points buckets a debit drew from ({bucket id: points}), so a refund can put them back.
    .addColumn('bucket_moves', 'text')
    .addColumn('related_transaction_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('voucher_transactions_voucher').on('voucher_transactions').columns(['project_id', 'voucher_id', 'id']).execute();
  await db.schema.createIndex('voucher_transactions_campaign').on('voucher_transactions').columns(['project_id', 'campaign_id', 'id']).execute();

  // Loyalty points grouped by expiry; spending drains the soonest-expiring bucket first.
  await db.schema
    .createTable('loyalty_buckets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('points', 'bigint', (c) => c.notNull())
    .addColumn('initial_points', 'bigint', (c) => c.notNull())
    // Last day (YYYY-MM-DD) the points are usable; null = never expire.
    .addColumn('expires_at', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addCheckConstraint('loyalty_buckets_points_not_negative', sql`points >= 0`)
    .execute();
  await db.schema
    .createIndex('loyalty_buckets_voucher')
    .on('loyalty_buckets')
    .columns(['project_id', 'voucher_id', 'status', 'expires_at'])
    .execute();
  await db.schema.createIndex('loyalty_buckets_expiry').on('loyalty_buckets').columns(['status', 'expires_at']).execute();

  await db.schema
    .createTable('publications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text')
    .addColumn('source_id', 'text')
    .addColumn('tracking_id', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('publications_source_id')
    .on('publications')
    .columns(['project_id', 'source_id'])
    .unique()
    .where(sql.ref('source_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('publications_created').on('publications').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('publications_voucher').on('publications').columns(['project_id', 'voucher_id', 'created_at']).execute();
  await db.schema.createIndex('publications_customer').on('publications').columns(['project_id', 'customer_id', 'created_at']).execute();

  // Redemption records (`r_`/`rf_`) and rollback records (`rr_`/`rrf_`), with denormalised columns for
  // the list filters and snapshots of the objects as they were at that moment.
  await db.schema
    .createTable('redemptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('object', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('reason', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('tracking_id', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint')
    .addColumn('parent_id', 'text')
    .addColumn('related_object_type', 'text', (c) => c.notNull())
    .addColumn('related_object_id', 'text', (c) => c.notNull())
    .addColumn('related_object_parent_id', 'text')
    .addColumn('voucher_id', 'text')
    .addColumn('voucher_code', 'text')
    .addColumn('promotion_tier_id', 'text')
    .addColumn('campaign_id', 'text')
    .addColumn('campaign_name', 'text')
    .addColumn('order_id', 'text')
    .addColumn('session_key', 'text')
    // For rollback records: the redemption rolled back. For redemptions: the rollback that undid it.
    .addColumn('rollback_of', 'text')
    .addColumn('rolled_back_by', 'text')
    .addColumn('order_snapshot', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('customer_snapshot', 'text')
    .addColumn('voucher_snapshot', 'text')
    .addColumn('promotion_tier_snapshot', 'text')
    .addColumn('reward_snapshot', 'text')
    .addColumn('gift', 'text')
    .addColumn('loyalty_card', 'text')
    // What the redemption consumed (usage, credits, points, stock), so a rollback restores exactly that.
    .addColumn('effects', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('redemptions_created').on('redemptions').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('redemptions_result').on('redemptions').columns(['project_id', 'result', 'created_at', 'id']).execute();
  await db.schema.createIndex('redemptions_customer').on('redemptions').columns(['project_id', 'customer_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('redemptions_campaign').on('redemptions').columns(['project_id', 'campaign_name', 'created_at', 'id']).execute();
  await db.schema.createIndex('redemptions_voucher').on('redemptions').columns(['project_id', 'voucher_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('redemptions_parent').on('redemptions').columns(['project_id', 'parent_id']).execute();
  await db.schema.createIndex('redemptions_order').on('redemptions').columns(['project_id', 'order_id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of ['redemptions', 'publications', 'loyalty_buckets', 'voucher_transactions', 'vouchers', 'campaigns']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
