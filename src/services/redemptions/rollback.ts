import { businessError, DomainError, errors } from '../../domain/errors.ts';
import type { OrderLine } from '../../domain/orders/order-math.ts';
import { localDate } from '../../domain/validity/validity.ts';
import type { RollbackInput } from '../../api/redemptions.ts';
import { findLiveCustomer, findLiveCustomerById, toCustomerObject } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { fromJson } from '../../store/json.ts';
import { lockCards } from '../../store/loyalty.ts';
import { findOrderById } from '../../store/orders.ts';
import { addToTierSummary } from '../../store/promotion-tiers.ts';
import { disableUnusedVoucher, lockOrderKey, returnRewardUnit, returnVoucherUse, transactionBucketMoves } from '../../store/redemption-facts.ts';
import { childrenOf, countCustomerRollback, findRedemption, markRolledBack, mergeOrderRedemptions, type RedemptionRow } from '../../store/redemption-records.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { creditCredits, creditPoints, debitCredits, debitPoints } from '../ledger/ledger.ts';
import type { OrderObject } from '../orders/order-object.ts';
import { orderLinesOf, toOrderObject } from '../orders/order-object.ts';
import { upsertOrderIn } from '../orders/orders.ts';
import { projectTimeZone } from '../promotions/availability.ts';
import { channelOf, insertRecord, type RedeemableEffects, type RedemptionRecord, type RewardRedemptionEffects } from './records.ts';
import { tierSnapshots, voucherSnapshots } from './snapshots.ts';
import { effectiveStackingRules } from './stacking-rules.ts';

// Rollbacks (promotions reference 6.13, DECISIONS 15): undo a redemption by restoring exactly what its
// record's `effects` say it consumed — the voucher use, gift credits (CREDITS_REFUND) and points
// (POINTS_REFUND back into the buckets they came from), the reward unit, the tier summary — and, in
// WITH_ORDER mode, cancel the order and take the redemption's discounts off it. One transaction with the
// rollback records (`rr_…`) and events. A rollback that cannot be made is stored as `rrf_…` and answered
// as a 400 naming it: twice → `already_rolled_back`; a child → `invalid_redemption_parent`; a stacked
// parent through `/rollback` → `invalid_redemption`.

/** Redemptions older than this cannot be rolled back (reference 6.13 *Rec.*). */
const MAX_ROLLBACK_AGE_MS = 92 * 86_400_000;

export interface RollbackRequest {
  reason: string | null;
  trackingId: string | null;
  customer: RollbackInput['customer'];
  order: RollbackInput['order'];
  metadata: Record<string, unknown> | null;
}

export function rollbackRequest(query: { reason?: string | undefined; tracking_id?: string | undefined }, body: RollbackInput | undefined): RollbackRequest {
  return {
    reason: body?.reason ?? query.reason ?? null,
    trackingId: body?.tracking_id ?? query.tracking_id ?? null,
    customer: body?.customer ?? null,
    order: body?.order ?? null,
    metadata: body?.metadata ?? null,
  };
}

class RollbackRefused extends Error {
  constructor(
    readonly key: string,
    readonly text: string,
    readonly details: string,
  ) {
    super(text);
  }
}

const refuse = (key: string, message: string, details: string) => new RollbackRefused(key, message, details);

type ChildEffects = RedeemableEffects | RewardRedemptionEffects;

interface Undone {
  row: RedemptionRow;
  effects: ChildEffects | null;
  amount: number | null;
  gift: { amount: number } | null;
  loyaltyCard: { points: number } | null;
}

/** Puts back what one redemption consumed. Ledger refusals (credits already spent) abort the rollback. */
async function undo(tx: Tx, deps: Deps, actor: Actor, row: RedemptionRow, today: string): Promise<Undone> {
  const effects = fromJson<ChildEffects | Record<string, never> | null>(row.effects, null);
  const now = deps.clock.now().toISOString();
  const details = { redemption: { id: row.id }, rollback: true };
  if (!effects || !('kind' in effects)) return { row, effects: null, amount: null, gift: null, loyaltyCard: null };
  const cardIds = effects.kind === 'redeemable' ? [effects.voucher?.voucher_id, effects.credits?.voucher_id, effects.points?.voucher_id] : [effects.card.voucher_id];
  const cards = await lockCards(tx, actor.projectId, cardIds.filter((id): id is string => typeof id === 'string'));
  const cardOf = (id: string) => {
    const card = cards.get(id);
    if (!card) throw refuse('invalid_redemption', 'Invalid redemption', `Voucher ${id} of redemption ${row.id} no longer exists`);
    return card;
  };
  let gift: Undone['gift'] = null;
  let loyaltyCard: Undone['loyaltyCard'] = null;
  if (effects.kind === 'redeemable') {
    if (effects.voucher) await returnVoucherUse(tx, actor.projectId, effects.voucher.voucher_id, now);
    if (effects.credits) {
      await creditCredits(tx, deps, actor, cardOf(effects.credits.voucher_id), 'CREDITS_REFUND', { points: effects.credits.amount, source: 'API', details });
      gift = { amount: -effects.credits.amount };
    }
    if (effects.points) {
      const refill = (await transactionBucketMoves(tx, actor.projectId, effects.points.transaction_id)) ?? undefined;
      await creditPoints(tx, deps, actor, cardOf(effects.points.voucher_id), 'POINTS_REFUND', {
        points: effects.points.points,
        source: 'API',
        details,
        ...(refill ? { refill } : {}),
        today,
      });
      loyaltyCard = { points: -effects.points.points };
    }
    if (effects.reward) await returnRewardUnit(tx, actor.projectId, effects.reward.reward_id, effects.reward.stock_taken, now);
    if (effects.tier) {
      await addToTierSummary(tx, actor.projectId, effects.tier.tier_id, row.id, { redeemed: -1, orderAmount: -effects.tier.order_amount, discountAmount: -effects.tier.discount_amount });
    }
    const amount = gift ? gift.amount : loyaltyCard ? loyaltyCard.points : null;
    return { row, effects, amount, gift, loyaltyCard };
  }
  // A reward redeemed through the loyalty endpoints (src/services/loyalty/reward-redemption.ts).
  await returnVoucherUse(tx, actor.projectId, effects.card.voucher_id, now);
  if (effects.points.points > 0) {
    const refill = effects.points.transaction_id ? ((await transactionBucketMoves(tx, actor.projectId, effects.points.transaction_id)) ?? undefined) : undefined;
    await creditPoints(tx, deps, actor, cardOf(effects.points.voucher_id), 'POINTS_REFUND', {
      points: effects.points.points,
      source: 'API',
      details,
      ...(refill ? { refill } : {}),
      today,
    });
  }
  loyaltyCard = { points: -effects.points.points };
  await returnRewardUnit(tx, actor.projectId, effects.reward.reward_id, effects.reward.stock_taken, now);
  const issued = effects.issued;
  if (issued?.type === 'coupon' && !(await disableUnusedVoucher(tx, actor.projectId, issued.voucher_id, now))) {
    throw refuse('invalid_redemption', 'Invalid redemption', `The coupon ${issued.voucher_id} the reward handed out has been redeemed already`);
  }
  if (issued?.type === 'gift_credits' || issued?.type === 'loyalty_points') {
    const [card] = (await lockCards(tx, actor.projectId, [issued.voucher_id])).values();
    if (!card) throw refuse('invalid_redemption', 'Invalid redemption', `The card ${issued.voucher_id} the reward credited no longer exists`);
    // What the reward added is taken back; if it was spent already, the rollback cannot be made.
    if (issued.type === 'gift_credits') await debitCredits(tx, deps, actor, card, 'CREDITS_REMOVAL', { points: issued.amount, source: 'API', details });
    else await debitPoints(tx, deps, actor, card, 'POINTS_REMOVAL', { points: issued.points, source: 'API', details, today });
  }
  return { row, effects, amount: -effects.points.points, gift: null, loyaltyCard };
}

/** The order after taking the rolled-back redemptions' discounts off it, cancelled (WITH_ORDER). */
async function cancelOrder(tx: Tx, deps: Deps, actor: Actor, orderId: string, undone: readonly Undone[]): Promise<OrderObject | null> {
  const order = await findOrderById(tx, actor.projectId, orderId, { forUpdate: true });
  if (!order) return null;
  let orderDiscount = Number(order.discount_amount);
  const lines: OrderLine[] = orderLinesOf(order).map((l) => ({ ...l }));
  for (const u of undone) {
    const e = u.effects;
    if (!e) continue;
    if (e.kind === 'redeemable' && e.order) {
      orderDiscount -= e.order.discount_amount;
      e.order.items_discount.forEach((d, i) => {
        const line = lines[i];
        if (line) line.discount_amount = Math.max(0, line.discount_amount - d);
      });
    }
    if (e.kind === 'loyalty_reward' && e.order) orderDiscount -= e.order.discount_amount;
  }
  // The amounts sent for lines without prices (or an order without lines) stay as stored.
  return upsertOrderIn(
    tx,
    deps,
    actor,
    { id: order.id, status: 'CANCELED', amount: Number(order.amount), initial_amount: Number(order.initial_amount), discount_amount: Math.max(0, orderDiscount) },
    { lines },
  );
}

interface RollbackOutcome {
  rollbacks: RedemptionRecord[];
  parent: RedemptionRecord | null;
  order: OrderObject | null;
}

async function rollbackIn(tx: Tx, deps: Deps, actor: Actor, target: RedemptionRow, request: RollbackRequest): Promise<RollbackOutcome> {
  if (target.order_id) await lockOrderKey(tx, actor.projectId, target.order_id);
  const stacked = target.related_object_type === 'redemption';
  const children = stacked ? await childrenOf(tx, actor.projectId, target.id) : [];
  const rollbackId = deps.ids.next('rr');
  const childIds = children.map(() => deps.ids.next('rr'));
  // Conditional marks: of two concurrent rollbacks, only one moves the records from SUCCEEDED.
  if (!(await markRolledBack(tx, actor.projectId, target.id, rollbackId))) {
    throw refuse('already_rolled_back', 'Redemption already rolled back', `Redemption ${target.id} has been rolled back already`);
  }
  for (const [i, child] of children.entries()) {
    if (child.status !== 'SUCCEEDED') continue;
    await markRolledBack(tx, actor.projectId, child.id, childIds[i] as string);
  }
  const timeZone = await projectTimeZone(tx, actor.projectId);
  const today = localDate(deps.clock.now(), timeZone);
  const targets = stacked ? children.filter((c) => c.status === 'SUCCEEDED') : [target];
  const undone: Undone[] = [];
  for (const row of targets) undone.push(await undo(tx, deps, actor, row, today));

  const rules = await effectiveStackingRules(tx, actor.projectId);
  const mode = rules.redeemables_rollback_order_mode;
  const at = deps.clock.now().toISOString();
  let order: OrderObject | null = null;
  if (target.order_id) {
    if (mode === 'WITH_ORDER') {
      order = await cancelOrder(tx, deps, actor, target.order_id, undone);
      // The order is gone when its customer was erased for good (permanent deletion): nothing to mark.
      if (order) {
        const entry = { rollback_id: rollbackId, rollback_date: at, ...(stacked ? { rollback_stacked: childIds } : {}) };
        const map = await mergeOrderRedemptions(tx, actor.projectId, target.order_id, { [target.id]: entry });
        order = { ...order, redemptions: map as OrderObject['redemptions'] };
      }
    } else {
      const row = await findOrderById(tx, actor.projectId, target.order_id);
      order = row ? toOrderObject(row) : null;
    }
  }

  const vouchers = await voucherSnapshots(tx, deps, actor, targets.flatMap((r) => (r.voucher_id ? [r.voucher_id] : [])));
  const tiers = await tierSnapshots(tx, actor.projectId, targets.flatMap((r) => (r.promotion_tier_id ? [r.promotion_tier_id] : [])));
  const customerRow = target.customer_id ? await findLiveCustomerById(tx, actor.projectId, target.customer_id) : undefined;
  const customer = customerRow ? toCustomerObject(customerRow) : null;
  const simple = fromJson<RedemptionRecord['customer']>(target.customer_snapshot, null);
  const records: RedemptionRecord[] = [];
  const events: NewEvent[] = [];
  const base = (row: RedemptionRow, id: string, parentId: string | null, u: Undone | null) => ({
    id,
    actor,
    object: 'redemption_rollback' as const,
    result: 'SUCCESS' as const,
    status: 'SUCCEEDED' as const,
    failure: null,
    reason: request.reason,
    channel: channelOf(actor),
    customer: simple,
    trackingId: request.trackingId ?? row.tracking_id,
    metadata: request.metadata ?? fromJson<Record<string, unknown>>(row.metadata, {}),
    amount: u?.amount ?? null,
    parentId,
    relatedObject: { type: row.related_object_type, id: row.related_object_id, parentId: row.related_object_parent_id },
    voucher: row.voucher_id && row.voucher_code ? { id: row.voucher_id, code: row.voucher_code, snapshot: vouchers.get(row.voucher_id) ?? fromJson<Record<string, unknown>>(row.voucher_snapshot, {}) } : null,
    promotionTier: row.promotion_tier_id ? { id: row.promotion_tier_id, snapshot: tiers.get(row.promotion_tier_id) ?? fromJson<Record<string, unknown>>(row.promotion_tier_snapshot, {}) } : null,
    campaign: row.campaign_id && row.campaign_name ? { id: row.campaign_id, name: row.campaign_name } : null,
    order,
    orderId: row.order_id,
    reward: fromJson<Record<string, unknown> | null>(row.reward_snapshot, null),
    gift: u?.gift ?? null,
    loyaltyCard: u?.loyaltyCard ?? null,
    effects: { rollback_order_mode: mode },
    sessionKey: null,
    rollbackOf: row.id,
    at,
  });
  const childRecords: RedemptionRecord[] = [];
  if (stacked) {
    for (const u of undone) {
      const childIndex = children.indexOf(u.row);
      const record = await insertRecord(tx, base(u.row, childIds[childIndex] as string, rollbackId, u));
      childRecords.push(record);
    }
  }
  const parentRecord = await insertRecord(tx, base(target, rollbackId, null, stacked ? null : (undone[0] ?? null)));
  records.push(...childRecords);
  const counted = stacked ? childRecords : [parentRecord];
  for (const record of counted) {
    events.push(
      makeEvent(deps, actor, {
        type: 'redemption.rollback.succeeded',
        activityType: customer ? 'customer.redemption.rollback.succeeded' : null,
        activityCategory: customer ? 'ACTION' : null,
        customerId: customer?.id ?? null,
        voucherCode: target.voucher_code,
        entityId: record.id,
        data: { redemption_rollback: record, redemption: { id: record.redemption }, customer: simple, order, ...(record.voucher ? { voucher: record.voucher } : {}) },
      }),
    );
  }
  if (stacked) {
    events.push(
      makeEvent(deps, actor, {
        type: 'redemption.rollback.succeeded',
        customerId: customer?.id ?? null,
        entityId: rollbackId,
        data: { redemption_rollback: parentRecord, redemption: { id: target.id }, customer: simple, order, rollbacks: childRecords.map((r) => r.id) },
      }),
    );
  }
  if (customer) await countCustomerRollback(tx, actor.projectId, customer.id, 'SUCCESS', counted.length);
  await appendEvents(tx, events);
  return { rollbacks: stacked ? childRecords : [parentRecord], parent: parentRecord, order };
}

/** Stores a refused rollback (`rrf_…`) and answers the 400 that names it. */
async function recordRefusal(deps: Deps, actor: Actor, target: RedemptionRow, request: RollbackRequest, refusal: RollbackRefused): Promise<DomainError> {
  const id = deps.ids.next('rrf');
  await inTransaction(deps, async (tx) => {
    const at = deps.clock.now().toISOString();
    const record = await insertRecord(tx, {
      id,
      actor,
      object: 'redemption_rollback',
      result: 'FAILURE',
      status: 'FAILED',
      failure: { code: refusal.key, message: refusal.text },
      reason: request.reason,
      channel: channelOf(actor),
      customer: fromJson(target.customer_snapshot, null),
      trackingId: request.trackingId ?? target.tracking_id,
      metadata: request.metadata ?? {},
      amount: null,
      parentId: null,
      relatedObject: { type: target.related_object_type, id: target.related_object_id, parentId: target.related_object_parent_id },
      voucher: target.voucher_id && target.voucher_code ? { id: target.voucher_id, code: target.voucher_code, snapshot: fromJson<Record<string, unknown>>(target.voucher_snapshot, {}) } : null,
      promotionTier: target.promotion_tier_id ? { id: target.promotion_tier_id, snapshot: fromJson<Record<string, unknown>>(target.promotion_tier_snapshot, {}) } : null,
      campaign: target.campaign_id && target.campaign_name ? { id: target.campaign_id, name: target.campaign_name } : null,
      order: null,
      orderId: target.order_id,
      reward: null,
      gift: null,
      loyaltyCard: null,
      effects: null,
      sessionKey: null,
      rollbackOf: target.id,
      at,
    });
    const customerRow = target.customer_id ? await findLiveCustomerById(tx, actor.projectId, target.customer_id) : undefined;
    if (customerRow) await countCustomerRollback(tx, actor.projectId, customerRow.id, 'FAILURE');
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'redemption.rollback.failed',
        activityType: customerRow ? 'customer.redemption.rollback.failed' : null,
        activityCategory: customerRow ? 'ACTION' : null,
        customerId: customerRow?.id ?? null,
        voucherCode: target.voucher_code,
        entityId: id,
        data: { redemption_rollback: record, redemption: { id: target.id } },
      }),
    ]);
  });
  return businessError(refusal.key, refusal.text, { details: refusal.details, resourceId: id, resourceType: 'redemption_rollback' });
}

/** Checks that do not need the transaction: the target's kind and state, and the request's customer and order. */
async function precheck(deps: Deps, actor: Actor, target: RedemptionRow, request: RollbackRequest, via: 'rollback' | 'rollbacks'): Promise<void> {
  if (target.object !== 'redemption' || target.result !== 'SUCCESS') {
    throw refuse('invalid_redemption', 'Invalid redemption', `Only successful redemptions can be rolled back; ${target.id} is a ${target.result === 'FAILURE' ? 'failed redemption' : 'rollback'}`);
  }
  if (target.parent_id !== null) {
    throw refuse('invalid_redemption_parent', 'Invalid redemption parent', `Redemption ${target.id} is part of stacked redemption ${target.parent_id}; roll back ${target.parent_id} with /rollbacks`);
  }
  if (via === 'rollback' && target.related_object_type === 'redemption') {
    throw refuse('invalid_redemption', 'Invalid redemption', `Redemption ${target.id} is a stacked redemption; roll it back with POST /v1/redemptions/${target.id}/rollbacks`);
  }
  if (target.status === 'ROLLED_BACK') throw refuse('already_rolled_back', 'Redemption already rolled back', `Redemption ${target.id} has been rolled back already`);
  if (deps.clock.now().getTime() - Date.parse(target.created_at) > MAX_ROLLBACK_AGE_MS) {
    throw refuse('invalid_rollback_params', 'Invalid rollback params', `Redemption ${target.id} is older than 3 months`);
  }
  const ref = request.customer;
  if (ref && (ref.id || ref.source_id)) {
    const customer = await findLiveCustomer(deps.db, actor.projectId, (ref.id ?? ref.source_id) as string);
    if (!customer) throw errors.notFound('customer', (ref.id ?? ref.source_id) as string);
    if (customer.id !== target.customer_id) throw refuse('invalid_customer', 'Invalid customer', 'Customer is not related with redemption.');
  }
  const order = request.order;
  if (order && (order.id || order.source_id)) {
    const row = target.order_id ? await findOrderById(deps.db, actor.projectId, target.order_id) : undefined;
    const matches = row !== undefined && (order.id ? order.id === row.id : order.source_id === row.source_id);
    if (!matches) throw refuse('invalid_order', 'Invalid order', 'Order is not related with redemption.');
  }
}

async function run(deps: Deps, actor: Actor, redemptionId: string, request: RollbackRequest, via: 'rollback' | 'rollbacks'): Promise<RollbackOutcome> {
  const target = await findRedemption(deps.db, actor.projectId, redemptionId);
  if (!target) throw errors.notFound('redemption', redemptionId);
  try {
    await precheck(deps, actor, target, request, via);
    return await inTransaction(deps, (tx) => rollbackIn(tx, deps, actor, target, request));
  } catch (error) {
    if (error instanceof RollbackRefused) throw await recordRefusal(deps, actor, target, request, error);
    // Credits or points the redemption handed out were spent: the rollback cannot restore them.
    if (error instanceof DomainError && (error.key === 'gift_amount_exceeded' || error.key === 'loyalty_card_points_exceeded')) {
      throw await recordRefusal(deps, actor, target, request, refuse(error.key, error.message, error.details ?? error.message));
    }
    throw error;
  }
}

/** `POST /v1/redemptions/{id}/rollback`: one redemption that is not part of a stacked one. */
export async function rollbackRedemption(deps: Deps, actor: Actor, redemptionId: string, request: RollbackRequest): Promise<RedemptionRecord> {
  const outcome = await run(deps, actor, redemptionId, request, 'rollback');
  return outcome.parent as RedemptionRecord;
}

/** `POST /v1/redemptions/{id}/rollbacks`: a stacked parent with all its children, or a single redemption. */
export async function rollbackStacked(
  deps: Deps,
  actor: Actor,
  redemptionId: string,
  request: RollbackRequest,
): Promise<{ rollbacks: RedemptionRecord[]; parent_rollback: RedemptionRecord; order: OrderObject | null }> {
  const outcome = await run(deps, actor, redemptionId, request, 'rollbacks');
  return { rollbacks: outcome.rollbacks, parent_rollback: outcome.parent as RedemptionRecord, order: outcome.order };
}
