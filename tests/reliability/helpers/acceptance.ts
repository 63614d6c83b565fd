import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import qs from 'qs';
import secureJson from 'secure-json-parse';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../../src/http/plugins/body-parsers.ts';
import { lenientBody, lenientBodyKind, metadataPaths, nullMetadataAsEmpty } from '../../../src/http/plugins/request-leniency.ts';
import { isDateOrDateTime, textProblem } from '../../../src/api/checks.ts';
import { querySchema, type Operation, type Schema } from './openapi.ts';

// Decides, before sending, whether a generated request can only be refused: bad credentials, a body
// that cannot be parsed, nests too deep or does not match the route's schema, a query or path that does
// not, text with NUL or lone surrogates. The malformed-input sweep sends write requests only when this
// says "refused", so that a correct server cannot change stored data — and a 2xx to such a request is
// itself a finding.
//
// The checks mirror src/app.ts and src/http/plugins (validators, body parsers, text guard, router limits)
// and err towards "may be accepted": a request is called refused only when every reading of it is.

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, useDefaults: true, ...options });
  addFormats(ajv, ['date-time', 'date', 'time', 'email', 'uri', 'duration']);
  ajv.addFormat('date-or-date-time', { type: 'string', validate: isDateOrDateTime });
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });
const compiled = new WeakMap<Schema, ValidateFunction>();
const querySchemas = new WeakMap<Operation, Schema>();
const paramSchemas = new WeakMap<Operation, Schema>();

function validator(ajv: Ajv, schema: Schema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Text the server's guard refuses anywhere in a request (NUL, lone surrogates). */
function containsUnstorableText(value: unknown): boolean {
  return textProblem(value) !== null;
}

/** Whether Fastify would accept this parsed body (undefined = no body, validated as null). */
export function bodyAccepted(op: Operation, value: unknown): boolean {
  if (containsUnstorableText(value)) return false;
  if (!op.body) return true;
  const validate = validator(bodyAjv, op.body.schema);
  // Where an operation requires no body members, a body that carries nothing is read as the empty
  // payload before validation (src/http/plugins/request-leniency.ts).
  const lenient = lenientBodyKind(op.body.schema);
  if (lenient !== null) value = lenientBody(lenient, value);
  if (value === undefined || value === null) return validate(null);
  // Validation may coerce or fill defaults in place; never touch the caller's value. `metadata: null`
  // reads as `{}` where the route takes metadata (the same plugin).
  const copy = structuredClone(value);
  nullMetadataAsEmpty(copy, metadataPaths(op.body.schema));
  return validate(copy);
}

/** Parses the query string as the server does (src/app.ts querystringParser). */
export function parseQuery(query: string): unknown {
  return qs.parse(query, { depth: 6, arrayLimit: 100, parameterLimit: 1000 });
}

export function queryAccepted(op: Operation, query: string): boolean {
  const parsed = parseQuery(query);
  if (containsUnstorableText(parsed)) return false;
  if (op.queryParams.length === 0) return true;
  let schema = querySchemas.get(op);
  if (!schema) {
    schema = querySchema(op);
    querySchemas.set(op, schema);
  }
  return validator(textAjv, schema)(parsed);
}

/** Fastify's router refuses path parameters longer than this (maxParamLength), answering 404. */
const MAX_PARAM_LENGTH = 100;

export function paramsAccepted(op: Operation, params: Record<string, string>): boolean {
  const values = Object.values(params);
  if (values.some((v) => v.length > MAX_PARAM_LENGTH || containsUnstorableText(v))) return false;
  let schema = paramSchemas.get(op);
  if (!schema) {
    schema = {
      type: 'object',
      properties: Object.fromEntries(op.pathParams.map((p) => [p.name, p.schema])),
      required: op.pathParams.map((p) => p.name),
    };
    paramSchemas.set(op, schema);
  }
  return validator(textAjv, schema)({ ...params });
}

type Reading = 'json' | 'form' | 'other';

/** How the server may read a body sent with this Content-Type (every plausible reading). */
function readings(contentType: string | undefined): Reading[] {
  if (contentType === undefined) return ['other'];
  if (/^application\/json(\s*;.*)?$/.test(contentType)) return ['json'];
  if (/^application\/x-www-form-urlencoded(\s*;.*)?$/.test(contentType)) return ['form'];
  const media = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!media.includes('json') && !media.includes('form-urlencoded') && /^[a-z]+\/[a-z0-9.+-]+$/.test(media)) return ['other'];
  return ['json', 'form', 'other'];
}

function bodyRefusedAs(op: Operation, reading: Reading, text: string): boolean {
  if (reading === 'other') return text !== '' || !bodyAccepted(op, undefined);
  if (reading === 'form') {
    // Only operations that consume forms (OAuth) parse them; elsewhere a non-empty form is a 415.
    if (text === '') return !bodyAccepted(op, undefined);
    if (op.body?.contentType !== 'application/x-www-form-urlencoded') return true;
    return !bodyAccepted(op, Object.fromEntries(new URLSearchParams(text)));
  }
  if (text.trim() === '') return !bodyAccepted(op, undefined);
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) return true;
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    return true;
  }
  return !bodyAccepted(op, parsed);
}

export interface RequestParts {
  /** Credentials are missing or wrong. */
  authBroken: boolean;
  /** Decoded path parameter values; null when the path was bent in ways no decoder sees the same. */
  params: Record<string, string> | null;
  query: string;
  contentType: string | undefined;
  /** The body text; undefined for no body. */
  body: string | undefined;
}

/** True when the server can only refuse this request (so it cannot change anything). */
export function surelyRefused(op: Operation, parts: RequestParts): boolean {
  if (parts.authBroken && op.auth !== 'public') return true;
  // Without a console session every console-only operation answers 401.
  if (op.auth === 'console') return true;
  // Likewise without a customer's cockpit link (the sweeps send none) every cockpit operation answers 401.
  if (op.auth === 'cockpit') return true;
  if (parts.params && !paramsAccepted(op, parts.params)) return true;
  const text = parts.body ?? '';
  if (parts.body === undefined) {
    if (!bodyAccepted(op, undefined)) return true;
  } else if (readings(parts.contentType).every((r) => bodyRefusedAs(op, r, text))) {
    return true;
  }
  return !queryAccepted(op, parts.query);
}
