import { totalsOf, type DiscountState } from '../../domain/discounts/apply.ts';
import { DomainError } from '../../domain/errors.ts';
import { calculatedAmounts, type AppliedDiscounts } from '../../domain/orders/order-math.ts';
import { evaluateRedeemables, type AppliedOutcome, type Evaluation } from '../../domain/redemptions/engine.ts';
import { failure, isFailureKey } from '../../domain/redemptions/failures.ts';
import { localDate } from '../../domain/validity/validity.ts';
import type { CreateOrderInput } from '../../api/orders.ts';
import type { RedemptionResponseOut, StackableInput } from '../../api/redemptions.ts';
import type { Tx } from '../../store/db.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { definitions } from '../../store/definitions.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { lockCustomer } from '../../store/loyalty.ts';
import { addToTierSummary } from '../../store/promotion-tiers.ts';
import { lockOrderKey, useVoucherOnce } from '../../store/redemption-facts.ts';
import { countCustomerRedemption } from '../../store/redemption-records.ts';
import { releaseSession } from '../../store/redemption-sessions.ts';
import { takeReward } from '../../store/rewards.ts';
import { withMembers } from '../../lib/objects.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { debitCredits, debitPoints } from '../ledger/ledger.ts';
import { orderWithAmounts, type OrderObject } from '../orders/order-object.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { assertItemsMetadata, upsertOrderIn } from '../orders/orders.ts';
import { convertReferral } from '../referrals/convert.ts';
import { loadFacts, loadOrder, type Facts, type Resolved } from './facts.ts';
import { recordFailure } from './failures.ts';
import { campaignOf, recordBase } from './record-base.ts';
import { RedemptionRejected } from './rejection.ts';
import { channelOf, insertRecords, type ParentEffects, type RecordInput, type RedeemableEffects, type RedemptionRecord } from './records.ts';
import { engineRequest, ensureCustomer, readCatalogAndCustomer, type NormalisedRequest } from './request.ts';
import { entryLists, nonEmptyLists } from './responses.ts';
import { renderSnapshots } from './snapshots.ts';

// `POST /v1/redemptions` and `/client/v1/redemptions` (promotions reference 6.4), and the engine of the
// legacy single-object redemptions: one transaction per request. It takes the order's lock first, then
// re-reads every fact with the vouchers locked, evaluates, and consumes with conditional statements only
// (voucher uses, gift credits and points through the ledger, reward units); then it stores the order
// (PAID unless the request says otherwise, DECISIONS 13), the records (a parent with children when the
// request carries several redeemables), tier summaries, customer counters, the order's redemptions map
// and the events; it releases the session and converts referrals. A request that fails consumes
// nothing: its transaction rolls back and a second one stores the FAILURE records (DECISIONS 10).

export interface RedemptionResult {
  facts: Facts;
  evaluation: Evaluation;
  /** The children, or the single record, in application order. */
  records: RedemptionRecord[];
  parent: RedemptionRecord | null;
  order: OrderObject | null;
}

interface Consumed {
  effects: RedeemableEffects;
  outcome: AppliedOutcome;
  resolved: Resolved;
  id: string;
  /** The voucher row as the use left it, when nothing but the use changed it (no credits, points or reward). */
  voucherAfter: VoucherRow | null;
}

async function consume(tx: Tx, deps: Deps, actor: Actor, facts: Facts, r: Resolved, outcome: AppliedOutcome, redemptionId: string, sessionKey: string | null): Promise<Consumed> {
  const now = deps.clock.now().toISOString();
  let voucherAfter: VoucherRow | null = null;
  const effects: RedeemableEffects = {
    kind: 'redeemable',
    voucher: null,
    credits: null,
    points: null,
    reward: null,
    tier: null,
    order: null,
    customer_id: facts.customer.id,
  };
  if (r.kind === 'voucher') {
    const voucher = r.voucher;
    if (!(await useVoucherOnce(tx, actor.projectId, voucher.id, sessionKey, now))) {
      throw new DomainError('quantity_exceeded', 400, { message: 'quantity exceeded', details: `Voucher ${voucher.code} has no redemptions left` });
    }
    effects.voucher = { voucher_id: voucher.id, redeemed_quantity: 1 };
    // The locked row plus this use is the voucher as it now stands, unless the ledger moves a balance too.
    if (outcome.consumption.credits === 0 && outcome.consumption.points === 0) {
      voucherAfter = withMembers(voucher, { redeemed_quantity: Number(voucher.redeemed_quantity) + 1, updated_at: now });
    }
    const details = { redemption: { id: redemptionId } };
    if (outcome.consumption.credits > 0) {
      const debit = await debitCredits(tx, deps, actor, voucher, 'CREDITS_REDEMPTION', { points: outcome.consumption.credits, source: 'API', details });
      effects.credits = { voucher_id: voucher.id, amount: outcome.consumption.credits, transaction_id: debit.transaction.id };
    }
    if (outcome.consumption.points > 0 && r.reward) {
      const debit = await debitPoints(tx, deps, actor, voucher, 'POINTS_REDEMPTION', {
        points: outcome.consumption.points,
        source: 'API',
        details: { ...details, reward: { id: r.reward.row.id, name: r.reward.row.name } },
        today: localDate(facts.now, facts.timeZone),
      });
      effects.points = { voucher_id: voucher.id, points: outcome.consumption.points, transaction_id: debit.transaction.id };
    }
    if (r.reward && outcome.candidate.payload.type === 'loyalty') {
      if (!(await takeReward(tx, actor.projectId, r.reward.row.id, now))) {
        throw new DomainError('reward_out_of_stock', 400, { message: 'Reward out of stock', details: `Reward ${r.reward.row.id} has no stock left` });
      }
      effects.reward = { reward_id: r.reward.row.id, assignment_id: r.reward.assignment.id, stock_taken: r.reward.row.stock !== null, redeemed: 1 };
    }
  }
  return { effects, outcome, resolved: r, id: redemptionId, voucherAfter };
}

/** Stores the order of the request with the calculated lines and discounts. */
async function storeOrder(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  request: NormalisedRequest,
  facts: Facts,
  final: DiscountState,
  redemptions: Record<string, unknown>,
  succeeded: number,
): Promise<OrderObject> {
  const sent = request.order ?? {};
  const existing = facts.order.existing;
  const input: CreateOrderInput = {
    ...(existing ? { id: existing.id } : {}),
    ...(sent.source_id !== undefined ? { source_id: sent.source_id } : {}),
    // DECISIONS 13: an order used by a redemption is paid unless the request says otherwise.
    status: sent.status ?? 'PAID',
    amount: final.sentAmount,
    initial_amount: final.sentInitialAmount,
    discount_amount: final.orderDiscount,
    ...(sent.metadata !== undefined ? { metadata: sent.metadata } : {}),
    ...(sent.customer !== undefined ? { customer: sent.customer } : {}),
    ...(sent.customer_id !== undefined ? { customer_id: sent.customer_id } : {}),
    ...(sent.referrer !== undefined ? { referrer: sent.referrer } : {}),
    ...(sent.referrer_id !== undefined ? { referrer_id: sent.referrer_id } : {}),
    ...(sent.created_at && !existing ? { created_at: sent.created_at } : {}),
  };
  // The order is the redeeming customer's purchase when it names nobody.
  if (!sent.customer && !sent.customer_id && !existing?.customer_id && facts.customer.id) input.customer_id = facts.customer.id;
  return upsertOrderIn(tx, deps, actor, input, {
    lines: final.lines,
    customer: facts.customer.row,
    redemptions,
    unreadUntilCommit: true,
    ...(facts.customer.id !== null ? { customerRedemptions: { customerId: facts.customer.id, succeeded } } : {}),
  });
}

/** A tier object whose summary also counts one more redemption (its order and discount amounts). */
function withTierRedemption(tier: Record<string, unknown>, added: { order_amount: number; discount_amount: number }): Record<string, unknown> {
  const summary = tier.summary as { redemptions: { total_redeemed: number }; orders: { total_amount: number; total_discount_amount: number } };
  return withMembers(tier, {
    summary: {
      redemptions: { total_redeemed: summary.redemptions.total_redeemed + 1 },
      orders: { total_amount: summary.orders.total_amount + added.order_amount, total_discount_amount: summary.orders.total_discount_amount + added.discount_amount },
    },
  });
}

function orderSnapshot(order: OrderObject | null, state: DiscountState, applied: AppliedDiscounts, map: OrderObject['redemptions']): OrderObject | null {
  if (!order) return null;
  return orderWithAmounts(order, calculatedAmounts(totalsOf(state), state.lines, applied), map);
}

async function redeemIn(tx: Tx, deps: Deps, actor: Actor, request: NormalisedRequest): Promise<RedemptionResult> {
  const now = deps.clock.now();
  const orderKey = request.order?.id ?? request.order?.source_id ?? null;
  // One request per order at a time (reference 6.10): the order first, then customer, then vouchers.
  if (orderKey !== null) await lockOrderKey(tx, actor.projectId, orderKey);
  const early = await readCatalogAndCustomer(tx, actor.projectId, request.order, request.customerInput);
  const orderFacts = await loadOrder(tx, actor.projectId, request.order, true, early?.catalog);
  const customer = await ensureCustomer(tx, deps, actor, request.customerInput, early ?? undefined);
  if (customer.id !== null) await lockCustomer(tx, actor.projectId, customer.id);
  // A stored customer's statement read the definitions version (src/store/customers.ts lockLiveCustomer),
  // so this reads nothing then. Bad metadata is a bad request, not a failed redemption: the transaction
  // rolls back (a customer it created too), nothing is consumed and no failure is recorded.
  const defs = await definitions(tx, actor.projectId);
  await assertMetadata(tx, actor.projectId, 'redemption', request.metadata, defs);
  if (request.order?.items) await assertItemsMetadata(tx, actor.projectId, request.order.items, defs);
  const facts = await loadFacts(tx, deps.dialect, actor.projectId, now, request, customer, { lock: true, order: orderFacts, definitions: defs, tierSummaries: true });
  const evaluation = evaluateRedeemables(facts.candidates, facts.order.start, facts.context);
  if (!evaluation.valid) throw new RedemptionRejected(facts, evaluation, null);

  const at = deps.clock.now().toISOString();
  const parentId = facts.candidates.length > 1 ? deps.ids.next('r') : null;
  const sessionKey = request.session?.key ?? null;
  const consumed: Consumed[] = [];
  for (const outcome of evaluation.applied) {
    const r = facts.resolved[outcome.candidate.index] as Resolved;
    try {
      consumed.push(await consume(tx, deps, actor, facts, r, outcome, deps.ids.next('r'), sessionKey));
    } catch (error) {
      if (error instanceof DomainError && isFailureKey(error.key)) {
        throw new RedemptionRejected(facts, evaluation, { index: outcome.candidate.index, failure: failure(error.key, error.details ?? error.message) });
      }
      throw error;
    }
  }

  const final = evaluation.final;
  // The order's `redemptions` map gains this request's entry as the order is written.
  const single = consumed[0];
  const entry =
    parentId !== null
      ? { [parentId]: { date: at, related_object_type: 'redemption', related_object_id: parentId, related_object_parent_id: null, stacked: consumed.map((c) => c.id) } }
      : single
        ? {
            [single.id]: {
              date: at,
              related_object_type: single.resolved.kind === 'promotion_tier' ? 'promotion_tier' : 'voucher',
              related_object_id: single.resolved.kind === 'voucher' ? single.resolved.voucher.id : single.resolved.kind === 'promotion_tier' ? single.resolved.tier.tier.id : single.resolved.candidate.id,
              related_object_parent_id: campaignOf(single.resolved)?.id ?? null,
            },
          }
        : {};
  const stored = facts.order.present ? await storeOrder(tx, deps, actor, request, facts, final, entry, consumed.length) : null;
  for (const c of consumed) {
    if (stored) c.effects.order = { order_id: stored.id, discount_amount: c.outcome.effect.order, items_discount: [...c.outcome.effect.items] };
    if (c.resolved.kind === 'promotion_tier') {
      c.effects.tier = { tier_id: c.resolved.tier.tier.id, order_amount: stored?.total_amount ?? 0, discount_amount: c.outcome.consumption.discount };
    }
  }
  const map: OrderObject['redemptions'] = stored?.redemptions ?? {};

  const known = new Map(consumed.flatMap((c) => (c.voucherAfter ? [[c.voucherAfter.id, c.voucherAfter] as const] : [])));
  const snapshots = await renderSnapshots(tx, deps, actor, consumed.map((c) => c.resolved), facts.definitions, known, facts.tierSummaries);
  // The tier summaries are written last (below); the records show them with this redemption counted.
  for (const c of consumed) {
    const tier = c.effects.tier;
    const snapshot = tier ? snapshots.tiers.get(tier.tier_id) : undefined;
    if (tier && snapshot) snapshots.tiers.set(tier.tier_id, withTierRedemption(snapshot, tier));
  }
  const inputs: RecordInput[] = consumed.map((c) => {
    const base = recordBase(actor, facts, request, c.resolved, snapshots);
    const payload = c.outcome.candidate.payload;
    const reward = c.resolved.kind === 'voucher' && c.resolved.reward ? snapshots.rewards.get(c.resolved.reward.row.id) : undefined;
    return withMembers(base, {
      id: c.id,
      object: 'redemption',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      failure: null,
      parentId,
      amount: c.outcome.consumption.credits > 0 ? c.outcome.consumption.credits : payload.type === 'loyalty' ? c.outcome.consumption.points : null,
      order: orderSnapshot(stored, c.outcome.state, { order: c.outcome.effect.order, items: c.outcome.effect.items }, map),
      orderId: stored?.id ?? null,
      reward: reward ? { customer: facts.customer.simple, assignment_id: c.resolved.kind === 'voucher' ? (c.resolved.reward?.assignment.id ?? null) : null, voucher: null, product: null, sku: null, loyalty_tier_id: null, ...reward } : null,
      gift: payload.type === 'gift' ? { amount: c.outcome.consumption.credits } : null,
      loyaltyCard: payload.type === 'loyalty' ? { points: c.outcome.consumption.points } : null,
      effects: c.effects,
      at,
    });
  });
  if (parentId !== null) {
    const effects: ParentEffects = { kind: 'parent', children: consumed.map((c) => c.id), order_id: stored?.id ?? null };
    inputs.push({
      actor,
      channel: channelOf(actor),
      customer: facts.customer.simple,
      trackingId: request.trackingId,
      metadata: request.metadata,
      relatedObject: { type: 'redemption', id: parentId, parentId: null },
      voucher: null,
      promotionTier: null,
      campaign: null,
      reason: null,
      sessionKey,
      rollbackOf: null,
      id: parentId,
      object: 'redemption',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      failure: null,
      parentId: null,
      amount: null,
      order: orderSnapshot(stored, final, final.applied, map),
      orderId: stored?.id ?? null,
      reward: null,
      gift: null,
      loyaltyCard: null,
      effects,
      at,
    });
  }
  // The children and the parent in one write (src/store/redemption-records.ts insertRedemptions).
  const written = await insertRecords(tx, inputs);
  const records = written.slice(0, consumed.length);
  const parent: RedemptionRecord | null = parentId !== null ? (written[consumed.length] ?? null) : null;
  const events: NewEvent[] = consumed.map((c, i) => {
    const campaign = campaignOf(c.resolved);
    return makeEvent(deps, actor, {
      type: 'redemption.succeeded',
      activityType: facts.customer.id ? 'customer.redemption.succeeded' : null,
      activityCategory: facts.customer.id ? 'ACTION' : null,
      customerId: facts.customer.id,
      campaign,
      voucherCode: c.resolved.kind === 'voucher' ? c.resolved.voucher.code : null,
      entityId: records[i]?.id ?? c.id,
      // A reference to the record, expanded by readers (src/services/events/expand.ts).
      data: { redemption_id: c.id, campaign: campaign ? { id: campaign.id, name: campaign.name, campaign_type: campaign.type, object: 'campaign' } : null },
    });
  });
  if (parentId !== null) {
    events.push(
      makeEvent(deps, actor, {
        type: 'redemption.succeeded',
        customerId: facts.customer.id,
        entityId: parentId,
        data: { redemption_id: parentId, redemptions: records.map((r) => r.id) },
      }),
    );
  }
  // The customer's redemption counters moved with the order's (storeOrder) when an order was stored.
  if (facts.customer.id !== null && !stored) await countCustomerRedemption(tx, actor.projectId, facts.customer.id, 'SUCCESS', records.length);
  await appendEvents(tx, events);
  if (request.session) await releaseSession(tx, actor.projectId, request.session.key);
  // A referee redeeming a referral code converts the referral when the program converts on redemption.
  for (const c of consumed) {
    if (c.resolved.kind === 'voucher' && c.resolved.voucher.is_referral_code && facts.customer.id !== null) {
      await convertReferral(tx, deps, actor, { code: c.resolved.voucher.id, customer: { id: facts.customer.id }, trigger: { type: 'redemption', redemptionId: c.id } });
    }
  }
  // Tier summaries are counters every redemption of a tier moves: written last, so the transaction holds
  // their rows (PostgreSQL) for as short a time as it can (src/store/promotion-tiers.ts).
  for (const c of consumed) {
    const tier = c.effects.tier;
    if (tier) await addToTierSummary(tx, actor.projectId, tier.tier_id, parentId ?? c.id, { redeemed: 1, orderAmount: tier.order_amount, discountAmount: tier.discount_amount });
  }
  const order = stored ? orderSnapshot(stored, final, final.applied, map) : null;
  return { facts, evaluation, records, parent, order };
}

/**
 * Runs a redemption; a refused one leaves FAILURE records and answers the failure code as an HTTP error
 * whose `resource_id` is the FAILURE record (DECISIONS 10).
 */
export async function runRedemption(deps: Deps, actor: Actor, request: NormalisedRequest): Promise<RedemptionResult> {
  try {
    return await inTransaction(deps, (tx) => redeemIn(tx, deps, actor, request));
  } catch (error) {
    if (!(error instanceof RedemptionRejected)) throw error;
    throw await recordFailure(deps, actor, request, error);
  }
}

export function redemptionResponse(actor: Actor, request: NormalisedRequest, result: RedemptionResult): RedemptionResponseOut {
  const lists = entryLists(result.evaluation, result.facts, actor.requestId, request.expand);
  return {
    redemptions: result.records,
    ...(result.parent ? { parent_redemption: result.parent } : {}),
    ...(result.order ? { order: result.order } : {}),
    ...nonEmptyLists({ inapplicable_redeemables: lists.inapplicable, skipped_redeemables: lists.skipped }),
  };
}

export async function redeemStackable(deps: Deps, actor: Actor, input: StackableInput): Promise<RedemptionResponseOut> {
  const request = engineRequest(deps, input);
  return redemptionResponse(actor, request, await runRedemption(deps, actor, request));
}

