import { evaluateFormula, type FormulaEvaluation } from './evaluate.ts';
import type { Formula } from './parser.ts';
import { roundHalfAwayFromZero, shiftDecimal } from './rounding.ts';
import { FORMULA_VARIABLE_KINDS, type FormulaVariableName, type FormulaVariables } from './variables.ts';

// Formulas see money in major units and their money results are scaled back by 100 (promotions
// reference 0.1): the vendor's `IF(ORDER_AMOUNT > 400;0;20)` on a 46500-cent order reads ORDER_AMOUNT as
// 465 and gives 0; on a 30000-cent order it gives 20, i.e. 2000 cents. Orders hold minor units, so
// callers give minor units here and these helpers do the conversion in both directions.

const MINOR_DIGITS = 2;
const MS_PER_DAY = 86_400_000;

/** A money amount in minor units as a formula sees it: 46500 → 465, 1999 → 19.99 (exactly the literal 19.99). */
export function minorToFormulaUnits(minor: number): number {
  return shiftDecimal(minor, -MINOR_DIGITS);
}

/** A formula's money result in minor units: ×100, rounded half away from zero to a whole unit. */
export function formulaUnitsToMinor(value: number): number {
  return roundHalfAwayFromZero(shiftDecimal(value, MINOR_DIGITS));
}

/** A date variable's value: days since 1970-01-01T00:00:00Z, with the time of day as a fraction. */
export function dateToFormulaDays(date: Date | string): number {
  return new Date(date).getTime() / MS_PER_DAY;
}

/** The variables with every money-kind value turned from minor into formula units; metadata is left as is. */
export function toFormulaVariables(minorUnits: FormulaVariables): FormulaVariables {
  const values: Partial<Record<FormulaVariableName, number>> = {};
  for (const [name, value] of Object.entries(minorUnits.values ?? {}) as [FormulaVariableName, number | undefined][]) {
    if (value === undefined) continue;
    values[name] = FORMULA_VARIABLE_KINDS[name] === 'money' ? minorToFormulaUnits(value) : value;
  }
  return { values, ...(minorUnits.metadata ? { metadata: minorUnits.metadata } : {}) };
}

/**
 * Evaluates a formula over variables given in the order's units. `result: 'money'` (amount_off, fixed
 * amounts, prices, limits) answers whole minor units; `'number'` (percentages, unit counts, points)
 * answers the formula's value unscaled.
 */
export function evaluateWithMinorUnits(
  formula: Formula,
  minorUnits: FormulaVariables,
  result: 'money' | 'number',
): FormulaEvaluation {
  const evaluation = evaluateFormula(formula, toFormulaVariables(minorUnits));
  if (!evaluation.ok || result === 'number') return evaluation;
  const minor = formulaUnitsToMinor(evaluation.value);
  if (!Number.isSafeInteger(minor)) {
    return { ok: false, reason: 'not_finite', message: 'the amount is too large to count in minor units' };
  }
  return { ok: true, value: minor };
}
