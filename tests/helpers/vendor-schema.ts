import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import { loadVendorOpenApi, vendorOpenApiPath, type VendorDocument } from '../../scripts/lib/vendor-openapi.ts';

// Checks an answer against the vendor's response schema of an operation (vendor OpenAPI, v2018-08-01):
// the members it requires and the JSON types of every member it describes, however deep. Formats,
// enums, patterns and lengths are not checked: the vendor's documents list example values there more
// than rules. `oneOf` is read as `anyOf` (the vendor's branches overlap). A member may be null only where
// the schema says `nullable: true` (OpenAPI 3.0) or where VENDOR_NULLS names it: a member the answer has
// no value for is left out, as the vendor's examples do, whether or not the schema requires it.
// Shared by the tests of single operations and a conformance suite over all of them.

/** Whether the vendor document is on this machine (see scripts/lib/vendor-openapi.ts). */
export const vendorSchemasAvailable = vendorOpenApiPath() !== null;

/** The id the vendor's schemas are registered under; their `#/components/…` references are rewritten to it. */
const VENDOR_ID = 'https://vendor-openapi.invalid/v2018-08-01.json';

/** Keywords kept: the ones that say which members exist and what type they are. */
const KEPT = new Set(['type', 'required', 'properties', 'items', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'nullable', '$ref', 'not']);

/**
 * Members that may be null although the vendor's schema does not say `nullable` (wherever they occur, by
 * name), each with why: the vendor's own example answers carry null there, against its schema. Every
 * other member is null only where the schema says `nullable: true`; one without a value is left out.
 */
export const VENDOR_NULLS: Record<string, string> = {
  validity_timeframe: "a voucher's, campaign's or promotion tier's: null in the vendor's example vouchers (GET /v1/vouchers/{code}), campaign templates and redemptions",
  validity_day_of_week: 'as validity_timeframe',
  validity_hours: "as validity_timeframe (the vendor's campaign-setup and customer redeemables examples)",
  discount: "a gift card's or loyalty card's: null in the vendor's example vouchers (GET /v1/vouchers/{code}, GET /v1/vouchers) and redemptions",
};

function shapeOnly(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shapeOnly);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key) || key === 'nullable') continue;
    if (key === '$ref') out.$ref = typeof value === 'string' && value.startsWith('#/') ? `${VENDOR_ID}${value}` : value;
    else if (key === 'oneOf') out.anyOf = shapeOnly(value);
    else if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, VENDOR_NULLS[name] !== undefined ? orNull(shapeOnly(sub)) : shapeOnly(sub)]));
    } else out[key] = shapeOnly(value);
  }
  // OpenAPI 3.0: `nullable: true` admits null besides what the schema describes, with or without a `type`
  // next to it (`allOf` of a `$ref` included).
  return (schema as { nullable?: unknown }).nullable === true ? orNull(out) : out;
}

/** `if null then anything else the schema`: only the schema's own errors are reported for a non-null value. */
function orNull(schema: unknown): unknown {
  return { if: { type: 'null' }, then: true, else: schema };
}

let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

function validator(document: VendorDocument, method: string, path: string, status: string): ValidateFunction {
  const key = `${method} ${path} ${status}`;
  const known = compiled.get(key);
  if (known) return known;
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true });
    const schemas = Object.fromEntries(Object.entries(document.components.schemas).map(([name, schema]) => [name, shapeOnly(schema)]));
    ajv.addSchema({ $id: VENDOR_ID, components: { schemas } });
  }
  const operation = document.paths[path]?.[method.toLowerCase()];
  assert.ok(operation, `the vendor has no operation ${method} ${path}`);
  const schema = operation.responses?.[status]?.content?.['application/json']?.schema;
  assert.ok(schema, `the vendor documents no JSON answer ${status} for ${method} ${path}`);
  const validate = ajv.compile(shapeOnly(schema) as object);
  compiled.set(key, validate);
  return validate;
}

/** The problems of `body` against the vendor's response schema (empty when it conforms). */
export function vendorResponseProblems(method: string, path: string, body: unknown, status = '200'): string[] {
  const validate = validator(loadVendorOpenApi(), method, path, status);
  if (validate(body)) return [];
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath || '(answer)'} ${e.message ?? e.keyword}`);
}

/**
 * Fails unless `body` has every member the vendor's answer requires, each of the documented type.
 * `ignoring` names vendor schema defects the answer deliberately differs from (each with its reason in
 * the caller), as `instancePath message` prefixes.
 */
export function assertVendorResponse(method: string, path: string, body: unknown, options: { status?: string; ignoring?: readonly string[] } = {}): void {
  const problems = vendorResponseProblems(method, path, body, options.status).filter((p) => !(options.ignoring ?? []).some((ignored) => p.startsWith(ignored)));
  assert.deepEqual(problems, [], `${method} ${path} answered outside the vendor's schema: ${JSON.stringify(body).slice(0, 600)}`);
}

/** The vendor's example request bodies of an operation, by example name. */
export function vendorRequestExamples(method: string, path: string): Record<string, unknown> {
  const operation = loadVendorOpenApi().paths[path]?.[method.toLowerCase()];
  const examples = operation?.requestBody?.content?.['application/json']?.examples ?? {};
  return Object.fromEntries(Object.entries(examples).map(([name, example]) => [name, example.value]));
}
