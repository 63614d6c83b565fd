// The validation-rule builder's model, and its translation to and from the rule object the API stores
// (`rules: { "1": {name, property, conditions, rules}, …, logic: "1 AND 2" }`, plus `applicable_to`).
// The builder covers flat rules joined by one AND or OR; a stored rule it cannot show faithfully (nested
// rules, mixed logic, names it does not know) is reported as such, never silently changed. Pure code:
// unit-tested by tests/web/rule-builder.test.ts.

export type Combinator = 'AND' | 'OR';

/** What a condition looks at, and how its value is written on the wire. */
export const FIELDS = {
  'order.amount': { label: 'Order amount', kind: 'money' },
  'order.initial_amount': { label: 'Order amount before discounts', kind: 'money' },
  'order.items.count': { label: 'Number of order lines', kind: 'number' },
  'order.metadata': { label: 'Order metadata', kind: 'text', property: true },
  'customer.metadata': { label: 'Customer metadata', kind: 'text', property: true },
  'customer.segment': { label: 'Customer segment (id)', kind: 'list' },
  'redemption.count.per_customer': { label: 'Redemptions by this customer', kind: 'number' },
} as const;

export type FieldName = keyof typeof FIELDS;

export const OPERATORS = {
  $is: 'is',
  $is_not: 'is not',
  $in: 'is one of',
  $more_than: 'more than',
  $more_than_or_equal: 'at least',
  $less_than: 'less than',
  $less_than_or_equal: 'at most',
} as const;

export type Operator = keyof typeof OPERATORS;

/** Operators that make sense for each kind of field. */
export const OPERATORS_BY_KIND: Record<(typeof FIELDS)[FieldName]['kind'], Operator[]> = {
  money: ['$more_than', '$more_than_or_equal', '$less_than', '$less_than_or_equal', '$is'],
  number: ['$more_than', '$more_than_or_equal', '$less_than', '$less_than_or_equal', '$is'],
  text: ['$is', '$is_not', '$in'],
  list: ['$in', '$is'],
};

export interface Condition {
  field: FieldName;
  /** The metadata key, for metadata fields. */
  property: string;
  operator: Operator;
  /** As typed: "50.00" for money (major units), "3" for numbers, "gold, silver" for `is one of`. */
  value: string;
}

export interface ApplicableEntry {
  object: 'product' | 'sku' | 'products_collection';
  id: string;
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
  rules: Record<string, never>;
}

export interface ApiRules {
  rules: Record<string, ApiRule | string>;
  applicable_to?: { included: ApplicableEntry[]; excluded: ApplicableEntry[] };
}

export const EMPTY_MODEL: RuleModel = { combinator: 'AND', conditions: [], applicableTo: [], excluded: [] };

/** A problem with what was typed, named by the condition's position (0-based), or null. */
export interface ConditionProblem {
  index: number;
  message: string;
}

function toWireValue(condition: Condition): unknown[] {
  const kind = FIELDS[condition.field].kind;
  const parts = (condition.operator === '$in' ? condition.value.split(',') : [condition.value]).map((v) => v.trim()).filter((v) => v !== '');
  if (kind === 'money') return parts.map((p) => Math.round(Number(p) * 100));
  if (kind === 'number') return parts.map(Number);
  return parts;
}

export function problemsOf(model: RuleModel): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  model.conditions.forEach((condition, index) => {
    const field = FIELDS[condition.field];
    if ('property' in field && field.property && condition.property.trim() === '') problems.push({ index, message: 'Name the metadata key' });
    if (condition.value.trim() === '') problems.push({ index, message: 'Enter a value' });
    else if ((field.kind === 'money' || field.kind === 'number') && toWireValue(condition).some((v) => !Number.isFinite(v as number))) {
      problems.push({ index, message: field.kind === 'money' ? 'Enter an amount such as 50.00' : 'Enter a number' });
    }
  });
  return problems;
}

/** The rule object the API will store for the model. */
export function toApi(model: RuleModel): ApiRules {
  const rules: Record<string, ApiRule | string> = {};
  model.conditions.forEach((condition, index) => {
    const field = FIELDS[condition.field];
    rules[String(index + 1)] = {
      name: condition.field,
      property: 'property' in field && field.property ? condition.property.trim() : null,
      conditions: { [condition.operator]: toWireValue(condition) },
      rules: {},
    };
  });
  rules.logic = model.conditions.map((_, index) => String(index + 1)).join(` ${model.combinator} `);
  const out: ApiRules = { rules };
  if (model.applicableTo.length > 0 || model.excluded.length > 0) out.applicable_to = { included: model.applicableTo, excluded: model.excluded };
  return out;
}

export type FromApiResult = { ok: true; model: RuleModel } | { ok: false; reason: string };

function fromWireValue(field: FieldName, operator: Operator, values: unknown[]): string {
  const kind = FIELDS[field].kind;
  const shown = values.map((v) => (kind === 'money' && typeof v === 'number' ? (v / 100).toFixed(2) : String(v)));
  return operator === '$in' ? shown.join(', ') : (shown[0] ?? '');
}

/** The builder's model for a stored rule, or why the builder cannot show it. */
export function fromApi(stored: { rules?: Record<string, unknown> | null; applicable_to?: { included?: unknown; excluded?: unknown } | null }): FromApiResult {
  const rules = stored.rules ?? {};
  const keys = Object.keys(rules).filter((k) => k !== 'logic');
  const logic = typeof rules.logic === 'string' ? rules.logic.trim() : '';
  const tokens = logic === '' ? [] : logic.split(/\s+/);
  const ids = tokens.filter((_, i) => i % 2 === 0);
  const joins = new Set(tokens.filter((_, i) => i % 2 === 1).map((t) => t.toUpperCase()));
  if (joins.size > 1 || [...joins].some((j) => j !== 'AND' && j !== 'OR') || ids.some((id) => !/^\d+$/.test(id))) {
    return { ok: false, reason: `The logic "${logic}" mixes AND and OR or groups conditions; edit it as JSON` };
  }
  if (new Set(ids).size !== keys.length || ids.some((id) => !keys.includes(id))) return { ok: false, reason: 'The logic does not name each condition once' };
  const conditions: Condition[] = [];
  for (const id of ids) {
    const rule = rules[id] as Partial<ApiRule> | undefined;
    if (!rule || typeof rule.name !== 'string' || !(rule.name in FIELDS)) return { ok: false, reason: `Condition ${id} (${String(rule?.name)}) is not one the builder knows` };
    if (rule.rules && Object.keys(rule.rules).length > 0) return { ok: false, reason: `Condition ${id} has nested rules` };
    const entries = Object.entries(rule.conditions ?? {});
    const [operator, values] = entries[0] ?? [];
    if (entries.length !== 1 || !operator || !(operator in OPERATORS) || !Array.isArray(values)) {
      return { ok: false, reason: `Condition ${id} uses an operator the builder does not show` };
    }
    const field = rule.name as FieldName;
    conditions.push({ field, property: rule.property ?? '', operator: operator as Operator, value: fromWireValue(field, operator as Operator, values) });
  }
  const entriesOf = (list: unknown): ApplicableEntry[] =>
    Array.isArray(list)
      ? list
          .filter((e): e is { object: ApplicableEntry['object']; id: string } => typeof e === 'object' && e !== null && typeof (e as { id?: unknown }).id === 'string')
          .map((e) => ({ object: e.object ?? 'product', id: e.id }))
      : [];
  return {
    ok: true,
    model: {
      combinator: joins.has('OR') ? 'OR' : 'AND',
      conditions,
      applicableTo: entriesOf(stored.applicable_to?.included),
      excluded: entriesOf(stored.applicable_to?.excluded),
    },
  };
}

/** One line per condition, as a person reads the rule ("Order amount at least 50.00 AND …"). */
export function describe(model: RuleModel): string {
  if (model.conditions.length === 0) return 'No conditions: every order qualifies';
  return model.conditions
    .map((c) => `${FIELDS[c.field].label}${c.property ? ` "${c.property}"` : ''} ${OPERATORS[c.operator]} ${c.value}`)
    .join(` ${model.combinator} `);
}
