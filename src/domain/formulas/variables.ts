// The names a formula may use (promotions reference 3.12, the vendor's operand list). Anything else is
// refused when the formula is parsed, so a stored formula can only ever ask for these.

/** How a variable's value is measured, which decides how money conversion treats it (see money.ts). */
export type VariableKind =
  /** An amount of money: minor units in the order, major units (÷100) inside a formula. */
  | 'money'
  /** A count of units, lines, redemptions or publications. */
  | 'count'
  /** A point in time: days since 1970-01-01T00:00:00Z, fractional (see dateToFormulaDays). */
  | 'date';

const ITEM_FIGURES = {
  PRICE: 'money',
  AMOUNT: 'money',
  SUBTOTAL: 'money',
  UNITS_QUANTITY: 'count',
} as const satisfies Record<string, VariableKind>;

function itemFigures<P extends string>(prefix: P): Record<`${P}_${keyof typeof ITEM_FIGURES}`, VariableKind> {
  const out = {} as Record<string, VariableKind>;
  for (const [figure, kind] of Object.entries(ITEM_FIGURES)) out[`${prefix}_${figure}`] = kind;
  return out as Record<`${P}_${keyof typeof ITEM_FIGURES}`, VariableKind>;
}

export const FORMULA_VARIABLE_KINDS = {
  ORDER_AMOUNT: 'money',
  ORDER_ITEMS_QUANTITY: 'count',
  ORDER_UNITS_QUANTITY: 'count',
  // The line the discount is being computed for (item effects).
  ...itemFigures('ORDER_ITEM'),
  // Ties: lowest subtotal, then first in request order (reference 3.12); the caller picks the line.
  ...itemFigures('CHEAPEST_ORDER_ITEM'),
  ...itemFigures('MOST_EXPENSIVE_ORDER_ITEM'),
  VOUCHER_REDEMPTION_QUANTITY: 'count',
  VOUCHER_REDEEMED_QUANTITY: 'count',
  VOUCHER_PUBLISH_COUNT: 'count',
  VOUCHER_START_DATE: 'date',
  VOUCHER_EXPIRATION_DATE: 'date',
  PROMOTION_TIER_START_DATE: 'date',
  PROMOTION_TIER_EXPIRATION_DATE: 'date',
} as const satisfies Record<string, VariableKind>;

export type FormulaVariableName = keyof typeof FORMULA_VARIABLE_KINDS;

/** Every plain variable name a formula may use, for error details and documentation. */
export const FORMULA_VARIABLES = Object.keys(FORMULA_VARIABLE_KINDS) as FormulaVariableName[];

export function isFormulaVariable(name: string): name is FormulaVariableName {
  return Object.hasOwn(FORMULA_VARIABLE_KINDS, name);
}

/** Whose metadata a `<SOURCE>_METADATA("key")` function reads. */
export const METADATA_SOURCES = [
  'ORDER',
  'CUSTOMER',
  'REDEMPTION',
  'PUBLICATION',
  'REDEEMABLE',
  'ORDER_ITEM',
  'ORDER_ITEM_PRODUCT',
] as const;
export type MetadataSource = (typeof METADATA_SOURCES)[number];

export const METADATA_FUNCTIONS = METADATA_SOURCES.map((s) => `${s}_METADATA` as const);

export function metadataSourceOf(functionName: string): MetadataSource | null {
  if (!functionName.endsWith('_METADATA')) return null;
  const source = functionName.slice(0, -'_METADATA'.length);
  return (METADATA_SOURCES as readonly string[]).includes(source) ? (source as MetadataSource) : null;
}

/** The general functions, with how many arguments each takes (`max: null`: any number). */
export const FORMULA_FUNCTION_ARITY: Record<'IF' | 'MIN' | 'MAX' | 'ROUND' | 'AND' | 'OR' | 'NOT', { min: number; max: number | null }> = {
  IF: { min: 3, max: 3 },
  MIN: { min: 1, max: null },
  MAX: { min: 1, max: null },
  ROUND: { min: 1, max: 2 },
  AND: { min: 1, max: null },
  OR: { min: 1, max: null },
  NOT: { min: 1, max: 1 },
};
export type FormulaFunctionName = keyof typeof FORMULA_FUNCTION_ARITY;

export function isFormulaFunction(name: string): name is FormulaFunctionName {
  return Object.hasOwn(FORMULA_FUNCTION_ARITY, name);
}

/** Every function name a formula may call, metadata readers included. */
export const FORMULA_FUNCTIONS: readonly string[] = [...Object.keys(FORMULA_FUNCTION_ARITY), ...METADATA_FUNCTIONS];

/** The values one evaluation sees. Absent values make formulas that need them fail (not crash). */
export interface FormulaVariables {
  /** Plain variables, already in formula units (money in major units: see money.ts). */
  values?: Partial<Record<FormulaVariableName, number>>;
  /** Metadata objects by source; a key that is absent or null counts as a missing variable. */
  metadata?: Partial<Record<MetadataSource, Record<string, unknown>>>;
}
