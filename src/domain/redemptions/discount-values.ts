import type { DiscountDefinition } from '../discounts/definition.ts';
import type { DiscountState, DiscountValues } from '../discounts/apply.ts';
import { totalsOf } from '../discounts/apply.ts';
import { evaluateWithMinorUnits } from '../formulas/money.ts';
import { parseFormula, type Formula } from '../formulas/parser.ts';
import type { FormulaVariableName, FormulaVariables, MetadataSource } from '../formulas/variables.ts';

// The values a discount applies with (promotions reference 3.12): each `*_formula` member evaluated
// against the running order, or the static member when there is no formula or it cannot be evaluated
// (a variable it needs is missing, a division by zero, …). Pure.
//
// Formulas here are evaluated once per discount, at order level: per-line operands (ORDER_ITEM_*) are
// not available, so a formula that needs them falls back to the static value.

/** What a redeemable offers formulas besides the order: its own figures and metadata. */
export interface FormulaFacts {
  values: Partial<Record<FormulaVariableName, number>>;
  metadata: Partial<Record<MetadataSource, Record<string, unknown>>>;
}

export const NO_FORMULA_FACTS: FormulaFacts = { values: {}, metadata: {} };

// Parsed formulas by text: a stored formula is parsed once per process, not once per request.
const parsed = new Map<string, Formula | null>();

function formulaOf(text: string): Formula | null {
  let formula = parsed.get(text);
  if (formula === undefined) {
    const result = parseFormula(text);
    formula = result.ok ? result.formula : null;
    if (parsed.size > 5000) parsed.clear();
    parsed.set(text, formula);
  }
  return formula;
}

/** The order figures formulas read, from the running order. */
function orderVariables(state: DiscountState): Partial<Record<FormulaVariableName, number>> {
  const totals = totalsOf(state);
  const values: Partial<Record<FormulaVariableName, number>> = {
    ORDER_AMOUNT: totals.amount,
    ORDER_ITEMS_QUANTITY: state.lines.length,
    ORDER_UNITS_QUANTITY: state.lines.reduce((s, l) => s + l.quantity, 0),
  };
  // Cheapest / most expensive line: by subtotal, ties to the first in request order (reference 3.12).
  const priced = state.lines.filter((l) => l.amount !== null);
  const subtotal = (l: (typeof priced)[number]) => Math.max(0, (l.amount ?? 0) - l.discount_amount);
  let cheapest = priced[0];
  let dearest = priced[0];
  for (const line of priced) {
    if (cheapest && subtotal(line) < subtotal(cheapest)) cheapest = line;
    if (dearest && subtotal(line) > subtotal(dearest)) dearest = line;
  }
  const figures = (prefix: 'CHEAPEST_ORDER_ITEM' | 'MOST_EXPENSIVE_ORDER_ITEM', line: (typeof priced)[number] | undefined) => {
    if (!line) return;
    if (line.price !== null) values[`${prefix}_PRICE`] = line.price;
    values[`${prefix}_AMOUNT`] = line.amount ?? 0;
    values[`${prefix}_SUBTOTAL`] = subtotal(line);
    values[`${prefix}_UNITS_QUANTITY`] = line.quantity;
  };
  figures('CHEAPEST_ORDER_ITEM', cheapest);
  figures('MOST_EXPENSIVE_ORDER_ITEM', dearest);
  return values;
}

export interface FormulaContext {
  orderMetadata: Record<string, unknown>;
  customerMetadata: Record<string, unknown> | null;
  redemptionMetadata: Record<string, unknown>;
}

function evaluate(text: string, variables: FormulaVariables, kind: 'money' | 'number'): number | null {
  const formula = formulaOf(text);
  if (!formula) return null;
  const result = evaluateWithMinorUnits(formula, variables, kind);
  return result.ok ? result.value : null;
}

export interface ResolvedValues {
  values: DiscountValues;
  /** Whether a formula produced a value (the discount's `is_dynamic` in results). */
  dynamic: boolean;
  /** unit_off of each `units[]` entry (or of the single unit), formulas evaluated. */
  unitOff: number[];
}

const money = (n: number): number => Math.max(0, Math.round(n));
const percent = (n: number): number => Math.min(100, Math.max(0, n));
const count = (n: number): number => Math.max(0, Math.round(n));

function formulaVariables(state: DiscountState, facts: FormulaFacts, ctx: FormulaContext): FormulaVariables {
  return {
    values: { ...orderVariables(state), ...facts.values },
    metadata: {
      ...facts.metadata,
      ORDER: ctx.orderMetadata,
      REDEMPTION: ctx.redemptionMetadata,
      ...(ctx.customerMetadata ? { CUSTOMER: ctx.customerMetadata } : {}),
    },
  };
}

export function discountValues(discount: DiscountDefinition, state: DiscountState, facts: FormulaFacts, ctx: FormulaContext): ResolvedValues {
  // Most discounts have no formula: the variables (totals of the running order) are gathered only for one that does.
  let variables: FormulaVariables | undefined;
  let dynamic = false;
  const pick = (staticValue: number | undefined, formula: string | undefined, kind: 'money' | 'number', clamp: (n: number) => number): number | undefined => {
    if (formula === undefined) return staticValue;
    variables ??= formulaVariables(state, facts, ctx);
    const computed = evaluate(formula, variables, kind);
    if (computed !== null) {
      dynamic = true;
      return clamp(computed);
    }
    return staticValue;
  };
  const values: DiscountValues = {};
  const set = <K extends keyof DiscountValues>(key: K, value: number | undefined) => {
    if (value !== undefined) values[key] = value;
  };
  set('amount_off', pick(discount.amount_off, discount.amount_off_formula, 'money', money));
  set('percent_off', pick(discount.percent_off, discount.percent_off_formula, 'number', percent));
  set('fixed_amount', pick(discount.fixed_amount, discount.fixed_amount_formula, 'money', money));
  set('amount_limit', pick(discount.amount_limit, discount.amount_limit_formula, 'money', money));
  set('aggregated_amount_limit', pick(discount.aggregated_amount_limit, discount.aggregated_amount_limit_formula, 'money', money));
  const units = discount.units ?? (discount.unit_type !== undefined ? [{ unit_off: discount.unit_off, unit_off_formula: discount.unit_off_formula }] : []);
  const unitOff = units.map((u) => pick(u.unit_off, u.unit_off_formula, 'number', count) ?? 0);
  if (discount.units === undefined && unitOff[0] !== undefined) values.unit_off = unitOff[0];
  return { values, dynamic, unitOff };
}
