import { sql } from 'kysely';
import { businessError, errors } from '../../domain/errors.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { toJson } from '../../store/json.ts';
import { drainBucket, insertBucket, insertTransaction, refillBucket, spendableBuckets, type BucketRow } from '../../store/ledger.ts';
import { lockVoucherRow, type VoucherRow } from '../../store/vouchers.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';

// The one place where gift credits and loyalty points change. Every change is one conditional UPDATE of
// the voucher row (the balance can never go below zero, and concurrent writers on one card queue on its
// row), one transaction record, and for loyalty cards the buckets that hold points by expiry date.
//
// Loyalty arithmetic (loyalty reference 0.2):
//   balance = points − expired_points − subtracted_points − redeemed_points
//   total   = points − subtracted_points          (what `details.balance.total` reports)
// Points not held by any bucket (a card's starting points) never expire and are spent last.

export type PointsCreditType = 'POINTS_ADDITION' | 'POINTS_ACCRUAL' | 'POINTS_TRANSFER_IN' | 'PENDING_POINTS_ACTIVATION' | 'POINTS_REFUND';
export type PointsDebitType = 'POINTS_REMOVAL' | 'POINTS_REDEMPTION' | 'POINTS_TRANSFER_OUT';
export type CreditsCreditType = 'CREDITS_ADDITION' | 'CREDITS_REFUND';
export type CreditsDebitType = 'CREDITS_REMOVAL' | 'CREDITS_REDEMPTION';

export interface LedgerInput {
  points: number;
  source?: string | null;
  sourceId?: string | null;
  reason?: string | null;
  /** Type-specific members of the transaction's `details` (order, earning_rule, reward, …). */
  details?: Record<string, unknown>;
  operationType?: 'MANUAL' | 'AUTOMATIC';
  relatedTransactionId?: string | null;
  /** Id to give the transaction (transfers link both sides before either is written). */
  transactionId?: string;
}

interface BalanceBase {
  total: number;
  balance: number;
  object: 'balance';
  operation_type: 'MANUAL' | 'AUTOMATIC';
  related_object: { id: string; type: 'voucher' };
}

/** A loyalty card's balance after a change; `points` is the signed change. */
export interface PointsBalance extends BalanceBase {
  points: number;
  type: 'loyalty_card';
}

/** A gift card's balance after a change; `amount` is the signed change, as the vendor names it there. */
export interface CreditsBalance extends BalanceBase {
  amount: number;
  type: 'gift_voucher';
}

export type BalanceObject = PointsBalance | CreditsBalance;

export interface LedgerResult<B extends BalanceObject = BalanceObject> {
  transaction: TransactionObject;
  balance: B;
  /** The card after the change, as stored. */
  card: VoucherRow;
}

export interface TransactionObject {
  id: string;
  source_id: string | null;
  voucher_id: string;
  campaign_id: string | null;
  source: string | null;
  reason: string | null;
  type: string;
  details: Record<string, unknown>;
  related_transaction_id: string | null;
  created_at: string;
}

function balanceObject(card: VoucherRow, delta: number, operationType: 'MANUAL' | 'AUTOMATIC'): BalanceObject {
  const base = { object: 'balance' as const, operation_type: operationType, related_object: { id: card.id, type: 'voucher' as const } };
  if (card.type === 'LOYALTY_CARD') {
    const total = Number(card.loyalty_points) - Number(card.loyalty_subtracted_points);
    return { points: delta, total, balance: Number(card.loyalty_balance), type: 'loyalty_card', ...base };
  }
  const total = Number(card.gift_amount ?? 0) - Number(card.gift_subtracted_amount);
  return { amount: delta, total, balance: Number(card.gift_balance), type: 'gift_voucher', ...base };
}

async function record(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  card: VoucherRow,
  type: string,
  delta: number,
  input: LedgerInput,
  bucketMoves: Record<string, number> | null,
): Promise<LedgerResult> {
  const operationType = input.operationType ?? 'MANUAL';
  const balance = balanceObject(card, delta, operationType);
  const now = deps.clock.now().toISOString();
  const transaction: TransactionObject = {
    id: input.transactionId ?? deps.ids.next('vtx'),
    source_id: input.sourceId ?? null,
    voucher_id: card.id,
    campaign_id: card.campaign_id,
    source: input.source ?? null,
    reason: input.reason ?? null,
    type,
    details: { ...(input.details ?? {}), balance },
    related_transaction_id: input.relatedTransactionId ?? null,
    created_at: now,
  };
  await insertTransaction(tx, {
    id: transaction.id,
    project_id: actor.projectId,
    voucher_id: card.id,
    campaign_id: card.campaign_id,
    type,
    source_id: transaction.source_id,
    source: transaction.source,
    reason: transaction.reason,
    amount: delta,
    balance_after: balance.balance,
    total_after: balance.total,
    operation_type: operationType,
    details: toJson(transaction.details),
    bucket_moves: bucketMoves ? toJson(bucketMoves) : null,
    related_transaction_id: transaction.related_transaction_id,
    created_at: now,
  });
  const loyalty = card.type === 'LOYALTY_CARD';
  const event: NewEvent = makeEvent(deps, actor, {
    type: loyalty ? 'voucher.loyalty_card.transaction.created' : 'voucher.gift.transaction.created',
    entityId: transaction.id,
    voucherCode: card.code,
    customerId: card.holder_id,
    data: { transaction, balance, voucher: { id: card.id, code: card.code, type: card.type, campaign_id: card.campaign_id, holder_id: card.holder_id } },
  });
  await appendEvents(tx, [event]);
  return { transaction, balance, card };
}

function positive(points: number, what: string): void {
  if (!Number.isSafeInteger(points) || points <= 0) throw businessError('invalid_amount', 'Invalid Amount', { details: `${what} must be a positive whole number` });
}

async function updatedCard(tx: Tx, projectId: string, id: string, set: Record<string, unknown>, guard?: { column: 'loyalty_balance' | 'gift_balance'; atLeast: number }): Promise<VoucherRow | undefined> {
  let query = tx
    .updateTable('vouchers')
    .set(set)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null);
  if (guard) query = query.where(guard.column, '>=', guard.atLeast);
  return query.returningAll().executeTakeFirst();
}

/**
 * Adds points to a loyalty card. `expiresAt` (YYYY-MM-DD or null for never) puts them in a bucket;
 * `refill` instead puts refunded points back into the buckets they were spent from.
 */
export async function creditPoints(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  card: VoucherRow,
  type: PointsCreditType,
  input: LedgerInput & { expiresAt?: string | null; refill?: Record<string, number>; today?: string },
): Promise<LedgerResult<PointsBalance>> {
  positive(input.points, 'points');
  const n = input.points;
  const counters =
    type === 'POINTS_REFUND'
      ? { redeemed_points: sql<number>`redeemed_points - ${n}` }
      : { loyalty_points: sql<number>`loyalty_points + ${n}` };
  const after = await updatedCard(tx, actor.projectId, card.id, {
    loyalty_balance: sql<number>`loyalty_balance + ${n}`,
    ...counters,
    ...(type === 'PENDING_POINTS_ACTIVATION' ? { loyalty_pending_points: sql<number>`loyalty_pending_points - ${n}` } : {}),
    updated_at: deps.clock.now().toISOString(),
  });
  if (!after) throw errors.notFound('voucher', card.code);
  const now = deps.clock.now().toISOString();
  if (input.refill) {
    for (const [bucketId, points] of Object.entries(input.refill)) {
      // A bucket that expired while its points were spent gets them back as a new bucket due today.
      if (!(await refillBucket(tx, actor.projectId, bucketId, points, now))) {
        await insertBucket(tx, {
          id: deps.ids.next('lopb'),
          project_id: actor.projectId,
          voucher_id: card.id,
          campaign_id: card.campaign_id,
          points,
          initial_points: points,
          expires_at: input.today ?? now.slice(0, 10),
          status: 'ACTIVE',
          created_at: now,
          updated_at: null,
        });
      }
    }
  } else if (input.expiresAt !== undefined) {
    await insertBucket(tx, {
      id: deps.ids.next('lopb'),
      project_id: actor.projectId,
      voucher_id: card.id,
      campaign_id: card.campaign_id,
      points: n,
      initial_points: n,
      expires_at: input.expiresAt,
      status: 'ACTIVE',
      created_at: now,
      updated_at: null,
    });
  }
  return record(tx, deps, actor, after, type, n, input, null) as Promise<LedgerResult<PointsBalance>>;
}

/**
 * Takes points from a loyalty card, soonest-expiring bucket first. Fails with
 * `loyalty_card_points_exceeded` (and changes nothing) when the balance is short (DECISIONS 16).
 * Buckets due to expire by `today` are expired first, so they can never be spent.
 */
export async function debitPoints(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  card: VoucherRow,
  type: PointsDebitType,
  input: LedgerInput & { today: string },
): Promise<LedgerResult<PointsBalance>> {
  positive(input.points, 'points');
  const n = input.points;
  await expireDueBuckets(tx, deps, actor, card, input.today);
  const counter =
    type === 'POINTS_REDEMPTION'
      ? { redeemed_points: sql<number>`redeemed_points + ${n}` }
      : { loyalty_subtracted_points: sql<number>`loyalty_subtracted_points + ${n}` };
  const after = await updatedCard(
    tx,
    actor.projectId,
    card.id,
    { loyalty_balance: sql<number>`loyalty_balance - ${n}`, ...counter, updated_at: deps.clock.now().toISOString() },
    { column: 'loyalty_balance', atLeast: n },
  );
  if (!after) {
    const current = await tx.selectFrom('vouchers').select('loyalty_balance').where('id', '=', card.id).executeTakeFirst();
    throw businessError('loyalty_card_points_exceeded', 'Loyalty card points exceeded', {
      details: `Card ${card.code} has ${Number(current?.loyalty_balance ?? 0)} points; ${n} were asked for`,
      resourceId: card.code,
      resourceType: 'voucher',
    });
  }
  const moves: Record<string, number> = {};
  let left = n;
  const now = deps.clock.now().toISOString();
  for (const bucket of await spendableBuckets(tx, actor.projectId, card.id, input.today)) {
    if (left === 0) break;
    const take = Math.min(left, Number(bucket.points));
    if (!(await drainBucket(tx, actor.projectId, bucket.id, take, now))) throw new Error(`bucket ${bucket.id} changed under a locked card`);
    moves[bucket.id] = take;
    left -= take;
  }
  // Whatever the buckets did not cover came from the card's own, never-expiring points.
  return record(tx, deps, actor, after, type, -n, input, moves) as Promise<LedgerResult<PointsBalance>>;
}

/** Expires the card's buckets whose last usable day is before `today`; answers the expired points. */
export async function expireDueBuckets(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, today: string): Promise<number> {
  const due: BucketRow[] = await tx
    .selectFrom('loyalty_buckets')
    .selectAll()
    .where('project_id', '=', actor.projectId)
    .where('voucher_id', '=', card.id)
    .where('status', '=', 'ACTIVE')
    .where('expires_at', '<', today)
    .execute();
  if (due.length === 0) return 0;
  // Card first, then its buckets: the same lock order as a debit, so the two never deadlock.
  await lockVoucherRow(tx, actor.projectId, card.id);
  const now = deps.clock.now().toISOString();
  // Only the buckets this statement moves from ACTIVE count: a concurrent expiry of the same card waits on
  // the rows and then finds them EXPIRED, so no point is expired twice.
  const expired = await tx
    .updateTable('loyalty_buckets')
    .set({ status: 'EXPIRED', updated_at: now })
    .where('project_id', '=', actor.projectId)
    .where('id', 'in', due.map((b) => b.id))
    .where('status', '=', 'ACTIVE')
    .returning(['id', 'points', 'expires_at'])
    .execute();
  const points = expired.reduce((sum, b) => sum + Number(b.points), 0);
  if (points === 0) return 0;
  const after = await updatedCard(
    tx,
    actor.projectId,
    card.id,
    {
      loyalty_balance: sql<number>`loyalty_balance - ${points}`,
      loyalty_expired_points: sql<number>`loyalty_expired_points + ${points}`,
      updated_at: now,
    },
    { column: 'loyalty_balance', atLeast: points },
  );
  if (!after) throw new Error(`card ${card.id} holds fewer points than its buckets`);
  const buckets = expired.filter((b) => Number(b.points) > 0).map((b) => ({ id: b.id, expires_at: b.expires_at, points: Number(b.points) }));
  const result = await record(tx, deps, actor, after, 'POINTS_EXPIRATION', -points, { points, source: 'Automation', operationType: 'AUTOMATIC' }, null);
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'voucher.loyalty_card.points_expired',
      activityType: card.holder_id ? 'customer.voucher.loyalty_card.points_expired' : null,
      activityCategory: card.holder_id ? 'EFFECT' : null,
      customerId: card.holder_id,
      entityId: card.id,
      voucherCode: card.code,
      data: { voucher: { id: card.id, code: card.code, campaign_id: card.campaign_id }, points, buckets, transaction: result.transaction, balance: result.balance },
    }),
  ]);
  return points;
}

/** Adds gift credits (a top-up, or a refund of a redemption). */
export async function creditCredits(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, type: CreditsCreditType, input: LedgerInput): Promise<LedgerResult<CreditsBalance>> {
  positive(input.points, 'amount');
  const n = input.points;
  const counter =
    type === 'CREDITS_REFUND' ? { redeemed_amount: sql<number>`redeemed_amount - ${n}` } : { gift_amount: sql<number>`coalesce(gift_amount, 0) + ${n}` };
  const after = await updatedCard(tx, actor.projectId, card.id, { gift_balance: sql<number>`gift_balance + ${n}`, ...counter, updated_at: deps.clock.now().toISOString() });
  if (!after) throw errors.notFound('voucher', card.code);
  return record(tx, deps, actor, after, type, n, input, null) as Promise<LedgerResult<CreditsBalance>>;
}

/** Takes gift credits; fails with `gift_amount_exceeded` and changes nothing when the balance is short. */
export async function debitCredits(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, type: CreditsDebitType, input: LedgerInput): Promise<LedgerResult<CreditsBalance>> {
  positive(input.points, 'amount');
  const n = input.points;
  const counter =
    type === 'CREDITS_REDEMPTION' ? { redeemed_amount: sql<number>`redeemed_amount + ${n}` } : { gift_subtracted_amount: sql<number>`gift_subtracted_amount + ${n}` };
  const after = await updatedCard(
    tx,
    actor.projectId,
    card.id,
    { gift_balance: sql<number>`gift_balance - ${n}`, ...counter, updated_at: deps.clock.now().toISOString() },
    { column: 'gift_balance', atLeast: n },
  );
  if (!after) {
    throw businessError('gift_amount_exceeded', 'Gift amount exceeded', {
      details: `Gift card ${card.code} holds less than ${n}`,
      resourceId: card.code,
      resourceType: 'voucher',
    });
  }
  return record(tx, deps, actor, after, type, -n, input, null) as Promise<LedgerResult<CreditsBalance>>;
}
