import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Loyalty earning rules, loyalty tiers with each card's tier membership, rewards and their assignments
// to loyalty campaigns (loyalty reference 4, 5, 6).

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('earning_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    // `order.paid`, `customer.segment.entered`, `customer.loyalty.tier.*` or a custom event name.
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('custom_event_schema_id', 'text')
    .addColumn('segment_id', 'text')
    // A tier id, or `__ANY__` (any tier of the rule's campaign) for tier-event rules.
    .addColumn('loyalty_tier_id', 'text')
    // The normalised `loyalty` member (FIXED or PROPORTIONAL with its calculation).
    .addColumn('loyalty', 'text', (c) => c.notNull())
    .addColumn('pending_points', 'text')
    .addColumn('source_banner', 'text')
    .addColumn('automation_id', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text')
    .addColumn('expiration_date', 'text')
    .addColumn('validity_timeframe', 'text')
    .addColumn('validity_day_of_week', 'text')
    .addColumn('validity_hours', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('expiration_rules', 'text')
    .addColumn('validation_rule_id', 'text')
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // A campaign's rules, listed by creation (the list endpoint and the tier earning-rules list).
  await db.schema.createIndex('earning_rules_campaign').on('earning_rules').columns(['project_id', 'campaign_id', 'created_at', 'id']).execute();
  // The rules an event fires: an order paid, a custom event, a segment entered, a tier change.
  await db.schema.createIndex('earning_rules_event').on('earning_rules').columns(['project_id', 'event', 'campaign_id']).execute();

  await db.schema
    .createTable('loyalty_tiers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('points_from', 'bigint', (c) => c.notNull())
    // null: no upper bound.
    .addColumn('points_to', 'bigint')
    // Earning rule id → mapping, reward assignment id → mapping ({type: MULTIPLY|CUSTOM, …}).
    .addColumn('earning_rules', 'text', (c) => c.notNull())
    .addColumn('rewards', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('loyalty_tiers_campaign').on('loyalty_tiers').columns(['project_id', 'campaign_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('loyalty_tiers_range').on('loyalty_tiers').columns(['project_id', 'campaign_id', 'points_from', 'id']).execute();

  // The tier a loyalty card holds now (and, for NEXT_PERIOD programs, the tier it will hold from the next
  // qualification period). One row per card: the unique index is what makes concurrent recalculations of
  // one card end in one membership.
  await db.schema
    .createTable('loyalty_tier_members')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('tier_id', 'text')
    // Calendar days (YYYY-MM-DD) in the project's time zone; the expiration day is the last one held.
    .addColumn('start_date', 'text')
    .addColumn('expiration_date', 'text')
    .addColumn('pending_tier_id', 'text')
    .addColumn('pending_start_date', 'text')
    .addColumn('pending_expiration_date', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('loyalty_tier_members_card').on('loyalty_tier_members').columns(['project_id', 'voucher_id']).unique().execute();
  // The periodic refresh finds, across projects, the cards whose tier expired or whose pending tier starts.
  await db.schema.createIndex('loyalty_tier_members_expiring').on('loyalty_tier_members').columns(['expiration_date', 'project_id', 'voucher_id']).execute();
  await db.schema.createIndex('loyalty_tier_members_pending').on('loyalty_tier_members').columns(['pending_start_date', 'project_id', 'voucher_id']).execute();
  await db.schema.createIndex('loyalty_tier_members_tier').on('loyalty_tier_members').columns(['project_id', 'tier_id']).execute();

  await db.schema
    .createTable('rewards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    // Units left; null = unlimited. Taken only by a conditional decrement that cannot go below zero.
    .addColumn('stock', 'bigint')
    .addColumn('redeemed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addCheckConstraint('rewards_stock_not_negative', sql`stock is null or stock >= 0`)
    .execute();
  await db.schema.createIndex('rewards_created').on('rewards').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('reward_assignments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('reward_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    // Price in points; null for pay-with-points (COIN) assignments.
    .addColumn('points', 'bigint')
    .addColumn('auto_redeem', 'boolean')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // A reward is assigned to a campaign once (vendor: 409 duplicate_found).
  await db.schema.createIndex('reward_assignments_pair').on('reward_assignments').columns(['project_id', 'reward_id', 'campaign_id']).unique().execute();
  await db.schema.createIndex('reward_assignments_campaign').on('reward_assignments').columns(['project_id', 'campaign_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('reward_assignments_reward').on('reward_assignments').columns(['project_id', 'reward_id', 'created_at', 'id']).execute();
  // At most one assignment per campaign redeems automatically (loyalty reference 5.3).
  await db.schema
    .createIndex('reward_assignments_auto_redeem')
    .on('reward_assignments')
    .columns(['project_id', 'campaign_id'])
    .unique()
    .where(sql.ref('auto_redeem'), '=', true)
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of ['reward_assignments', 'rewards', 'loyalty_tier_members', 'loyalty_tiers', 'earning_rules']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
