import { FILTER_OPERATORS, isIsoDateOrDateTime, type FilterOperator } from '../filters/filter.ts';
import { queryInstant } from '../time/query-instant.ts';
import type { ExportedObject } from './objects.ts';

// Export filters (seed 4.14, platform reference 7.4): `{ junction, <field>: { conditions: { <$op>: [v…] } } }`.
// `parseExportFilter` checks a request's filter against the fields the exported object offers (with the
// vendor's per-field operator restrictions) and types every operand; `lowerExportFilter` turns it into a
// condition tree of plain comparisons, with every time-relative operator resolved against a given
// instant (the export's creation time, so a retried export selects exactly the same rows). The store
// compiles that tree to SQL without deciding any semantics of its own.
//
// Combination: the conditions of one field must all hold; `junction` (`and` by default, `AND`/`OR` accepted
// as the SDK sends them) combines the fields.
//
// Semantics per field type ("value" is the record's value of the field; days are UTC days):
//
// string / enum  $is v: equal (case-sensitive) · $in [v…]: equal to one · $contains / $starts_with /
//                $ends_with [v…]: matches one (no wildcards) · $has_value: not null and not '' ·
//                enum values must be among the field's values.
// number         $is / $in: numerically equal · $more_than >, $less_than <, $more_than_equal >=,
//                $less_than_equal <= · operands are numbers or numeric strings.
// boolean        $is / $in: true or false (or "true"/"false").
// datetime       $after d / $before d: strictly later / earlier than the instant d (a date means its
//                midnight UTC) · $is d: within d's UTC day · $in: within one of the days ·
//                $more_than_ago n (also $more_than): earlier than now − n days · $more_than_equal n: at or
//                before now − n days · $less_than_ago n (also $less_than): after now − n days and not in
//                the future · $less_than_equal n: at or after now − n days, not in the future ·
//                $more_than_future n: after now + n days · $less_than_future n: from now until before
//                now + n days · $is_days_ago n / $is_days_in_future n: within the UTC day n days before /
//                after today.
// date           (`YYYY-MM-DD` values) the same operators, counted in whole days from today (UTC).
// json           (`metadata.<key>` and the like) $is / $in: a string member equal to the text, or a
//                number member equal to the number · text operators on the member's text · comparisons
//                only match number members · $count / $count_less / $count_more: the length of an array
//                member (a member that is no array matches none of them).
// object         only $has_value / $is_unknown.
// set            (a record with several values: a voucher's days of week or categories, a customer's
//                publications) $is v / $in [v…] and the other positive operators: some value matches ·
//                $is_not / $not_in / $not_contain: no value matches the positive form · $has_value: at
//                least one value · $is_unknown: none · $count n / $count_less n / $count_more n: the
//                number of values is =, <, > n. The positive conditions of one field must hold for the
//                same value ("has a publication after X and before Y").
//
// A missing value fails every positive test and passes every negated one ($is_not, $not_in,
// $not_contain, $is_unknown).

export type FieldType = 'string' | 'enum' | 'number' | 'boolean' | 'datetime' | 'date' | 'json' | 'object' | 'set';
export type ElementType = 'string' | 'integer' | 'datetime';

export interface FilterFieldSpec {
  type: FieldType;
  /** The operators the vendor allows on this field; every operator of the type when absent. */
  only?: readonly FilterOperator[];
  /** `enum` fields: the values the field can hold. */
  values?: readonly string[];
  /** `set` fields: the type of each value. */
  element?: ElementType;
}

/** A prefix such as `metadata.`: the member's spec, or the reason members of it cannot be filtered. */
type PrefixResolver = (member: string) => FilterFieldSpec | { refused: string } | null;

interface ObjectFilterCatalog {
  fields: Record<string, FilterFieldSpec>;
  prefixes: Record<string, PrefixResolver>;
}

const JSON_MEMBER: PrefixResolver = () => ({ type: 'json' });

const AFTER_BEFORE: readonly FilterOperator[] = ['$after', '$before'];
const EQUALITY: readonly FilterOperator[] = ['$in', '$not_in', '$is', '$is_not'];
const str: FilterFieldSpec = { type: 'string' };
const num: FilterFieldSpec = { type: 'number' };
const bool: FilterFieldSpec = { type: 'boolean' };
const datetime: FilterFieldSpec = { type: 'datetime' };
const stringSet: FilterFieldSpec = { type: 'set', element: 'string' };
/** A record named by either of its identifiers (id or code, id or name, …); the vendor allows `$is` only. */
const identity: FilterFieldSpec = { type: 'set', element: 'string', only: ['$is'] };

export const EXPORT_FILTER_CATALOGS: Record<ExportedObject, ObjectFilterCatalog> = {
  voucher: {
    fields: {
      created_at: datetime,
      updated_at: datetime,
      created_date: { type: 'date' },
      active: bool,
      redemption_status: { type: 'enum', values: ['NOT_REDEEMED', 'PARTIALLY_REDEEMED', 'FULLY_REDEEMED'] },
      start_date: datetime,
      expiration_date: datetime,
      validity_day_of_week: { type: 'set', element: 'integer' },
      code: str,
      categories: stringSet,
      category_ids: stringSet,
      vouchers: { type: 'set', element: 'string', only: EQUALITY },
      holder_id: str,
      is_referral_code: bool,
      published_for_customer_id: stringSet,
      validity_timeframe: { type: 'object' },
      'redemption.quantity': num,
      'redemption.redeemed_quantity': num,
      'redemption.redeemed_amount': num,
      'redemption.redeemed_points': num,
    },
    prefixes: { metadata: JSON_MEMBER },
  },
  redemption: {
    fields: {
      created_at: { type: 'datetime', only: AFTER_BEFORE },
      campaign: identity,
      customer: identity,
      voucher: identity,
      related_object: { type: 'string', only: ['$in'] },
      voucher_code: str,
      related_object_id: str,
      related_object_parent_id: str,
      parent_redemption_id: str,
      failure_code: str,
      result: { type: 'enum', values: ['SUCCESS', 'FAILURE'] },
      object: { type: 'enum', values: ['redemption', 'redemption_rollback'] },
      customer_id: str,
      campaign_name: str,
      user_login: str,
      status: { type: 'enum', values: ['SUCCEEDED', 'FAILED', 'ROLLED_BACK'] },
    },
    prefixes: { metadata: JSON_MEMBER },
  },
  customer: {
    fields: {
      created_at: { type: 'datetime', only: AFTER_BEFORE },
      updated_at: { type: 'datetime', only: ['$after', '$before', '$is'] },
      email: str,
      name: str,
      city: { type: 'string', only: ['$is'] },
      phone: str,
      birthday: { type: 'date' },
      source_id: str,
      'publications.created_at': { type: 'set', element: 'datetime' },
      'publications.related_object_id': stringSet,
      'address.city': str,
      'address.state': str,
      'address.line_1': str,
      'address.line_2': str,
      'address.country': str,
      'address.postal_code': str,
      'summary.redemptions.total_redeemed': num,
      'summary.redemptions.total_failed': num,
      'summary.redemptions.total_succeeded': num,
      'summary.redemptions.total_rolled_back': num,
      'summary.redemptions.total_rollback_failed': num,
      'summary.redemptions.total_rollback_succeeded': num,
      'summary.redemptions.gift.redeemed_amount': num,
      'summary.redemptions.gift.amount_to_go': num,
      'summary.redemptions.loyalty_card.redeemed_points': num,
      'summary.redemptions.loyalty_card.points_to_go': num,
      'summary.orders.total_amount': num,
      'summary.orders.total_count': num,
      'summary.orders.average_amount': num,
      'summary.orders.last_order_amount': num,
      'summary.orders.last_order_date': datetime,
      'loyalty.points': num,
      'loyalty.referred_customers': num,
    },
    prefixes: {
      metadata: JSON_MEMBER,
      system_metadata: JSON_MEMBER,
      // `loyalty_points.<campaign id>`: the customer's spendable points on that program's cards.
      loyalty_points: () => num,
      loyalty_tier: () => ({ refused: 'loyalty tiers are not recorded on customers, so they cannot be filtered on' }),
    },
  },
  publication: {
    fields: {
      created_at: { type: 'datetime', only: AFTER_BEFORE },
      campaign: identity,
      customer: identity,
      voucher: identity,
      failure_code: str,
      result: { type: 'enum', values: ['SUCCESS', 'FAILURE'] },
      customer_id: str,
      campaign_name: str,
      voucher_type: { type: 'enum', values: ['DISCOUNT_VOUCHER', 'GIFT_VOUCHER', 'LOYALTY_CARD'] },
      is_referral_code: bool,
      parent_object_id: str,
      related_object_id: str,
      source_id: str,
    },
    prefixes: { metadata: JSON_MEMBER },
  },
  order: {
    fields: {
      created_at: { type: 'datetime', only: AFTER_BEFORE },
      updated_at: { type: 'datetime', only: AFTER_BEFORE },
      status: { type: 'enum', values: ['CREATED', 'PAID', 'CANCELED', 'FULFILLED'] },
      source_id: str,
      amount: num,
      total_amount: num,
      discount_amount: num,
      total_discount_amount: num,
      items_discount_amount: num,
    },
    prefixes: { metadata: JSON_MEMBER },
  },
  points_expiration: {
    // Loyalty reference 2.8.3.
    fields: { campaign_id: { type: 'string', only: EQUALITY }, voucher_id: { type: 'string', only: EQUALITY } },
    prefixes: {},
  },
  voucher_transactions: {
    // Loyalty reference 2.7.5.
    fields: {
      created_at: { type: 'datetime', only: ['$after', '$before', '$has_value', '$is_unknown', '$more_than', '$less_than'] },
      voucher_id: str,
      campaign_id: str,
    },
    prefixes: {},
  },
};

const PRESENCE: readonly FilterOperator[] = ['$has_value', '$is_unknown'];
const TEXT_MATCH: readonly FilterOperator[] = ['$contains', '$not_contain', '$starts_with', '$ends_with'];
const COMPARISON: readonly FilterOperator[] = ['$more_than', '$less_than', '$more_than_equal', '$less_than_equal'];
const RELATIVE: readonly FilterOperator[] = [
  '$is_days_ago',
  '$is_days_in_future',
  '$more_than_ago',
  '$less_than_ago',
  '$more_than_future',
  '$less_than_future',
];
const COUNT: readonly FilterOperator[] = ['$count', '$count_less', '$count_more'];
const TIME: readonly FilterOperator[] = [...PRESENCE, ...EQUALITY, ...AFTER_BEFORE, ...RELATIVE, ...COMPARISON];

const ELEMENT_OPERATORS: Record<ElementType, readonly FilterOperator[]> = {
  string: [...EQUALITY, ...TEXT_MATCH],
  integer: [...EQUALITY, ...COMPARISON],
  datetime: [...EQUALITY, ...AFTER_BEFORE, ...RELATIVE, ...COMPARISON],
};

/** Every operator a field of the type takes, before the vendor's per-field restrictions. */
export function operatorsOf(spec: FilterFieldSpec): readonly FilterOperator[] {
  switch (spec.type) {
    case 'string':
      return [...PRESENCE, ...EQUALITY, ...TEXT_MATCH];
    case 'enum':
      // The vendor's list filters offer the text tests on enumerated fields too (a redemption's `result`).
      return [...PRESENCE, ...EQUALITY, ...TEXT_MATCH];
    case 'boolean':
      return [...PRESENCE, ...EQUALITY];
    case 'number':
      return [...PRESENCE, ...EQUALITY, ...COMPARISON];
    case 'datetime':
    case 'date':
      return TIME;
    case 'json':
      return [...PRESENCE, ...EQUALITY, ...TEXT_MATCH, ...COMPARISON, ...COUNT];
    case 'object':
      return PRESENCE;
    case 'set':
      return [...PRESENCE, ...ELEMENT_OPERATORS[spec.element ?? 'string'], ...COUNT];
  }
}

function allowedOperators(spec: FilterFieldSpec): readonly FilterOperator[] {
  const all = operatorsOf(spec);
  return spec.only ? all.filter((op) => spec.only?.includes(op)) : all;
}

// ---- parsing ----

/** A filter that cannot be used; `details` names the offending property. */
export class ExportFilterError extends Error {
  constructor(readonly details: string) {
    super(details);
  }
}

export type FieldRef = { kind: 'field'; name: string } | { kind: 'member'; prefix: string; member: string };
export type Operand = string | number | boolean;

export interface ParsedCondition {
  operator: FilterOperator;
  /** Typed operands: ISO instants/dates as given (checked), numbers, booleans, strings. */
  values: Operand[];
}

export interface ParsedField {
  key: string;
  ref: FieldRef;
  spec: FilterFieldSpec;
  conditions: ParsedCondition[];
}

export interface ParsedExportFilter {
  junction: 'and' | 'or';
  fields: ParsedField[];
}

export const MAX_FILTER_FIELDS = 50;
export const MAX_OPERAND_VALUES = 500;
export const MAX_OPERAND_LENGTH = 1000;
/** Day counts beyond this would name instants outside what dates can hold. */
export const MAX_DAYS = 100_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveField(object: ExportedObject, key: string, path: string): { ref: FieldRef; spec: FilterFieldSpec } {
  const catalog = EXPORT_FILTER_CATALOGS[object];
  const spec = catalog.fields[key];
  if (spec) return { ref: { kind: 'field', name: key }, spec };
  const dot = key.indexOf('.');
  if (dot > 0 && dot < key.length - 1) {
    const prefix = key.slice(0, dot);
    const member = key.slice(dot + 1);
    const resolver = catalog.prefixes[prefix];
    const resolved = resolver?.(member) ?? null;
    if (resolved && 'refused' in resolved) throw new ExportFilterError(`Property ${path} cannot be used: ${resolved.refused}`);
    if (resolved) return { ref: { kind: 'member', prefix, member }, spec: resolved };
  }
  const known = [...Object.keys(catalog.fields), ...Object.keys(catalog.prefixes).map((p) => `${p}.<key>`)];
  throw new ExportFilterError(`Property ${path} is not a filterable field of ${object} exports. Filterable fields: ${known.join(', ')}`);
}

const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;
const INTEGER_TEXT = /^\d+$/;

function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value) && value.length <= 30) return Number(value);
  return null;
}

function asDays(value: unknown): number | null {
  const n = typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_DAYS ? n : null;
}

function asBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return null;
}

function asText(value: unknown): string | null {
  if (typeof value === 'string') return value.length <= MAX_OPERAND_LENGTH ? value : null;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function asDate(value: unknown): string | null {
  return typeof value === 'string' && isIsoDateOrDateTime(value) ? value : null;
}

function asJsonScalar(value: unknown): Operand | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return asText(value);
}

type Reader = (value: unknown) => Operand | null;

/** The kind of operand an operator takes on a value of this type (`what`, with its article), and how many. */
function operandRule(type: FieldType | ElementType, operator: FilterOperator, spec: FilterFieldSpec): { read: Reader; what: string; single: boolean } {
  const single = !['$in', '$not_in', '$contains', '$not_contain', '$starts_with', '$ends_with'].includes(operator);
  const text = { read: asText, what: `a string of at most ${MAX_OPERAND_LENGTH} characters`, single };
  const days = { read: asDays, what: `a whole number of days (0-${MAX_DAYS})`, single: true };
  if (COUNT.includes(operator)) return { read: asDays, what: `a whole number (0-${MAX_DAYS})`, single: true };
  if (RELATIVE.includes(operator)) return days;
  if (TEXT_MATCH.includes(operator)) return text;
  switch (type) {
    case 'number':
    case 'integer':
      return { read: asNumber, what: 'a number', single };
    case 'datetime':
    case 'date':
      if (COMPARISON.includes(operator)) return days;
      return { read: asDate, what: 'an ISO 8601 date or date-time', single };
    case 'boolean':
      return { read: asBoolean, what: 'a boolean', single };
    case 'json':
      if (COMPARISON.includes(operator)) return { read: asNumber, what: 'a number', single };
      return { read: asJsonScalar, what: 'a string, number or boolean', single };
    case 'enum': {
      const values = spec.values ?? [];
      return {
        read: (v) => (typeof v === 'string' && values.includes(v) ? v : null),
        what: `equal to one of the allowed values [ ${values.join(', ')} ]`,
        single,
      };
    }
    default:
      return text;
  }
}

function readOperands(path: string, spec: FilterFieldSpec, operator: FilterOperator, operand: unknown): Operand[] {
  // Presence operators carry no information; the vendor documents an empty string, clients send [] too.
  if (PRESENCE.includes(operator)) return [];
  // The seed sends arrays; the vendor's own examples also send a bare value, which means one value.
  const raw = Array.isArray(operand) ? operand : operand === undefined || operand === null ? [] : [operand];
  const type = spec.type === 'set' ? (spec.element ?? 'string') : spec.type;
  const rule = operandRule(type, operator, spec);
  const onlyOne = `Property ${path} should be an array of exactly one value, ${rule.what}`;
  if (rule.single && raw.length !== 1) throw new ExportFilterError(onlyOne);
  if (raw.length === 0) throw new ExportFilterError(`Property ${path} should be a non-empty array`);
  if (raw.length > MAX_OPERAND_VALUES) throw new ExportFilterError(`Property ${path} must have at most ${MAX_OPERAND_VALUES} items`);
  return raw.map((value, index) => {
    const read = rule.read(value);
    if (read === null) throw new ExportFilterError(rule.single ? onlyOne : `Property ${path}[${index}] should be ${rule.what}`);
    return read;
  });
}

/**
 * Checks `parameters.filters` of an export request for the exported object (or, `base` naming it, a list's
 * `filters` query); throws ExportFilterError whose details name the offending property. `undefined`/`null`
 * means no filter.
 */
export function parseExportFilter(object: ExportedObject, input: unknown, base = '.parameters.filters'): ParsedExportFilter {
  if (input === undefined || input === null) return { junction: 'and', fields: [] };
  if (!isRecord(input)) throw new ExportFilterError(`Property ${base} should be object`);
  let junction: 'and' | 'or' = 'and';
  const fields: ParsedField[] = [];
  let operandCount = 0;
  for (const [key, raw] of Object.entries(input)) {
    if (key === 'junction') {
      const value = typeof raw === 'string' ? raw.toLowerCase() : raw;
      if (value !== 'and' && value !== 'or') throw new ExportFilterError(`Property ${base}.junction should be equal to one of the allowed values [ and, or ]`);
      junction = value;
      continue;
    }
    const path = `${base}.${key}`;
    const { ref, spec } = resolveField(object, key, path);
    if (!isRecord(raw) || !isRecord(raw.conditions)) throw new ExportFilterError(`Property ${path} should have required property 'conditions'`);
    const allowed = allowedOperators(spec);
    const conditions: ParsedCondition[] = [];
    for (const [name, operand] of Object.entries(raw.conditions)) {
      const conditionPath = `${path}.conditions.${name}`;
      if (!(FILTER_OPERATORS as readonly string[]).includes(name)) {
        throw new ExportFilterError(`Property ${conditionPath} is not a filter operator; operators: ${FILTER_OPERATORS.join(', ')}`);
      }
      const operator = name as FilterOperator;
      if (!allowed.includes(operator)) {
        throw new ExportFilterError(`Property ${conditionPath} cannot be used on field ${key}; its operators: ${allowed.join(', ')}`);
      }
      const values = readOperands(conditionPath, spec, operator, operand);
      operandCount += values.length;
      conditions.push({ operator, values });
    }
    if (conditions.length === 0) throw new ExportFilterError(`Property ${path}.conditions should have at least one operator`);
    fields.push({ key, ref, spec, conditions });
    if (fields.length > MAX_FILTER_FIELDS) throw new ExportFilterError(`Property ${base} must name at most ${MAX_FILTER_FIELDS} fields`);
  }
  if (operandCount > MAX_OPERAND_VALUES * 4) throw new ExportFilterError(`Property ${base} must have at most ${MAX_OPERAND_VALUES * 4} operand values in all`);
  return { junction, fields };
}

/** The filter as stored and echoed: as sent, with the junction explicit and lower-case and operands as arrays. */
export function exportFilterToJson(filter: ParsedExportFilter, input: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { junction: filter.junction };
  const source = isRecord(input) ? input : {};
  for (const { key } of filter.fields) {
    const conditions = (source[key] as { conditions: Record<string, unknown> }).conditions;
    out[key] = {
      conditions: Object.fromEntries(
        Object.entries(conditions).map(([op, v]) => [op, Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]]),
      ),
    };
  }
  return out;
}

// ---- lowering to a condition tree ----

/** What a comparison reads: a field of the record, a JSON member, or the current value of a set. */
export type ValueRef =
  | { kind: 'field'; name: string; type: Exclude<FieldType, 'set' | 'enum' | 'json'> }
  | { kind: 'member'; prefix: string; member: string }
  | { kind: 'element'; type: ElementType };

export type SetRef = { kind: 'field'; name: string; element: ElementType } | { kind: 'member'; prefix: string; member: string };

export type Predicate =
  | { kind: 'all'; items: Predicate[] }
  | { kind: 'any'; items: Predicate[] }
  | { kind: 'not'; item: Predicate }
  /** Strings compare as text (ISO instants and dates sort as text), numbers numerically. */
  | { kind: 'compare'; target: ValueRef; cmp: '=' | '<' | '<=' | '>' | '>='; value: Operand }
  /** Not null (and, for text, not empty). */
  | { kind: 'present'; target: ValueRef }
  | { kind: 'text'; target: ValueRef; match: 'contains' | 'starts_with' | 'ends_with'; value: string }
  /** Some value of the set satisfies `where` (any value when null). */
  | { kind: 'some'; set: SetRef; where: Predicate | null }
  | { kind: 'count'; set: SetRef; cmp: '=' | '<' | '>'; value: number };

const DAY_MS = 86_400_000;
const all = (items: Predicate[]): Predicate => (items.length === 1 ? (items[0] as Predicate) : { kind: 'all', items });
const any = (items: Predicate[]): Predicate => (items.length === 1 ? (items[0] as Predicate) : { kind: 'any', items });
const not = (item: Predicate): Predicate => ({ kind: 'not', item });

function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isoDay(ms: number): string {
  return iso(ms).slice(0, 10);
}

type ScalarType = 'string' | 'number' | 'boolean' | 'datetime' | 'date' | 'json' | 'object';

function scalarTypeOf(target: ValueRef): ScalarType {
  if (target.kind === 'member') return 'json';
  if (target.kind === 'element') return target.type === 'integer' ? 'number' : target.type;
  return target.type;
}

/** One condition on a single-valued target. */
function lowerScalar(target: ValueRef, c: ParsedCondition, nowMs: number): Predicate {
  const type = scalarTypeOf(target);
  const first = c.values[0] as Operand;
  const compare = (cmp: '=' | '<' | '<=' | '>' | '>=', value: Operand): Predicate => ({ kind: 'compare', target, cmp, value });
  const between = (from: Operand, fromCmp: '>' | '>=', to: Operand, toCmp: '<' | '<='): Predicate => all([compare(fromCmp, from), compare(toCmp, to)]);
  // Instants resolve to full ISO text, dates to `YYYY-MM-DD`: each compares as text with the stored form.
  const point = (ms: number): string => (type === 'date' ? isoDay(ms) : iso(ms));
  const today = utcDayStart(nowMs);
  const dayOf = (ms: number): Predicate =>
    type === 'date' ? compare('=', isoDay(ms)) : between(iso(utcDayStart(ms)), '>=', iso(utcDayStart(ms) + DAY_MS), '<');
  const equals = (value: Operand): Predicate => {
    if (type === 'datetime' || type === 'date') return dayOf(Date.parse(queryInstant(String(value))));
    return compare('=', value);
  };
  // "Now" for dates is today as a whole day; for instants it is the instant.
  const ago = (days: number) => (type === 'date' ? today - days * DAY_MS : nowMs - days * DAY_MS);
  const ahead = (days: number) => (type === 'date' ? today + days * DAY_MS : nowMs + days * DAY_MS);
  const current = type === 'date' ? today : nowMs;
  const text = (match: 'contains' | 'starts_with' | 'ends_with') => any(c.values.map((v) => ({ kind: 'text', target, match, value: String(v) }) as Predicate));
  const timed = type === 'datetime' || type === 'date';
  const days = Number(first);

  switch (c.operator) {
    case '$is':
      return equals(first);
    case '$is_not':
      return not(equals(first));
    case '$in':
      return any(c.values.map(equals));
    case '$not_in':
      return not(any(c.values.map(equals)));
    case '$has_value':
      return { kind: 'present', target };
    case '$is_unknown':
      return not({ kind: 'present', target });
    case '$contains':
      return text('contains');
    case '$not_contain':
      return not(text('contains'));
    case '$starts_with':
      return text('starts_with');
    case '$ends_with':
      return text('ends_with');
    case '$after':
      return compare('>', type === 'date' ? isoDay(Date.parse(queryInstant(String(first)))) : queryInstant(String(first)));
    case '$before':
      return compare('<', type === 'date' ? isoDay(Date.parse(queryInstant(String(first)))) : queryInstant(String(first)));
    case '$more_than':
      return timed ? compare('<', point(ago(days))) : compare('>', first);
    case '$more_than_ago':
      return compare('<', point(ago(days)));
    case '$more_than_equal':
      return timed ? compare('<=', point(ago(days))) : compare('>=', first);
    case '$less_than':
      return timed ? between(point(ago(days)), '>', point(current), '<=') : compare('<', first);
    case '$less_than_ago':
      return between(point(ago(days)), '>', point(current), '<=');
    case '$less_than_equal':
      return timed ? between(point(ago(days)), '>=', point(current), '<=') : compare('<=', first);
    case '$more_than_future':
      return compare('>', point(ahead(days)));
    case '$less_than_future':
      return between(point(current), '>=', point(ahead(days)), '<');
    case '$is_days_ago':
      return dayOf(ago(days));
    case '$is_days_in_future':
      return dayOf(ahead(days));
    case '$count':
    case '$count_less':
    case '$count_more': {
      if (target.kind !== 'member') throw new Error(`${c.operator} reached a single-valued field`);
      const cmp = c.operator === '$count' ? '=' : c.operator === '$count_less' ? '<' : '>';
      return { kind: 'count', set: { kind: 'member', prefix: target.prefix, member: target.member }, cmp, value: days };
    }
  }
}

const NEGATED: Partial<Record<FilterOperator, FilterOperator>> = { $is_not: '$is', $not_in: '$in', $not_contain: '$contains' };

function lowerSet(set: SetRef & { kind: 'field' }, conditions: ParsedCondition[], nowMs: number): Predicate {
  const element: ValueRef = { kind: 'element', type: set.element };
  const positives: Predicate[] = [];
  const others: Predicate[] = [];
  for (const c of conditions) {
    const positiveForm = NEGATED[c.operator];
    if (positiveForm) {
      others.push(not({ kind: 'some', set, where: lowerScalar(element, { ...c, operator: positiveForm }, nowMs) }));
    } else if (c.operator === '$has_value') {
      others.push({ kind: 'some', set, where: null });
    } else if (c.operator === '$is_unknown') {
      others.push(not({ kind: 'some', set, where: null }));
    } else if (COUNT.includes(c.operator)) {
      const cmp = c.operator === '$count' ? '=' : c.operator === '$count_less' ? '<' : '>';
      others.push({ kind: 'count', set, cmp, value: Number(c.values[0]) });
    } else {
      positives.push(lowerScalar(element, c, nowMs));
    }
  }
  // Every positive condition must hold for one and the same value of the set.
  const items = positives.length > 0 ? [{ kind: 'some', set, where: all(positives) } as Predicate, ...others] : others;
  return all(items);
}

/** The filter as a condition tree; time-relative operators are resolved against `now`. */
export function lowerExportFilter(filter: ParsedExportFilter, now: Date): Predicate {
  const nowMs = now.getTime();
  const fields = filter.fields.map((field): Predicate => {
    if (field.spec.type === 'set' && field.ref.kind === 'field') {
      return lowerSet({ kind: 'field', name: field.ref.name, element: field.spec.element ?? 'string' }, field.conditions, nowMs);
    }
    const target: ValueRef =
      field.ref.kind === 'member' && field.spec.type === 'json'
        ? { kind: 'member', prefix: field.ref.prefix, member: field.ref.member }
        : { kind: 'field', name: field.key, type: scalarFieldType(field.spec) };
    return all(field.conditions.map((c) => lowerScalar(target, c, nowMs)));
  });
  if (fields.length === 0) return { kind: 'all', items: [] };
  return filter.junction === 'or' ? { kind: 'any', items: fields } : { kind: 'all', items: fields };
}

function scalarFieldType(spec: FilterFieldSpec): Exclude<FieldType, 'set' | 'enum' | 'json'> {
  switch (spec.type) {
    case 'enum':
      return 'string';
    case 'set':
    case 'json':
      throw new Error(`field type ${spec.type} is not single-valued`);
    default:
      return spec.type;
  }
}
