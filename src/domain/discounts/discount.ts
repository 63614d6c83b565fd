import type { DiscountDefinition, GiftDefinition, LoyaltyCardDefinition } from './definition.ts';

// Type-dependent rules of discount, gift and loyalty-card definitions (promotions reference 3.1). A
// definition that passes here can always be applied by the redemption engine; anything else is refused
// when it is created, never discovered at redemption.

const EFFECTS_BY_TYPE: Record<DiscountDefinition['type'], readonly string[]> = {
  AMOUNT: ['APPLY_TO_ORDER', 'APPLY_TO_ITEMS', 'APPLY_TO_ITEMS_PROPORTIONALLY', 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY', 'APPLY_TO_ITEMS_BY_QUANTITY'],
  PERCENT: ['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'],
  FIXED: ['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'],
  UNIT: ['ADD_MISSING_ITEMS', 'ADD_NEW_ITEMS', 'ADD_SAME_ITEMS', 'ADD_MANY_ITEMS'],
};

// Members that only make sense for one type; sending them with another type is a mistake worth naming.
const MEMBERS_BY_TYPE: Record<DiscountDefinition['type'], readonly (keyof DiscountDefinition)[]> = {
  AMOUNT: ['amount_off', 'amount_off_formula', 'aggregated_amount_limit', 'aggregated_amount_limit_formula'],
  PERCENT: ['percent_off', 'percent_off_formula', 'amount_limit', 'amount_limit_formula', 'aggregated_amount_limit', 'aggregated_amount_limit_formula'],
  FIXED: ['fixed_amount', 'fixed_amount_formula'],
  UNIT: ['unit_type', 'unit_off', 'unit_off_formula', 'units', 'product', 'sku'],
};

const TYPED_MEMBERS = [...new Set(Object.values(MEMBERS_BY_TYPE).flat())];

export const FORMULA_MEMBERS = [
  'amount_off_formula',
  'percent_off_formula',
  'fixed_amount_formula',
  'amount_limit_formula',
  'aggregated_amount_limit_formula',
  'unit_off_formula',
] as const;

/** Checks a formula; answers the problem or null. Supplied by the formula module. */
export type FormulaCheck = (text: string) => string | null;

/** Answers what is wrong with a discount definition (naming the member), or null. */
export function discountProblem(discount: DiscountDefinition, checkFormula: FormulaCheck, path = 'discount'): string | null {
  const { type } = discount;
  for (const member of TYPED_MEMBERS) {
    if (discount[member] !== undefined && !MEMBERS_BY_TYPE[type].includes(member)) {
      return `${path}.${member} does not apply to ${type} discounts`;
    }
  }
  if (discount.effect !== undefined && !EFFECTS_BY_TYPE[type].includes(discount.effect)) {
    return `${path}.effect ${discount.effect} does not apply to ${type} discounts; use one of ${EFFECTS_BY_TYPE[type].join(', ')}`;
  }
  switch (type) {
    case 'AMOUNT':
      if (discount.amount_off === undefined) return `${path} of type AMOUNT needs amount_off`;
      break;
    case 'PERCENT':
      if (discount.percent_off === undefined) return `${path} of type PERCENT needs percent_off`;
      break;
    case 'FIXED':
      if (discount.fixed_amount === undefined) return `${path} of type FIXED needs fixed_amount`;
      break;
    case 'UNIT': {
      const many = discount.effect === 'ADD_MANY_ITEMS' || discount.units !== undefined;
      if (many) {
        if (!discount.units) return `${path} with effect ADD_MANY_ITEMS needs units`;
        if (discount.effect !== undefined && discount.effect !== 'ADD_MANY_ITEMS') return `${path}.units needs effect ADD_MANY_ITEMS`;
        if (discount.unit_type !== undefined) return `${path} takes either unit_type or units, not both`;
        for (const [i, unit] of discount.units.entries()) {
          if (unit.unit_off === undefined && unit.unit_off_formula === undefined) return `${path}.units[${i}] needs unit_off`;
          if (unit.unit_off_formula !== undefined) {
            const problem = checkFormula(unit.unit_off_formula);
            if (problem) return `${path}.units[${i}].unit_off_formula: ${problem}`;
          }
        }
      } else {
        if (discount.unit_type === undefined) return `${path} of type UNIT needs unit_type (or units with effect ADD_MANY_ITEMS)`;
        if (discount.unit_off === undefined && discount.unit_off_formula === undefined) return `${path} of type UNIT needs unit_off`;
      }
      break;
    }
  }
  for (const member of FORMULA_MEMBERS) {
    const text = discount[member];
    if (text === undefined) continue;
    const problem = checkFormula(text);
    if (problem) return `${path}.${member}: ${problem}`;
  }
  return null;
}

/** The stored form: what was sent, with the output-only `is_dynamic` derived rather than trusted. */
export function normalizeDiscount(discount: DiscountDefinition): DiscountDefinition {
  const { is_dynamic: _ignored, ...rest } = discount;
  const dynamic = FORMULA_MEMBERS.some((m) => rest[m] !== undefined) || (rest.units ?? []).some((u) => u.unit_off_formula !== undefined);
  return { ...rest, is_dynamic: dynamic };
}

export function giftProblem(gift: GiftDefinition, path = 'gift'): string | null {
  if (gift.amount <= 0) return `${path}.amount must be greater than 0`;
  return null;
}

export function loyaltyCardProblem(card: LoyaltyCardDefinition, path = 'loyalty_card'): string | null {
  const rules = card.expiration_rules;
  if (!rules) return null;
  if (rules.period_type === 'MONTH') {
    if (rules.period_value === undefined) return `${path}.expiration_rules.period_value is required for period_type MONTH`;
    if (rules.rounding_type === 'PARTICULAR_MONTH' && rules.rounding_value === undefined) {
      return `${path}.expiration_rules.rounding_value is required for rounding_type PARTICULAR_MONTH`;
    }
  } else {
    if (rules.fixed_month === undefined || rules.fixed_day === undefined) {
      return `${path}.expiration_rules needs fixed_month and fixed_day for period_type FIXED_DAY_OF_YEAR`;
    }
    const daysInMonth = new Date(Date.UTC(2024, rules.fixed_month, 0)).getUTCDate();
    if (rules.fixed_day > daysInMonth) return `${path}.expiration_rules.fixed_day ${rules.fixed_day} does not exist in month ${rules.fixed_month}`;
  }
  return null;
}
