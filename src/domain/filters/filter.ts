// The list/export filter grammar (platform reference 7.4) as customer segments and product collections
// use it: `{ junction: 'and' | 'or', <field>: { conditions: { <$operator>: [values] } }, … }`. This module
// parses and checks a filter against a catalog of the fields an object offers; the store turns the
// parsed filter into SQL, so one definition decides membership everywhere (lists, counts, rule checks).
//
// Not to be confused with the validation-rule operators (src/domain/rules): a different grammar with
// different operator names (`$more_than_equal` here, `$more_than_or_equal` there).

export const FILTER_OPERATORS = [
  '$in',
  '$not_in',
  '$is',
  '$is_not',
  '$is_days_ago',
  '$is_days_in_future',
  '$has_value',
  '$is_unknown',
  '$contains',
  '$not_contain',
  '$starts_with',
  '$ends_with',
  '$more_than',
  '$less_than',
  '$more_than_ago',
  '$less_than_ago',
  '$more_than_future',
  '$less_than_future',
  '$more_than_equal',
  '$less_than_equal',
  '$after',
  '$before',
  '$count',
  '$count_less',
  '$count_more',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/**
 * How a field's value is stored, which decides the operators it takes:
 * - `text`: a text column, compared exactly (case-sensitive);
 * - `number`: an integer column (amounts in minor units);
 * - `instant`: an ISO date-time text column (`created_at`);
 * - `date`: a `YYYY-MM-DD` text column (`birthdate`);
 * - `json`: one member of a JSON object column (`metadata.tier`), whose type is known only per row;
 * - `flag`: a boolean column, compared as the text `true` / `false` (the vendor filters them as strings);
 * - `absent`: a field the vendor offers that Punchcard never records a value for (so every row lacks it);
 * - `day_list`: a JSON array of weekday numbers 0–6 (`validity_day_of_week`); `$is` holds when the list
 *   has every given day, `$in` when it has any of them, `$not_in` when it has none.
 */
export type FieldKind = 'text' | 'number' | 'instant' | 'date' | 'json' | 'flag' | 'absent' | 'day_list';

export interface FieldSpec {
  kind: FieldKind;
  /** Column of the filtered table. */
  column: string;
  /** For `json` fields: the member of the JSON object in `column`. */
  member?: string;
  /** The value counts only on rows where this other column is set (a missing value everywhere else). */
  onlyWith?: string;
}

/** The fields one object type can be filtered on; `null` for a field it does not offer. */
export type FieldCatalog = (field: string) => FieldSpec | null;

export type FilterValue = string | number | boolean;

export interface FilterCondition {
  operator: FilterOperator;
  values: FilterValue[];
}

export interface FilterField {
  field: string;
  spec: FieldSpec;
  /** All conditions of one field must hold (the vendor is silent; this is the natural reading). */
  conditions: FilterCondition[];
}

export interface ParsedFilter {
  junction: 'and' | 'or';
  fields: FilterField[];
}

/** A filter that cannot be used; `details` names the offending property in the vendor's wording. */
export class FilterError extends Error {
  constructor(readonly details: string) {
    super(details);
  }
}

/** Operators whose answer depends on the current time rather than on the record alone. */
export const TIME_RELATIVE_OPERATORS: ReadonlySet<FilterOperator> = new Set([
  '$is_days_ago',
  '$is_days_in_future',
  '$more_than_ago',
  '$less_than_ago',
  '$more_than_future',
  '$less_than_future',
]);

const PRESENCE: FilterOperator[] = ['$has_value', '$is_unknown'];
const EQUALITY: FilterOperator[] = ['$is', '$is_not', '$in', '$not_in'];
const TEXT_MATCH: FilterOperator[] = ['$contains', '$not_contain', '$starts_with', '$ends_with'];
const COMPARISON: FilterOperator[] = ['$more_than', '$less_than', '$more_than_equal', '$less_than_equal'];
const RELATIVE: FilterOperator[] = [...TIME_RELATIVE_OPERATORS];

const OPERATORS_BY_KIND: Record<FieldKind, ReadonlySet<FilterOperator>> = {
  text: new Set([...PRESENCE, ...EQUALITY, ...TEXT_MATCH]),
  number: new Set([...PRESENCE, ...EQUALITY, ...COMPARISON]),
  instant: new Set([...PRESENCE, '$is', '$after', '$before', ...RELATIVE]),
  date: new Set([...PRESENCE, ...EQUALITY, '$after', '$before', ...RELATIVE]),
  json: new Set([...PRESENCE, ...EQUALITY, ...TEXT_MATCH, ...COMPARISON]),
  flag: new Set([...PRESENCE, ...EQUALITY, ...TEXT_MATCH]),
  absent: new Set([...PRESENCE, ...EQUALITY, ...TEXT_MATCH]),
  day_list: new Set([...PRESENCE, '$is', '$in', '$not_in']),
};

const DATE_OR_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A real calendar date or date-time (`2026-02-30` is refused rather than rolled over). */
export function isIsoDateOrDateTime(value: string): boolean {
  const match = DATE_OR_DATE_TIME.exec(value);
  if (!match || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  return calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFilterValue(value: unknown): value is FilterValue {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function checkValues(path: string, kind: FieldKind, operator: FilterOperator, given: unknown[]): FilterValue[] {
  const values = TIME_RELATIVE_OPERATORS.has(operator) ? given.map((v) => (typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : v)) : given;
  const exactlyOne = (what: string, test: (v: unknown) => boolean): FilterValue[] => {
    if (values.length !== 1 || !test(values[0])) throw new FilterError(`Property ${path} should be an array of one ${what}`);
    return values as FilterValue[];
  };
  const atLeastOne = (what: string, test: (v: unknown) => boolean): FilterValue[] => {
    if (values.length === 0 || !values.every(test)) throw new FilterError(`Property ${path} should be a non-empty array of ${what}`);
    return values as FilterValue[];
  };
  const isDate = (v: unknown) => typeof v === 'string' && isIsoDateOrDateTime(v);
  const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  switch (operator) {
    case '$has_value':
    case '$is_unknown':
      // The operand carries no information; the vendor's clients send [] or [true].
      return [];
    case '$is':
    case '$is_not':
    case '$in':
    case '$not_in': {
      const single = operator === '$is' || operator === '$is_not';
      if (kind === 'day_list') {
        // The vendor documents `$is` with an array of weekdays; a query string carries them as text.
        const days = values.map((v) => (typeof v === 'string' && /^[0-6]$/.test(v) ? Number(v) : v));
        if (days.length === 0 || !days.every((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 6)) {
          throw new FilterError(`Property ${path} should be a non-empty array of weekdays 0-6`);
        }
        return days as FilterValue[];
      }
      if (kind === 'number') return single ? exactlyOne('number', isNumber) : atLeastOne('numbers', isNumber);
      if (kind === 'instant' || kind === 'date') {
        return single ? exactlyOne('ISO 8601 date or date-time', isDate) : atLeastOne('ISO 8601 dates', isDate);
      }
      return single ? exactlyOne('string, number or boolean', isFilterValue) : atLeastOne('strings, numbers or booleans', isFilterValue);
    }
    case '$contains':
    case '$not_contain':
    case '$starts_with':
    case '$ends_with':
      return atLeastOne('strings', (v) => typeof v === 'string');
    case '$more_than':
    case '$less_than':
    case '$more_than_equal':
    case '$less_than_equal':
      return exactlyOne('number', isNumber);
    case '$after':
    case '$before':
      return exactlyOne('ISO 8601 date or date-time', isDate);
    case '$is_days_ago':
    case '$is_days_in_future':
    case '$more_than_ago':
    case '$less_than_ago':
    case '$more_than_future':
    case '$less_than_future':
      // A query string carries the number as text (`filters[created_at][conditions][$more_than]=10`).
      return exactlyOne('non-negative integer (days)', (v) => Number.isInteger(v) && (v as number) >= 0);
    case '$count':
    case '$count_less':
    case '$count_more':
      // No field kind offers counts yet (array members of JSON cannot be counted in SQL on both dialects).
      throw new FilterError(`Property ${path} is not supported`);
  }
}

/**
 * On a date or instant the vendor's `$more_than` / `$less_than` take a number of days (its
 * FilterConditionsDateTime: "more days ago than"), which is what `$more_than_ago` / `$less_than_ago` say.
 */
function dateAlias(kind: FieldKind, operator: FilterOperator): FilterOperator {
  if (kind !== 'instant' && kind !== 'date') return operator;
  if (operator === '$more_than') return '$more_than_ago';
  if (operator === '$less_than') return '$less_than_ago';
  return operator;
}

export interface ParseOptions {
  /** Property path of the filter in the request body, for error details (e.g. `.filter`). */
  path: string;
  /**
   * Whether operators relative to the current time may be used. A materialised membership (segments)
   * would silently go stale as time passes, so it refuses them; live queries (collections) allow them.
   */
  allowRelativeTime: boolean;
}

/** Checks a filter from a request body and returns it in parsed form; throws FilterError with details. */
export function parseFilter(input: unknown, catalog: FieldCatalog, options: ParseOptions): ParsedFilter {
  const { path } = options;
  if (!isRecord(input)) throw new FilterError(`Property ${path} should be object`);
  let junction: 'and' | 'or' = 'and';
  const fields: FilterField[] = [];
  for (const [key, raw] of Object.entries(input)) {
    if (key === 'junction') {
      const value = typeof raw === 'string' ? raw.toLowerCase() : raw;
      if (value !== 'and' && value !== 'or') {
        throw new FilterError(`Property ${path}.junction should be equal to one of the allowed values [ and, or ]`);
      }
      junction = value;
      continue;
    }
    const fieldPath = `${path}.${key}`;
    const spec = catalog(key);
    if (!spec) throw new FilterError(`Property ${fieldPath} cannot be used in this filter: unknown or unsupported field`);
    if (!isRecord(raw) || !isRecord(raw.conditions)) {
      throw new FilterError(`Property ${fieldPath} should have required property 'conditions'`);
    }
    const conditions: FilterCondition[] = [];
    for (const [operatorName, operand] of Object.entries(raw.conditions)) {
      const conditionPath = `${fieldPath}.conditions.${operatorName}`;
      if (!(FILTER_OPERATORS as readonly string[]).includes(operatorName)) {
        throw new FilterError(`Property ${conditionPath} is not a known filter operator`);
      }
      const operator = dateAlias(spec.kind, operatorName as FilterOperator);
      if (!OPERATORS_BY_KIND[spec.kind].has(operator)) {
        throw new FilterError(`Property ${conditionPath} cannot be used on field ${key}`);
      }
      if (!options.allowRelativeTime && TIME_RELATIVE_OPERATORS.has(operator)) {
        throw new FilterError(
          `Property ${conditionPath} is relative to the current time, which this filter does not allow: membership is computed when customers change, not as time passes`,
        );
      }
      // The vendor's own example sends a bare value (`"$is": "Poland"`); it means a one-value array.
      const values = Array.isArray(operand) ? operand : operand === undefined || operand === null ? [] : [operand];
      conditions.push({ operator, values: checkValues(conditionPath, spec.kind, operator, values) });
    }
    if (conditions.length === 0) throw new FilterError(`Property ${fieldPath}.conditions should have at least one operator`);
    fields.push({ field: key, spec, conditions });
  }
  return { junction, fields };
}

/** The filter as stored and echoed: what the client sent, with the junction made explicit and lower-case. */
export function filterToJson(filter: ParsedFilter): Record<string, unknown> {
  const out: Record<string, unknown> = { junction: filter.junction };
  for (const { field, conditions } of filter.fields) {
    out[field] = { conditions: Object.fromEntries(conditions.map((c) => [c.operator, c.values])) };
  }
  return out;
}
