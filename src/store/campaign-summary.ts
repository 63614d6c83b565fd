import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './db.ts';

// Aggregates behind `GET /v1/campaigns/{id}/summary`, computed by the database over one campaign's rows
// (each query reads an index that starts with project_id and campaign_id), never by loading rows.

export interface Window {
  /** Inclusive bounds on the counted records' timestamps. */
  from?: string;
  to?: string;
}

function within<T extends string>(column: T, window: Window): RawBuilder<boolean> {
  const parts = [sql`1 = 1`];
  if (window.from !== undefined) parts.push(sql`${sql.ref(column)} >= ${window.from}`);
  if (window.to !== undefined) parts.push(sql`${sql.ref(column)} <= ${window.to}`);
  return sql<boolean>`(${sql.join(parts, sql` and `)})`;
}

export interface RedemptionTotals {
  redemptions: number;
  redemptionsSucceeded: number;
  redemptionsFailed: number;
  rollbacks: number;
  rollbacksSucceeded: number;
  rollbacksFailed: number;
  ordersAmount: number;
  ordersRolledBackAmount: number;
  discountedAmount: number;
  rolledBackDiscountedAmount: number;
}

export async function redemptionTotals(db: Executor, projectId: string, campaignId: string, window: Window): Promise<RedemptionTotals> {
  const rows = await db
    .selectFrom('redemptions')
    .select(['object', 'result'])
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number | null>('order_amount').as('amount'),
      eb.fn.sum<number | null>('order_total_discount_amount').as('discount'),
    ])
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where(within('created_at', window))
    .groupBy(['object', 'result'])
    .execute();
  const totals: RedemptionTotals = {
    redemptions: 0,
    redemptionsSucceeded: 0,
    redemptionsFailed: 0,
    rollbacks: 0,
    rollbacksSucceeded: 0,
    rollbacksFailed: 0,
    ordersAmount: 0,
    ordersRolledBackAmount: 0,
    discountedAmount: 0,
    rolledBackDiscountedAmount: 0,
  };
  for (const row of rows) {
    const n = Number(row.n);
    const success = row.result === 'SUCCESS';
    if (row.object === 'redemption') {
      totals.redemptions += n;
      if (success) {
        totals.redemptionsSucceeded += n;
        totals.ordersAmount += Number(row.amount ?? 0);
        totals.discountedAmount += Number(row.discount ?? 0);
      } else totals.redemptionsFailed += n;
    } else {
      totals.rollbacks += n;
      if (success) {
        totals.rollbacksSucceeded += n;
        totals.ordersRolledBackAmount += Number(row.amount ?? 0);
        totals.rolledBackDiscountedAmount += Number(row.discount ?? 0);
      } else totals.rollbacksFailed += n;
    }
  }
  return totals;
}

export interface VoucherTotals {
  created: number;
  deleted: number;
  /** Gift credits or loyalty points the created vouchers started with (before any top-up). */
  createdValue: number;
  /** Credits or points left on the vouchers deleted (binned) in the window. */
  deletedValue: number;
}

// Lifetime counters include everything added later; subtracting those additions leaves the starting value.
const GIFT_ADDITIONS = ['CREDITS_ADDITION'];
const POINT_ADDITIONS = ['POINTS_ADDITION', 'POINTS_ACCRUAL', 'POINTS_TRANSFER_IN', 'PENDING_POINTS_ACTIVATION'];

export async function voucherTotals(db: Executor, projectId: string, campaignId: string, kind: 'gift' | 'loyalty' | 'none', window: Window): Promise<VoucherTotals> {
  const lifetime = kind === 'gift' ? sql<number>`coalesce(v.gift_amount, 0)` : kind === 'loyalty' ? sql<number>`v.loyalty_points` : sql<number>`0`;
  const additions = kind === 'loyalty' ? POINT_ADDITIONS : GIFT_ADDITIONS;
  const added =
    kind === 'none'
      ? sql<number>`0`
      : sql<number>`coalesce((select sum(t.amount) from voucher_transactions t where t.project_id = v.project_id and t.voucher_id = v.id and t.type in (${sql.join(additions)})), 0)`;
  // Live and binned vouchers are counted apart so each count reads its own partial index.
  let createdCount = 0;
  let createdValue = 0;
  for (const binned of [false, true]) {
    const row = await db
      .selectFrom('vouchers as v')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number | null>(sql`${lifetime} - ${added}`).as('value')])
      .where('v.project_id', '=', projectId)
      .where('v.campaign_id', '=', campaignId)
      .where('v.binned_at', binned ? 'is not' : 'is', null)
      .where(within('v.created_at', window))
      .executeTakeFirstOrThrow();
    createdCount += Number(row.n);
    createdValue += Number(row.value ?? 0);
  }
  const remaining = kind === 'gift' ? sql<number>`gift_balance` : kind === 'loyalty' ? sql<number>`loyalty_balance` : sql<number>`0`;
  const deleted = await db
    .selectFrom('vouchers')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number | null>(remaining).as('value')])
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('binned_at', 'is not', null)
    .where(within('binned_at', window))
    .executeTakeFirstOrThrow();
  return { created: createdCount, deleted: Number(deleted.n), createdValue, deletedValue: Number(deleted.value ?? 0) };
}

export async function publicationTotals(db: Executor, projectId: string, campaignId: string, window: Window): Promise<{ total: number; succeeded: number; failed: number }> {
  const rows = await db
    .selectFrom('publications')
    .select('result')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where(within('created_at', window))
    .groupBy('result')
    .execute();
  let succeeded = 0;
  let failed = 0;
  for (const row of rows) {
    if (row.result === 'SUCCESS') succeeded += Number(row.n);
    else failed += Number(row.n);
  }
  return { total: succeeded + failed, succeeded, failed };
}

/** Sum of signed transaction amounts per type (credits or points) for the campaign's cards. */
export async function transactionTotals(db: Executor, projectId: string, campaignId: string, window: Window): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('voucher_transactions')
    .select('type')
    .select((eb) => eb.fn.sum<number>('amount').as('total'))
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where(within('created_at', window))
    .groupBy('type')
    .execute();
  return new Map(rows.map((r) => [r.type, Number(r.total)]));
}

export async function referredCustomers(db: Executor, projectId: string, campaignId: string, window: Window): Promise<number> {
  const row = await db
    .selectFrom('referrals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where(within('created_at', window))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
