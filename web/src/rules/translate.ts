// The validation-rule builder's model, and its translation to and from the rule object the API stores
// (`rules: { "1": {name, property, conditions, rules}, …, logic: "1 AND 2" }`, plus `applicable_to`).
// The fields are the rule names the API evaluates (src/domain/rules/names.ts), each with the operators
// the API accepts for it. The builder covers flat rules joined by one AND or OR, where an item condition
// ("the cart contains …") may carry line sub-conditions (quantity, price) joined by AND; a stored rule it
// cannot show faithfully (other nesting, mixed logic, names or values it does not know) is reported as
// such, never silently changed. Pure code: unit-tested by tests/web/rule-builder.test.ts.

export type Combinator = 'AND' | 'OR';

/**
 * What a condition reads, and so how its value is typed and written on the wire:
 * - `money`: an amount typed in major units ("50.00"), sent in minor units;
 * - `number`: a count;
 * - `text`: one metadata member (`property`), compared as text, number or date by the operator;
 * - `segment`: segment ids;
 * - `items`: products, SKUs or collections in the cart (`items`), with line sub-conditions (`lines`);
 * - `flag`: yes or no.
 */
export type FieldKind = 'money' | 'number' | 'text' | 'segment' | 'items' | 'flag';

interface FieldSpec {
  label: string;
  kind: FieldKind;
  group: 'Order' | 'Cart items' | 'Customer' | 'Redemptions' | 'Campaign';
  property?: true;
}

/** The fields the builder offers, in the order shown, grouped as the field picker groups them. */
export const FIELDS = {
  'order.amount': { label: 'Order amount', kind: 'money', group: 'Order' },
  'order.initial_amount': { label: 'Order amount before discounts', kind: 'money', group: 'Order' },
  'order.items.count': { label: 'Total quantity of items', kind: 'number', group: 'Order' },
  'order.metadata': { label: 'Order metadata', kind: 'text', group: 'Order', property: true },
  'order.items.any': { label: 'Cart contains', kind: 'items', group: 'Cart items' },
  'order.items.none': { label: 'Cart contains none of', kind: 'items', group: 'Cart items' },
  'order.items.every': { label: 'Every cart item is', kind: 'items', group: 'Cart items' },
  'order.items.cheapest': { label: 'Cheapest cart item is', kind: 'items', group: 'Cart items' },
  'order.items.most_expensive': { label: 'Most expensive cart item is', kind: 'items', group: 'Cart items' },
  'product.id': { label: 'Product in cart', kind: 'items', group: 'Cart items' },
  'sku.id': { label: 'SKU in cart', kind: 'items', group: 'Cart items' },
  'order.items.price_any': { label: 'Unit price of any item', kind: 'money', group: 'Cart items' },
  'order.items.price_each': { label: 'Unit price of every item', kind: 'money', group: 'Cart items' },
  'order.items.metadata_any': { label: 'Metadata of any item', kind: 'text', group: 'Cart items', property: true },
  'order.items.metadata_each': { label: 'Metadata of every item', kind: 'text', group: 'Cart items', property: true },
  'customer.segment': { label: 'Customer segment', kind: 'segment', group: 'Customer' },
  'customer.metadata': { label: 'Customer metadata', kind: 'text', group: 'Customer', property: true },
  'publication.redeemable_by_linked_customer': { label: 'Only by the customer the code is published to', kind: 'flag', group: 'Customer' },
  'redemption.count.per_customer': { label: 'Redemptions by this customer', kind: 'number', group: 'Redemptions' },
  'redemption.count.per_customer.daily': { label: 'Redemptions by this customer today', kind: 'number', group: 'Redemptions' },
  'redemption.count.per_customer.weekly': { label: 'Redemptions by this customer this week', kind: 'number', group: 'Redemptions' },
  'redemption.count.per_customer.monthly': { label: 'Redemptions by this customer this month', kind: 'number', group: 'Redemptions' },
  'redemption.count.daily': { label: 'Redemptions of this code or promotion today', kind: 'number', group: 'Redemptions' },
  'redemption.count.weekly': { label: 'Redemptions of this code or promotion this week', kind: 'number', group: 'Redemptions' },
  'redemption.count.monthly': { label: 'Redemptions of this code or promotion this month', kind: 'number', group: 'Redemptions' },
  'redemption.metadata': { label: 'Redemption metadata', kind: 'text', group: 'Redemptions', property: true },
  'custom_event.metadata': { label: 'Custom event metadata', kind: 'text', group: 'Redemptions', property: true },
  'campaign.redemptions.count': { label: 'Redemptions in the campaign', kind: 'number', group: 'Campaign' },
  'campaign.redemptions.count.daily': { label: 'Redemptions in the campaign today', kind: 'number', group: 'Campaign' },
  'campaign.redemptions.count.weekly': { label: 'Redemptions in the campaign this week', kind: 'number', group: 'Campaign' },
  'campaign.redemptions.count.monthly': { label: 'Redemptions in the campaign this month', kind: 'number', group: 'Campaign' },
  'campaign.orders.amount': { label: 'Order amounts in the campaign (sum)', kind: 'money', group: 'Campaign' },
  'campaign.orders.amount_discounted': { label: 'Discounts given in the campaign (sum)', kind: 'money', group: 'Campaign' },
} as const satisfies Record<string, FieldSpec>;

export type FieldName = keyof typeof FIELDS;

export const OPERATORS = {
  $is: 'is',
  $is_not: 'is not',
  $in: 'is one of',
  $not_in: 'is none of',
  $more_than: 'more than',
  $more_than_or_equal: 'at least',
  $less_than: 'less than',
  $less_than_or_equal: 'at most',
  $starts_with: 'starts with',
  $ends_with: 'ends with',
  $contains: 'contains',
  $after: 'is after',
  $before: 'is before',
  $more_than_ago: 'more than … days ago',
  $less_than_ago: 'within the last … days',
  $is_days_ago: 'exactly … days ago',
  $more_than_future: 'more than … days ahead',
  $less_than_future: 'within the next … days',
  $is_days_in_future: 'exactly … days ahead',
  $count: 'has exactly … values',
  $count_more: 'has more than … values',
  $count_less: 'has fewer than … values',
  $not_differ: 'has exactly the values',
  $not_intersect: 'has none of the values',
  $from: 'is from collection',
} as const;

export type Operator = keyof typeof OPERATORS;

const NUMERIC: Operator[] = ['$more_than_or_equal', '$more_than', '$less_than_or_equal', '$less_than', '$is', '$is_not', '$in', '$not_in'];

/** Operators the API accepts for each kind of field (the first is the default). */
export const OPERATORS_BY_KIND: Record<FieldKind, Operator[]> = {
  money: NUMERIC,
  number: NUMERIC,
  text: [
    '$is',
    '$is_not',
    '$in',
    '$not_in',
    '$contains',
    '$starts_with',
    '$ends_with',
    '$more_than',
    '$more_than_or_equal',
    '$less_than',
    '$less_than_or_equal',
    '$after',
    '$before',
    '$more_than_ago',
    '$less_than_ago',
    '$is_days_ago',
    '$more_than_future',
    '$less_than_future',
    '$is_days_in_future',
    '$count',
    '$count_more',
    '$count_less',
    '$not_differ',
    '$not_intersect',
  ],
  segment: ['$in', '$not_in', '$is', '$is_not'],
  items: ['$in', '$is', '$from'],
  flag: ['$is'],
};

/** Operators that take several values ("a, b, c"). */
const MANY: ReadonlySet<Operator> = new Set(['$in', '$not_in', '$contains', '$starts_with', '$ends_with', '$not_differ', '$not_intersect']);
/** Metadata operators that take a whole number (of days or of values). */
const WHOLE: ReadonlySet<Operator> = new Set(['$more_than_ago', '$less_than_ago', '$is_days_ago', '$more_than_future', '$less_than_future', '$is_days_in_future', '$count', '$count_more', '$count_less']);
/** Metadata operators that compare with a number or an ISO 8601 date. */
const ORDERED: ReadonlySet<Operator> = new Set(['$more_than', '$more_than_or_equal', '$less_than', '$less_than_or_equal']);
const DATED: ReadonlySet<Operator> = new Set(['$after', '$before']);

/** Whether the operator takes several values, so the value is typed as a comma-separated list. */
export const takesMany = (operator: Operator): boolean => MANY.has(operator);

/** Sub-conditions about the cart lines an item condition matched. */
export const LINE_FIELDS = {
  'order.items.quantity': { label: 'quantity', kind: 'number' },
  'order.items.price': { label: 'unit price', kind: 'money' },
  'order.items.aggregated_quantity': { label: 'quantity of all matched lines', kind: 'number' },
  'order.items.aggregated_amount': { label: 'amount of all matched lines', kind: 'money' },
} as const;

export type LineFieldName = keyof typeof LINE_FIELDS;

export interface LineCondition {
  field: LineFieldName;
  operator: Operator;
  value: string;
}

export interface ApplicableEntry {
  object: 'product' | 'sku' | 'products_collection';
  id: string;
}

export interface Condition {
  field: FieldName;
  /** The metadata key, for metadata fields. */
  property: string;
  operator: Operator;
  /**
   * As typed: "50.00" for money (major units), "3" for numbers, "gold, silver" for several values,
   * segment ids joined by ", " for segments, "true" / "false" for yes-or-no fields; unused for items.
   */
  value: string;
  /** For item fields: the products, SKUs and collections the condition names. */
  items?: ApplicableEntry[];
  /** For item fields: what the matched lines must satisfy as well (all of them). */
  lines?: LineCondition[];
}

export interface RuleModel {
  combinator: Combinator;
  conditions: Condition[];
  /** Which order lines the discount applies to; empty = the whole order. */
  applicableTo: ApplicableEntry[];
  excluded: ApplicableEntry[];
}

export interface ApiRule {
  name: string;
  property: string | null;
  conditions: Record<string, unknown[]>;
  rules: Record<string, ApiRule | string>;
}

export interface ApiRules {
  rules: Record<string, ApiRule | string>;
  applicable_to?: { included: ApplicableEntry[]; excluded: ApplicableEntry[] };
}

export const EMPTY_MODEL: RuleModel = { combinator: 'AND', conditions: [], applicableTo: [], excluded: [] };

/** A new condition on `field`, with the field's first operator and nothing typed yet. */
export function newCondition(field: FieldName): Condition {
  const kind = FIELDS[field].kind;
  const condition: Condition = { field, property: '', operator: OPERATORS_BY_KIND[kind][0] ?? '$is', value: kind === 'flag' ? 'true' : '' };
  if (kind === 'items') return { ...condition, items: [], lines: [] };
  return condition;
}

/** A problem with what was typed, named by the condition's position (0-based), or null. */
export interface ConditionProblem {
  index: number;
  message: string;
}

const split = (value: string, many: boolean) => (many ? value.split(',') : [value]).map((v) => v.trim()).filter((v) => v !== '');

/** The wire value of a money, number or metadata value as typed (NaN marks a number typed wrong). */
function wireValues(kind: FieldKind, operator: Operator, value: string): unknown[] {
  const parts = split(value, MANY.has(operator) || (kind === 'segment' && value.includes(',')));
  if (kind === 'money') return parts.map((p) => (/^-?\d+(\.\d{1,2})?$/.test(p) ? Math.round(Number(p) * 100) : Number.NaN));
  if (kind === 'number') return parts.map((p) => (/^-?\d+$/.test(p) ? Number(p) : Number.NaN));
  if (kind === 'flag') return parts.map((p) => p === 'true');
  if (kind === 'text' && WHOLE.has(operator)) return parts.map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
  if (kind === 'text' && ORDERED.has(operator)) return parts.map((p) => (/^-?\d+(\.\d+)?$/.test(p) ? Number(p) : p));
  return parts;
}

function toWireValue(condition: Condition): unknown[] {
  return wireValues(FIELDS[condition.field].kind, condition.operator, condition.value);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Why a value typed for `kind` and `operator` cannot be sent, or null. */
function valueProblem(kind: FieldKind, operator: Operator, value: string): string | null {
  if (value.trim() === '') return kind === 'segment' ? 'Pick a segment' : 'Enter a value';
  const wire = wireValues(kind, operator, value);
  if (kind === 'money' && wire.some((v) => Number.isNaN(v))) return 'Enter an amount such as 50.00';
  if (kind === 'number' && wire.some((v) => Number.isNaN(v))) return 'Enter a whole number';
  if (kind === 'text' && WHOLE.has(operator) && wire.some((v) => Number.isNaN(v))) return 'Enter a whole number';
  if (kind === 'text' && (DATED.has(operator) || ORDERED.has(operator)) && wire.some((v) => typeof v === 'string' && !ISO_DATE.test(v))) {
    return DATED.has(operator) ? 'Enter a date such as 2026-12-31' : 'Enter a number or a date such as 2026-12-31';
  }
  if (!MANY.has(operator) && kind !== 'segment' && wire.length > 1) return 'Enter one value';
  return null;
}

export function problemsOf(model: RuleModel): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  model.conditions.forEach((condition, index) => {
    const field: FieldSpec = FIELDS[condition.field];
    if (field.property && condition.property.trim() === '') problems.push({ index, message: 'Name the metadata key' });
    if (field.kind === 'items') {
      const items = condition.items ?? [];
      if (items.length === 0) problems.push({ index, message: 'Pick a product, SKU or collection' });
      else if (condition.operator === '$from' && items.some((i) => i.object !== 'products_collection')) problems.push({ index, message: 'Pick collections only' });
      for (const line of condition.lines ?? []) {
        const problem = valueProblem(LINE_FIELDS[line.field].kind, line.operator, line.value);
        if (problem) problems.push({ index, message: `${capitalise(LINE_FIELDS[line.field].label)}: ${problem.charAt(0).toLowerCase()}${problem.slice(1)}` });
      }
      return;
    }
    const problem = valueProblem(field.kind, condition.operator, condition.value);
    if (problem) problems.push({ index, message: problem });
  });
  return problems;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const refOf = (entry: ApplicableEntry): ApplicableEntry => ({ object: entry.object, id: entry.id });

function lineRules(lines: readonly LineCondition[]): Record<string, ApiRule | string> {
  if (lines.length === 0) return {};
  const rules: Record<string, ApiRule | string> = {};
  lines.forEach((line, i) => {
    rules[String(i + 1)] = { name: line.field, property: null, conditions: { [line.operator]: wireValues(LINE_FIELDS[line.field].kind, line.operator, line.value) }, rules: {} };
  });
  rules.logic = lines.map((_, i) => String(i + 1)).join(' AND ');
  return rules;
}

/** The rule object the API will store for the model. */
export function toApi(model: RuleModel): ApiRules {
  const rules: Record<string, ApiRule | string> = {};
  model.conditions.forEach((condition, index) => {
    const field: FieldSpec = FIELDS[condition.field];
    rules[String(index + 1)] =
      field.kind === 'items'
        ? { name: condition.field, property: null, conditions: { [condition.operator]: (condition.items ?? []).map(refOf) }, rules: lineRules(condition.lines ?? []) }
        : { name: condition.field, property: field.property ? condition.property.trim() : null, conditions: { [condition.operator]: toWireValue(condition) }, rules: {} };
  });
  rules.logic = model.conditions.map((_, index) => String(index + 1)).join(` ${model.combinator} `);
  const out: ApiRules = { rules };
  if (model.applicableTo.length > 0 || model.excluded.length > 0) out.applicable_to = { included: model.applicableTo.map(refOf), excluded: model.excluded.map(refOf) };
  return out;
}

export type FromApiResult = { ok: true; model: RuleModel } | { ok: false; reason: string };

/** The value as typed for stored wire values, or null when the builder would change their meaning. */
function typedValue(kind: FieldKind, operator: Operator, values: unknown[]): string | null {
  const many = MANY.has(operator) || kind === 'segment';
  if (!many && values.length !== 1) return null;
  const shown: string[] = [];
  for (const v of values) {
    if (kind === 'money' || kind === 'number') {
      if (typeof v !== 'number' || !Number.isInteger(v)) return null;
      shown.push(kind === 'money' ? (v / 100).toFixed(2) : String(v));
    } else if (kind === 'flag') {
      if (typeof v !== 'boolean') return null;
      shown.push(String(v));
    } else if (kind === 'text' && (WHOLE.has(operator) || ORDERED.has(operator))) {
      if (typeof v !== 'number' && typeof v !== 'string') return null;
      shown.push(String(v));
    } else {
      // Text the builder splits at commas must not hold one; numbers and booleans compare as their text.
      if (!(typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') || (many && String(v).includes(','))) return null;
      shown.push(String(v));
    }
  }
  return shown.join(', ');
}

const ITEM_OBJECTS: readonly string[] = ['product', 'sku', 'products_collection'];

/** Stored references as the builder holds them, or null when one carries more than an object and an id. */
function refsOf(list: unknown, fallback: ApplicableEntry['object'], allowed: readonly string[]): ApplicableEntry[] | null {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return null;
  const out: ApplicableEntry[] = [];
  for (const raw of list) {
    const entry = (typeof raw === 'string' ? { id: raw } : raw) as Record<string, unknown> | null;
    if (typeof entry !== 'object' || entry === null || typeof entry.id !== 'string') return null;
    if (Object.keys(entry).some((k) => !allowed.includes(k) && !(k === 'effect' && entry.effect === 'APPLY_TO_EVERY'))) return null;
    const object = entry.object ?? (entry.id.startsWith('pc_') ? 'products_collection' : entry.id.startsWith('sku_') ? 'sku' : entry.id.startsWith('prod_') ? 'product' : fallback);
    if (typeof object !== 'string' || !ITEM_OBJECTS.includes(object)) return null;
    out.push({ object: object as ApplicableEntry['object'], id: entry.id });
  }
  return out;
}

interface StoredRule {
  name?: unknown;
  property?: unknown;
  conditions?: unknown;
  rules?: unknown;
  error?: unknown;
}

/** The only operator of a stored rule with its values, or null. */
function onlyCondition(rule: StoredRule): [Operator, unknown[]] | null {
  const entries = Object.entries((rule.conditions ?? {}) as Record<string, unknown>);
  const [operator, values] = entries[0] ?? [];
  if (entries.length !== 1 || !operator || !(operator in OPERATORS) || !Array.isArray(values)) return null;
  return [operator as Operator, values];
}

/** Keys named by a flat logic ("1 AND 2"), with its one joining word, or null for anything else. */
function flatLogic(logic: string, keys: string[]): { ids: string[]; join: Combinator | null } | { error: string } {
  const tokens = logic === '' ? [] : logic.split(/\s+/);
  const ids = tokens.filter((_, i) => i % 2 === 0);
  const joins = new Set(tokens.filter((_, i) => i % 2 === 1).map((t) => t.toUpperCase()));
  if (joins.size > 1 || [...joins].some((j) => j !== 'AND' && j !== 'OR') || ids.some((id) => !/^\d+$/.test(id))) {
    return { error: `The logic "${logic}" mixes AND and OR or groups conditions; edit it as JSON` };
  }
  if (new Set(ids).size !== keys.length || ids.some((id) => !keys.includes(id))) return { error: 'The logic does not name each condition once' };
  return { ids, join: joins.size === 0 ? null : ([...joins][0] as Combinator) };
}

function linesOf(id: string, stored: unknown): LineCondition[] | string {
  const rules = (stored ?? {}) as Record<string, unknown>;
  const keys = Object.keys(rules).filter((k) => k !== 'logic');
  if (keys.length === 0) return [];
  const logic = typeof rules.logic === 'string' ? rules.logic.trim() : keys.sort((a, b) => Number(a) - Number(b)).join(' AND ');
  const flat = flatLogic(logic, keys);
  if ('error' in flat || flat.join === 'OR') return `Condition ${id} joins its line conditions other than by AND`;
  const lines: LineCondition[] = [];
  for (const key of flat.ids) {
    const rule = rules[key] as StoredRule;
    if (typeof rule?.name !== 'string' || !(rule.name in LINE_FIELDS)) return `Condition ${id}.${key} (${String(rule?.name)}) is not one the builder knows`;
    if ((rule.rules && Object.keys(rule.rules).length > 0) || rule.error) return `Condition ${id}.${key} has nested rules or its own message`;
    const field = rule.name as LineFieldName;
    const condition = onlyCondition(rule);
    const value = condition && OPERATORS_BY_KIND[LINE_FIELDS[field].kind].includes(condition[0]) ? typedValue(LINE_FIELDS[field].kind, condition[0], condition[1]) : null;
    if (!condition || value === null) return `Condition ${id}.${key} uses an operator or value the builder does not show`;
    lines.push({ field, operator: condition[0], value });
  }
  return lines;
}

/** The builder's model for a stored rule, or why the builder cannot show it. */
export function fromApi(stored: { rules?: Record<string, unknown> | null; applicable_to?: { included?: unknown; excluded?: unknown; included_all?: unknown } | null }): FromApiResult {
  const rules = stored.rules ?? {};
  const keys = Object.keys(rules).filter((k) => k !== 'logic');
  const logic = typeof rules.logic === 'string' ? rules.logic.trim() : '';
  const flat = flatLogic(logic, keys);
  if ('error' in flat) return { ok: false, reason: flat.error };
  const conditions: Condition[] = [];
  for (const id of flat.ids) {
    const rule = rules[id] as StoredRule | undefined;
    if (!rule || typeof rule.name !== 'string' || !(rule.name in FIELDS)) return { ok: false, reason: `Condition ${id} (${String(rule?.name)}) is not one the builder knows` };
    if (rule.error) return { ok: false, reason: `Condition ${id} has its own error message; edit it as JSON` };
    const field = rule.name as FieldName;
    const spec: FieldSpec = FIELDS[field];
    const condition = onlyCondition(rule);
    if (!condition || !OPERATORS_BY_KIND[spec.kind].includes(condition[0])) return { ok: false, reason: `Condition ${id} uses an operator the builder does not show` };
    const [operator, values] = condition;
    if (spec.kind === 'items') {
      const items = refsOf(values, field === 'sku.id' ? 'sku' : 'product', ['object', 'id']);
      if (items === null) return { ok: false, reason: `Condition ${id} names items by more than their id` };
      const lines = linesOf(id, rule.rules);
      if (typeof lines === 'string') return { ok: false, reason: lines };
      conditions.push({ field, property: '', operator, value: '', items, lines });
      continue;
    }
    if (rule.rules && Object.keys(rule.rules).length > 0) return { ok: false, reason: `Condition ${id} has nested rules` };
    const value = typedValue(spec.kind, operator, values);
    if (value === null) return { ok: false, reason: `Condition ${id} has a value the builder would change` };
    conditions.push({ field, property: typeof rule.property === 'string' ? rule.property : '', operator, value });
  }
  if (stored.applicable_to?.included_all === true) return { ok: false, reason: 'The rule applies to every item explicitly (included_all); edit it as JSON' };
  const included = refsOf(stored.applicable_to?.included, 'product', ['object', 'id']);
  const excluded = refsOf(stored.applicable_to?.excluded, 'product', ['object', 'id']);
  if (included === null || excluded === null) return { ok: false, reason: 'The items the discount applies to carry limits or effects; edit them as JSON' };
  return { ok: true, model: { combinator: flat.join ?? 'AND', conditions, applicableTo: included, excluded } };
}

/** Names for ids (products, SKUs, collections, segments) when the page knows them; ids otherwise. */
export type Names = Readonly<Record<string, string>>;

const OBJECT_WORD: Record<ApplicableEntry['object'], string> = { product: 'product', sku: 'SKU', products_collection: 'collection' };

/** "Blue shoes (product)", or the id when the name is not known. */
export function itemLabel(entry: ApplicableEntry, names: Names = {}): string {
  return `${names[entry.id] ?? entry.id} (${OBJECT_WORD[entry.object]})`;
}

function describeCondition(c: Condition, names: Names): string {
  const field: FieldSpec = FIELDS[c.field];
  const label = `${field.label}${c.property ? ` "${c.property}"` : ''}`;
  if (field.kind === 'items') {
    const items = (c.items ?? []).map((i) => itemLabel(i, names)).join(' or ');
    const which = c.operator === '$from' ? `an item from ${items}` : items;
    const lines = (c.lines ?? []).map((l) => `${LINE_FIELDS[l.field].label} ${OPERATORS[l.operator]} ${l.value}`);
    return `${label} ${which}${lines.length > 0 ? ` with ${lines.join(' and ')}` : ''}`;
  }
  if (field.kind === 'flag') return c.value === 'true' ? field.label : `Not only by the customer the code is published to`;
  const value = field.kind === 'segment' ? split(c.value, true).map((id) => names[id] ?? id).join(', ') : c.value;
  return `${label} ${OPERATORS[c.operator]} ${value}`;
}

/** One line per condition, as a person reads the rule ("Order amount at least 50.00 AND …"). */
export function describe(model: RuleModel, names: Names = {}): string {
  const conditions = model.conditions.length === 0 ? 'No conditions: every order qualifies' : model.conditions.map((c) => describeCondition(c, names)).join(` ${model.combinator} `);
  if (model.applicableTo.length === 0 && model.excluded.length === 0) return conditions;
  const included = model.applicableTo.length > 0 ? model.applicableTo.map((e) => itemLabel(e, names)).join(', ') : 'the whole order';
  const excluded = model.excluded.length > 0 ? `, except ${model.excluded.map((e) => itemLabel(e, names)).join(', ')}` : '';
  return `${conditions}. Discount applies to ${included}${excluded}`;
}
