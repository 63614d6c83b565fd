import { businessError, errors } from '../../domain/errors.ts';
import { ANY_TIER, EARNING_EVENTS, earnedPoints, itemTargets, type EarningFacts, type EarningOrder } from '../../domain/loyalty/earning.ts';
import { pointsExpiryDate, readExpirationRules } from '../../domain/loyalty/points-expiry.ts';
import { addDays, type TierChange, type TierDecision } from '../../domain/loyalty/tiers.ts';
import { evaluateRule, factsNeeded, type RuleContext, type RuleOrder } from '../../domain/rules/evaluate.ts';
import type { NormalisedDefinition } from '../../domain/rules/definition.ts';
import { inactiveReason, type ValidityWindow } from '../../domain/validity/validity.ts';
import { findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomerById, toCustomerObject, type CustomerObject } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { definitions } from '../../store/definitions.ts';
import { activeRulesFor, type EarningRuleRow } from '../../store/earning-rules.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson } from '../../store/json.ts';
import { lockCustomer } from '../../store/loyalty.ts';
import type { TierRow } from '../../store/loyalty-tiers.ts';
import { findHeldVoucher } from '../../store/publications.ts';
import { segmentIdsOfCustomer } from '../../store/segments.ts';
import { findRule } from '../../store/validation-rules.ts';
import { findLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import { creditPoints } from '../ledger/ledger.ts';
import type { OrderObject } from '../orders/order-object.ts';
import { collectionMembership, collectionsOfLine } from '../product-collections/product-collections.ts';
import { publishVoucher, type PublicationObject } from '../publications/publish.ts';
import { definitionOf, rulesFor } from '../validation-rules/validation-rules.ts';
import { campaignRef, customerSummary, programExpirationRules, projectDay, renderCard, unusableCard, type ProjectDay } from './cards.ts';
import { loyaltyOf } from './earning-rules.ts';
import { addPendingPoints } from './pending-points.ts';
import { scheduleAutoRedeem } from './auto-redeem-queue.ts';
import { earningMappings, heldTier, updateTier } from './tiers.ts';

// Earning rules at work (loyalty reference 4.6): an order paid, a custom event, a segment entered or a
// tier change makes the matching active rules give points to the customer's card in each program —
// joining the customer to `auto_join` programs first. Each rule that gives points is one POINTS_ACCRUAL
// (or a pending points entry, for order rules with `pending_points`) with its `customer.rewarded.loyalty_points`
// event; the card's tier is recalculated afterwards. Everything runs in the caller's transaction.

/** What one rule gave. */
export interface Earned {
  campaign_id: string;
  voucher_id: string;
  earning_rule_id: string;
  points: number;
  /** True when the points went to a pending entry rather than the balance. */
  pending: boolean;
}

interface Trigger {
  customer: CustomerObject;
  /** Metric inputs of the rules (order, customer and event metadata). */
  facts: EarningFacts;
  /** The order for validation rules, null when the event carries none. */
  ruleOrder: RuleOrder | null;
  order: OrderObject | null;
  /** `details` members of the accrual besides the rule and tiers: order, event, segment, custom_event. */
  details: Record<string, unknown>;
  /** Whether order rules' `pending_points` apply (only an order paid has them). */
  orderPaid: boolean;
  /** The card the event names (a custom event's `loyalty.code`, the card whose tier changed). */
  card: VoucherRow | null;
  depth: number;
}

function windowOf(row: EarningRuleRow, program: CampaignRow): ValidityWindow {
  // Rules without their own dates inherit the program's (loyalty reference 1.8).
  return {
    active: Boolean(row.active),
    start_date: row.start_date ?? program.start_date,
    expiration_date: row.expiration_date ?? program.expiration_date,
    validity_timeframe: fromJson(row.validity_timeframe, null),
    validity_day_of_week: fromJson(row.validity_day_of_week, null),
    validity_hours: fromJson(row.validity_hours, null),
  };
}

function programWindow(program: CampaignRow): ValidityWindow {
  return {
    active: Boolean(program.active),
    start_date: program.start_date,
    expiration_date: program.expiration_date,
    validity_timeframe: fromJson(program.validity_timeframe, null),
    validity_day_of_week: fromJson(program.validity_day_of_week, null),
    validity_hours: fromJson(program.validity_hours, null),
  };
}

/** The order's lines with the collections a rule set asks about resolved. */
async function orderWithCollections(tx: Tx, deps: Deps, actor: Actor, order: OrderObject, collectionIds: readonly string[]) {
  const membership =
    collectionIds.length === 0
      ? new Map<string, Set<string>>()
      : await collectionMembership(tx, deps.dialect, actor.projectId, collectionIds, order.items.map((i) => ({ productId: i.product_id, skuId: i.sku_id })), deps.clock.now());
  return order.items.map((item) => ({ item, collectionIds: collectionsOfLine(membership, item.product_id, item.sku_id) }));
}

function ruleOrderOf(lines: Awaited<ReturnType<typeof orderWithCollections>>, order: OrderObject): RuleOrder {
  return {
    amount: order.amount,
    initialAmount: order.initial_amount,
    metadata: order.metadata,
    items: lines.map(({ item, collectionIds }) => ({
      productId: item.product_id,
      productSourceId: item.product?.source_id ?? null,
      skuId: item.sku_id,
      skuSourceId: item.sku?.source_id ?? null,
      quantity: item.quantity,
      price: item.price,
      amount: item.amount,
      collectionIds,
      // Item metadata as sent, over the catalog's product metadata.
      metadata: { ...(item.product?.metadata ?? {}), ...(item.sku?.metadata ?? {}), ...item.metadata },
    })),
  };
}

function earningOrderOf(lines: Awaited<ReturnType<typeof orderWithCollections>>, order: OrderObject): EarningOrder {
  return {
    amount: order.amount,
    totalAmount: order.total_amount,
    metadata: order.metadata,
    lines: lines.map(({ item, collectionIds }) => ({
      productId: item.product_id,
      skuId: item.sku_id,
      collectionIds,
      quantity: item.quantity,
      discountQuantity: item.discount_quantity,
      amount: item.amount,
      subtotal: item.subtotal_amount,
      metadata: item.metadata,
    })),
  };
}

/**
 * Whether the rule's validation rules (its `validation_rule_id` and the rules assigned to it) all pass
 * for the trigger. A referenced rule that has since been deleted guards nothing.
 */
async function rulesPass(tx: Tx, deps: Deps, actor: Actor, rule: EarningRuleRow, trigger: Trigger): Promise<boolean> {
  const definitions: NormalisedDefinition[] = [];
  if (rule.validation_rule_id) {
    const row = await findRule(tx, actor.projectId, rule.validation_rule_id);
    if (row) definitions.push(definitionOf(row));
  }
  for (const assigned of await rulesFor(tx, actor.projectId, [{ type: 'earning_rule', id: rule.id }])) definitions.push(assigned.definition);
  for (const definition of definitions) {
    const needed = factsNeeded(definition);
    let order = trigger.ruleOrder;
    if (trigger.order && needed.collections.length > 0) order = ruleOrderOf(await orderWithCollections(tx, deps, actor, trigger.order, needed.collections), trigger.order);
    const context: RuleContext = {
      now: deps.clock.now(),
      customer: { id: trigger.customer.id, metadata: trigger.customer.metadata },
      segmentIds: needed.segments ? await segmentIdsOfCustomer(tx, actor.projectId, trigger.customer.id) : [],
      order,
      redemptionMetadata: {},
      customEventMetadata: trigger.facts.eventMetadata,
      counters: {},
      holderId: trigger.customer.id,
    };
    if (!evaluateRule(definition, context).passed) return false;
  }
  return true;
}

function tierRef(row: TierRow | null): { id: string; name: string } | null {
  return row ? { id: row.id, name: row.name } : null;
}

/** Runs the given rules (any programs) for one trigger; answers what each rule gave. */
async function fire(tx: Tx, deps: Deps, actor: Actor, rules: readonly EarningRuleRow[], trigger: Trigger): Promise<Earned[]> {
  if (rules.length === 0) return [];
  // The customer before any card: the lock order every loyalty write follows (redemptions, joins).
  await lockCustomer(tx, actor.projectId, trigger.customer.id);
  const day = await projectDay(tx, deps, actor.projectId);
  const byProgram = new Map<string, EarningRuleRow[]>();
  for (const rule of rules) byProgram.set(rule.campaign_id, [...(byProgram.get(rule.campaign_id) ?? []), rule]);
  const earned: Earned[] = [];
  // Programs in id order, so concurrent triggers of one customer take card locks in the same order.
  for (const programId of [...byProgram.keys()].sort()) {
    const program = await findLiveCampaignById(tx, actor.projectId, programId);
    if (!program || program.campaign_type !== 'LOYALTY_PROGRAM') continue;
    if (inactiveReason(programWindow(program), day.now, day.timeZone)) continue;
    earned.push(...(await fireInProgram(tx, deps, actor, program, byProgram.get(programId) ?? [], trigger, day)));
  }
  return earned;
}

async function fireInProgram(tx: Tx, deps: Deps, actor: Actor, program: CampaignRow, rules: readonly EarningRuleRow[], trigger: Trigger, day: ProjectDay): Promise<Earned[]> {
  const { customer } = trigger;
  let card: VoucherRow | null =
    trigger.card && trigger.card.campaign_id === program.id ? trigger.card : ((await findHeldVoucher(tx, actor.projectId, program.id, customer.id)) ?? null);
  const holderTier = card ? await heldTier(tx, actor.projectId, card, day.today) : null;
  const mappings = holderTier ? earningMappings(holderTier) : {};

  const giving: Array<{ rule: EarningRuleRow; points: number }> = [];
  for (const rule of rules) {
    if (inactiveReason(windowOf(rule, program), day.now, day.timeZone)) continue;
    const points = earnedPoints(loyaltyOf(rule), trigger.facts, mappings[rule.id]);
    if (points <= 0) continue;
    if (!(await rulesPass(tx, deps, actor, rule, trigger))) continue;
    giving.push({ rule, points });
  }
  if (giving.length === 0) return [];

  let publication: PublicationObject | null = null;
  if (!card) {
    if (!program.auto_join) return [];
    // Join-once is checked by reading the customer's cards; concurrent triggers of one customer queued
    // on the customer's row (taken in `fire`), so this second look sees any card a winner published.
    card = (await findHeldVoucher(tx, actor.projectId, program.id, customer.id)) ?? null;
    if (!card) {
      const published = await publishVoucher(tx, deps, actor, { customer, campaign: program, joinOnce: true, channel: 'Automation' });
      card = published.voucher;
      publication = published.publication;
    }
  }
  if (unusableCard(card, program, day)) return [];

  const earned: Earned[] = [];
  const holder = await customerSummary(tx, actor.projectId, customer.id);
  for (const { rule, points } of giving) {
    const details = {
      ...trigger.details,
      earning_rule: { id: rule.id, source: { banner: rule.source_banner } },
      loyalty_tier: mappings[rule.id] ? tierRef(holderTier) : null,
      holder_loyalty_tier: tierRef(holderTier),
    };
    const ruleExpiry = readExpirationRules(fromJson(rule.expiration_rules, null));
    const pending = fromJson<{ period_value: number } | null>(rule.pending_points, null);
    if (pending && trigger.orderPaid) {
      await addPendingPoints(tx, deps, actor, card, {
        points,
        activates_at: addDays(day.today, pending.period_value),
        details,
        expiration_rules: ruleExpiry,
      });
      earned.push({ campaign_id: program.id, voucher_id: card.id, earning_rule_id: rule.id, points, pending: true });
      continue;
    }
    const result = await creditPoints(tx, deps, actor, card, 'POINTS_ACCRUAL', {
      points,
      source: 'Automation',
      operationType: 'AUTOMATIC',
      details,
      // The rule's own expiry wins over the program's (loyalty reference 2.8.2); none: never expire.
      expiresAt: pointsExpiryDate(ruleExpiry ?? programExpirationRules(program), day.today),
      today: day.today,
    });
    card = result.card;
    const voucher = await renderCard(tx, deps, actor, card, day);
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'customer.rewarded.loyalty_points',
        activityType: 'customer.rewarded.loyalty_points',
        activityCategory: 'EFFECT',
        customerId: customer.id,
        campaign: campaignRef(program),
        voucherCode: card.code,
        entityId: result.transaction.id,
        data: {
          customer: holder,
          holder,
          voucher,
          campaign: { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' },
          loyalty_tier: details.loyalty_tier,
          earning_rule: { id: rule.id, source: { banner: rule.source_banner }, object: 'earning_rule' },
          balance: result.balance,
          order: trigger.order,
          event: trigger.details.event ?? null,
          publication,
          transaction: result.transaction,
        },
      }),
    ]);
    earned.push({ campaign_id: program.id, voucher_id: card.id, earning_rule_id: rule.id, points, pending: false });
  }
  if (earned.some((e) => !e.pending)) {
    await refreshTier(tx, deps, actor, card, { depth: trigger.depth });
    await scheduleAutoRedeem(tx, deps, actor, program, card);
  }
  return earned;
}

async function customerOf(tx: Tx, actor: Actor, customerId: string | null): Promise<CustomerObject | null> {
  if (customerId === null) return null;
  const row = await findLiveCustomerById(tx, actor.projectId, customerId);
  return row ? toCustomerObject(row) : null;
}

/**
 * Order-paid earning (loyalty reference 4.6): called once per order, by `onOrderPaid`, inside the
 * transaction that made the order PAID. `paidEvent` is the `customer.order.paid` event it appended.
 */
export async function earnPointsForOrder(tx: Tx, deps: Deps, actor: Actor, order: OrderObject, paidEvent: { id: string; type: string }): Promise<Earned[]> {
  if (order.customer_id === null) return [];
  // The rules first (usually from the definitions cache): most orders meet none, and then need no customer.
  const rules = await activeRulesFor(tx, actor.projectId, EARNING_EVENTS.orderPaid, undefined, await definitions(tx, actor.projectId));
  if (rules.length === 0) return [];
  const customer = await customerOf(tx, actor, order.customer_id);
  if (!customer) return [];
  const collections = [...new Set(rules.flatMap((r) => itemTargets(loyaltyOf(r)).filter((t) => t.object === 'products_collection').map((t) => t.id)))];
  const lines = await orderWithCollections(tx, deps, actor, order, collections);
  return fire(tx, deps, actor, rules, {
    customer,
    facts: { order: earningOrderOf(lines, order), customerMetadata: customer.metadata, eventMetadata: null },
    ruleOrder: ruleOrderOf(lines, order),
    order,
    details: { order: { id: order.id, source_id: order.source_id }, event: paidEvent },
    orderPaid: true,
    card: null,
    depth: 0,
  });
}

export interface CustomEventEarning {
  /** The customer the event is about (already resolved or created by the caller). */
  customer: CustomerObject;
  event: {
    /** The custom event name, which rules name as their `event`. */
    name: string;
    /** Id of the stored event (`evcus_…`), for transaction details. */
    id?: string | null;
    metadata?: Record<string, unknown> | null;
    /** The event schema (`ms_…`) the name belongs to; when given, rules must name the same schema. */
    schemaId?: string | null;
    schemaName?: string | null;
  };
  /** `loyalty.code` of the request: the card to credit. Only its program's rules then fire. */
  loyaltyCardCode?: string | null;
}

/**
 * For the custom-events area (`POST /v1/events`): runs the custom-event earning rules named by the
 * event inside the caller's transaction. A named card must exist (404) and be held by the customer
 * (400 invalid_customer).
 */
export async function earnPointsForCustomEvent(tx: Tx, deps: Deps, actor: Actor, input: CustomEventEarning): Promise<Earned[]> {
  let card: VoucherRow | null = null;
  if (input.loyaltyCardCode) {
    card = (await findLiveVoucher(tx, actor.projectId, input.loyaltyCardCode)) ?? null;
    if (!card || card.type !== 'LOYALTY_CARD') throw errors.notFound('voucher', input.loyaltyCardCode);
    if (card.holder_id !== input.customer.id) {
      throw businessError('invalid_customer', 'Customer must be a holder of a loyalty card.', {
        details: `Loyalty card ${card.code} is not held by customer ${input.customer.id}`,
        resourceId: card.code,
        resourceType: 'voucher',
      });
    }
  }
  const schemaId = input.event.schemaId ?? null;
  const rules = (await activeRulesFor(tx, actor.projectId, input.event.name, card?.campaign_id ?? undefined)).filter(
    (r) => schemaId === null || r.custom_event_schema_id === schemaId,
  );
  const metadata = input.event.metadata ?? {};
  return fire(tx, deps, actor, rules, {
    customer: input.customer,
    facts: { order: null, customerMetadata: input.customer.metadata, eventMetadata: metadata },
    ruleOrder: null,
    order: null,
    details: {
      event: { id: input.event.id ?? null, type: 'customer.custom_event' },
      custom_event: { id: input.event.id ?? null, type: input.event.name },
      ...(schemaId ? { event_schema: { id: schemaId, name: input.event.schemaName ?? input.event.name } } : {}),
    },
    orderPaid: false,
    card,
    depth: 0,
  });
}

/**
 * For the segments area: call when a customer newly entered a segment (with the `customer.segment.entered`
 * event it appended), inside that transaction. Customers already in the segment must not come here.
 */
export async function earnPointsForSegmentEntered(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  input: { customer: CustomerObject; segment: { id: string; name: string }; eventId?: string | null },
): Promise<Earned[]> {
  const rules = (await activeRulesFor(tx, actor.projectId, EARNING_EVENTS.segmentEntered)).filter((r) => r.segment_id === input.segment.id);
  return fire(tx, deps, actor, rules, {
    customer: input.customer,
    facts: { order: null, customerMetadata: input.customer.metadata, eventMetadata: null },
    ruleOrder: null,
    order: null,
    details: { event: { id: input.eventId ?? null, type: 'customer.segment.entered' }, segment: { id: input.segment.id, name: input.segment.name } },
    orderPaid: false,
    card: null,
    depth: 0,
  });
}

/**
 * Tier-event earning: after `refreshTier` recorded a tier change of `card`, the rules reacting to that
 * change for `tier` (or for any tier of its program) give points — in their own programs, which may be
 * other programs than the card's.
 */
export async function earnForTierChange(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  input: { card: VoucherRow; change: TierChange; tier: TierRow; eventId: string; depth: number },
): Promise<Earned[]> {
  const customer = await customerOf(tx, actor, input.card.holder_id);
  if (!customer) return [];
  const event = `customer.loyalty.tier.${input.change}`;
  const rules = (await activeRulesFor(tx, actor.projectId, event)).filter(
    (r) => r.loyalty_tier_id === input.tier.id || (r.loyalty_tier_id === ANY_TIER && r.campaign_id === input.tier.campaign_id),
  );
  return fire(tx, deps, actor, rules, {
    customer,
    facts: { order: null, customerMetadata: customer.metadata, eventMetadata: null },
    ruleOrder: null,
    order: null,
    details: { event: { id: input.eventId, type: event } },
    orderPaid: false,
    card: input.card,
    depth: input.depth,
  });
}

/** How deep tier changes may chain through tier-event earning rules (upgrade → points → upgrade …). */
const MAX_TIER_DEPTH = 4;

/**
 * Recalculates the card's tier inside the caller's transaction, after its points changed (or when a
 * held tier may have expired), and runs the tier-event earning rules a change fires (here, because that
 * earning changes points and so refreshes tiers in turn). Call it wherever a card's balance moves:
 * accruals, manual additions and removals, transfers (both cards), expiry, pending points activation,
 * reward redemptions and refunds. Answers the decision, or null when the card's program has no tiers and
 * the card holds none.
 */
export async function refreshTier(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, options: { depth?: number } = {}): Promise<TierDecision | null> {
  const depth = options.depth ?? 0;
  const update = await updateTier(tx, deps, actor, card);
  if (!update) return null;
  if (update.changed && depth < MAX_TIER_DEPTH) await earnForTierChange(tx, deps, actor, { ...update.changed, depth: depth + 1 });
  return update.decision;
}
