import type { DiscountDefinition } from '../discounts/definition.ts';
import {
  applyOrderAmount,
  applySpreadOverItems,
  applyUnitDiscount,
  applyValueDiscount,
  remainingTotal,
  totalsOf,
  type DiscountEffect,
  type DiscountState,
  type DiscountTarget,
  type TargetLimits,
  type UnitFacts,
} from '../discounts/apply.ts';
import { payWithPoints, type CoinParameters } from '../loyalty/pay-with-points.ts';
import { withMembers } from '../../lib/objects.ts';
import type { OrderLine } from '../orders/order-math.ts';
import type { ItemSelection, ResultEntry, ResultList } from '../rules/applicable-to.ts';
import type { CompiledRuleSet } from '../rules/definition.ts';
import { evaluateCompiled, type RuleContext, type RuleCustomer, type RuleOrder } from '../rules/evaluate.ts';
import type { CounterName } from '../rules/names.ts';
import { inactiveReason, type ValidityWindow } from '../validity/validity.ts';
import { discountValues, type FormulaFacts } from './discount-values.ts';
import { failure, inactiveFailure, type FailureKey, type RedeemableFailure } from './failures.ts';
import {
  applicationOrder,
  calculationModeOf,
  SKIP_MESSAGES,
  skipsWithoutEffect,
  StackingTracker,
  type SkipKey,
  type StackCategory,
  type StackingRules,
} from './stacking.ts';

// The evaluation loop of the stackable validation and redemption API (promotions reference 6.6, 6.7,
// 3.2–3.7). Pure: the service loads every fact a redeemable needs (in batched queries), then this module
// decides, redeemable by redeemable in application order, whether it applies and what it does to the
// running order. The same evaluation serves validation, redemption, the legacy endpoints and
// qualifications; redemption then consumes exactly what this answers.

export type RedeemableObject = 'voucher' | 'promotion_tier';

/** A validation rule guarding a redeemable (its own or its campaign's), compiled once. */
export interface CandidateRule {
  ruleId: string;
  compiled: CompiledRuleSet;
}

/** A validity window to check, with how to name it in failure details. */
export interface ValidityCheck {
  subject: string;
  window: ValidityWindow;
}

export type LoyaltyReward =
  | { state: 'missing' }
  /** Unknown, or not assigned to the card's program. */
  | { state: 'unassigned'; id: string }
  /** A reward that does not pay for an order (material, campaign): not redeemable as a stacked redeemable. */
  | { state: 'not_coin'; id: string; type: string }
  | { state: 'coin'; id: string; assignmentId: string; coin: CoinParameters; points: number | null; stockLeft: number | null };

export type CandidatePayload =
  | { type: 'discount'; discount: DiscountDefinition | null; units: ReadonlyMap<string, UnitFacts> }
  | { type: 'gift'; code: string; balance: number; lockedByOthers: number; effect: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS'; credits: number | null }
  | { type: 'loyalty'; code: string; balance: number; lockedByOthers: number; holderId: string | null; reward: LoyaltyReward };

/** Everything the engine needs about one redeemable of the request, looked up beforehand. */
export interface Candidate {
  /** Position among the request's redeemables (a stack counts as its tiers, in the stack's order). */
  index: number;
  /** The id as sent (a code, a `v_` id, a `promo_` id). */
  id: string;
  object: RedeemableObject;
  /** False when no such voucher or tier exists in the project: `not_found`. */
  found: boolean;
  windows: ValidityCheck[];
  /** Voucher redemption limit, uses so far and other sessions' live reservations; null for tiers. */
  quantity: { limit: number | null; redeemed: number; lockedByOthers: number } | null;
  /** The referrer of a referral code (who may not redeem it), null otherwise. */
  referrerId: string | null;
  /** The customer holding the code (publication), for `publication.redeemable_by_linked_customer`. */
  holderId: string | null;
  payload: CandidatePayload;
  rules: CandidateRule[];
  categories: StackCategory[];
  counters: Partial<Record<CounterName, number>>;
  formula: FormulaFacts;
}

export interface EngineContext {
  now: Date;
  timeZone: string;
  rules: StackingRules;
  customer: RuleCustomer | null;
  segmentIds: readonly string[];
  /** Whether the request carried an order at all (order rules fail without one). */
  orderPresent: boolean;
  orderMetadata: Record<string, unknown>;
  redemptionMetadata: Record<string, unknown>;
  /** The product collections a line's product or SKU belongs to (only those rules name). */
  collectionsOf: (productId: string | null, skuId: string | null) => readonly string[];
  /** Qualification scenario AUDIENCE_ONLY: only customer rules decide (order and redemption rules are not checked). */
  audienceOnly?: boolean;
}

export type RedeemableResultValue =
  | { discount: Record<string, unknown> }
  | { gift: { balance: number; credits: number } }
  | { loyalty_card: { points: number } }
  | Record<string, never>;

/** What an applied redeemable takes when redeemed. */
export interface Consumption {
  /** Gift credits taken (minor units). */
  credits: number;
  /** Loyalty points taken. */
  points: number;
  /** The discount this redeemable gave (order level plus items), for tier summaries. */
  discount: number;
}

export interface AppliedOutcome {
  status: 'APPLICABLE';
  candidate: Candidate;
  effect: DiscountEffect;
  /** The running order right after this redeemable; `effect` is what it added. */
  state: DiscountState;
  applicableTo: ResultList;
  inapplicableTo: ResultList;
  result: RedeemableResultValue;
  consumption: Consumption;
}

export interface InapplicableOutcome {
  status: 'INAPPLICABLE';
  candidate: Candidate;
  failure: RedeemableFailure;
}

export interface SkippedOutcome {
  status: 'SKIPPED';
  candidate: Candidate;
  key: SkipKey | 'preceding_validation_failed' | 'no_effect';
  message: string;
}

export type Outcome = AppliedOutcome | InapplicableOutcome | SkippedOutcome;

export interface Evaluation {
  /** One outcome per candidate, in request order. */
  outcomes: Outcome[];
  /** The applied ones, in application order. */
  applied: AppliedOutcome[];
  /** The order after every applied redeemable; `applied` in it sums the request's contributions. */
  final: DiscountState;
  /** ALL mode: nothing inapplicable and something applied; PARTIAL: something applied. */
  valid: boolean;
  /** Why the request as a whole fails: the first inapplicable redeemable (in application order), or nothing applied. */
  failure: { key: FailureKey; outcome: InapplicableOutcome | null } | null;
}

const EMPTY_LIST: ResultList = { data: [], total: 0, object: 'list', data_ref: 'data' };

function numberMember(entry: Record<string, unknown>, member: string): number | undefined {
  const value = entry[member];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function mergeLists(lists: ResultList[]): ResultList {
  const data: ResultEntry[] = lists.flatMap((l) => l.data);
  return { data, total: data.length, object: 'list', data_ref: 'data' };
}

/** The lines a discount reaches: every line, or those its rules' `applicable_to` select (all restricted rules must agree). */
function targetsOf(selections: readonly ItemSelection[], lines: readonly OrderLine[]): { targets: DiscountTarget[]; limits: TargetLimits; restricted: boolean } {
  const restricted = selections.filter((s) => s.restricted);
  if (restricted.length === 0) return { targets: lines.map((_, index) => ({ index })), limits: {}, restricted: false };
  const [first, ...others] = restricted as [ItemSelection, ...ItemSelection[]];
  const agreed = first.targets.filter((t) => others.every((o) => o.targets.some((x) => x.index === t.index)));
  const aggregated: number[] = [];
  const targets = agreed.map((t) => {
    const target: DiscountTarget = { index: t.index, quantityLimit: t.units };
    if (t.entry) {
      const amountLimit = numberMember(t.entry, 'amount_limit');
      const price = numberMember(t.entry, 'price');
      const aggregate = numberMember(t.entry, 'aggregated_amount_limit');
      if (amountLimit !== undefined) target.amountLimit = amountLimit;
      if (price !== undefined) target.price = price;
      if (aggregate !== undefined) aggregated.push(aggregate);
    }
    return target;
  });
  return { targets, limits: aggregated.length > 0 ? { aggregatedAmountLimit: Math.min(...aggregated) } : {}, restricted: true };
}

function ruleOrder(state: DiscountState, ctx: EngineContext): RuleOrder | null {
  if (!ctx.orderPresent) return null;
  const totals = totalsOf(state);
  return {
    amount: totals.total_amount,
    initialAmount: totals.initial_amount,
    metadata: ctx.orderMetadata,
    items: state.lines.map((line) => ({
      productId: line.product_id,
      productSourceId: line.product?.source_id ?? (line.related_object !== 'sku' ? line.source_id : null),
      skuId: line.sku_id,
      skuSourceId: line.sku?.source_id ?? (line.related_object === 'sku' ? line.source_id : null),
      quantity: line.quantity,
      price: line.price,
      amount: line.amount,
      collectionIds: ctx.collectionsOf(line.product_id, line.sku_id),
      // Item metadata as sent wins over the catalog's product and SKU metadata.
      metadata: { ...(line.product?.metadata ?? {}), ...(line.sku?.metadata ?? {}), ...line.metadata },
    })),
  };
}

interface Eligible {
  selections: ItemSelection[];
}

/** Checks 1–10 of reference 6.7 that do not depend on the discount's arithmetic; answers the first failure. */
function eligibility(c: Candidate, state: DiscountState, ctx: EngineContext): RedeemableFailure | Eligible {
  if (!c.found) {
    const type = c.object === 'voucher' ? 'voucher' : 'promotion_tier';
    return failure('not_found', `Cannot find ${type} with id ${c.id}`);
  }
  for (const check of c.windows) {
    const reason = inactiveReason(check.window, ctx.now, ctx.timeZone);
    if (reason) return inactiveFailure(c.object, check.subject, reason);
  }
  if (c.quantity && c.quantity.limit !== null && c.quantity.redeemed + c.quantity.lockedByOthers >= c.quantity.limit) {
    const locked = c.quantity.lockedByOthers > 0 ? ` (${c.quantity.lockedByOthers} reserved by open sessions)` : '';
    return failure('quantity_exceeded', `Voucher ${c.id} has been redeemed ${c.quantity.redeemed} of ${c.quantity.limit} times${locked}`);
  }
  if (c.referrerId !== null && ctx.customer !== null && ctx.customer.id === c.referrerId) {
    return failure('referrer_not_permitted_to_redeem', `Customer ${c.referrerId} referred others with ${c.id} and cannot redeem it`);
  }
  const payload = c.payload;
  if (payload.type === 'loyalty') {
    const reward = payload.reward;
    if (reward.state === 'missing') return failure('missing_reward', `Loyalty card ${payload.code} is redeemed for a reward: send reward.id`);
    if (reward.state === 'unassigned') return failure('missing_reward', `Reward ${reward.id} is not assigned to the program of loyalty card ${payload.code}`);
    if (reward.state === 'not_coin') {
      return failure('missing_reward', `Reward ${reward.id} is a ${reward.type} reward; only pay-with-points rewards apply to an order here (redeem others with POST /v1/loyalties/members/${payload.code}/redemption)`);
    }
    if (payload.holderId === null) return failure('invalid_customer', `Loyalty card ${payload.code} has no holder`);
    if (ctx.customer !== null && ctx.customer.id !== payload.holderId) {
      return failure('invalid_customer', `Loyalty card ${payload.code} is held by another customer`);
    }
    const available = Math.max(0, payload.balance - payload.lockedByOthers);
    if (reward.points !== null && reward.points > available) {
      return failure('loyalty_card_points_exceeded', `Loyalty card ${payload.code} has ${available} points available; ${reward.points} were asked for`);
    }
    if (!ctx.orderPresent) return failure('missing_order', `Pay-with-points reward ${reward.id} needs an order to pay for`);
    if (reward.stockLeft !== null && reward.stockLeft <= 0) return failure('reward_out_of_stock', `Reward ${reward.id} has no stock left`);
  }
  if (payload.type === 'gift') {
    if (!ctx.orderPresent || totalsOf(state).amount <= 0) return failure('missing_amount', `Gift card ${payload.code} needs an order with an amount`);
    if (payload.effect === 'APPLY_TO_ITEMS' && !state.lines.some((l) => l.amount !== null && l.amount > 0)) {
      return failure('missing_order_items_amount', `Gift card ${payload.code} applies to items: send order items with amounts or prices`);
    }
    const available = Math.max(0, payload.balance - payload.lockedByOthers);
    if (payload.credits !== null && payload.credits > available) {
      return failure('gift_amount_exceeded', `Gift card ${payload.code} has ${available} available; ${payload.credits} were asked for`);
    }
  }
  // Most redeemables carry no rule: the rule context (a copy of every order line) is built only for those that do.
  if (c.rules.length === 0) return { selections: [] };
  const context: RuleContext = {
    now: ctx.now,
    customer: ctx.customer,
    segmentIds: ctx.segmentIds,
    order: ruleOrder(state, ctx),
    redemptionMetadata: ctx.redemptionMetadata,
    customEventMetadata: null,
    counters: c.counters,
    holderId: c.holderId,
  };
  const selections: ItemSelection[] = [];
  for (const rule of c.rules) {
    const result = evaluateCompiled(rule.compiled, context);
    selections.push(result.selection);
    if (result.passed) continue;
    const audienceIgnores = ctx.audienceOnly && result.failure.key !== 'customer_rules_violated' && result.failure.key !== 'missing_customer';
    if (audienceIgnores) continue;
    const f = result.failure;
    return failure(f.key, `Validation rule ${rule.ruleId} failed at rule ${f.path} (${f.name})`, f.error);
  }
  return { selections };
}

const ITEM_EFFECTS = new Set(['APPLY_TO_ITEMS', 'APPLY_TO_ITEMS_PROPORTIONALLY', 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY', 'APPLY_TO_ITEMS_BY_QUANTITY']);

interface Applied {
  state: DiscountState;
  effect: DiscountEffect;
  result: RedeemableResultValue;
  consumption: Consumption;
}

function totalOf(effect: DiscountEffect): number {
  return effect.order + effect.items.reduce((s, d) => s + d, 0);
}

function unitFactsOf(unitType: string, known: ReadonlyMap<string, UnitFacts>): UnitFacts {
  const facts = known.get(unitType);
  if (facts) return facts;
  // A unit the catalog does not know is still added (reference 3.4 *Rec.*), without a price or discount.
  const sku = unitType.startsWith('sku_');
  return { product_id: sku ? null : unitType, sku_id: sku ? unitType : null, price: null, product: null, sku: null };
}

/** The discount of a voucher or tier applied to the running order. */
function applyDiscount(
  c: Candidate,
  discount: DiscountDefinition,
  units: ReadonlyMap<string, UnitFacts>,
  state: DiscountState,
  ctx: EngineContext,
  targeting: ReturnType<typeof targetsOf>,
  discounted: ReadonlySet<number>,
): Applied | RedeemableFailure {
  const resolved = discountValues(discount, state, c.formula, {
    orderMetadata: ctx.orderMetadata,
    customerMetadata: ctx.customer?.metadata ?? null,
    redemptionMetadata: ctx.redemptionMetadata,
  });
  const shown: Record<string, unknown> = { ...discount, ...resolved.values, is_dynamic: resolved.dynamic || discount.is_dynamic === true };
  if (discount.type === 'UNIT') {
    const entries =
      discount.units?.map((u, i) => ({ effect: u.effect, count: resolved.unitOff[i] ?? 0, unit: unitFactsOf(u.unit_type, units) })) ??
      (discount.unit_type !== undefined
        ? [
            {
              effect: (discount.effect === 'ADD_NEW_ITEMS' || discount.effect === 'ADD_SAME_ITEMS' ? discount.effect : 'ADD_MISSING_ITEMS') as 'ADD_MISSING_ITEMS' | 'ADD_NEW_ITEMS' | 'ADD_SAME_ITEMS',
              count: resolved.unitOff[0] ?? 0,
              unit: unitFactsOf(discount.unit_type, units),
            },
          ]
        : []);
    const { state: next, effect } = applyUnitDiscount(state, entries);
    return { state: next, effect, result: { discount: shown }, consumption: { credits: 0, points: 0, discount: totalOf(effect) } };
  }
  // Reference 3.1: without an effect, a discount narrowed to products applies to items, else to the order.
  const effectName = discount.effect ?? (targeting.restricted ? 'APPLY_TO_ITEMS' : 'APPLY_TO_ORDER');
  let targets = targeting.targets;
  if (ITEM_EFFECTS.has(effectName)) {
    if (state.lines.length === 0) return failure('missing_order_items', `The discount of ${c.id} applies to order items; the order has none`);
    // ONCE: a line an earlier redeemable of this request discounted gets no further item discount.
    if (ctx.rules.redeemables_products_application_mode === 'ONCE') targets = targets.filter((t) => !discounted.has(t.index));
  }
  const mode = calculationModeOf(c, ctx.rules);
  const { state: next, effect } = applyValueDiscount(state, { type: discount.type, effect: effectName }, resolved.values, targets, targeting.limits, mode);
  // Not `{ ...shown, effect }`: see src/lib/objects.ts.
  const result = { discount: withMembers(shown, { effect: effectName }) };
  return { state: next, effect, result, consumption: { credits: 0, points: 0, discount: totalOf(effect) } };
}

function applyCandidate(c: Candidate, state: DiscountState, ctx: EngineContext, eligible: Eligible, discounted: ReadonlySet<number>): Applied | RedeemableFailure {
  const targeting = targetsOf(eligible.selections, state.lines);
  const payload = c.payload;
  switch (payload.type) {
    case 'discount': {
      if (!payload.discount) {
        const effect: DiscountEffect = { order: 0, items: state.lines.map(() => 0), units: state.lines.map(() => 0) };
        return { state, effect, result: {}, consumption: { credits: 0, points: 0, discount: 0 } };
      }
      return applyDiscount(c, payload.discount, payload.units, state, ctx, targeting, discounted);
    }
    case 'gift': {
      const available = Math.max(0, payload.balance - payload.lockedByOthers);
      const wanted = payload.credits ?? available;
      const applied =
        payload.effect === 'APPLY_TO_ITEMS'
          ? applySpreadOverItems(state, wanted, targeting.targets.filter((t) => (state.lines[t.index]?.amount ?? null) !== null))
          : applyOrderAmount(state, wanted);
      const credits = totalOf(applied.effect);
      return { state: applied.state, effect: applied.effect, result: { gift: { balance: available, credits } }, consumption: { credits, points: 0, discount: credits } };
    }
    case 'loyalty': {
      const reward = payload.reward;
      if (reward.state !== 'coin') throw new Error('eligibility lets only pay-with-points rewards through');
      const available = Math.max(0, payload.balance - payload.lockedByOthers);
      const pay = payWithPoints({ remaining: remainingTotal(state), balance: available, requested: reward.points, coin: reward.coin });
      if (!pay.ok) {
        if (pay.reason === 'nothing_to_pay') {
          const effect: DiscountEffect = { order: 0, items: state.lines.map(() => 0), units: state.lines.map(() => 0) };
          return { state, effect, result: { loyalty_card: { points: 0 } }, consumption: { credits: 0, points: 0, discount: 0 } };
        }
        if (pay.reason === 'points_exceeded') {
          return failure('loyalty_card_points_exceeded', `Loyalty card ${payload.code} has ${available} points available, not enough for one block of ${reward.coin.points_ratio}`);
        }
        return failure('invalid_amount', `The ${reward.points ?? 0} points asked for are worth less than one minor unit`);
      }
      const applied = applyOrderAmount(state, pay.discount);
      return { state: applied.state, effect: applied.effect, result: { loyalty_card: { points: pay.points } }, consumption: { credits: 0, points: pay.points, discount: totalOf(applied.effect) } };
    }
  }
}

function hasEffect(applied: Applied): boolean {
  return totalOf(applied.effect) > 0 || applied.effect.units.some((u) => u > 0) || applied.consumption.points > 0 || applied.consumption.credits > 0;
}

/**
 * Evaluates the candidates against the starting order (reference 6.6 processing order): sorts them,
 * checks each one's eligibility, applies stacking limits and exclusivity, computes its effect on the
 * running order and handles redeemables without effect. In ALL mode the first inapplicable redeemable
 * makes every later one SKIPPED (`preceding_validation_failed`).
 */
export function evaluateRedeemables(candidates: readonly Candidate[], start: DiscountState, ctx: EngineContext): Evaluation {
  const ordered = applicationOrder(candidates, ctx.rules);
  const tracker = new StackingTracker(ctx.rules);
  const all = ctx.rules.redeemables_application_mode === 'ALL';
  const byIndex = new Map<number, Outcome>();
  const applied: AppliedOutcome[] = [];
  const discounted = new Set<number>();
  let state = start;
  let firstFailure: InapplicableOutcome | null = null;
  for (const c of ordered) {
    if (all && firstFailure) {
      byIndex.set(c.index, { status: 'SKIPPED', candidate: c, key: 'preceding_validation_failed', message: SKIP_MESSAGES.preceding_validation_failed });
      continue;
    }
    const eligible = eligibility(c, state, ctx);
    if ('key' in eligible) {
      const outcome: InapplicableOutcome = { status: 'INAPPLICABLE', candidate: c, failure: eligible };
      byIndex.set(c.index, outcome);
      firstFailure ??= outcome;
      continue;
    }
    const skip = tracker.check(c);
    if (skip) {
      byIndex.set(c.index, { status: 'SKIPPED', candidate: c, key: skip, message: SKIP_MESSAGES[skip] });
      continue;
    }
    const result = applyCandidate(c, state, ctx, eligible, discounted);
    if ('key' in result) {
      const outcome: InapplicableOutcome = { status: 'INAPPLICABLE', candidate: c, failure: result };
      byIndex.set(c.index, outcome);
      firstFailure ??= outcome;
      continue;
    }
    if (!hasEffect(result) && skipsWithoutEffect(c, ctx.rules)) {
      byIndex.set(c.index, { status: 'SKIPPED', candidate: c, key: 'no_effect', message: SKIP_MESSAGES.no_effect });
      continue;
    }
    tracker.record(c);
    result.effect.items.forEach((d, i) => {
      if (d > 0) discounted.add(i);
    });
    state = result.state;
    const lists = eligible.selections;
    const outcome: AppliedOutcome = {
      status: 'APPLICABLE',
      candidate: c,
      effect: result.effect,
      state,
      applicableTo: lists.length > 0 ? mergeLists(lists.map((s) => s.applicable_to)) : EMPTY_LIST,
      inapplicableTo: lists.length > 0 ? mergeLists(lists.map((s) => s.inapplicable_to)) : EMPTY_LIST,
      result: result.result,
      consumption: result.consumption,
    };
    byIndex.set(c.index, outcome);
    applied.push(outcome);
  }
  const outcomes = candidates.map((c) => byIndex.get(c.index) as Outcome);
  const valid = applied.length > 0 && (!all || firstFailure === null);
  let failed: Evaluation['failure'] = null;
  if (!valid) failed = firstFailure ? { key: firstFailure.failure.key, outcome: firstFailure } : { key: 'no_applicable_redeemables', outcome: null };
  return { outcomes, applied, final: state, valid, failure: failed };
}
