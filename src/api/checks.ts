import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { FREE_FORM, freeFormProblem } from './free-form.ts';

// How values are held to the contract's schemas: the Ajv setup (formats, the free-form keyword,
// date-times normalized in place), the vendor's wording of the first violation, and the check of text a
// database cannot store. The HTTP layer runs these on every request (src/http/plugins/validation.ts);
// services run them on input that arrives another way (CSV rows).

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const DATE_OR_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A real calendar date or date-time: `2026-02-30` is refused rather than rolled over to March. */
export function isDateOrDateTime(value: string): boolean {
  const match = DATE_OR_DATE_TIME.exec(value);
  if (!match || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  return calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
}

/** JSON pointer segments, as Ajv writes instance paths. */
function pointer(path: ReadonlyArray<string | number>): string {
  return path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The `x-free-form` keyword: a marked member must keep within FREE_FORM_LIMITS (src/api/free-form.ts). */
const checkFreeForm: SchemaValidateFunction = (marked: unknown, data: unknown, _parent, context) => {
  const problem = marked === true ? freeFormProblem(data) : null;
  checkFreeForm.errors = problem
    ? [{ keyword: FREE_FORM, instancePath: `${context?.instancePath ?? ''}${pointer(problem.path)}`, message: problem.message, params: {} }]
    : [];
  return problem === null;
};

export function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, useDefaults: true, ...options });
  addFormats(ajv, ['date-time', 'date', 'time', 'email', 'uri', 'duration']);
  ajv.addFormat('date-or-date-time', { type: 'string', validate: isDateOrDateTime });
  ajv.addKeyword({ keyword: FREE_FORM, schemaType: 'boolean', errors: true, validate: checkFreeForm });
  return ajv;
}

type Normalizer = (value: unknown) => unknown;

/**
 * Builds a function that rewrites every `date-time` value the schema declares into the stored form
 * (`2026-01-01T08:00:00.000Z`): instants are then compared as text the same way on both databases,
 * whatever zone offset or precision the client sent. Runs on data the schema already accepted.
 */
function dateTimeNormalizer(schema: unknown, depth = 0): Normalizer | null {
  if (typeof schema !== 'object' || schema === null || depth > 32) return null;
  const node = schema as Record<string, unknown>;
  if (node.format === 'date-time') {
    // The format accepts what a Date cannot hold (a leap second `23:59:60Z`); such a value is left as sent
    // for the service to refuse with a 400, rather than thrown here as a 500.
    return (value) => {
      if (typeof value !== 'string') return value;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? value : date.toISOString();
    };
  }
  const branches = (['anyOf', 'oneOf', 'allOf'] as const)
    .flatMap((k) => (Array.isArray(node[k]) ? (node[k] as unknown[]) : []))
    .map((b) => dateTimeNormalizer(b, depth + 1))
    .filter((n): n is Normalizer => n !== null);
  const properties = Object.entries((node.properties as Record<string, unknown> | undefined) ?? {})
    .map(([key, sub]) => [key, dateTimeNormalizer(sub, depth + 1)] as const)
    .filter((entry): entry is readonly [string, Normalizer] => entry[1] !== null);
  const items = dateTimeNormalizer(node.items, depth + 1);
  if (branches.length === 0 && properties.length === 0 && !items) return null;
  return (value) => {
    let out = value;
    for (const branch of branches) out = branch(out);
    if (properties.length > 0 && typeof out === 'object' && out !== null && !Array.isArray(out)) {
      const record = out as Record<string, unknown>;
      for (const [key, normalize] of properties) if (key in record) record[key] = normalize(record[key]);
    }
    if (items && Array.isArray(out)) for (let i = 0; i < out.length; i++) out[i] = items(out[i]);
    return out;
  };
}

/** Compiles `schema` with `ajv`; what it accepts has its date-times rewritten into the stored form. */
export function compileNormalizing(ajv: Ajv, schema: object) {
  const validate = ajv.compile(schema);
  const normalize = dateTimeNormalizer(schema);
  if (!normalize) return validate;
  const wrapped = (data: unknown) => {
    const ok = validate(data);
    wrapped.errors = validate.errors;
    if (ok) normalize(data);
    return ok;
  };
  wrapped.errors = validate.errors;
  return wrapped;
}

let payloadAjv: Ajv | null = null;

/**
 * A check of values against a request body schema, exactly as the API checks JSON bodies (formats,
 * free-form limits, date-times normalized in place), for input that arrives another way: each row of a
 * CSV import is held to the schema of the JSON operation that creates the same object. The check answers
 * the first violation in the API's wording (`Property .price should be integer`), or null.
 */
export function compilePayloadCheck(schema: object): (value: unknown) => string | null {
  payloadAjv ??= makeAjv({ coerceTypes: false });
  const validate = compileNormalizing(payloadAjv, schema);
  return (value) => {
    if (validate(value)) return null;
    return describeValidationError(validate.errors ?? [], 'body');
  };
}

const SEGMENT_CHARACTERS = 40;
const SHOWN_SEGMENTS = 20;

/** One key of a path as text: control characters and lone surrogates spelled out, long keys cut. */
function segmentText(key: string): string {
  const safe = key.replace(/[\u0000-\u001f\u007f]|\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > SEGMENT_CHARACTERS ? `${safe.slice(0, SEGMENT_CHARACTERS)}…` : safe;
}

/** `.a.b[0]` for keys and indexes; a very deep path shows its first segments and its last one. */
function describePath(path: ReadonlyArray<string | number>): string {
  const text = (part: string | number) => (typeof part === 'number' || /^\d+$/.test(part) ? `[${part}]` : `.${segmentText(part)}`);
  if (path.length <= SHOWN_SEGMENTS + 1) return path.map(text).join('');
  return `${path.slice(0, SHOWN_SEGMENTS).map(text).join('')}.…${text(path[path.length - 1] as string | number)}`;
}

function propertyPath(instancePath: string): string {
  if (instancePath === '') return '';
  return describePath(
    instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
  );
}

/** Turns the first schema violation into the vendor's wording (`Property .a.b should be integer`). */
export function describeValidationError(errors: readonly ErrorObject[], part: string): string {
  const subject = part === 'body' ? 'Payload' : part === 'querystring' ? 'Query' : part === 'params' ? 'Path' : 'Headers';
  const first = errors[0];
  if (!first) return `${subject} is invalid`;
  const where = (path: string) => (path === '' ? subject : `Property ${propertyPath(path)}`);
  // A nullable or multi-type member fails every branch of its anyOf; name all accepted types at once.
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  if (anyOf) {
    const branchTypes = errors
      .filter((e) => e.keyword === 'type' && e.instancePath === anyOf.instancePath)
      .map((e) => String((e.params as { type: string }).type));
    if (branchTypes.length > 0 && branchTypes.length === errors.length - 1) {
      return `${where(anyOf.instancePath)} should be ${[...new Set(branchTypes)].join(',')}`;
    }
  }
  const params = first.params as Record<string, unknown>;
  switch (first.keyword) {
    case 'required':
      return `${where(first.instancePath)} should have required property '${String(params.missingProperty)}'`;
    case 'type':
      return `${where(first.instancePath)} should be ${String(params.type)}`;
    case 'enum':
      return `${where(first.instancePath)} should be equal to one of the allowed values [ ${(params.allowedValues as unknown[]).join(', ')} ]`;
    case 'const':
      return `${where(first.instancePath)} should be equal to one of the allowed values [ ${String(params.allowedValue)} ]`;
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return `${where(first.instancePath)} must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'format':
      return `${where(first.instancePath)} should match format "${String(params.format)}"`;
    case 'additionalProperties':
      return `${where(first.instancePath)} should not have property '${String(params.additionalProperty)}'`;
    default:
      return `${where(first.instancePath)} ${first.message ?? 'is invalid'}`;
  }
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Why text cannot be stored: PostgreSQL refuses NUL in text and jsonb, and lone surrogates in jsonb. */
function textFault(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return null;
}

export interface TextProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * Whether any string or object key in `value` cannot be stored. Every request part of every request is
 * checked, and almost all are clean: this walk builds no paths (textProblem finds the path once there is
 * a fault). Recursive: the parsers bound the nesting.
 */
function hasTextFault(value: unknown): boolean {
  if (typeof value === 'string') return textFault(value) !== null;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const member of value) if (hasTextFault(member)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (textFault(key) !== null || hasTextFault(record[key])) return true;
  return false;
}

/**
 * The first string or object key anywhere in a parsed request part that cannot be stored, with its
 * path. Walks every level (the parsers bound the nesting) without recursion.
 */
export function textProblem(value: unknown): TextProblem | null {
  if (!hasTextFault(value)) return null;
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop() as { value: unknown; path: Array<string | number> };
    if (typeof current === 'string') {
      const fault = textFault(current);
      if (fault) return { path, message: fault };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(current) ? current.map((v, i) => [i, v]) : Object.entries(current);
    for (const [key] of entries) {
      const fault = typeof key === 'string' ? textFault(key) : null;
      if (fault) return { path: [...path, key], message: `has a key that ${fault}` };
    }
    // Reversed, so the first member is looked at first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, member] = entries[i] as [string | number, unknown];
      stack.push({ value: member, path: [...path, key] });
    }
  }
  return null;
}

export function describeTextProblem(problem: TextProblem, subject: string): string {
  return `${problem.path.length === 0 ? subject : `Property ${describePath(problem.path)}`} ${problem.message}`;
}
