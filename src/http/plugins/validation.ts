import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { domainError } from '../../domain/errors.ts';
import { STREAMED_BODY } from '../schemas/csv-imports.ts';
import { FREE_FORM, freeFormProblem } from '../schemas/free-form.ts';

// Two validators: bodies are checked exactly as sent (a string is never silently turned into a number),
// while query strings, path parameters and headers arrive as text and are coerced to their declared types.

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

/** The `x-free-form` keyword: a marked member must keep within FREE_FORM_LIMITS (src/http/schemas/free-form.ts). */
const checkFreeForm: SchemaValidateFunction = (marked: unknown, data: unknown, _parent, context) => {
  const problem = marked === true ? freeFormProblem(data) : null;
  checkFreeForm.errors = problem
    ? [{ keyword: FREE_FORM, instancePath: `${context?.instancePath ?? ''}${pointer(problem.path)}`, message: problem.message, params: {} }]
    : [];
  return problem === null;
};

function makeAjv(options: Options): Ajv {
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
function compileNormalizing(ajv: Ajv, schema: object) {
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

/** Whether a route reads its body itself as a stream (a file upload): documented, never parsed here. */
function isStreamedBody(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<string, unknown>)[STREAMED_BODY] === true;
}

type Validate = ReturnType<typeof compileNormalizing>;

// Compiling every route's schemas is most of what building the app costs (about 3 s of CPU for ~240
// operations), and a test process builds many apps that each call a handful of routes. So a route's
// validator is compiled when it first checks a request, once per schema object for the whole process
// (the schemas are module constants, shared by every app). `punchcard start` compiles them all before it
// listens (compilePendingValidators), so a served request never waits for a compile.
const compiled = { body: new WeakMap<object, Validate>(), text: new WeakMap<object, Validate>() };
const ajvs: { body: Ajv | null; text: Ajv | null } = { body: null, text: null };
const pending = new Set<() => void>();

function validatorFor(kind: 'body' | 'text', schema: object): Validate {
  let validate = compiled[kind].get(schema);
  if (!validate) {
    const ajv = (ajvs[kind] ??= makeAjv({ coerceTypes: kind === 'body' ? false : 'array' }));
    validate = compileNormalizing(ajv, schema);
    compiled[kind].set(schema, validate);
  }
  return validate;
}

function lazyValidator(kind: 'body' | 'text', schema: object) {
  let validate: Validate | null = null;
  const load = () => {
    validate ??= validatorFor(kind, schema);
    pending.delete(load);
    return validate;
  };
  pending.add(load);
  const check = (data: unknown) => {
    const v = validate ?? load();
    const ok = v(data);
    check.errors = v.errors;
    return ok;
  };
  check.errors = null as Validate['errors'];
  return check;
}

/** Compiles every validator not yet used (an invalid schema throws here, at start, not on a request). */
export function compilePendingValidators(): number {
  const loads = [...pending];
  for (const load of loads) load();
  return loads.length;
}

export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && isStreamedBody(schema)) return () => true;
    return lazyValidator(httpPart === 'body' ? 'body' : 'text', schema as FastifySchema & object);
  });
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

interface TextProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * The first string or object key anywhere in a parsed request part that cannot be stored, with its
 * path. Walks every level (the parsers bound the nesting) without recursion.
 */
export function textProblem(value: unknown): TextProblem | null {
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

function describeTextProblem(problem: TextProblem, subject: string): string {
  return `${problem.path.length === 0 ? subject : `Property ${describePath(problem.path)}`} ${problem.message}`;
}

/**
 * Text that cannot be stored is refused before it reaches a handler, on every route and at any depth:
 * PostgreSQL cannot keep NUL in text or jsonb, nor a lone surrogate in jsonb (either would surface later
 * as a 500 for whoever reads the row), and no identifier or name of ours may contain one. Both databases
 * refuse the same requests.
 */
export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const inPath = textProblem(request.params);
    if (inPath) throw domainError('invalid_query_params', { details: describeTextProblem(inPath, 'Path') });
    const inQuery = textProblem(request.query);
    if (inQuery) throw domainError('invalid_query_params', { details: describeTextProblem(inQuery, 'Query') });
    const inBody = textProblem(request.body);
    if (inBody) throw domainError('invalid_payload', { details: describeTextProblem(inBody, 'Payload') });
  });
}
