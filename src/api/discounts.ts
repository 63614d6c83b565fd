import Type, { type Static } from 'typebox';
import { DISCOUNT_EFFECTS, DISCOUNT_TYPES } from '../domain/discounts/definition.ts';
import { StoredInteger } from './common.ts';

// Discount, gift and loyalty-card definitions (promotions reference 3.1, 2.3; loyalty reference 1.3).
// Shapes are checked here; the rules that depend on the type (which members are required, which effects
// are allowed, whether formulas parse) are checked in src/domain/discounts.

const Money = (description: string) => StoredInteger('bigint', { minimum: 0, description });
const Formula = Type.String({ minLength: 1, maxLength: 2000, description: 'Dynamic formula over order, customer and metadata values; evaluated at redemption' });

export const CatalogRef = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1 })),
  source_id: Type.Optional(Type.String({ minLength: 1 })),
  name: Type.Optional(Type.String()),
});

export const UnitEntry = Type.Object({
  unit_type: Type.String({ minLength: 1, description: 'Product or SKU id the units are of' }),
  unit_off: Type.Optional(StoredInteger('bigint', { minimum: 0 })),
  unit_off_formula: Type.Optional(Formula),
  effect: Type.Enum(['ADD_MISSING_ITEMS', 'ADD_NEW_ITEMS']),
  product: Type.Optional(CatalogRef),
  sku: Type.Optional(CatalogRef),
});

export const Discount = Type.Object(
  {
    type: Type.Enum(DISCOUNT_TYPES),
    amount_off: Type.Optional(Money('AMOUNT: minor units off')),
    amount_off_formula: Type.Optional(Formula),
    percent_off: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    percent_off_formula: Type.Optional(Formula),
    fixed_amount: Type.Optional(Money('FIXED: the new price in minor units')),
    fixed_amount_formula: Type.Optional(Formula),
    amount_limit: Type.Optional(Money('PERCENT: most that can be taken off (per order, or per line for item effects)')),
    amount_limit_formula: Type.Optional(Formula),
    aggregated_amount_limit: Type.Optional(Money('Most that can be taken off across all lines')),
    aggregated_amount_limit_formula: Type.Optional(Formula),
    unit_type: Type.Optional(Type.String({ minLength: 1 })),
    unit_off: Type.Optional(StoredInteger('bigint', { minimum: 0 })),
    unit_off_formula: Type.Optional(Formula),
    units: Type.Optional(Type.Array(UnitEntry, { minItems: 1, maxItems: 50 })),
    product: Type.Optional(CatalogRef),
    sku: Type.Optional(CatalogRef),
    effect: Type.Optional(Type.Enum(DISCOUNT_EFFECTS)),
    is_dynamic: Type.Optional(Type.Boolean({ description: 'Output only: true when a formula set the value' })),
  },
  { description: 'Discount definition: its type and the members of that type' },
);
export type DiscountInput = Static<typeof Discount>;

export const Gift = Type.Object({
  amount: Money('Credits in minor units'),
  balance: Type.Optional(Money('Output: credits left')),
  effect: Type.Optional(Type.Enum(['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'])),
});
export type GiftInput = Static<typeof Gift>;

export const ExpirationRules = Type.Object({
  period_type: Type.Enum(['MONTH', 'FIXED_DAY_OF_YEAR']),
  period_value: Type.Optional(Type.Integer({ minimum: 0, maximum: 1200 })),
  rounding_type: Type.Optional(
    Type.Enum(['END_OF_MONTH', 'END_OF_QUARTER', 'END_OF_HALF_YEAR', 'END_OF_YEAR', 'PARTICULAR_MONTH']),
  ),
  rounding_value: Type.Optional(Type.Integer({ minimum: 0, maximum: 12 })),
  fixed_month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  fixed_day: Type.Optional(Type.Integer({ minimum: 1, maximum: 31 })),
});
export type ExpirationRulesInput = Static<typeof ExpirationRules>;

export const LoyaltyCardTemplate = Type.Object({
  points: StoredInteger('bigint', { minimum: 0, description: 'Points each new card starts with' }),
  expiration_rules: Type.Optional(ExpirationRules),
});
export type LoyaltyCardInput = Static<typeof LoyaltyCardTemplate>;
