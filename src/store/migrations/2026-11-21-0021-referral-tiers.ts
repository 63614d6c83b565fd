import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Referral tiers (a Punchcard extension: the vendor defines them only in its dashboard): the referrer
// rewards of a REFERRAL_PROGRAM campaign, each earned when a referrer's converted referees reach its
// `conversions`; the per-referrer conversion counter that decides it; and the record of each tier paid,
// whose unique index is what makes a tier pay a referrer at most once, whatever retries or races do.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('referral_tiers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('banner', 'text')
    .addColumn('conversions', 'integer', (c) => c.notNull())
    // `{type, campaign_id, amount}`: the reward campaign is resolved to its id when the tier is written,
    // so renaming that campaign never breaks the tier.
    .addColumn('reward', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // One tier per number of conversions in a program; also serves the list (ordered by conversions) and
  // the conversion's lookup of the tier a referrer just reached.
  await db.schema
    .createIndex('referral_tiers_conversions')
    .on('referral_tiers')
    .columns(['project_id', 'campaign_id', 'conversions'])
    .unique()
    .execute();

  // How many referees a referrer converted in a program, moved by one upsert per conversion whose
  // RETURNING value is the count that conversion reached (concurrent conversions queue on the row).
  await db.schema
    .createTable('referrer_conversions')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('referrer_id', 'text', (c) => c.notNull())
    .addColumn('conversions', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('referrer_conversions_pk', ['project_id', 'campaign_id', 'referrer_id'])
    .execute();
  // Conversions recorded before this migration count: the next one continues from them.
  await sql`
    insert into referrer_conversions (project_id, campaign_id, referrer_id, conversions, updated_at)
    select project_id, campaign_id, referrer_id, count(*), max(created_at)
    from referrals
    group by project_id, campaign_id, referrer_id
  `.execute(db);

  // A tier paid to a referrer: the conversion that earned it and what was given.
  await db.schema
    .createTable('referral_tier_rewards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('tier_id', 'text', (c) => c.notNull())
    .addColumn('referrer_id', 'text', (c) => c.notNull())
    .addColumn('referral_id', 'text', (c) => c.notNull())
    .addColumn('conversions', 'integer', (c) => c.notNull())
    .addColumn('reward_type', 'text', (c) => c.notNull())
    .addColumn('voucher_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('referral_tier_rewards_once')
    .on('referral_tier_rewards')
    .columns(['project_id', 'tier_id', 'referrer_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('referral_tier_rewards_referrer')
    .on('referral_tier_rewards')
    .columns(['project_id', 'referrer_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('referral_tier_rewards').ifExists().execute();
  await db.schema.dropTable('referrer_conversions').ifExists().execute();
  await db.schema.dropTable('referral_tiers').ifExists().execute();
}
