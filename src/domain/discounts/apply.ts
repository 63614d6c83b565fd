import type { DiscountDefinition } from './definition.ts';
import { orderTotals, type EmbeddedProduct, type EmbeddedSku, type OrderLine, type OrderTotals } from '../orders/order-math.ts';

// Applying one discount to the running order (promotions reference 3.2–3.7). Pure: the engine resolves
// which lines a discount targets (validation rules' applicable_to) and what units cost, then calls these
// functions in stacking order; each answers a new state plus what this discount added.
//
// Rounding (DECISIONS 12): every per-line amount rounds half up to a whole minor unit; an amount spread
// over lines uses the largest-remainder method so the parts add up to the whole. No amount goes below 0.

export interface DiscountState {
  lines: OrderLine[];
  /** Cumulative order-level discount (earlier requests on the same order included). */
  orderDiscount: number;
  /** The amount sent for an order without (complete) lines. */
  sentAmount: number | null;
  sentInitialAmount: number | null;
  /** What this request has added so far: order level, and per line (parallel to `lines`). */
  applied: { order: number; items: number[] };
}

/** What one discount contributed: order level and per line, plus units it added for free. */
export interface DiscountEffect {
  order: number;
  items: number[];
  /** Free units per line (UNIT effects); parallel to the lines after the effect. */
  units: number[];
}

/** A line a discount may reach, with the limits its `applicable_to` entry sets. */
export interface DiscountTarget {
  index: number;
  /** Most units of the line the discount counts (`quantity_limit`, `target: UNIT` selections). */
  quantityLimit?: number;
  /** Most discount on the line (`applicable_to` entry `amount_limit`). */
  amountLimit?: number;
  /** FIXED APPLY_TO_ITEMS: the new unit price from the entry (`price`), if it sets one. */
  price?: number;
}

export interface TargetLimits {
  /** Entry `aggregated_amount_limit`: most discount across all targets. */
  aggregatedAmountLimit?: number;
  /** Entry `aggregated_quantity_limit`: most units across all targets. */
  aggregatedQuantityLimit?: number;
}

/** What the engine knows about a unit a UNIT discount adds (from the catalog). */
export interface UnitFacts {
  product_id: string | null;
  sku_id: string | null;
  price: number | null;
  product: EmbeddedProduct | null;
  sku: EmbeddedSku | null;
}

export type CalculationMode = 'DISCOUNTED_AMOUNT' | 'INITIAL_AMOUNT';

export interface DiscountValues {
  /** Discount members with formulas already evaluated (the engine evaluates; static values otherwise). */
  amount_off?: number;
  percent_off?: number;
  fixed_amount?: number;
  amount_limit?: number;
  aggregated_amount_limit?: number;
  unit_off?: number;
}

export function startState(lines: readonly OrderLine[], orderDiscount: number, sentAmount: number | null, sentInitialAmount: number | null): DiscountState {
  return { lines: lines.map((l) => ({ ...l })), orderDiscount, sentAmount, sentInitialAmount, applied: { order: 0, items: lines.map(() => 0) } };
}

export function totalsOf(state: DiscountState): OrderTotals {
  return orderTotals(state.lines, { amount: state.sentAmount, initial_amount: state.sentInitialAmount, discount_amount: state.orderDiscount });
}

/** What is left to pay; order-level discounts can take at most this. */
export function remainingTotal(state: DiscountState): number {
  return totalsOf(state).total_amount;
}

export function roundHalfUp(value: number): number {
  // The epsilon absorbs binary noise such as 499.95000000000005 vs 499.94999999999993.
  return Math.floor(value + 0.5 + 1e-9);
}

function subtotal(line: OrderLine): number {
  return line.amount === null ? 0 : Math.max(0, line.amount - line.discount_amount);
}

/**
 * Splits `total` over weights so the parts sum exactly to `total` (largest remainder; ties go to the
 * earlier part), never giving a part more than its cap; what a capped part cannot take goes to the others.
 */
export function splitProportionally(total: number, weights: readonly number[], caps: readonly number[]): number[] {
  const parts = weights.map(() => 0);
  let left = Math.min(total, caps.reduce((s, c) => s + Math.max(0, c), 0));
  let open = weights.map((w, i) => (w > 0 && (caps[i] ?? 0) > 0 ? i : -1)).filter((i) => i >= 0);
  while (left > 0 && open.length > 0) {
    const weightSum = open.reduce((s, i) => s + (weights[i] ?? 0), 0);
    const raw = open.map((i) => (left * (weights[i] ?? 0)) / weightSum);
    const floors = raw.map((r) => Math.floor(r + 1e-9));
    let remainder = left - floors.reduce((s, f) => s + f, 0);
    const order = raw.map((r, k) => ({ k, frac: r - (floors[k] ?? 0) })).sort((a, b) => b.frac - a.frac || a.k - b.k);
    for (const { k } of order) {
      if (remainder <= 0) break;
      floors[k] = (floors[k] ?? 0) + 1;
      remainder -= 1;
    }
    let given = 0;
    const stillOpen: number[] = [];
    open.forEach((i, k) => {
      const room = (caps[i] ?? 0) - (parts[i] ?? 0);
      const share = Math.min(floors[k] ?? 0, room);
      parts[i] = (parts[i] ?? 0) + share;
      given += share;
      if ((parts[i] ?? 0) < (caps[i] ?? 0)) stillOpen.push(i);
    });
    left -= given;
    if (given === 0 || stillOpen.length === open.length) {
      if (left > 0 && given === 0) break;
    }
    open = stillOpen;
  }
  return parts;
}

function emptyEffect(lineCount: number): DiscountEffect {
  return { order: 0, items: new Array<number>(lineCount).fill(0), units: new Array<number>(lineCount).fill(0) };
}

/** Records an effect on the state: order-level discount, per-line discounts. Amounts are already clamped. */
function withEffect(state: DiscountState, effect: DiscountEffect): DiscountState {
  const lines = state.lines.map((line, i) => {
    const add = effect.items[i] ?? 0;
    const units = effect.units[i] ?? 0;
    return add === 0 && units === 0 ? line : { ...line, discount_amount: line.discount_amount + add, discount_quantity: line.discount_quantity + units };
  });
  const items = lines.map((_, i) => (state.applied.items[i] ?? 0) + (effect.items[i] ?? 0));
  return { ...state, lines, orderDiscount: state.orderDiscount + effect.order, applied: { order: state.applied.order + effect.order, items } };
}

/** An order-level discount of up to `amount`, never more than what is left to pay. */
export function applyOrderAmount(state: DiscountState, amount: number): { state: DiscountState; effect: DiscountEffect } {
  const effect = emptyEffect(state.lines.length);
  effect.order = Math.max(0, Math.min(Math.floor(amount), remainingTotal(state)));
  return { state: withEffect(state, effect), effect };
}

/** Spreads `amount` over the targets in proportion to their subtotals (gift credits applied to items). */
export function applySpreadOverItems(state: DiscountState, amount: number, targets: readonly DiscountTarget[]): { state: DiscountState; effect: DiscountEffect } {
  const effect = emptyEffect(state.lines.length);
  const weights = state.lines.map(() => 0);
  const caps = state.lines.map(() => 0);
  for (const t of targets) {
    const line = state.lines[t.index];
    if (!line) continue;
    weights[t.index] = subtotal(line);
    caps[t.index] = Math.min(subtotal(line), t.amountLimit ?? Number.MAX_SAFE_INTEGER);
  }
  effect.items = splitProportionally(Math.max(0, Math.floor(amount)), weights, caps);
  return { state: withEffect(state, effect), effect };
}

function unitsOf(line: OrderLine, target: DiscountTarget): number {
  return Math.max(0, Math.min(line.quantity, target.quantityLimit ?? line.quantity));
}

/** Caps per-line discounts to an aggregated limit, taking lines in target order until the cap is used. */
function capAggregated(items: number[], targets: readonly DiscountTarget[], limit: number | undefined): number[] {
  if (limit === undefined) return items;
  let left = limit;
  const out = items.map(() => 0);
  for (const t of targets) {
    const want = items[t.index] ?? 0;
    const take = Math.min(want, left);
    out[t.index] = take;
    left -= take;
  }
  return out;
}

/**
 * Applies one AMOUNT / PERCENT / FIXED discount (reference 3.4) to the running order. `targets` are the
 * lines item effects may reach (all lines when no rule narrows them); `mode` decides the percent base.
 */
export function applyValueDiscount(
  state: DiscountState,
  discount: Pick<DiscountDefinition, 'type' | 'effect'>,
  values: DiscountValues,
  targets: readonly DiscountTarget[],
  limits: TargetLimits = {},
  mode: CalculationMode = 'DISCOUNTED_AMOUNT',
): { state: DiscountState; effect: DiscountEffect } {
  const effect = emptyEffect(state.lines.length);
  const R = remainingTotal(state);
  const effectName = discount.effect ?? 'APPLY_TO_ORDER';
  const aggregated = [values.aggregated_amount_limit, limits.aggregatedAmountLimit].filter((v): v is number => v !== undefined);
  const aggregatedCap = aggregated.length > 0 ? Math.min(...aggregated) : undefined;
  switch (discount.type) {
    case 'AMOUNT': {
      const off = values.amount_off ?? 0;
      if (effectName === 'APPLY_TO_ORDER') {
        effect.order = Math.min(off, R);
        break;
      }
      if (effectName === 'APPLY_TO_ITEMS' || effectName === 'APPLY_TO_ITEMS_BY_QUANTITY') {
        let unitsLeft = limits.aggregatedQuantityLimit ?? Number.MAX_SAFE_INTEGER;
        for (const t of targets) {
          const line = state.lines[t.index];
          if (!line) continue;
          let d: number;
          if (effectName === 'APPLY_TO_ITEMS') d = off;
          else {
            const q = Math.min(unitsOf(line, t), unitsLeft);
            unitsLeft -= q;
            d = off * q;
          }
          effect.items[t.index] = Math.max(0, Math.min(d, subtotal(line), t.amountLimit ?? Number.MAX_SAFE_INTEGER));
        }
        effect.items = capAggregated(effect.items, targets, aggregatedCap);
        break;
      }
      // Proportional: the whole amount (capped by what the targets can take) split over the targets.
      const weights = state.lines.map(() => 0);
      const caps = state.lines.map(() => 0);
      for (const t of targets) {
        const line = state.lines[t.index];
        if (!line) continue;
        weights[t.index] = effectName === 'APPLY_TO_ITEMS_PROPORTIONALLY' ? subtotal(line) : unitsOf(line, t);
        caps[t.index] = Math.min(subtotal(line), t.amountLimit ?? Number.MAX_SAFE_INTEGER);
      }
      const reachable = caps.reduce((s, c) => s + c, 0);
      const D = Math.min(off, reachable, aggregatedCap ?? Number.MAX_SAFE_INTEGER);
      effect.items = splitProportionally(D, weights, caps);
      break;
    }
    case 'PERCENT': {
      const p = values.percent_off ?? 0;
      if (effectName === 'APPLY_TO_ORDER') {
        const base = mode === 'INITIAL_AMOUNT' ? totalsOf(state).initial_amount : R;
        effect.order = Math.min(roundHalfUp((base * p) / 100), values.amount_limit ?? Number.MAX_SAFE_INTEGER, R);
        break;
      }
      for (const t of targets) {
        const line = state.lines[t.index];
        if (!line) continue;
        const base = mode === 'INITIAL_AMOUNT' ? (line.amount ?? 0) : subtotal(line);
        const d = roundHalfUp((base * p) / 100);
        effect.items[t.index] = Math.max(
          0,
          Math.min(d, subtotal(line), values.amount_limit ?? Number.MAX_SAFE_INTEGER, t.amountLimit ?? Number.MAX_SAFE_INTEGER),
        );
      }
      effect.items = capAggregated(effect.items, targets, aggregatedCap);
      break;
    }
    case 'FIXED': {
      if (effectName === 'APPLY_TO_ORDER') {
        const base = mode === 'INITIAL_AMOUNT' ? totalsOf(state).initial_amount : R;
        effect.order = Math.min(Math.max(0, base - (values.fixed_amount ?? 0)), R);
        break;
      }
      for (const t of targets) {
        const line = state.lines[t.index];
        if (!line || line.price === null) continue;
        const newPrice = t.price ?? values.fixed_amount ?? line.price;
        const d = Math.max(0, line.price - newPrice) * unitsOf(line, t);
        effect.items[t.index] = Math.max(0, Math.min(d, subtotal(line), t.amountLimit ?? Number.MAX_SAFE_INTEGER));
      }
      break;
    }
    case 'UNIT':
      throw new Error('UNIT discounts are applied with applyUnitDiscount');
  }
  return { state: withEffect(state, effect), effect };
}

function sameUnit(line: OrderLine, unit: UnitFacts): boolean {
  if (unit.sku_id !== null) return line.sku_id === unit.sku_id;
  return unit.product_id !== null && line.product_id === unit.product_id && line.sku_id === null;
}

/**
 * UNIT effects (reference 3.4, example D): free units of a product or SKU, added to the order when
 * missing (ADD_MISSING_ITEMS raises the quantity to N, ADD_NEW_ITEMS / ADD_SAME_ITEMS adds N more). The
 * added units raise `amount` and their value is the discount, so the total to pay does not change for them.
 */
export function applyUnitDiscount(
  state: DiscountState,
  units: ReadonlyArray<{ effect: 'ADD_MISSING_ITEMS' | 'ADD_NEW_ITEMS' | 'ADD_SAME_ITEMS'; count: number; unit: UnitFacts }>,
): { state: DiscountState; effect: DiscountEffect } {
  let lines = state.lines.map((l) => ({ ...l }));
  let appliedItems = [...state.applied.items];
  const discounts: number[] = lines.map(() => 0);
  const free: number[] = lines.map(() => 0);
  for (const { effect, count, unit } of units) {
    if (count <= 0) continue;
    let index = lines.findIndex((l) => sameUnit(l, unit));
    if (index === -1) {
      lines = [
        ...lines,
        {
          product_id: unit.product_id,
          sku_id: unit.sku_id,
          related_object: unit.sku_id !== null ? 'sku' : 'product',
          source_id: null,
          quantity: 0,
          discount_quantity: 0,
          initial_quantity: 0,
          price: unit.price,
          amount: unit.price === null ? null : 0,
          initial_amount: 0,
          discount_amount: 0,
          product: unit.product,
          sku: unit.sku,
          metadata: {},
        },
      ];
      appliedItems = [...appliedItems, 0];
      discounts.push(0);
      free.push(0);
      index = lines.length - 1;
    }
    const line = lines[index] as OrderLine;
    // MISSING tops the line up to `count` units; NEW and SAME add `count` more. Either way `count` are free.
    const added = effect === 'ADD_MISSING_ITEMS' ? Math.max(0, count - line.quantity) : count;
    const freeUnits = count;
    const quantity = line.quantity + added;
    const amount = line.price === null ? line.amount : (line.amount ?? 0) + line.price * added;
    const value = line.price === null ? 0 : line.price * freeUnits;
    const d = Math.max(0, Math.min(value, (amount ?? 0) - line.discount_amount));
    lines[index] = { ...line, quantity, amount };
    discounts[index] = (discounts[index] ?? 0) + d;
    free[index] = (free[index] ?? 0) + freeUnits;
    // Keep the line's own view consistent for a later unit in the same discount.
    lines[index] = { ...(lines[index] as OrderLine), discount_amount: line.discount_amount + d };
  }
  // withEffect adds discounts on top of the lines; the loop above already folded them in, so rebuild.
  const base = lines.map((l, i) => ({ ...l, discount_amount: l.discount_amount - (discounts[i] ?? 0) }));
  const effect: DiscountEffect = { order: 0, items: discounts, units: free };
  const next = withEffect({ ...state, lines: base, applied: { order: state.applied.order, items: appliedItems } }, effect);
  return { state: next, effect };
}
