import { evaluateWithMinorUnits } from '../formulas/money.ts';
import { parseFormula } from '../formulas/parser.ts';
import { roundHalfAwayFromZero } from '../formulas/rounding.ts';
import type { FormulaVariables } from '../formulas/variables.ts';

// How many points an earning rule gives (loyalty reference 4.5, 4.6, 6.3). Pure: the caller resolves the
// order, the customer, the custom event and the product collections the order lines belong to.

export const EARNING_EVENTS = {
  orderPaid: 'order.paid',
  segmentEntered: 'customer.segment.entered',
} as const;

export const TIER_EVENTS = [
  'customer.loyalty.tier.joined',
  'customer.loyalty.tier.left',
  'customer.loyalty.tier.upgraded',
  'customer.loyalty.tier.downgraded',
  'customer.loyalty.tier.prolonged',
] as const;
export type TierEvent = (typeof TIER_EVENTS)[number];

export function isTierEvent(event: string): event is TierEvent {
  return (TIER_EVENTS as readonly string[]).includes(event);
}

/** The `loyalty_tier.id` of a tier-event rule that matches any tier of the rule's own program. */
export const ANY_TIER = '__ANY__';

export type EventKind = 'order' | 'segment' | 'tier' | 'custom';

export function eventKind(event: string): EventKind {
  if (event === EARNING_EVENTS.orderPaid) return 'order';
  if (event === EARNING_EVENTS.segmentEntered) return 'segment';
  if (isTierEvent(event)) return 'tier';
  return 'custom';
}

export const CALCULATION_TYPES = [
  'ORDER_AMOUNT',
  'ORDER_TOTAL_AMOUNT',
  'ORDER_METADATA',
  'ORDER_ITEMS_QUANTITY',
  'ORDER_ITEMS_AMOUNT',
  'ORDER_ITEMS_SUBTOTAL_AMOUNT',
  'CUSTOMER_METADATA',
  'CUSTOM_EVENT_METADATA',
] as const;
export type CalculationType = (typeof CALCULATION_TYPES)[number];

/**
 * The calculations each kind of event can use. The vendor's create schemas are narrower, but its docs
 * and examples also use customer metadata for order-paid, custom-event and tier-event rules.
 */
const ALLOWED: Record<EventKind, readonly CalculationType[]> = {
  order: ['ORDER_AMOUNT', 'ORDER_TOTAL_AMOUNT', 'ORDER_METADATA', 'ORDER_ITEMS_QUANTITY', 'ORDER_ITEMS_AMOUNT', 'ORDER_ITEMS_SUBTOTAL_AMOUNT', 'CUSTOMER_METADATA'],
  segment: ['CUSTOMER_METADATA'],
  custom: ['CUSTOM_EVENT_METADATA', 'CUSTOMER_METADATA'],
  tier: ['CUSTOMER_METADATA'],
};

export type ItemTargetObject = 'product' | 'sku' | 'products_collection';

export interface Increment {
  every: number;
  points: number;
  points_formula?: string;
}

export interface MetadataIncrement extends Increment {
  property: string;
}

export interface ItemsIncrement extends Increment {
  /** The first target, echoed as the vendor does even when `applicable_to` was used. */
  object: ItemTargetObject;
  id: string;
  applicable_to: Array<{ object: ItemTargetObject; id: string }>;
}

export type FixedLoyalty = { type: 'FIXED'; points: number; points_formula?: string };

export type ProportionalLoyalty =
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_AMOUNT'; order: { amount: Increment } }
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_TOTAL_AMOUNT'; order: { total_amount: Increment } }
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_METADATA'; order: { metadata: MetadataIncrement } }
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_ITEMS_QUANTITY'; order_items: { quantity: ItemsIncrement } }
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_ITEMS_AMOUNT'; order_items: { amount: ItemsIncrement } }
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_ITEMS_SUBTOTAL_AMOUNT'; order_items: { subtotal_amount: ItemsIncrement } }
  | { type: 'PROPORTIONAL'; calculation_type: 'CUSTOMER_METADATA'; customer: { metadata: MetadataIncrement } }
  | { type: 'PROPORTIONAL'; calculation_type: 'CUSTOM_EVENT_METADATA'; custom_event: { metadata: MetadataIncrement } };

/** A rule's `loyalty` member as stored and answered. */
export type EarningLoyalty = FixedLoyalty | ProportionalLoyalty;

// ---- reading what a client sent ----

/** The `loyalty` member as the request schema lets it through: counts may be numeric strings ("5"). */
export interface LoyaltyInput {
  type: 'FIXED' | 'PROPORTIONAL';
  points?: number | string | null | undefined;
  points_formula?: string | null | undefined;
  calculation_type?: CalculationType | null | undefined;
  order?: Record<string, IncrementInput | null | undefined> | null | undefined;
  order_items?: Record<string, IncrementInput | null | undefined> | null | undefined;
  customer?: { metadata?: IncrementInput | null | undefined } | null | undefined;
  custom_event?: { metadata?: IncrementInput | null | undefined } | null | undefined;
}

export interface IncrementInput {
  every?: number | string | null | undefined;
  points?: number | string | null | undefined;
  points_formula?: string | null | undefined;
  property?: string | null | undefined;
  object?: ItemTargetObject | null | undefined;
  id?: string | null | undefined;
  applicable_to?: Array<{ object: ItemTargetObject; id: string }> | null | undefined;
}

/** Where each calculation keeps its increment: `order.amount`, `order_items.quantity`, `customer.metadata`, … */
const MEMBER: Record<CalculationType, [parent: 'order' | 'order_items' | 'customer' | 'custom_event', child: string]> = {
  ORDER_AMOUNT: ['order', 'amount'],
  ORDER_TOTAL_AMOUNT: ['order', 'total_amount'],
  ORDER_METADATA: ['order', 'metadata'],
  ORDER_ITEMS_QUANTITY: ['order_items', 'quantity'],
  ORDER_ITEMS_AMOUNT: ['order_items', 'amount'],
  ORDER_ITEMS_SUBTOTAL_AMOUNT: ['order_items', 'subtotal_amount'],
  CUSTOMER_METADATA: ['customer', 'metadata'],
  CUSTOM_EVENT_METADATA: ['custom_event', 'metadata'],
};

const MAX_POINTS = 1_000_000_000_000;

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function count(value: number | string | null | undefined, path: string, min: number): Checked<number> {
  if (value === undefined || value === null) return { ok: false, error: `Property ${path} is required` };
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > MAX_POINTS) return { ok: false, error: `Property ${path} must be a whole number from ${min} to ${MAX_POINTS}` };
  return { ok: true, value: n };
}

function formula(text: string | null | undefined, path: string): Checked<string | undefined> {
  if (text === undefined || text === null) return { ok: true, value: undefined };
  const parsed = parseFormula(text);
  return parsed.ok ? { ok: true, value: text } : { ok: false, error: `Property ${path} is not a valid formula: ${parsed.error}` };
}

function calculationOf(input: LoyaltyInput): CalculationType | null {
  if (input.calculation_type) return input.calculation_type;
  // The SDK's proportional shape may leave calculation_type out; the one increment present names it.
  const present = CALCULATION_TYPES.filter((type) => {
    const [parent, child] = MEMBER[type];
    const holder = input[parent] as Record<string, unknown> | null | undefined;
    return holder !== null && holder !== undefined && holder[child] !== undefined && holder[child] !== null;
  });
  return present.length === 1 ? (present[0] as CalculationType) : null;
}

/**
 * The stored form of a rule's `loyalty` for a rule reacting to `event`, or the first problem with it
 * (an `invalid_payload` detail). Counts sent as numeric strings become numbers, as the vendor stores them.
 */
export function normalizeLoyalty(input: LoyaltyInput, event: string): Checked<EarningLoyalty> {
  if (input.type === 'FIXED') {
    const points = count(input.points, '.loyalty.points', 0);
    if (!points.ok) return points;
    const f = formula(input.points_formula, '.loyalty.points_formula');
    if (!f.ok) return f;
    return { ok: true, value: { type: 'FIXED', points: points.value, ...(f.value !== undefined ? { points_formula: f.value } : {}) } };
  }
  const calculation = calculationOf(input);
  if (!calculation) {
    return { ok: false, error: `Property .loyalty.calculation_type is required for PROPORTIONAL rules (one of ${CALCULATION_TYPES.join(', ')})` };
  }
  const kind = eventKind(event);
  if (!ALLOWED[kind].includes(calculation)) {
    return { ok: false, error: `Calculation ${calculation} cannot be used by ${event} rules; allowed: ${ALLOWED[kind].join(', ') || 'FIXED only'}` };
  }
  const [parent, child] = MEMBER[calculation];
  const path = `.loyalty.${parent}.${child}`;
  const raw = (input[parent] as Record<string, IncrementInput | null | undefined> | null | undefined)?.[child];
  if (!raw) return { ok: false, error: `Loyalty ${calculation} rules must contain the property '${parent}.${child}'` };
  const every = count(raw.every, `${path}.every`, 1);
  if (!every.ok) return every;
  const points = count(raw.points, `${path}.points`, 0);
  if (!points.ok) return points;
  const f = formula(raw.points_formula, `${path}.points_formula`);
  if (!f.ok) return f;
  const base: Increment = { every: every.value, points: points.value, ...(f.value !== undefined ? { points_formula: f.value } : {}) };
  if (calculation === 'ORDER_METADATA' || calculation === 'CUSTOMER_METADATA' || calculation === 'CUSTOM_EVENT_METADATA') {
    if (!raw.property) return { ok: false, error: `Property ${path}.property is required` };
    const increment: MetadataIncrement = { ...base, property: raw.property };
    if (calculation === 'ORDER_METADATA') return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, order: { metadata: increment } } };
    if (calculation === 'CUSTOMER_METADATA') return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, customer: { metadata: increment } } };
    return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, custom_event: { metadata: increment } } };
  }
  if (calculation === 'ORDER_AMOUNT') return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, order: { amount: base } } };
  if (calculation === 'ORDER_TOTAL_AMOUNT') return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, order: { total_amount: base } } };
  const targets = raw.applicable_to && raw.applicable_to.length > 0 ? raw.applicable_to : raw.object && raw.id ? [{ object: raw.object, id: raw.id }] : [];
  const first = targets[0];
  if (!first) return { ok: false, error: `Property ${path} needs 'object' and 'id', or a non-empty 'applicable_to'` };
  const increment: ItemsIncrement = { ...base, object: first.object, id: first.id, applicable_to: targets.map((t) => ({ object: t.object, id: t.id })) };
  if (calculation === 'ORDER_ITEMS_QUANTITY') return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, order_items: { quantity: increment } } };
  if (calculation === 'ORDER_ITEMS_AMOUNT') return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, order_items: { amount: increment } } };
  return { ok: true, value: { type: 'PROPORTIONAL', calculation_type: calculation, order_items: { subtotal_amount: increment } } };
}

/** The increment of a proportional rule, wherever its calculation keeps it. */
export function incrementOf(loyalty: ProportionalLoyalty): Increment & Partial<MetadataIncrement> & Partial<ItemsIncrement> {
  switch (loyalty.calculation_type) {
    case 'ORDER_AMOUNT':
      return loyalty.order.amount;
    case 'ORDER_TOTAL_AMOUNT':
      return loyalty.order.total_amount;
    case 'ORDER_METADATA':
      return loyalty.order.metadata;
    case 'ORDER_ITEMS_QUANTITY':
      return loyalty.order_items.quantity;
    case 'ORDER_ITEMS_AMOUNT':
      return loyalty.order_items.amount;
    case 'ORDER_ITEMS_SUBTOTAL_AMOUNT':
      return loyalty.order_items.subtotal_amount;
    case 'CUSTOMER_METADATA':
      return loyalty.customer.metadata;
    case 'CUSTOM_EVENT_METADATA':
      return loyalty.custom_event.metadata;
  }
}

/** The item targets of an items rule (products, SKUs, collections), or none for other rules. */
export function itemTargets(loyalty: EarningLoyalty): Array<{ object: ItemTargetObject; id: string }> {
  if (loyalty.type === 'FIXED') return [];
  const increment = incrementOf(loyalty);
  return increment.applicable_to ?? [];
}

// ---- tier mappings ----

export type PointsMapping = { type: 'MULTIPLY'; multiplier: number } | { type: 'CUSTOM'; points: number };

/**
 * A tier's mapping applied to a rule's points figure (loyalty reference 6.3). CUSTOM replaces the
 * figure the rule states (its fixed points, or its points per increment); MULTIPLY multiplies what the
 * rule gives. Results are whole points, halves rounded away from zero (as formula points are).
 */
export function mapPoints(points: number, mapping: PointsMapping | null | undefined): number {
  if (!mapping) return points;
  if (mapping.type === 'CUSTOM') return mapping.points;
  return Math.max(0, roundHalfAwayFromZero(points * mapping.multiplier));
}

/** The rule as a tier shows it: its points figure mapped (the tier earning-rules list). */
export function mappedLoyalty(loyalty: EarningLoyalty, mapping: PointsMapping | null | undefined): EarningLoyalty {
  if (!mapping) return loyalty;
  const copy = structuredClone(loyalty);
  if (copy.type === 'FIXED') copy.points = mapPoints(copy.points, mapping);
  else {
    const increment = incrementOf(copy);
    increment.points = mapPoints(increment.points, mapping);
  }
  return copy;
}

// ---- computing points ----

/** One order line as earning needs it. */
export interface EarningLine {
  productId: string | null;
  skuId: string | null;
  /** Collections the line's product or SKU belongs to (only those the rule names need to be resolved). */
  collectionIds: readonly string[];
  quantity: number;
  /** Free units (unit effects); they never earn. */
  discountQuantity: number;
  /** Pre-discount line amount, null when unknown. */
  amount: number | null;
  /** Post-discount line amount, null when unknown. */
  subtotal: number | null;
  metadata: Record<string, unknown>;
}

export interface EarningOrder {
  amount: number;
  totalAmount: number;
  metadata: Record<string, unknown>;
  lines: readonly EarningLine[];
}

export interface EarningFacts {
  order: EarningOrder | null;
  customerMetadata: Record<string, unknown>;
  /** Metadata of the custom event a rule reacts to; null for other events. */
  eventMetadata: Record<string, unknown> | null;
}

function numeric(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

function lineMatches(line: EarningLine, target: { object: ItemTargetObject; id: string }): boolean {
  switch (target.object) {
    case 'product':
      return line.productId === target.id;
    case 'sku':
      return line.skuId === target.id;
    case 'products_collection':
      return line.collectionIds.includes(target.id);
  }
}

/** The measured quantity a proportional rule counts increments of, or null when the facts lack it. */
export function metricOf(loyalty: ProportionalLoyalty, facts: EarningFacts): number | null {
  const order = facts.order;
  switch (loyalty.calculation_type) {
    case 'ORDER_AMOUNT':
      return order ? order.amount : null;
    case 'ORDER_TOTAL_AMOUNT':
      return order ? order.totalAmount : null;
    case 'ORDER_METADATA':
      return order ? numeric(order.metadata[loyalty.order.metadata.property]) : null;
    case 'CUSTOMER_METADATA':
      return numeric(facts.customerMetadata[loyalty.customer.metadata.property]);
    case 'CUSTOM_EVENT_METADATA':
      return facts.eventMetadata ? numeric(facts.eventMetadata[loyalty.custom_event.metadata.property]) : null;
    case 'ORDER_ITEMS_QUANTITY':
    case 'ORDER_ITEMS_AMOUNT':
    case 'ORDER_ITEMS_SUBTOTAL_AMOUNT': {
      if (!order) return null;
      const targets = incrementOf(loyalty).applicable_to ?? [];
      // A line matching several targets (e.g. two collections holding the product) counts once.
      const matched = order.lines.filter((line) => targets.some((t) => lineMatches(line, t)));
      if (loyalty.calculation_type === 'ORDER_ITEMS_QUANTITY') return matched.reduce((s, l) => s + Math.max(0, l.quantity - l.discountQuantity), 0);
      if (loyalty.calculation_type === 'ORDER_ITEMS_AMOUNT') return matched.reduce((s, l) => s + (l.amount ?? 0), 0);
      return matched.reduce((s, l) => s + (l.subtotal ?? 0), 0);
    }
  }
}

function formulaVariables(facts: EarningFacts): FormulaVariables {
  const order = facts.order;
  return {
    values: order
      ? {
          ORDER_AMOUNT: order.amount,
          ORDER_ITEMS_QUANTITY: order.lines.length,
          ORDER_UNITS_QUANTITY: order.lines.reduce((s, l) => s + l.quantity, 0),
        }
      : {},
    metadata: { CUSTOMER: facts.customerMetadata, ...(order ? { ORDER: order.metadata } : {}) },
  };
}

/**
 * A points figure from a formula when the rule has one and it evaluates, else the static figure.
 * Formula points round to the nearest whole number (vendor changelog); negative results give 0.
 */
function figure(points: number, pointsFormula: string | undefined, facts: EarningFacts): number {
  if (pointsFormula === undefined) return points;
  const parsed = parseFormula(pointsFormula);
  if (!parsed.ok) return points;
  const result = evaluateWithMinorUnits(parsed.formula, formulaVariables(facts), 'number');
  if (!result.ok) return points;
  return Math.max(0, roundHalfAwayFromZero(result.value));
}

/**
 * Points a rule gives for the facts, with the holder's tier mapping for the rule applied.
 * Proportional rules give `points` for every whole `every` of the metric (partial increments earn
 * nothing: "X points for every Y"); a metric that is missing, negative or not a number gives 0.
 */
export function earnedPoints(loyalty: EarningLoyalty, facts: EarningFacts, mapping?: PointsMapping | null): number {
  if (loyalty.type === 'FIXED') {
    const base = figure(loyalty.points, loyalty.points_formula, facts);
    return mapping?.type === 'CUSTOM' ? mapping.points : mapPoints(base, mapping);
  }
  const increment = incrementOf(loyalty);
  const metric = metricOf(loyalty, facts);
  if (metric === null || metric <= 0) return 0;
  const blocks = Math.floor(metric / increment.every);
  const perBlock = mapping?.type === 'CUSTOM' ? mapping.points : figure(increment.points, increment.points_formula, facts);
  const points = blocks * perBlock;
  return mapping?.type === 'MULTIPLY' ? mapPoints(points, mapping) : points;
}
