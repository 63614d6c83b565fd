import { discountProblem, normalizeDiscount } from '../../domain/discounts/discount.ts';
import { errors } from '../../domain/errors.ts';
import { checkFormula } from '../../domain/formulas/check.ts';
import { validityProblem, type ValidityWindow } from '../../domain/validity/validity.ts';
import type { PromotionTierCreateInput } from '../../api/promotions.ts';
import { toJson } from '../../store/json.ts';

// Turns tier members as sent into what is stored, refusing a bad definition before anything is written
// (400 invalid_payload naming the member): discounts pass the same checks as voucher discounts, validity
// windows the same as campaigns'. `path` prefixes member names, e.g. `.promotion.tiers[2]` inside a
// campaign create.

type Action = PromotionTierCreateInput['action'];

/** The stored action: `{discount}` normalised, or `{}` for a tier that gives no discount. */
export function actionJson(action: Action, path: string): string {
  const discount = action?.discount ?? null;
  if (discount === null) return toJson({});
  const problem = discountProblem(discount, checkFormula, `${path}.action.discount`.replace(/^\./, ''));
  if (problem) throw errors.invalidPayload(problem);
  return toJson({ discount: normalizeDiscount(discount) });
}

export function checkWindow(window: ValidityWindow, path: string): void {
  const problem = validityProblem(window);
  if (problem) throw errors.invalidPayload(path === '' ? problem : `Property ${path}: ${problem}`);
}

/** Stored timestamps are UTC ISO strings with milliseconds, so lists can compare them as text. */
export function storedInstant(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : new Date(value).toISOString();
}

export function hasRecurringLimit(window: ValidityWindow): boolean {
  return (
    (window.validity_timeframe ?? null) !== null ||
    (window.validity_day_of_week ?? []).length > 0 ||
    (window.validity_hours?.daily ?? []).length > 0
  );
}

/** The window columns of a tier (dates normalised, JSON as text). */
export function windowColumns(window: ValidityWindow) {
  return {
    start_date: storedInstant(window.start_date),
    expiration_date: storedInstant(window.expiration_date),
    validity_timeframe: window.validity_timeframe ? toJson(window.validity_timeframe) : null,
    validity_day_of_week: window.validity_day_of_week ? toJson(window.validity_day_of_week) : null,
    validity_hours: window.validity_hours ? toJson(window.validity_hours) : null,
    recurring: hasRecurringLimit(window),
  };
}
