import { startState, type DiscountState, type UnitFacts } from '../../domain/discounts/apply.ts';
import { errors } from '../../domain/errors.ts';
import { dateToFormulaDays } from '../../domain/formulas/money.ts';
import type { FormulaVariableName } from '../../domain/formulas/variables.ts';
import type { CoinParameters } from '../../domain/loyalty/pay-with-points.ts';
import type { OrderLine } from '../../domain/orders/order-math.ts';
import type { Candidate, EngineContext, LoyaltyReward, ValidityCheck } from '../../domain/redemptions/engine.ts';
import { periodStart, type CounterPeriod } from '../../domain/redemptions/periods.ts';
import { duplicatedRedeemables, invalidRedeemables, redeemablesProblem } from '../../domain/redemptions/request.ts';
import { DEFAULT_STACKING_RULES, type StackingRules } from '../../domain/redemptions/stacking.ts';
import type { TtlUnit } from '../../domain/redemptions/session.ts';
import { compileRuleSet, type CompiledRuleSet } from '../../domain/rules/definition.ts';
import { factsNeeded, type FactsNeeded, type RuleCustomer } from '../../domain/rules/evaluate.ts';
import type { CounterName } from '../../domain/rules/names.ts';
import type { DiscountInput } from '../../api/discounts.ts';
import type { CreateOrderInput } from '../../api/orders.ts';
import { withMembers } from '../../lib/objects.ts';
import { findCampaignsByIds, type CampaignRow } from '../../store/campaigns.ts';
import { findCategoriesByIds, toCategoryObject, type CategoryObject } from '../../store/categories.ts';
import type { CustomerRow } from '../../store/customers.ts';
import type { Dialect, Executor } from '../../store/db.ts';
import { definitions, type DefinitionsView } from '../../store/definitions.ts';
import { fromJson } from '../../store/json.ts';
import { findCatalogFacts, findOrderById, findOrderBySourceId, type CatalogFacts, type OrderRow } from '../../store/orders.ts';
import { findStacksByIds, tierIdsOfStacks } from '../../store/promotion-stacks.ts';
import { findTiersWithCampaign, type TierSummary, type TierWithCampaign } from '../../store/promotion-tiers.ts';
import { findVouchersAndLocks, projectSettings, redemptionCounts } from '../../store/redemption-facts.ts';
import type { LockedAmounts } from '../../store/redemption-sessions.ts';
import { findAssignment, findAssignmentFor, findReward, type AssignmentRow, type RewardRow } from '../../store/rewards.ts';
import { segmentIdsOfCustomer } from '../../store/segments.ts';
import { assignedRules, type ValidationRuleRow } from '../../store/validation-rules.ts';
import { codeKeyOf, type VoucherRow } from '../../store/vouchers.ts';
import { resolveOrderLines } from '../orders/order-lines.ts';
import { parametersOf } from '../loyalty/rewards.ts';
import { collectionMembership, collectionsOfLine } from '../product-collections/product-collections.ts';
import { windowOf } from '../promotions/availability.ts';
import type { SimpleCustomer } from './records.ts';
import { referrerOf } from '../referrals/holders.ts';
import { definitionOf, toAssignmentObject, type AssignmentObject } from '../validation-rules/validation-rules.ts';
import { rulesOf } from './stacking-rules.ts';

// Loads everything the evaluation engine needs for one request, one query per kind of fact rather than
// one per redeemable: the project's settings and stacking rules, the vouchers (locked for a redemption),
// tiers and stacks, campaigns, categories, validation rules, other sessions' reservations, rewards, the
// starting order with its catalog data, and only the rule facts the rules actually read (segments,
// product collections, counters).

export type SentObject = 'voucher' | 'promotion_tier' | 'promotion_stack';

export interface SentRedeemable {
  object: SentObject;
  id: string;
  gift?: { credits?: number | null } | null;
  reward?: { id?: string | null; points?: number | null } | null;
}

export interface SessionRequest {
  key: string;
  ttl: number;
  ttlUnit: TtlUnit;
}

/** A validation or redemption request in the engine's terms, whichever endpoint it came through. */
export interface EngineRequest {
  redeemables: SentRedeemable[];
  order: CreateOrderInput | null;
  customer: { id?: string | null; source_id?: string | null; metadata?: Record<string, unknown> | null } | null;
  trackingId: string | null;
  metadata: Record<string, unknown>;
  /** A LOCK session (validation reserves, redemption uses its reservation). */
  session: SessionRequest | null;
  expand: ReadonlySet<string>;
}

/** The customer of a request as the engine sees it; `id` is null when it is not (yet) stored. */
export interface CustomerFacts {
  id: string | null;
  row: CustomerRow | null;
  simple: SimpleCustomer | null;
  metadata: Record<string, unknown>;
  present: boolean;
}

export const NO_CUSTOMER: CustomerFacts = { id: null, row: null, simple: null, metadata: {}, present: false };

export interface OrderFacts {
  existing: OrderRow | null;
  /** The merchant's order id: the stored order's, else the one sent. */
  sourceId: string | null;
  start: DiscountState;
  present: boolean;
  metadata: Record<string, unknown>;
}

/** A category as results show it: with its stacking type when the rules name it. */
export type CategoryOut = CategoryObject & { stacking_rules_type?: 'JOINT' | 'EXCLUSIVE' };

interface ResolvedBase {
  candidate: Candidate;
  sent: SentRedeemable;
  categories: CategoryOut[];
  assignments: AssignmentObject[];
}

export type Resolved =
  | (ResolvedBase & { kind: 'voucher'; voucher: VoucherRow; campaign: CampaignRow | null; reward: { row: RewardRow; assignment: AssignmentRow } | null })
  | (ResolvedBase & { kind: 'promotion_tier'; tier: TierWithCampaign; stackId: string | null })
  | (ResolvedBase & { kind: 'missing' });

export interface Facts {
  /** The definitions this request read (src/store/definitions.ts); later steps of the request read through it too. */
  definitions: DefinitionsView;
  now: Date;
  timeZone: string;
  rules: StackingRules;
  customer: CustomerFacts;
  order: OrderFacts;
  /** Parallel to `candidates`. */
  resolved: Resolved[];
  candidates: Candidate[];
  context: EngineContext;
  /**
   * The summaries of the request's tiers when they were read with the vouchers' reservations
   * (LoadOptions.tierSummaries), else null.
   */
  tierSummaries: Map<string, TierSummary> | null;
}

export interface LoadOptions {
  /** Lock the vouchers until the transaction ends (redemption, and validation that reserves). */
  lock: boolean;
  audienceOnly?: boolean;
  /** The order facts, when the caller loaded them already (qualifications evaluate many candidates on one order). */
  order?: OrderFacts;
  /**
   * Candidates to be evaluated one by one (qualifications): no request-level limits apply, and a
   * redeemable named twice is loaded once.
   */
  independent?: boolean;
  /** The definitions view, when the caller holds one for this request already. */
  definitions?: DefinitionsView;
  /**
   * Read the summaries of the request's tiers with the vouchers' reservations where those take a
   * statement of their own (a redemption on PostgreSQL, which shows them in its records): one round trip
   * instead of two (src/store/combined-reads.ts).
   */
  tierSummaries?: boolean;
}

// ---- compiled rules, cached by their definition ----

interface CompiledEntry {
  compiled: CompiledRuleSet;
  needed: FactsNeeded;
}

const compiledRules = new Map<string, CompiledEntry>();

/**
 * Compiles a stored rule once per process (per definition), not once per request. Keyed by the stored
 * text of the definition, so a request finds it without parsing or serialising the rule.
 */
function compiledRule(rule: ValidationRuleRow): CompiledEntry {
  const key = `${rule.rules}\u0000${rule.error}\u0000${rule.applicable_to}`;
  let entry = compiledRules.get(key);
  if (!entry) {
    const definition = definitionOf(rule);
    entry = { compiled: compileRuleSet(definition), needed: factsNeeded(definition) };
    if (compiledRules.size > 2000) compiledRules.clear();
    compiledRules.set(key, entry);
  }
  return entry;
}

// ---- the order ----

/**
 * The order the request starts from: the stored one it names (by id, or by source_id when it exists)
 * with the members sent overriding stored ones (reference 6.2 *Rec.*), else the order sent. Earlier
 * discounts of a stored order stay: a second redemption adds to them (reference 3.8).
 */
export async function loadOrder(db: Executor, projectId: string, sent: CreateOrderInput | null, lock = false, catalog?: CatalogFacts): Promise<OrderFacts> {
  if (!sent) return { existing: null, sourceId: null, start: startState([], 0, null, null), present: false, metadata: {} };
  let existing: OrderRow | undefined;
  if (sent.id) {
    existing = await findOrderById(db, projectId, sent.id, { forUpdate: lock });
    if (!existing) throw errors.notFound('order', sent.id);
  } else if (sent.source_id) {
    existing = await findOrderBySourceId(db, projectId, sent.source_id, { forUpdate: lock });
  }
  const itemsSent = sent.items !== undefined && sent.items !== null;
  const lines: OrderLine[] = itemsSent ? await resolveOrderLines(db, projectId, sent.items ?? [], catalog) : existing ? fromJson<OrderLine[]>(existing.items, []) : [];
  const stored = (value: number | null | undefined) => (value === null || value === undefined ? null : Number(value));
  const amount = sent.amount ?? (itemsSent ? null : stored(existing?.amount));
  const initial = sent.initial_amount ?? (itemsSent || sent.amount !== undefined ? null : stored(existing?.initial_amount));
  const discount = sent.discount_amount ?? stored(existing?.discount_amount) ?? 0;
  const metadata = sent.metadata ?? (existing ? fromJson<Record<string, unknown>>(existing.metadata, {}) : {});
  return { existing: existing ?? null, sourceId: existing?.source_id ?? sent.source_id ?? null, start: startState(lines, discount, amount, initial), present: true, metadata };
}

// ---- helpers ----

function categoriesOf(ids: Array<string | null>, all: Map<string, CategoryObject>, rules: StackingRules): CategoryOut[] {
  const out: CategoryOut[] = [];
  for (const id of ids) {
    const category = id ? all.get(id) : undefined;
    if (!category || out.some((c) => c.id === category.id)) continue;
    const type = rules.joint_categories.includes(category.id) ? 'JOINT' : rules.exclusive_categories.includes(category.id) ? 'EXCLUSIVE' : undefined;
    out.push(type ? withMembers(category, { stacking_rules_type: type }) : category);
  }
  return out;
}

function unitTypesOf(discount: DiscountInput | null): string[] {
  if (!discount || discount.type !== 'UNIT') return [];
  return discount.units ? discount.units.map((u) => u.unit_type) : discount.unit_type ? [discount.unit_type] : [];
}

async function unitFacts(db: Executor, projectId: string, unitTypes: readonly string[]): Promise<Map<string, UnitFacts>> {
  const out = new Map<string, UnitFacts>();
  if (unitTypes.length === 0) return out;
  const skus = unitTypes.filter((t) => t.startsWith('sku_'));
  const products = unitTypes.filter((t) => !t.startsWith('sku_'));
  const facts = await findCatalogFacts(db, projectId, { productIds: products, productSourceIds: [], skuIds: skus, skuSourceIds: [] });
  const embed = (p: { id: string; source_id: string | null; name: string | null; price: number | null; metadata: Record<string, unknown> }) => ({
    id: p.id,
    source_id: p.source_id,
    name: p.name,
    price: p.price,
    metadata: p.metadata,
  });
  for (const id of products) {
    const p = facts.productsById.get(id);
    if (p) out.set(id, { product_id: p.id, sku_id: null, price: p.price, product: embed(p), sku: null });
  }
  for (const id of skus) {
    const s = facts.skusById.get(id);
    if (!s) continue;
    const parent = facts.productsById.get(s.product_id);
    out.set(id, {
      product_id: s.product_id,
      sku_id: s.id,
      price: s.price ?? parent?.price ?? null,
      product: parent ? embed(parent) : null,
      sku: { id: s.id, source_id: s.source_id, sku: s.sku, price: s.price, metadata: s.metadata },
    });
  }
  return out;
}

const PERIODS: Record<string, CounterPeriod | undefined> = { daily: 'daily', weekly: 'weekly', monthly: 'monthly' };

/** The counters a candidate's rules read, each an indexed count as it stands before this redemption. */
async function countersFor(
  db: Executor,
  projectId: string,
  names: readonly CounterName[],
  subject: { relatedObjectId: string; campaignId: string | null },
  customerId: string | null,
  now: Date,
  timeZone: string,
): Promise<Partial<Record<CounterName, number>>> {
  const out: Partial<Record<CounterName, number>> = {};
  for (const name of names) {
    const period = PERIODS[name.split('.').pop() ?? ''];
    const since = period ? periodStart(now, timeZone, period) : undefined;
    if (name.startsWith('campaign.')) {
      if (subject.campaignId === null) {
        out[name] = 0;
        continue;
      }
      const counts = await redemptionCounts(db, { projectId, campaignId: subject.campaignId, ...(since ? { since } : {}) });
      out[name] = name === 'campaign.orders.amount' ? counts.amount : name === 'campaign.orders.amount_discounted' ? counts.discount : counts.count;
      continue;
    }
    if (name.startsWith('redemption.count.per_customer')) {
      // Without a stored customer nobody has redeemed anything yet.
      out[name] = customerId === null ? 0 : (await redemptionCounts(db, { projectId, relatedObjectId: subject.relatedObjectId, customerId, ...(since ? { since } : {}) })).count;
      continue;
    }
    out[name] = (await redemptionCounts(db, { projectId, relatedObjectId: subject.relatedObjectId, ...(since ? { since } : {}) })).count;
  }
  return out;
}

function dateValue(value: string | null): number | undefined {
  return value === null ? undefined : dateToFormulaDays(value);
}

interface Slot {
  index: number;
  sent: SentRedeemable;
  object: 'voucher' | 'promotion_tier';
  id: string;
  stackId: string | null;
}

/**
 * Resolves a request's redeemables and everything their evaluation reads. Request-level problems
 * (duplicates, a stack mixed with other redeemables, an unknown stack) throw; an unknown voucher or tier
 * is a candidate that fails with `not_found`.
 */
export async function loadFacts(
  db: Executor,
  dialect: Dialect,
  projectId: string,
  now: Date,
  request: EngineRequest,
  customer: CustomerFacts,
  options: LoadOptions,
): Promise<Facts> {
  const defs = options.definitions ?? (await definitions(db, projectId));
  const settings = await projectSettings(db, projectId, defs);
  if (!settings) throw errors.notFound('project', projectId);
  const rules = settings.stackingRules === null ? DEFAULT_STACKING_RULES : rulesOf({ id: '', project_id: projectId, rules: settings.stackingRules, created_at: '', updated_at: null });
  const problem = options.independent ? null : redeemablesProblem(request.redeemables, rules.redeemables_limit);
  if (problem) throw problem;

  // A stack stands for its tiers, in the stack's order.
  const slots: Slot[] = [];
  for (const sent of request.redeemables) {
    if (sent.object !== 'promotion_stack') {
      slots.push({ index: slots.length, sent, object: sent.object, id: sent.id, stackId: null });
      continue;
    }
    const [stack] = await findStacksByIds(db, projectId, [sent.id], defs);
    if (!stack) throw errors.notFound('promotion_stack', sent.id);
    const tierIds = (await tierIdsOfStacks(db, projectId, [stack.id], defs)).get(stack.id) ?? [];
    if (tierIds.length === 0) throw invalidRedeemables(`Promotion stack ${stack.id} has no tiers`);
    for (const tierId of tierIds) slots.push({ index: slots.length, sent, object: 'promotion_tier', id: tierId, stackId: stack.id });
  }

  const voucherSlots = slots.filter((s) => s.object === 'voucher');
  const tierIds = slots.filter((s) => s.object === 'promotion_tier').map((s) => s.id);
  const { rows: vouchers, locked: locks, tierSummaries } = await findVouchersAndLocks(
    db,
    projectId,
    voucherSlots.map((s) => ({ codeKey: codeKeyOf(s.id, settings.caseSensitiveCodes), id: s.id })),
    options.lock,
    now.toISOString(),
    request.session?.key ?? null,
    options.tierSummaries ? tierIds : [],
  );
  const voucherOf = new Map<number, VoucherRow>();
  const taken = new Map<string, number>();
  for (const slot of voucherSlots) {
    const key = codeKeyOf(slot.id, settings.caseSensitiveCodes);
    const found = vouchers.find((v) => v.code_key === key) ?? vouchers.find((v) => v.id === slot.id);
    if (!found) continue;
    const earlier = taken.get(found.id);
    if (earlier !== undefined && !options.independent) throw duplicatedRedeemables(`Duplicated redeemables detected: .redeemables[${earlier}] and .redeemables[${slot.index}] name voucher ${found.code}`);
    taken.set(found.id, slot.index);
    voucherOf.set(slot.index, found);
  }
  const tiers = await findTiersWithCampaign(db, projectId, tierIds, undefined, defs);
  const tierOf = new Map(tiers.map((t) => [t.tier.id, t]));
  const campaigns = await findCampaignsByIds(db, projectId, [...voucherOf.values()].flatMap((v) => (v.campaign_id ? [v.campaign_id] : [])), defs);

  // Loyalty cards: the reward they pay with and its assignment to the card's program.
  const rewards = new Map<number, { row: RewardRow; assignment: AssignmentRow } | 'unassigned'>();
  for (const slot of voucherSlots) {
    const card = voucherOf.get(slot.index);
    const rewardId = slot.sent.reward?.id;
    if (!card || card.type !== 'LOYALTY_CARD' || !rewardId) continue;
    let row = await findReward(db, projectId, rewardId);
    let assignment = row && card.campaign_id ? await findAssignmentFor(db, projectId, row.id, card.campaign_id) : undefined;
    if (!row) {
      // An assignment id names the reward in the card's program just as well (as the loyalty endpoints accept).
      const byAssignment = await findAssignment(db, projectId, rewardId);
      if (byAssignment && byAssignment.campaign_id === card.campaign_id) {
        assignment = byAssignment;
        row = await findReward(db, projectId, byAssignment.reward_id);
      }
    }
    rewards.set(slot.index, row && assignment ? { row, assignment } : 'unassigned');
  }

  const ruleObjects: Array<{ type: string; id: string }> = [];
  for (const v of voucherOf.values()) {
    ruleObjects.push({ type: 'voucher', id: v.id });
    if (v.campaign_id) ruleObjects.push({ type: 'campaign', id: v.campaign_id });
  }
  for (const t of tiers) ruleObjects.push({ type: 'promotion_tier', id: t.tier.id }, { type: 'campaign', id: t.campaign.id });
  for (const r of rewards.values()) if (r !== 'unassigned') ruleObjects.push({ type: 'reward_assignment', id: r.assignment.id });
  const assigned = await assignedRules(db, projectId, ruleObjects, defs);

  const categoryIds = [
    ...[...voucherOf.values()].flatMap((v) => [v.category_id, v.campaign_id ? (campaigns.get(v.campaign_id)?.category_id ?? null) : null]),
    ...tiers.flatMap((t) => [t.tier.category_id, t.campaign.category_id]),
  ].filter((id): id is string => id !== null);
  const categoryRows = await findCategoriesByIds(db, projectId, categoryIds, defs);
  const categoryObjects = new Map([...categoryRows.values()].map((row) => [row.id, toCategoryObject(row)]));

  const order = options.order ?? (await loadOrder(db, projectId, request.order, options.lock));

  const discounts = new Map<number, DiscountInput | null>();
  for (const slot of slots) {
    const voucher = voucherOf.get(slot.index);
    if (voucher) discounts.set(slot.index, voucher.type === 'DISCOUNT_VOUCHER' ? fromJson<DiscountInput | null>(voucher.discount, null) : null);
    const tier = slot.object === 'promotion_tier' ? tierOf.get(slot.id) : undefined;
    if (tier) discounts.set(slot.index, fromJson<{ discount?: DiscountInput }>(tier.tier.action, {}).discount ?? null);
  }
  const units = await unitFacts(db, projectId, [...new Set([...discounts.values()].flatMap(unitTypesOf))]);

  // Rule facts: only what the assigned rules read.
  const rulesByObject = new Map<string, Array<{ ruleId: string; entry: CompiledEntry; assignment: AssignmentObject }>>();
  for (const { assignment, rule } of assigned) {
    const key = `${assignment.related_object_type}\u0000${assignment.related_object_id}`;
    const list = rulesByObject.get(key) ?? [];
    list.push({ ruleId: rule.id, entry: compiledRule(rule), assignment: toAssignmentObject(assignment) });
    rulesByObject.set(key, list);
  }
  const rulesOfObjects = (objects: Array<[string, string | null]>) => objects.flatMap(([type, id]) => (id === null ? [] : (rulesByObject.get(`${type}\u0000${id}`) ?? [])));
  const needsSegments = assigned.length > 0 && [...rulesByObject.values()].flat().some((r) => r.entry.needed.segments);
  const collectionIds = [...new Set([...rulesByObject.values()].flat().flatMap((r) => r.entry.needed.collections))];
  const segmentIds = needsSegments && customer.id !== null ? await segmentIdsOfCustomer(db, projectId, customer.id) : [];
  let membership = new Map<string, Set<string>>();
  if (collectionIds.length > 0) {
    const items = [
      ...order.start.lines.map((l) => ({ productId: l.product_id, skuId: l.sku_id })),
      ...[...units.values()].map((u) => ({ productId: u.product_id, skuId: u.sku_id })),
    ];
    membership = await collectionMembership(db, dialect, projectId, collectionIds, items, now);
  }

  const candidates: Candidate[] = [];
  const resolved: Resolved[] = [];
  for (const slot of slots) {
    const voucher = voucherOf.get(slot.index);
    const tier = slot.object === 'promotion_tier' ? tierOf.get(slot.id) : undefined;
    // A redeemable that does not exist. It names every member, so the found ones below only replace
    // members: on Node 20, members added to a spread copy (`{ ...base, more }`) cost microseconds each.
    const base: Candidate = {
      index: slot.index,
      id: slot.id,
      object: slot.object,
      found: false,
      windows: [],
      quantity: null,
      referrerId: null,
      holderId: null,
      payload: { type: 'discount', discount: null, units },
      rules: [],
      categories: [],
      counters: {},
      formula: { values: {}, metadata: {} },
    };
    if (voucher) {
      const campaign = voucher.campaign_id ? (campaigns.get(voucher.campaign_id) ?? null) : null;
      const entries = rulesOfObjects([
        ['voucher', voucher.id],
        ['campaign', voucher.campaign_id],
      ]);
      const reward = rewards.get(slot.index);
      const rewardEntries = reward && reward !== 'unassigned' ? rulesOfObjects([['reward_assignment', reward.assignment.id]]) : [];
      const allEntries = [...entries, ...rewardEntries];
      const lock: LockedAmounts = locks.get(voucher.id) ?? { quantity: 0, credits: 0, points: 0 };
      const windows: ValidityCheck[] = [{ subject: `Voucher ${voucher.code}`, window: windowOf(voucher) }];
      if (campaign) windows.push({ subject: `Campaign ${campaign.name}`, window: windowOf(campaign) });
      const categories = categoriesOf([voucher.category_id, campaign?.category_id ?? null], categoryObjects, rules);
      const counterNames = [...new Set(allEntries.flatMap((e) => e.entry.needed.counters))];
      const values: Partial<Record<FormulaVariableName, number>> = {
        VOUCHER_REDEEMED_QUANTITY: Number(voucher.redeemed_quantity),
        VOUCHER_PUBLISH_COUNT: Number(voucher.publish_count),
      };
      if (voucher.redemption_quantity !== null) values.VOUCHER_REDEMPTION_QUANTITY = Number(voucher.redemption_quantity);
      const start = dateValue(voucher.start_date);
      const end = dateValue(voucher.expiration_date);
      if (start !== undefined) values.VOUCHER_START_DATE = start;
      if (end !== undefined) values.VOUCHER_EXPIRATION_DATE = end;
      let payload: Candidate['payload'];
      if (voucher.type === 'GIFT_VOUCHER') {
        const effect = voucher.gift_effect === 'APPLY_TO_ITEMS' ? 'APPLY_TO_ITEMS' : 'APPLY_TO_ORDER';
        payload = { type: 'gift', code: voucher.code, balance: Number(voucher.gift_balance), lockedByOthers: lock.credits, effect, credits: slot.sent.gift?.credits ?? null };
      } else if (voucher.type === 'LOYALTY_CARD') {
        let loyaltyReward: LoyaltyReward;
        const rewardId = slot.sent.reward?.id;
        if (!rewardId) loyaltyReward = { state: 'missing' };
        else if (!reward || reward === 'unassigned') loyaltyReward = { state: 'unassigned', id: rewardId };
        else if (reward.row.type !== 'COIN') loyaltyReward = { state: 'not_coin', id: reward.row.id, type: reward.row.type };
        else {
          const parameters = parametersOf(reward.row);
          const coin: CoinParameters = 'coin' in parameters ? parameters.coin : { exchange_ratio: 1, points_ratio: 1 };
          loyaltyReward = {
            state: 'coin',
            id: reward.row.id,
            assignmentId: reward.assignment.id,
            coin,
            points: slot.sent.reward?.points ?? null,
            stockLeft: reward.row.stock === null ? null : Number(reward.row.stock),
          };
        }
        payload = { type: 'loyalty', code: voucher.code, balance: Number(voucher.loyalty_balance), lockedByOthers: lock.points, holderId: voucher.holder_id, reward: loyaltyReward };
      } else {
        payload = { type: 'discount', discount: discounts.get(slot.index) ?? null, units };
      }
      const candidate: Candidate = {
        ...base,
        found: true,
        windows,
        quantity: {
          limit: voucher.redemption_quantity === null ? null : Number(voucher.redemption_quantity),
          redeemed: Number(voucher.redeemed_quantity),
          lockedByOthers: lock.quantity,
        },
        referrerId: voucher.is_referral_code ? referrerOf(voucher) : null,
        holderId: voucher.holder_id,
        payload,
        rules: allEntries.map((e) => ({ ruleId: e.ruleId, compiled: e.entry.compiled })),
        categories: categories.map((c) => ({ id: c.id, hierarchy: c.hierarchy })),
        counters: await countersFor(db, projectId, counterNames, { relatedObjectId: voucher.id, campaignId: voucher.campaign_id }, customer.id, now, settings.timezone),
        formula: { values, metadata: { REDEEMABLE: fromJson<Record<string, unknown>>(voucher.metadata, {}) } },
      };
      candidates.push(candidate);
      resolved.push({
        kind: 'voucher',
        candidate,
        sent: slot.sent,
        voucher,
        campaign,
        reward: reward && reward !== 'unassigned' ? reward : null,
        categories,
        assignments: entries.filter((e) => e.assignment.related_object_type === 'voucher').map((e) => e.assignment),
      });
      continue;
    }
    if (tier) {
      const entries = rulesOfObjects([
        ['promotion_tier', tier.tier.id],
        ['campaign', tier.campaign.id],
      ]);
      const categories = categoriesOf([tier.tier.category_id, tier.campaign.category_id], categoryObjects, rules);
      const values: Partial<Record<FormulaVariableName, number>> = {};
      const start = dateValue(tier.tier.start_date);
      const end = dateValue(tier.tier.expiration_date);
      if (start !== undefined) values.PROMOTION_TIER_START_DATE = start;
      if (end !== undefined) values.PROMOTION_TIER_EXPIRATION_DATE = end;
      const counterNames = [...new Set(entries.flatMap((e) => e.entry.needed.counters))];
      const candidate: Candidate = {
        ...base,
        found: true,
        // The campaign's window first: a disabled campaign makes its tiers inactive (reference 6.9).
        windows: [
          { subject: `Campaign ${tier.campaign.name} of promotion tier ${tier.tier.id}`, window: windowOf(tier.campaign) },
          { subject: `Promotion Tier with id ${tier.tier.id}`, window: windowOf(tier.tier) },
        ],
        payload: { type: 'discount', discount: discounts.get(slot.index) ?? null, units },
        rules: entries.map((e) => ({ ruleId: e.ruleId, compiled: e.entry.compiled })),
        categories: categories.map((c) => ({ id: c.id, hierarchy: c.hierarchy })),
        counters: await countersFor(db, projectId, counterNames, { relatedObjectId: tier.tier.id, campaignId: tier.campaign.id }, customer.id, now, settings.timezone),
        formula: { values, metadata: { REDEEMABLE: fromJson<Record<string, unknown>>(tier.tier.metadata, {}) } },
      };
      candidates.push(candidate);
      resolved.push({
        kind: 'promotion_tier',
        candidate,
        sent: slot.sent,
        tier,
        stackId: slot.stackId,
        categories,
        assignments: entries.filter((e) => e.assignment.related_object_type === 'promotion_tier').map((e) => e.assignment),
      });
      continue;
    }
    candidates.push(base);
    resolved.push({ kind: 'missing', candidate: base, sent: slot.sent, categories: [], assignments: [] });
  }

  const ruleCustomer: RuleCustomer | null = customer.present ? { id: customer.id ?? '', metadata: customer.metadata } : null;
  const context: EngineContext = {
    now,
    timeZone: settings.timezone,
    rules,
    customer: ruleCustomer,
    segmentIds,
    orderPresent: order.present,
    orderMetadata: order.metadata,
    redemptionMetadata: request.metadata,
    collectionsOf: (productId, skuId) => collectionsOfLine(membership, productId, skuId),
    ...(options.audienceOnly ? { audienceOnly: true } : {}),
  };
  return { definitions: defs, now, timeZone: settings.timezone, rules, customer, order, resolved, candidates, context, tierSummaries };
}
