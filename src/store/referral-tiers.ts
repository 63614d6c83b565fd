import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import type { ReferralTierRewardsTable, ReferralTiersTable } from './schema.ts';

// Referral tiers (referrer rewards of a referral program, a Punchcard extension), the per-referrer
// conversion counter, and the record of tiers paid. Uniqueness (one tier per number of conversions in a
// program, one payment per tier and referrer) is kept by unique indexes, never by a prior read.

export type ReferralTierRow = Selectable<ReferralTiersTable>;

export async function insertReferralTier(db: Executor, row: Insertable<ReferralTiersTable>): Promise<void> {
  await db.insertInto('referral_tiers').values(row).execute();
}

export async function findReferralTier(db: Executor, projectId: string, campaignId: string, id: string): Promise<ReferralTierRow | undefined> {
  return db
    .selectFrom('referral_tiers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The tier, locked until the transaction ends on PostgreSQL (SQLite writers run one at a time anyway). */
export async function lockReferralTier(db: Executor, projectId: string, campaignId: string, id: string): Promise<ReferralTierRow | undefined> {
  const query = db
    .selectFrom('referral_tiers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('id', '=', id);
  return (isPostgres(db) ? query.forUpdate() : query).executeTakeFirst();
}

export async function updateReferralTier(db: Executor, projectId: string, id: string, patch: Updateable<ReferralTiersTable>): Promise<boolean> {
  const result = await db.updateTable('referral_tiers').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteReferralTier(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('referral_tiers').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A force-deleted program's tier definitions go with it (the rewards already paid stay as history). */
export async function deleteReferralTiersOfCampaign(db: Executor, projectId: string, campaignId: string): Promise<void> {
  await db.deleteFrom('referral_tiers').where('project_id', '=', projectId).where('campaign_id', '=', campaignId).execute();
}

export type ReferralTierOrder = 'conversions' | '-conversions';

export interface ReferralTierListQuery {
  projectId: string;
  campaignId: string;
  limit: number;
  offset: number;
  order: ReferralTierOrder;
}

/** A program's tiers, walked along referral_tiers_conversions. */
export async function listReferralTiers(db: Executor, q: ReferralTierListQuery): Promise<{ rows: ReferralTierRow[]; total: number }> {
  const base = db.selectFrom('referral_tiers').where('project_id', '=', q.projectId).where('campaign_id', '=', q.campaignId);
  const rows = await base
    .selectAll()
    .orderBy('conversions', q.order === 'conversions' ? 'asc' : 'desc')
    .limit(q.limit)
    .offset(q.offset)
    .execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** The program's tier earned at exactly `conversions` converted referees, if there is one. */
export async function findTierAtConversions(db: Executor, projectId: string, campaignId: string, conversions: number): Promise<ReferralTierRow | undefined> {
  return db
    .selectFrom('referral_tiers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('conversions', '=', conversions)
    .executeTakeFirst();
}

/**
 * Counts one more converted referee of `referrerId` in the program and answers the count this conversion
 * reached. One upsert: concurrent conversions of one referrer queue on the counter row, so each reaches
 * its own number and no number is skipped or reached twice.
 */
export async function countReferrerConversion(db: Executor, key: { projectId: string; campaignId: string; referrerId: string; at: string }): Promise<number> {
  const row = await db
    .insertInto('referrer_conversions')
    .values({ project_id: key.projectId, campaign_id: key.campaignId, referrer_id: key.referrerId, conversions: 1, updated_at: key.at })
    .onConflict((oc) =>
      oc.columns(['project_id', 'campaign_id', 'referrer_id']).doUpdateSet({
        conversions: sql<number>`referrer_conversions.conversions + 1`,
        updated_at: key.at,
      }),
    )
    .returning('conversions')
    .executeTakeFirstOrThrow();
  return Number(row.conversions);
}

/**
 * Claims the payment of a tier to a referrer; answers false when it was claimed before (by an earlier
 * conversion, a retry, or a concurrent transaction that committed first). Skipping on conflict keeps the
 * caller's transaction usable on PostgreSQL.
 */
export async function claimTierReward(db: Executor, row: Insertable<ReferralTierRewardsTable>): Promise<boolean> {
  const result = await db
    .insertInto('referral_tier_rewards')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'tier_id', 'referrer_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Records what a claimed tier payment gave (the card or coupon, and the balance transaction). */
export async function recordTierRewardGiven(db: Executor, projectId: string, id: string, given: { voucherId: string; transactionId: string | null }): Promise<void> {
  await db
    .updateTable('referral_tier_rewards')
    .set({ voucher_id: given.voucherId, transaction_id: given.transactionId })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}
