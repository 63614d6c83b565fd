import { isIsoDateOrDateTime } from '../filters/filter.ts';
import { LogicError, logicKeys, parseLogic, type LogicNode } from './logic.ts';
import {
  LEGACY_NAMES,
  OPERATOR_ALIASES,
  OPERATORS_BY_KIND,
  RULE_NAMES,
  RULE_OPERATORS,
  UNSUPPORTED_OPERATORS,
  type RuleNameSpec,
  type RuleOperator,
} from './names.ts';

// A validation rule's definition (promotions reference 5.1, 5.2): numbered rules combined by `logic`,
// nested sub-rules, per-rule error messages, and the `applicable_to` discount targets (3.6). This module
// checks a definition as a client sends it, answers the normalised form that is stored and echoed
// (dotted rule names, canonical operators, explicit `property` and `rules`), and compiles a stored
// definition into the tree the evaluator walks.

/** A definition that cannot be saved; `details` names the rule and the problem. */
export class RuleDefinitionError extends Error {
  constructor(readonly details: string) {
    super(details);
  }
}

/** Sub-rules may nest this deep below the top level (the vendor's schema allows three levels). */
export const MAX_RULE_DEPTH = 5;

export type ItemObject = 'product' | 'sku' | 'products_collection';

/** A product, SKU or collection named in an item condition or an `applicable_to` entry. */
export interface ItemRef {
  object: ItemObject;
  id?: string | null;
  source_id?: string | null;
  [member: string]: unknown;
}

export const APPLICABLE_TO_EFFECTS = [
  'APPLY_TO_EVERY',
  'APPLY_TO_CHEAPEST',
  'APPLY_FROM_CHEAPEST',
  'APPLY_TO_MOST_EXPENSIVE',
  'APPLY_FROM_MOST_EXPENSIVE',
] as const;
export type ApplicableToEffect = (typeof APPLICABLE_TO_EFFECTS)[number];

/** One `applicable_to` entry (reference 3.6); limit and price members are kept as sent for the engine. */
export interface ApplicableToEntry extends ItemRef {
  effect: ApplicableToEffect;
  target?: 'ITEM' | 'UNIT' | null;
  skip_initially?: number | null;
  repeat?: number | null;
  quantity_limit?: number | null;
  aggregated_quantity_limit?: number | null;
}

export interface ApplicableTo {
  included: ApplicableToEntry[];
  excluded: ApplicableToEntry[];
  included_all: boolean;
}

/** A checked rule, ready for evaluation. */
export interface CompiledRule {
  /** Position in the tree, e.g. `3` or `3.1` for the first sub-rule of rule 3. */
  path: string;
  name: string;
  spec: RuleNameSpec;
  property: string | null;
  conditions: Partial<Record<RuleOperator, unknown[]>>;
  children: CompiledGroup;
  error: string | null;
}

export interface CompiledGroup {
  logic: LogicNode | null;
  rules: ReadonlyMap<string, CompiledRule>;
}

export interface CompiledRuleSet {
  group: CompiledGroup;
  /** The rule set's own `error.message`, used when the failing rule has none. */
  error: string | null;
  applicableTo: ApplicableTo;
  /** Items named by rules whose sub-rules mark them `product.discount_applicable` / `sku.discount_applicable`. */
  ruleTargets: ApplicableToEntry[];
}

/** The members of a definition as stored and answered. */
export interface NormalisedDefinition {
  rules: Record<string, unknown>;
  error: { message: string } | null;
  applicable_to: ApplicableTo;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isPrimitive = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isDate = (v: unknown) => typeof v === 'string' && isIsoDateOrDateTime(v);
const isDays = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

/** The object an id names when a reference does not say: the vendor's prefixes decide. */
function inferObject(id: unknown, fallback: ItemObject): ItemObject {
  if (typeof id === 'string') {
    if (id.startsWith('pc_')) return 'products_collection';
    if (id.startsWith('sku_')) return 'sku';
    if (id.startsWith('prod_')) return 'product';
  }
  return fallback;
}

const ITEM_OBJECTS: readonly string[] = ['product', 'sku', 'products_collection'];

function checkRef(where: string, value: unknown, fallback: ItemObject, collectionsOnly: boolean): ItemRef {
  const raw: Record<string, unknown> = typeof value === 'string' ? { id: value } : isRecord(value) ? { ...value } : {};
  if (typeof value !== 'string' && !isRecord(value)) {
    throw new RuleDefinitionError(`${where} takes product, SKU or collection references ({ id, source_id, object })`);
  }
  const object = raw.object ?? inferObject(raw.id, collectionsOnly ? 'products_collection' : fallback);
  if (typeof object !== 'string' || !ITEM_OBJECTS.includes(object)) {
    throw new RuleDefinitionError(`${where}: object should be equal to one of the allowed values [ product, sku, products_collection ]`);
  }
  if (collectionsOnly && object !== 'products_collection') {
    throw new RuleDefinitionError(`${where} takes product collections only`);
  }
  const hasId = typeof raw.id === 'string' && raw.id !== '';
  const hasSourceId = typeof raw.source_id === 'string' && raw.source_id !== '';
  if (object === 'products_collection' && !hasId) throw new RuleDefinitionError(`${where}: a products_collection reference needs its id`);
  if (!hasId && !hasSourceId) throw new RuleDefinitionError(`${where}: a reference needs an id or a source_id`);
  return { ...raw, object: object as ItemObject };
}

function checkValues(where: string, spec: RuleNameSpec, operator: RuleOperator, values: unknown[]): unknown[] {
  const exactlyOne = (what: string, test: (v: unknown) => boolean) => {
    if (values.length !== 1 || !test(values[0])) throw new RuleDefinitionError(`${where} takes exactly one ${what}`);
    return values;
  };
  const atLeastOne = (what: string, test: (v: unknown) => boolean) => {
    if (values.length === 0 || !values.every(test)) throw new RuleDefinitionError(`${where} takes one or more ${what}`);
    return values;
  };
  switch (spec.kind) {
    case 'segment':
      // The dashboard lets `$is` list several segments; it then means membership of any (reference 5.4).
      return atLeastOne('segment ids (strings)', (v) => typeof v === 'string' && v !== '');
    case 'number':
    case 'line-number':
    case 'lines-number':
    case 'counter':
      return operator === '$in' || operator === '$not_in' ? atLeastOne('numbers', isNumber) : exactlyOne('number', isNumber);
    case 'line-flag':
    case 'holder':
      return exactlyOne('boolean', (v) => typeof v === 'boolean');
    case 'items': {
      const fallback = spec.defaultObject ?? 'product';
      if (values.length === 0) throw new RuleDefinitionError(`${where} takes one or more references`);
      return values.map((v, i) => checkRef(`${where}[${i}]`, v, fallback, operator === '$from'));
    }
    case 'metadata':
    case 'line-metadata':
    case 'lines-metadata':
      switch (operator) {
        case '$is':
        case '$is_not':
          return exactlyOne('value (string, number, boolean or null)', (v) => v === null || isPrimitive(v));
        case '$in':
        case '$not_in':
          return atLeastOne('strings, numbers or booleans', isPrimitive);
        case '$less_than':
        case '$less_than_or_equal':
        case '$more_than':
        case '$more_than_or_equal':
          return exactlyOne('number or ISO 8601 date', (v) => isNumber(v) || isDate(v));
        case '$starts_with':
        case '$ends_with':
        case '$contains':
          return atLeastOne('strings', (v) => typeof v === 'string');
        case '$count':
        case '$count_more':
        case '$count_less':
          return exactlyOne('non-negative integer', isDays);
        case '$not_differ':
        case '$not_intersect':
          if (!values.every(isPrimitive)) throw new RuleDefinitionError(`${where} takes strings, numbers or booleans`);
          return values;
        case '$after':
        case '$before':
          return exactlyOne('ISO 8601 date or date-time', isDate);
        case '$more_than_ago':
        case '$less_than_ago':
        case '$is_days_ago':
        case '$more_than_future':
        case '$less_than_future':
        case '$is_days_in_future':
          return exactlyOne('non-negative integer (days)', isDays);
        case '$from':
          break;
      }
      throw new RuleDefinitionError(`${where} cannot be used with this rule`);
  }
}

function checkConditions(label: string, spec: RuleNameSpec, raw: unknown): Partial<Record<RuleOperator, unknown[]>> {
  if (raw !== undefined && raw !== null && !isRecord(raw)) throw new RuleDefinitionError(`${label}: conditions should be object`);
  const out: Partial<Record<RuleOperator, unknown[]>> = {};
  for (const [given, operand] of Object.entries(raw ?? {})) {
    const operator = OPERATOR_ALIASES[given] ?? given;
    if (UNSUPPORTED_OPERATORS.has(operator)) {
      throw new RuleDefinitionError(`${label}: operator '${given}' is not supported`);
    }
    if (!(RULE_OPERATORS as readonly string[]).includes(operator)) {
      throw new RuleDefinitionError(`${label}: unknown operator '${given}'`);
    }
    const op = operator as RuleOperator;
    if (!OPERATORS_BY_KIND[spec.kind].has(op)) {
      throw new RuleDefinitionError(`${label}: operator '${given}' cannot be used with this rule`);
    }
    if (!Array.isArray(operand)) throw new RuleDefinitionError(`${label}: operator '${given}' takes an array of values`);
    if (out[op] !== undefined) throw new RuleDefinitionError(`${label}: operator '${op}' is given twice`);
    out[op] = checkValues(`${label}: operator '${given}'`, spec, op, operand);
  }
  // An item rule without conditions matches every line (its sub-rules then do the work); any other rule
  // without a condition would pass vacuously, which is never what was meant.
  if (Object.keys(out).length === 0 && spec.kind !== 'items') {
    throw new RuleDefinitionError(`${label} must have at least one condition`);
  }
  return out;
}

function checkMessage(label: string, raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  if (!isRecord(raw)) throw new RuleDefinitionError(`${label}: error should be object`);
  const message = raw.message;
  if (message === undefined || message === null || message === '') return null;
  if (typeof message !== 'string') throw new RuleDefinitionError(`${label}: error.message should be string`);
  return message;
}

const RULE_KEY = /^[1-9]\d*$/;

interface Checked {
  json: Record<string, unknown>;
  group: CompiledGroup;
}

/**
 * Checks one level of rules (`{ "1": {...}, "2": {...}, logic }`). `insideItems` says whether an item rule
 * encloses this level, which line sub-rules need.
 */
function checkGroup(raw: unknown, prefix: string, depth: number, insideItems: boolean): Checked {
  const where = prefix === '' ? 'rules' : `Rule ${prefix}: rules`;
  if (raw === undefined || raw === null) return { json: prefix === '' ? { logic: '' } : {}, group: { logic: null, rules: new Map() } };
  if (!isRecord(raw)) throw new RuleDefinitionError(`${where} should be object`);
  const rules = new Map<string, CompiledRule>();
  const json: Record<string, unknown> = {};
  let logicText = '';
  let logicGiven = false;
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'logic') {
      if (value !== null && value !== undefined && typeof value !== 'string') throw new RuleDefinitionError(`${where}.logic should be string`);
      logicText = value ?? '';
      logicGiven = typeof value === 'string';
      continue;
    }
    if (!RULE_KEY.test(key)) throw new RuleDefinitionError(`${where}: '${key}' is neither a rule number nor 'logic'`);
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const checked = checkRule(value, path, depth, insideItems);
    rules.set(key, checked.rule);
    json[key] = checked.json;
  }
  let logic: LogicNode | null;
  try {
    logic = parseLogic(logicText);
  } catch (error) {
    if (error instanceof LogicError) throw new RuleDefinitionError(`${where}.logic '${logicText}': ${error.message}`);
    throw error;
  }
  for (const key of logicKeys(logic)) {
    if (!rules.has(key)) throw new RuleDefinitionError(`${where}.logic '${logicText}' names rule ${prefix === '' ? key : `${prefix}.${key}`}, which is not defined`);
  }
  // The vendor's own example nests rules without a logic; all of them must then hold.
  if (logic === null && rules.size > 0) {
    const keys = [...rules.keys()].sort((a, b) => Number(a) - Number(b));
    logic = keys.map((key): LogicNode => ({ type: 'rule', key })).reduce((left, right) => ({ type: 'and', left, right }));
  }
  if (logicGiven || prefix === '') json.logic = logicText;
  return { json, group: { logic, rules } };
}

function checkRule(raw: unknown, path: string, depth: number, insideItems: boolean): { rule: CompiledRule; json: Record<string, unknown> } {
  if (!isRecord(raw)) throw new RuleDefinitionError(`Rule ${path} should be object`);
  if (typeof raw.name !== 'string' || raw.name === '') throw new RuleDefinitionError(`Rule ${path} should have required property 'name'`);
  const name = LEGACY_NAMES[raw.name] ?? raw.name;
  const label = `Rule ${path} '${name}'`;
  const spec = RULE_NAMES[name];
  if (!spec) throw new RuleDefinitionError(`Rule ${path}: unknown or unsupported rule name '${raw.name}'`);
  if (spec.scope === 'line' && !insideItems) {
    throw new RuleDefinitionError(`${label} can only be a sub-rule of an order item rule (order.items.*, product.id, sku.id)`);
  }
  let property: string | null = null;
  if (spec.needsProperty) {
    if (typeof raw.property !== 'string' || raw.property === '') throw new RuleDefinitionError(`Rule '${name}' must have a 'property' (rule ${path})`);
    property = raw.property;
  } else if (raw.property !== undefined && raw.property !== null && raw.property !== '') {
    throw new RuleDefinitionError(`${label} does not take a 'property'`);
  }
  const conditions = checkConditions(label, spec, raw.conditions);
  const hasChildren = isRecord(raw.rules) && Object.keys(raw.rules).some((k) => k !== 'logic');
  if (hasChildren && depth >= MAX_RULE_DEPTH) {
    throw new RuleDefinitionError(`${label}: sub-rules may nest at most ${MAX_RULE_DEPTH} levels deep`);
  }
  const children = checkGroup(raw.rules, path, depth + 1, insideItems || spec.kind === 'items');
  const error = checkMessage(label, raw.error);
  const json: Record<string, unknown> = { name, property, conditions, rules: children.json };
  if (error !== null) json.error = { message: error };
  return { rule: { path, name, spec, property, conditions, children: children.group, error }, json };
}

function checkLimit(where: string, value: unknown, minimum: number): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || (value as number) < minimum) throw new RuleDefinitionError(`${where} should be an integer >= ${minimum}`);
  return value as number;
}

function checkEntry(where: string, raw: unknown): ApplicableToEntry {
  if (!isRecord(raw)) throw new RuleDefinitionError(`${where} should be object`);
  const ref = checkRef(where, raw, 'product', false);
  const effect = raw.effect ?? 'APPLY_TO_EVERY';
  if (typeof effect !== 'string' || !(APPLICABLE_TO_EFFECTS as readonly string[]).includes(effect)) {
    throw new RuleDefinitionError(`${where}.effect should be equal to one of the allowed values [ ${APPLICABLE_TO_EFFECTS.join(', ')} ]`);
  }
  if (raw.target !== undefined && raw.target !== null && raw.target !== 'ITEM' && raw.target !== 'UNIT') {
    throw new RuleDefinitionError(`${where}.target should be equal to one of the allowed values [ ITEM, UNIT ]`);
  }
  checkLimit(`${where}.skip_initially`, raw.skip_initially, 0);
  checkLimit(`${where}.repeat`, raw.repeat, 1);
  checkLimit(`${where}.quantity_limit`, raw.quantity_limit, 0);
  checkLimit(`${where}.aggregated_quantity_limit`, raw.aggregated_quantity_limit, 0);
  return { ...ref, effect: effect as ApplicableToEffect };
}

function checkApplicableTo(raw: unknown): ApplicableTo {
  if (raw === undefined || raw === null) return { included: [], excluded: [], included_all: false };
  if (!isRecord(raw)) throw new RuleDefinitionError('applicable_to should be object');
  const list = (member: 'included' | 'excluded') => {
    const value = raw[member];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new RuleDefinitionError(`applicable_to.${member} should be array`);
    return value.map((entry, i) => checkEntry(`applicable_to.${member}[${i}]`, entry));
  };
  const includedAll = raw.included_all ?? false;
  if (typeof includedAll !== 'boolean') throw new RuleDefinitionError('applicable_to.included_all should be boolean');
  return { included: list('included'), excluded: list('excluded'), included_all: includedAll };
}

/** Items a rule marks as discount targets through a `*.discount_applicable: true` sub-rule. */
function collectRuleTargets(group: CompiledGroup, out: ApplicableToEntry[]): void {
  for (const rule of group.rules.values()) {
    if (rule.spec.kind === 'items') {
      const marked = [...rule.children.rules.values()].some(
        (child) => child.spec.kind === 'line-flag' && child.conditions.$is?.[0] === true,
      );
      if (marked) {
        const refs = [...(rule.conditions.$is ?? []), ...(rule.conditions.$in ?? [])] as ItemRef[];
        const from = (rule.conditions.$from ?? []) as ItemRef[];
        for (const ref of refs.length > 0 ? refs : from) out.push({ ...ref, effect: 'APPLY_TO_EVERY' });
      }
    }
    collectRuleTargets(rule.children, out);
  }
}

export interface DefinitionInput {
  rules?: unknown;
  error?: unknown;
  applicable_to?: unknown;
}

/** Checks a definition and answers it normalised; throws RuleDefinitionError with details. */
export function normaliseDefinition(input: DefinitionInput): NormalisedDefinition {
  const { json } = checkGroup(input.rules, '', 1, false);
  const error = checkMessage('Validation rule', input.error);
  return { rules: json, error: error === null ? null : { message: error }, applicable_to: checkApplicableTo(input.applicable_to) };
}

/** Compiles a stored (normalised) definition for evaluation. */
export function compileRuleSet(definition: NormalisedDefinition): CompiledRuleSet {
  const { group } = checkGroup(definition.rules, '', 1, false);
  const applicableTo = checkApplicableTo(definition.applicable_to);
  const ruleTargets: ApplicableToEntry[] = [];
  collectRuleTargets(group, ruleTargets);
  return { group, error: definition.error?.message ?? null, applicableTo, ruleTargets };
}

/** Product collections and segments a definition names, for "in use" checks. */
export function referencedObjects(definition: NormalisedDefinition): { collections: string[]; segments: string[] } {
  const collections = new Set<string>();
  const segments = new Set<string>();
  const visit = (group: CompiledGroup) => {
    for (const rule of group.rules.values()) {
      if (rule.spec.kind === 'segment') {
        for (const operator of ['$is', '$is_not', '$in', '$not_in'] as const) {
          for (const id of rule.conditions[operator] ?? []) segments.add(String(id));
        }
      }
      if (rule.spec.kind === 'items') {
        for (const operator of ['$is', '$in', '$from'] as const) {
          for (const ref of (rule.conditions[operator] ?? []) as ItemRef[]) {
            if (ref.object === 'products_collection' && typeof ref.id === 'string') collections.add(ref.id);
          }
        }
      }
      visit(rule.children);
    }
  };
  const compiled = compileRuleSet(definition);
  visit(compiled.group);
  for (const entry of [...compiled.applicableTo.included, ...compiled.applicableTo.excluded]) {
    if (entry.object === 'products_collection' && typeof entry.id === 'string') collections.add(entry.id);
  }
  return { collections: [...collections], segments: [...segments] };
}
