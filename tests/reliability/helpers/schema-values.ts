import { isObject } from '../../../scripts/lib/json.ts';
import type { Schema } from './openapi.ts';
import type { Random } from './random.ts';

// Values drawn from a route's JSON schema: a plausible valid value to start from, and the ways to break
// one member of it (a wrong type, a missing required member, a value outside the declared limits).

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';
export type PathStep = string | number;

export const HUGE_STRING = 'x'.repeat(1024 * 1024);
/** ~1 MB of two-byte characters: lengths in characters and in bytes differ. */
export const HUGE_UNICODE = 'é'.repeat(512 * 1024);

export function branches(schema: Schema): Schema[] {
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  return alternatives ? alternatives.filter(isObject) : [schema];
}

function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  return 'object';
}

/** JSON types the schema accepts; null means it accepts any value. */
export function acceptedTypes(schema: Schema): Set<JsonType> | null {
  const out = new Set<JsonType>();
  for (const branch of branches(schema)) {
    if (Array.isArray(branch.enum)) {
      for (const v of branch.enum) out.add(typeOfValue(v));
    } else if ('const' in branch) {
      out.add(typeOfValue(branch.const));
    } else if (typeof branch.type === 'string') {
      out.add(branch.type as JsonType);
      if (branch.type === 'number') out.add('integer');
    } else if (isObject(branch.properties)) {
      out.add('object');
    } else {
      return null;
    }
  }
  return out;
}

function formatSample(format: string): string | null {
  switch (format) {
    case 'date':
    case 'date-or-date-time':
      return '2026-03-02';
    case 'date-time':
      return '2026-03-02T10:00:00.000Z';
    case 'uri':
      return 'https://example.com/hook';
    case 'email':
      return 'someone@example.com';
    default:
      return null;
  }
}

const PATTERN_CANDIDATES = ['USD', 'PT1H', 'P1D', 'https://example.com', '1', '42', '1.5', 'abc', 'abc_1'];

function stringSample(schema: Schema, rnd: Random): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 40;
  const format = typeof schema.format === 'string' ? formatSample(schema.format) : null;
  if (format) return format;
  if (typeof schema.pattern === 'string') {
    const re = new RegExp(schema.pattern, 'u');
    const found = PATTERN_CANDIDATES.find((c) => re.test(c) && c.length >= min && c.length <= max);
    if (found) return found;
  }
  const base = rnd.pick(['sample', 'x', 'Value 1', 'a-b_c.d']);
  return base.padEnd(min, 'x').slice(0, Math.max(min, Math.min(base.length, max)));
}

function numberSample(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : null;
  const max = typeof schema.maximum === 'number' ? schema.maximum : null;
  let value = 1;
  if (min !== null && value < min) value = min;
  if (max !== null && value > max) value = max;
  return integer ? Math.ceil(value) : value;
}

/**
 * A value meant to satisfy the schema. Required members are always there; optional ones with
 * probability `optional` (less the deeper it goes).
 */
export function sample(schema: Schema, rnd: Random, optional = 0.5, depth = 0): unknown {
  const choices = branches(schema);
  const nonNull = choices.filter((b) => b.type !== 'null');
  const branch = nonNull.length > 0 ? rnd.pick(nonNull) : choices[0] ?? {};
  if (Array.isArray(branch.enum)) return rnd.pick(branch.enum);
  if ('const' in branch) return branch.const;
  const type = typeof branch.type === 'string' ? branch.type : isObject(branch.properties) ? 'object' : null;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isObject(branch.properties) ? branch.properties : {};
      const required = new Set(Array.isArray(branch.required) ? branch.required.map(String) : []);
      for (const [key, sub] of Object.entries(props)) {
        if (!isObject(sub)) continue;
        if (required.has(key) || (depth < 4 && rnd.chance(optional / (depth + 1)))) out[key] = sample(sub, rnd, optional, depth + 1);
      }
      return out;
    }
    case 'array': {
      const min = typeof branch.minItems === 'number' ? branch.minItems : 0;
      const max = typeof branch.maxItems === 'number' ? branch.maxItems : 3;
      const count = Math.min(max, Math.max(min, depth < 3 ? rnd.int(3) : 0));
      const items = isObject(branch.items) ? branch.items : {};
      return Array.from({ length: count }, () => sample(items, rnd, optional, depth + 1));
    }
    case 'string':
      return stringSample(branch, rnd);
    case 'integer':
      return numberSample(branch, true);
    case 'number':
      return numberSample(branch, false);
    case 'boolean':
      return rnd.chance(0.5);
    case 'null':
      return null;
    default:
      return 'anything';
  }
}

export interface Slot {
  path: PathStep[];
  schema: Schema;
}

/** Every place in `value` that the schema describes, the root included. */
export function slots(value: unknown, schema: Schema, path: PathStep[] = [], out: Slot[] = []): Slot[] {
  out.push({ path, schema });
  if (path.length > 12) return out;
  if (isObject(value)) {
    const branch = branches(schema).find((b) => isObject(b.properties));
    const props = branch && isObject(branch.properties) ? branch.properties : {};
    for (const [key, sub] of Object.entries(value)) {
      const subSchema = props[key];
      if (isObject(subSchema)) slots(sub, subSchema, [...path, key], out);
    }
  } else if (Array.isArray(value)) {
    const branch = branches(schema).find((b) => isObject(b.items));
    if (branch && isObject(branch.items)) value.forEach((item, i) => slots(item, branch.items as Schema, [...path, i], out));
  }
  return out;
}

export function setAt(root: unknown, path: PathStep[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root);
  let node: unknown = copy;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[step];
  (node as Record<string | number, unknown>)[path[path.length - 1] as PathStep] = value;
  return copy;
}

export function deleteAt(root: unknown, path: PathStep[]): unknown {
  const copy = structuredClone(root);
  let node: unknown = copy;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[step];
  const last = path[path.length - 1] as PathStep;
  if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
  else delete (node as Record<string, unknown>)[String(last)];
  return copy;
}

const BY_TYPE: Array<[JsonType, () => unknown]> = [
  ['string', () => 'not-the-right-type'],
  ['integer', () => 7],
  ['number', () => 2.5],
  ['boolean', () => true],
  ['null', () => null],
  ['object', () => ({ unexpected: { nested: [1, 'two'] } })],
  ['array', () => ['a', 1, null]],
];

/** A value of a JSON type the schema does not accept, or undefined when it accepts everything. */
export function wrongType(schema: Schema, rnd: Random): unknown {
  const accepted = acceptedTypes(schema);
  if (accepted === null) return undefined;
  const candidates = BY_TYPE.filter(([type]) => !accepted.has(type) && !(type === 'integer' && accepted.has('number')));
  if (candidates.length === 0) return undefined;
  return rnd.pick(candidates)[1]();
}

/** Values that break a declared limit of the schema (enum, length, range, format, pattern, item count). */
export function outOfBounds(schema: Schema, rnd: Random, example: unknown): unknown[] {
  const out: unknown[] = [];
  for (const branch of branches(schema)) {
    if (Array.isArray(branch.enum)) out.push('NOT_ONE_OF_THE_VALUES', String(branch.enum[0]).toLowerCase() + ' ');
    if (typeof branch.maxLength === 'number') out.push('y'.repeat(branch.maxLength + 1));
    if (typeof branch.minLength === 'number' && branch.minLength > 0) out.push('');
    if (typeof branch.pattern === 'string') out.push('!! not matching !!');
    if (branch.format === 'date' || branch.format === 'date-or-date-time') out.push('2026-02-30', '2026-13-01', 'tomorrow', '99999-01-01');
    if (branch.format === 'date-time') out.push('2026-03-02T25:61:00Z', 'yesterday', '2026-03-02T10:00:00+99:99');
    if (branch.format === 'uri') out.push('not a uri', 'javascript:alert(1)');
    if (branch.type === 'integer' || branch.type === 'number') {
      if (typeof branch.minimum === 'number') out.push(branch.minimum - 1);
      if (typeof branch.exclusiveMinimum === 'number') out.push(branch.exclusiveMinimum);
      if (typeof branch.maximum === 'number') out.push(branch.maximum + 1);
      out.push(1e308, -1e308, 2 ** 53 + 2, -0.5);
      if (branch.type === 'integer') out.push(1.5);
    }
    if (branch.type === 'array') {
      const item = Array.isArray(example) && example.length > 0 ? example[0] : 'item';
      if (typeof branch.maxItems === 'number' && branch.maxItems <= 1000) out.push(Array.from({ length: branch.maxItems + 1 }, () => structuredClone(item)));
      if (typeof branch.minItems === 'number' && branch.minItems > 0) out.push([]);
    }
    if (branch.additionalProperties === false && isObject(example)) out.push({ ...example, not_a_declared_member: 1 });
  }
  return out.length > 0 ? [rnd.pick(out)] : [];
}

/** `levels` nested arrays or objects around a scalar. */
export function deeplyNested(levels: number, rnd: Random): unknown {
  let value: unknown = rnd.pick(['bottom', 1, null]);
  const arrays = rnd.chance(0.5);
  for (let i = 0; i < levels; i++) value = arrays ? [value] : { a: value };
  return value;
}

export const ODD_STRINGS: readonly string[] = [
  'with\u0000nul',
  '\u202eright-to-left',
  'zero\u200bwidth',
  '\ufeffbom',
  '😀 emoji 😀',
  "' OR '1'='1",
  '"; DROP TABLE vouchers; --',
  '__proto__',
  'constructor',
  '${7*7}{{7*7}}',
  '<script>alert(1)</script>',
  '\\u0000',
  '%00%ZZ%',
  '../../etc/passwd',
  'line\r\nbreak',
  '\t',
  ' ',
  '',
];
