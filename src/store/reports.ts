import { sql } from 'kysely';
import type { Executor } from './db.ts';

// Figures for the console's home page, grouped in ten-minute slots (`YYYY-MM-DDTHH:M`, the first 15
// characters of a stored timestamp) so the service can gather them into days of any time zone, those
// with half- and quarter-hour offsets too. Each query reads one project's rows of the range through an
// index that starts with (project_id, created_at).

export interface RedemptionSlot {
  slot: string;
  redeemed: number;
  failed: number;
  rolled_back: number;
  discount: number;
}

export interface PointsSlot {
  slot: string;
  issued: number;
  spent: number;
}

const num = (value: unknown) => Number(value ?? 0);

/**
 * Redemption records of [from, to), of one campaign when `campaignId` is given (then through the index on
 * (project_id, campaign_id, created_at)): stacked parents are not counted, only what each redeemable did.
 */
export async function redemptionSlots(db: Executor, projectId: string, from: string, to: string, campaignId?: string): Promise<RedemptionSlot[]> {
  let query = db
    .selectFrom('redemptions')
    .select([
      sql<string>`substr(created_at, 1, 15)`.as('slot'),
      sql<number>`sum(case when object = 'redemption' and result = 'SUCCESS' then 1 else 0 end)`.as('redeemed'),
      sql<number>`sum(case when object = 'redemption' and result = 'FAILURE' then 1 else 0 end)`.as('failed'),
      sql<number>`sum(case when object = 'redemption_rollback' and result = 'SUCCESS' then 1 else 0 end)`.as('rolled_back'),
      // Discount still granted: successful redemptions not rolled back since.
      sql<number>`sum(case when object = 'redemption' and status = 'SUCCEEDED' then coalesce(order_total_applied_discount_amount, 0) else 0 end)`.as('discount'),
    ])
    .where('project_id', '=', projectId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .where('related_object_type', '!=', 'redemption')
    .groupBy(sql`substr(created_at, 1, 15)`);
  if (campaignId !== undefined) query = query.where('campaign_id', '=', campaignId);
  const rows = await query.execute();
  return rows.map((r) => ({ slot: r.slot, redeemed: num(r.redeemed), failed: num(r.failed), rolled_back: num(r.rolled_back), discount: num(r.discount) }));
}

/** Loyalty points added (earning rules and manual additions) and spent (rewards, redemptions) in [from, to). */
export async function pointsSlots(db: Executor, projectId: string, from: string, to: string, campaignId?: string): Promise<PointsSlot[]> {
  let query = db
    .selectFrom('voucher_transactions')
    .select([
      sql<string>`substr(created_at, 1, 15)`.as('slot'),
      sql<number>`sum(case when type in ('POINTS_ACCRUAL', 'POINTS_ADDITION') then amount else 0 end)`.as('issued'),
      sql<number>`sum(case when type = 'POINTS_REDEMPTION' then -amount else 0 end)`.as('spent'),
    ])
    .where('project_id', '=', projectId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy(sql`substr(created_at, 1, 15)`);
  if (campaignId !== undefined) query = query.where('campaign_id', '=', campaignId);
  const rows = await query.execute();
  return rows.map((r) => ({ slot: r.slot, issued: num(r.issued), spent: num(r.spent) }));
}

/** Campaigns that are enabled and within their dates at `now`. */
export async function countActiveCampaigns(db: Executor, projectId: string, now: string): Promise<number> {
  const row = await db
    .selectFrom('campaigns')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
    .where('active', '=', true)
    .where('binned_at', 'is', null)
    .where((eb) => eb.or([eb('start_date', 'is', null), eb('start_date', '<=', now)]))
    .where((eb) => eb.or([eb('expiration_date', 'is', null), eb('expiration_date', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface TopCode {
  code: string;
  redemptions: number;
  discount_amount: number;
}

/** A campaign's codes with the most successful redemptions in [from, to), most first (ties by code). */
export async function topCodes(db: Executor, projectId: string, campaignId: string, from: string, to: string, limit: number): Promise<TopCode[]> {
  const rows = await db
    .selectFrom('redemptions')
    .select([
      'voucher_code',
      sql<number>`count(*)`.as('redeemed'),
      sql<number>`sum(case when status = 'SUCCEEDED' then coalesce(order_total_applied_discount_amount, 0) else 0 end)`.as('discount'),
    ])
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .where('object', '=', 'redemption')
    .where('result', '=', 'SUCCESS')
    .where('voucher_code', 'is not', null)
    .groupBy('voucher_code')
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('voucher_code')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ code: r.voucher_code ?? '', redemptions: num(r.redeemed), discount_amount: num(r.discount) }));
}

export interface CodeCounts {
  total: number;
  published: number;
  redeemed: number;
}

/** A campaign's live codes now: how many, how many have a holder, how many were redeemed at least once. */
export async function codeCounts(db: Executor, projectId: string, campaignId: string): Promise<CodeCounts> {
  const row = await db
    .selectFrom('vouchers')
    .select([
      sql<number>`count(*)`.as('total'),
      sql<number>`sum(case when holder_id is not null then 1 else 0 end)`.as('published'),
      sql<number>`sum(case when redeemed_quantity > 0 then 1 else 0 end)`.as('redeemed'),
    ])
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('binned_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { total: num(row.total), published: num(row.published), redeemed: num(row.redeemed) };
}
