import { isIsoDateOrDateTime } from '../filters/filter.ts';
import { queryInstant } from '../time/query-instant.ts';
import { lineMatchesRef, selectItems, unitPrice, type ItemSelection, type SelectableLine } from './applicable-to.ts';
import { compileRuleSet, type CompiledGroup, type CompiledRule, type CompiledRuleSet, type ItemRef, type NormalisedDefinition } from './definition.ts';
import type { LogicNode } from './logic.ts';
import type { CounterName, RuleFamily, RuleOperator } from './names.ts';

// Evaluation of a validation rule against facts the caller has already resolved (pure: no database,
// no clock). The redemption engine fills a RuleContext from the request and the database, asks
// `factsNeeded` first so it looks up only what the rules read, then calls `evaluateRule`.

/** The customer of the request, as far as rules read it (the customer object satisfies this). */
export interface RuleCustomer {
  id: string;
  metadata: Record<string, unknown>;
}

/** One order line with its identifiers and catalog data resolved. */
export interface RuleOrderItem extends SelectableLine {
  /** The line's metadata (item metadata as sent, merged over product/SKU metadata by the caller). */
  metadata: Record<string, unknown>;
}

export interface RuleOrder {
  /** `order.amount`: the cart value at evaluation time, after earlier stacked discounts (minor units). */
  amount: number | null;
  /** `order.initial_amount`: the cart value before any discount, constant through stacking. */
  initialAmount: number | null;
  metadata: Record<string, unknown>;
  /** Lines in request order; a line's position is its index in the validation response. */
  items: readonly RuleOrderItem[];
}

/** Everything rules can read. Members a rule set does not need (see `factsNeeded`) may be left empty. */
export interface RuleContext {
  /** The evaluation instant (the service clock), for date operators on metadata. */
  now: Date;
  /** The customer named by the request; null when none was given (customer rules then fail with `missing_customer`). */
  customer: RuleCustomer | null;
  /** Ids of the segments the customer belongs to now (segment membership store). */
  segmentIds: readonly string[];
  /** The order of the request; null when none was sent (order rules then fail). */
  order: RuleOrder | null;
  /** The `metadata` of the validation/redemption request. */
  redemptionMetadata: Record<string, unknown>;
  /** The metadata of the custom event an earning rule reacts to; null outside that context. */
  customEventMetadata: Record<string, unknown> | null;
  /** Counters as they stand before this redemption (see CounterName for each one's meaning). */
  counters: Partial<Record<CounterName, number>>;
  /** Customer id of the holder of the redeemed code (publication), null when it has none. */
  holderId: string | null;
}

export type RuleFailureKey = 'customer_rules_violated' | 'order_rules_violated' | 'redemption_rules_violated' | 'missing_customer';

/** The vendor's message for each failure key (reference 5.8). */
export const FAILURE_MESSAGES: Record<RuleFailureKey, string> = {
  customer_rules_violated: 'customer does not match segment rules',
  order_rules_violated: 'order does not match validation rules',
  redemption_rules_violated: 'redemption does not match validation rules',
  missing_customer: 'Customer is required to validate rules',
};

const KEY_BY_FAMILY: Record<RuleFamily, RuleFailureKey> = {
  customer: 'customer_rules_violated',
  order: 'order_rules_violated',
  redemption: 'redemption_rules_violated',
};

export interface RuleFailure {
  key: RuleFailureKey;
  /** The vendor's message for the key. */
  message: string;
  /** Number of the failing top-level rule, e.g. `3`. */
  rule: string;
  /** Position of the rule that failed, e.g. `3.1` when a sub-rule of rule 3 did. */
  path: string;
  /** Name of the rule that failed. */
  name: string;
  /**
   * The user-configured message (reference 5.2 precedence): the failing rule's `error.message`, else the
   * nearest enclosing rule's, else the rule set's; null when none is configured (answer no `error`).
   */
  error: string | null;
}

export type RuleEvaluation =
  | { passed: true; selection: ItemSelection }
  | { passed: false; failure: RuleFailure; selection: ItemSelection };

const DAY_MS = 86_400_000;

interface LineScope {
  line: RuleOrderItem;
  /** The lines the enclosing item rule matched (for aggregated sub-rules). */
  matched: readonly RuleOrderItem[];
}

interface Failed {
  rule: CompiledRule;
  missingCustomer: boolean;
  /** Messages of the failing rule and its ancestors, innermost first. */
  messages: (string | null)[];
}

type Outcome = { ok: true } | { ok: false; failed: Failed };

const OK: Outcome = { ok: true };

// ---- value helpers ----

function isPrimitive(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Equality as metadata needs it: `"5"` equals `5`, `"true"` equals `true`; null equals null or missing. */
function looseEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return isPrimitive(a) && isPrimitive(b) && String(a) === String(b);
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

function toInstant(value: unknown): number | null {
  if (typeof value !== 'string' || !isIsoDateOrDateTime(value)) return null;
  return Date.parse(queryInstant(value));
}

function compareNumbers(operator: RuleOperator, value: number, operand: number): boolean {
  switch (operator) {
    case '$less_than':
      return value < operand;
    case '$less_than_or_equal':
      return value <= operand;
    case '$more_than':
      return value > operand;
    case '$more_than_or_equal':
      return value >= operand;
    default:
      return false;
  }
}

// ---- operators ----

/** Numeric facts (amounts, quantities, counters); a missing fact fails every positive test. */
function numberHolds(operator: RuleOperator, operands: unknown[], value: number | null): boolean {
  switch (operator) {
    case '$is':
      return value !== null && value === operands[0];
    case '$is_not':
      return !(value !== null && value === operands[0]);
    case '$in':
      return value !== null && operands.includes(value);
    case '$not_in':
      return !(value !== null && operands.includes(value));
    default:
      return value !== null && compareNumbers(operator, value, operands[0] as number);
  }
}

/** One metadata value against one operator (reference 5.4 meanings). */
function metadataHolds(operator: RuleOperator, operands: unknown[], value: unknown, now: Date): boolean {
  const list = Array.isArray(value) ? value : null;
  switch (operator) {
    case '$is':
      return list ? list.some((v) => looseEquals(v, operands[0])) : looseEquals(value, operands[0]);
    case '$is_not':
      return !metadataHolds('$is', operands, value, now);
    case '$in':
      return (list ?? [value]).some((v) => v !== undefined && operands.some((o) => looseEquals(v, o)));
    case '$not_in':
      return !metadataHolds('$in', operands, value, now);
    case '$less_than':
    case '$less_than_or_equal':
    case '$more_than':
    case '$more_than_or_equal': {
      const operand = operands[0];
      if (typeof operand === 'number') {
        const n = toNumber(value);
        return n !== null && compareNumbers(operator, n, operand);
      }
      const at = toInstant(value);
      const bound = toInstant(operand);
      return at !== null && bound !== null && compareNumbers(operator, at, bound);
    }
    case '$starts_with':
      return typeof value === 'string' && operands.some((o) => value.startsWith(o as string));
    case '$ends_with':
      return typeof value === 'string' && operands.some((o) => value.endsWith(o as string));
    case '$contains':
      if (list) return operands.some((o) => list.some((v) => looseEquals(v, o)));
      return typeof value === 'string' && operands.some((o) => value.includes(o as string));
    case '$count':
      return list !== null && list.length === operands[0];
    case '$count_more':
      return list !== null && list.length > (operands[0] as number);
    case '$count_less':
      return list !== null && list.length < (operands[0] as number);
    case '$not_differ': {
      const values = list ?? (value === undefined || value === null ? [] : [value]);
      return values.every((v) => operands.some((o) => looseEquals(v, o))) && operands.every((o) => values.some((v) => looseEquals(v, o)));
    }
    case '$not_intersect': {
      const values = list ?? (value === undefined || value === null ? [] : [value]);
      return !values.some((v) => operands.some((o) => looseEquals(v, o)));
    }
    case '$after':
    case '$before': {
      const at = toInstant(value);
      const bound = toInstant(operands[0]);
      return at !== null && bound !== null && (operator === '$after' ? at > bound : at < bound);
    }
    case '$more_than_ago':
    case '$less_than_ago':
    case '$is_days_ago':
    case '$more_than_future':
    case '$less_than_future':
    case '$is_days_in_future': {
      const at = toInstant(value);
      if (at === null) return false;
      const days = operands[0] as number;
      const nowMs = now.getTime();
      const day = (ms: number) => Math.floor(ms / DAY_MS);
      switch (operator) {
        case '$more_than_ago':
          return at < nowMs - days * DAY_MS;
        case '$less_than_ago':
          return at >= nowMs - days * DAY_MS && at <= nowMs;
        case '$is_days_ago':
          return day(at) === day(nowMs) - days;
        case '$more_than_future':
          return at > nowMs + days * DAY_MS;
        case '$less_than_future':
          return at <= nowMs + days * DAY_MS && at >= nowMs;
        default:
          return day(at) === day(nowMs) + days;
      }
    }
    case '$from':
      return false;
  }
}

/** All operators of a rule must hold (the vendor is silent on several per rule; reference 5.2 *Rec.*). */
function allHold(rule: CompiledRule, test: (operator: RuleOperator, operands: unknown[]) => boolean): boolean {
  return (Object.entries(rule.conditions) as [RuleOperator, unknown[]][]).every(([operator, operands]) => test(operator, operands));
}

// ---- rules ----

function lineNumber(rule: CompiledRule, scope: LineScope): number | null {
  switch (rule.spec.lineNumber) {
    case 'quantity':
      return scope.line.quantity;
    case 'price':
      return unitPrice(scope.line);
    case 'aggregated_quantity':
      return scope.matched.reduce((sum, line) => sum + line.quantity, 0);
    case 'aggregated_amount':
      return scope.matched.reduce((sum, line) => sum + (line.amount ?? (unitPrice(line) ?? 0) * line.quantity), 0);
    default:
      return null;
  }
}

function metadataSource(rule: CompiledRule, ctx: RuleContext): Record<string, unknown> | null {
  switch (rule.spec.metadata) {
    case 'customer':
      return ctx.customer?.metadata ?? null;
    case 'order':
      return ctx.order?.metadata ?? null;
    case 'redemption':
      return ctx.redemptionMetadata;
    case 'custom_event':
      return ctx.customEventMetadata;
    default:
      return null;
  }
}

class Evaluator {
  constructor(private readonly ctx: RuleContext) {}

  group(group: CompiledGroup, scope: LineScope | null): Outcome {
    return group.logic === null ? OK : this.logic(group.logic, group, scope);
  }

  private logic(node: LogicNode, group: CompiledGroup, scope: LineScope | null): Outcome {
    if (node.type === 'rule') return this.rule(group.rules.get(node.key) as CompiledRule, scope);
    const left = this.logic(node.left, group, scope);
    if (node.type === 'and') return left.ok ? this.logic(node.right, group, scope) : left;
    if (left.ok) return left;
    const right = this.logic(node.right, group, scope);
    // Both sides failed: the first one (in reading order) is reported.
    return right.ok ? right : left;
  }

  private fail(rule: CompiledRule, missingCustomer = false): Outcome {
    return { ok: false, failed: { rule, missingCustomer, messages: [rule.error] } };
  }

  private rule(rule: CompiledRule, scope: LineScope | null): Outcome {
    const { ctx } = this;
    if (rule.spec.needsCustomer && ctx.customer === null) return this.fail(rule, true);
    let holds: boolean;
    switch (rule.spec.kind) {
      case 'segment':
        holds = allHold(rule, (operator, operands) => {
          const member = operands.some((id) => ctx.segmentIds.includes(id as string));
          return operator === '$is' || operator === '$in' ? member : !member;
        });
        break;
      case 'metadata': {
        const source = metadataSource(rule, ctx);
        const value = source?.[rule.property as string];
        holds = allHold(rule, (operator, operands) => metadataHolds(operator, operands, value, ctx.now));
        break;
      }
      case 'number': {
        const order = ctx.order;
        let value: number | null = null;
        if (order) {
          if (rule.spec.orderNumber === 'amount') value = order.amount;
          else if (rule.spec.orderNumber === 'initial_amount') value = order.initialAmount;
          else value = order.items.reduce((sum, line) => sum + line.quantity, 0);
        }
        holds = allHold(rule, (operator, operands) => numberHolds(operator, operands, value));
        break;
      }
      case 'lines-number':
      case 'lines-metadata': {
        const lines = ctx.order?.items ?? [];
        const lineHolds = (line: RuleOrderItem) =>
          rule.spec.kind === 'lines-number'
            ? allHold(rule, (operator, operands) => numberHolds(operator, operands, unitPrice(line)))
            : allHold(rule, (operator, operands) => metadataHolds(operator, operands, line.metadata[rule.property as string], ctx.now));
        holds = rule.spec.quantifier === 'each' ? lines.length > 0 && lines.every(lineHolds) : lines.some(lineHolds);
        break;
      }
      case 'items':
        // Sub-rules are evaluated per line inside; their failures make the item rule fail as a whole.
        return this.items(rule) ? OK : this.fail(rule);
      case 'line-number': {
        const value = scope ? lineNumber(rule, scope) : null;
        holds = allHold(rule, (operator, operands) => numberHolds(operator, operands, value));
        break;
      }
      case 'line-metadata': {
        const value = scope?.line.metadata[rule.property as string];
        holds = allHold(rule, (operator, operands) => metadataHolds(operator, operands, value, ctx.now));
        break;
      }
      case 'line-flag':
        // `*.discount_applicable` marks the enclosing rule's items as discount targets; it tests nothing.
        holds = true;
        break;
      case 'counter': {
        const name = rule.spec.counter as CounterName;
        const value = ctx.counters[name];
        if (value === undefined) throw new Error(`rule ${rule.path} reads counter ${name}, which the caller did not provide`);
        holds = allHold(rule, (operator, operands) => numberHolds(operator, operands, value));
        break;
      }
      case 'holder': {
        const required = rule.conditions.$is?.[0] === true;
        holds = !required || (ctx.holderId !== null && ctx.customer?.id === ctx.holderId);
        break;
      }
    }
    if (!holds) return this.fail(rule);
    const children = this.group(rule.children, scope);
    if (children.ok) return OK;
    return { ok: false, failed: { ...children.failed, messages: [...children.failed.messages, rule.error] } };
  }

  /** An item rule: which lines it matches, then its quantifier over those lines and their sub-rules. */
  private items(rule: CompiledRule): boolean {
    const order = this.ctx.order;
    if (!order) return false;
    const lines = order.items;
    const refs = [...(rule.conditions.$is ?? []), ...(rule.conditions.$in ?? [])] as ItemRef[];
    const from = (rule.conditions.$from ?? []) as ItemRef[];
    const candidates = from.length === 0 ? lines : lines.filter((line) => from.some((ref) => lineMatchesRef(line, ref)));
    const matchesRefs = (line: RuleOrderItem) => refs.length === 0 || refs.some((ref) => lineMatchesRef(line, ref));
    const subRules = (line: RuleOrderItem, matched: readonly RuleOrderItem[]) => this.group(rule.children, { line, matched }).ok;
    switch (rule.spec.itemsMode) {
      case 'any': {
        const matched = candidates.filter(matchesRefs);
        return matched.some((line) => subRules(line, matched));
      }
      case 'none': {
        const matched = candidates.filter(matchesRefs);
        return !matched.some((line) => subRules(line, matched));
      }
      case 'every': {
        const matched = candidates.filter(matchesRefs);
        return lines.length > 0 && matched.length === lines.length && matched.every((line) => subRules(line, matched));
      }
      case 'cheapest':
      case 'most_expensive': {
        let pick: RuleOrderItem | null = null;
        for (const line of candidates) {
          const price = unitPrice(line);
          if (price === null) continue;
          const best = pick === null ? null : unitPrice(pick);
          if (best === null || (rule.spec.itemsMode === 'cheapest' ? price < best : price > best)) pick = line;
        }
        return pick !== null && matchesRefs(pick) && subRules(pick, [pick]);
      }
      default:
        return false;
    }
  }
}

function familyOf(rule: CompiledRule): RuleFamily {
  return rule.spec.family;
}

/** Evaluates a compiled rule set; see `evaluateRule` for a stored definition. */
export function evaluateCompiled(ruleSet: CompiledRuleSet, context: RuleContext): RuleEvaluation {
  const selection = selectItems(ruleSet.applicableTo, ruleSet.ruleTargets, context.order?.items ?? []);
  const outcome = new Evaluator(context).group(ruleSet.group, null);
  if (outcome.ok) return { passed: true, selection };
  const { rule, missingCustomer, messages } = outcome.failed;
  const key = missingCustomer ? 'missing_customer' : KEY_BY_FAMILY[familyOf(rule)];
  const error = messages.find((m) => m !== null) ?? ruleSet.error;
  return {
    passed: false,
    selection,
    failure: { key, message: FAILURE_MESSAGES[key], rule: rule.path.split('.')[0] as string, path: rule.path, name: rule.name, error },
  };
}

/** Evaluates a stored validation rule (its normalised definition) against resolved facts. */
export function evaluateRule(rule: NormalisedDefinition, context: RuleContext): RuleEvaluation {
  return evaluateCompiled(compileRuleSet(rule), context);
}

/** What a caller must look up before evaluating a rule set; anything not listed may be left empty. */
export interface FactsNeeded {
  customer: boolean;
  segments: boolean;
  order: boolean;
  /** Product collections whose membership the order lines need (`collectionIds`). */
  collections: string[];
  counters: CounterName[];
  redemptionMetadata: boolean;
  customEventMetadata: boolean;
  holder: boolean;
}

export function factsNeeded(rule: NormalisedDefinition): FactsNeeded {
  const compiled = compileRuleSet(rule);
  const facts: FactsNeeded = {
    customer: false,
    segments: false,
    order: false,
    collections: [],
    counters: [],
    redemptionMetadata: false,
    customEventMetadata: false,
    holder: false,
  };
  const collections = new Set<string>();
  const counters = new Set<CounterName>();
  const addRefs = (refs: readonly unknown[]) => {
    for (const ref of refs as ItemRef[]) if (ref.object === 'products_collection' && typeof ref.id === 'string') collections.add(ref.id);
  };
  const visit = (group: CompiledGroup) => {
    for (const r of group.rules.values()) {
      const { spec } = r;
      if (spec.needsCustomer || spec.metadata === 'customer') facts.customer = true;
      if (spec.kind === 'segment') facts.segments = true;
      if (spec.family === 'order') facts.order = true;
      if (spec.metadata === 'redemption') facts.redemptionMetadata = true;
      if (spec.metadata === 'custom_event') facts.customEventMetadata = true;
      if (spec.kind === 'holder') facts.holder = true;
      if (spec.counter) counters.add(spec.counter);
      if (spec.kind === 'items') {
        addRefs(r.conditions.$is ?? []);
        addRefs(r.conditions.$in ?? []);
        addRefs(r.conditions.$from ?? []);
      }
      visit(r.children);
    }
  };
  visit(compiled.group);
  const entries = [...compiled.applicableTo.included, ...compiled.applicableTo.excluded];
  addRefs(entries);
  if (entries.length > 0) facts.order = true;
  facts.collections = [...collections];
  facts.counters = [...counters];
  return facts;
}
