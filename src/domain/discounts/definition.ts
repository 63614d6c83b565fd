// The discount, gift and loyalty-card definitions as the domain computes with them (promotions reference
// 3.1, 2.3; loyalty reference 1.3): plain types, apart from the wire schemas (src/api/discounts.ts),
// which build their enums from the lists here. Amounts are integer minor units.

export const DISCOUNT_TYPES = ['AMOUNT', 'PERCENT', 'FIXED', 'UNIT'] as const;
export const UNIT_EFFECTS = ['ADD_MISSING_ITEMS', 'ADD_NEW_ITEMS', 'ADD_SAME_ITEMS'] as const;
export const DISCOUNT_EFFECTS = [
  'APPLY_TO_ORDER',
  'APPLY_TO_ITEMS',
  'APPLY_TO_ITEMS_PROPORTIONALLY',
  'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY',
  'APPLY_TO_ITEMS_BY_QUANTITY',
  ...UNIT_EFFECTS,
  'ADD_MANY_ITEMS',
] as const;

export type DiscountType = (typeof DISCOUNT_TYPES)[number];
export type DiscountEffect = (typeof DISCOUNT_EFFECTS)[number];

/** A product or SKU a unit discount names. */
export type CatalogRef = {
  id?: string;
  source_id?: string;
  name?: string;
};

/** One line of a multi-unit discount (`ADD_MANY_ITEMS`). */
export type UnitEntry = {
  unit_type: string;
  unit_off?: number;
  unit_off_formula?: string;
  effect: 'ADD_MISSING_ITEMS' | 'ADD_NEW_ITEMS';
  product?: CatalogRef;
  sku?: CatalogRef;
};

export type DiscountDefinition = {
  type: DiscountType;
  amount_off?: number;
  amount_off_formula?: string;
  percent_off?: number;
  percent_off_formula?: string;
  fixed_amount?: number;
  fixed_amount_formula?: string;
  amount_limit?: number;
  amount_limit_formula?: string;
  aggregated_amount_limit?: number;
  aggregated_amount_limit_formula?: string;
  unit_type?: string;
  unit_off?: number;
  unit_off_formula?: string;
  units?: UnitEntry[];
  product?: CatalogRef;
  sku?: CatalogRef;
  effect?: DiscountEffect;
  /** Derived when stored: true when a formula sets a value. */
  is_dynamic?: boolean;
};

export type GiftDefinition = {
  amount: number;
  balance?: number;
  effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS';
};

export type CardExpirationRules = {
  period_type: 'MONTH' | 'FIXED_DAY_OF_YEAR';
  period_value?: number;
  rounding_type?: 'END_OF_MONTH' | 'END_OF_QUARTER' | 'END_OF_HALF_YEAR' | 'END_OF_YEAR' | 'PARTICULAR_MONTH';
  rounding_value?: number;
  fixed_month?: number;
  fixed_day?: number;
};

export type LoyaltyCardDefinition = {
  points: number;
  expiration_rules?: CardExpirationRules;
};
