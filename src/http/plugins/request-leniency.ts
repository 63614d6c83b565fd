import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { domainError } from '../../domain/errors.ts';
import { STREAMED_BODY } from '../../api/csv-imports.ts';
import { FREE_FORM } from '../../api/free-form.ts';

// One rule for the whole API, as the vendor applies it: where an operation requires no body members,
// a body that carries nothing it could read counts as no body at all. The vendor's generated clients
// send no body when a call has no payload (not even `{}`), older clients send `null` or an empty body
// labelled application/json, and the vendor ignores a bare JSON value such as `5` where it reads no
// body. So on those operations a missing or empty body, `null`, and a bare JSON value (number, string,
// boolean) become the empty payload (`{}`, or `[]` for an operation taking a list) before validation;
// the route's schema then checks it like any other payload.
//
// Which operations: those whose body schema is an object naming no required member, or a list with no
// minimum length. Operations that do require members keep refusing such bodies with 400
// `invalid_payload`, because the request cannot mean anything there; the details keep the vendor's
// "Payload should be object" and say what was missing ("no body was sent", and the members required),
// since a client that sent nothing would not see why its "object" is wrong. No route has a rule of its
// own: this table of two kinds, read from each route's schema, is the whole of it.
// A list where an object is taken (or an object where a list is) is still refused: it carries members,
// so it was most likely meant for another operation (`POST /v1/orders` given the body of
// `/v1/orders/import`), and silently doing nothing with it would hide the mistake.

type BodyKind = 'object' | 'array';

/** The kind of body an operation with this schema takes when it requires nothing, or null when it requires something (or is not JSON). */
export function lenientBodyKind(schema: unknown): BodyKind | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const node = schema as Record<string, unknown>;
  if (node[STREAMED_BODY] === true) return null;
  if (node.type === 'object') return Array.isArray(node.required) && node.required.length > 0 ? null : 'object';
  if (node.type === 'array') return typeof node.minItems === 'number' && node.minItems > 0 ? null : 'array';
  return null;
}

/** The members an operation's JSON object body requires, or null when it requires none (or takes no JSON object). */
export function requiredMembers(schema: unknown): string[] | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const node = schema as Record<string, unknown>;
  if (node[STREAMED_BODY] === true || node.type !== 'object' || !Array.isArray(node.required) || node.required.length === 0) return null;
  return node.required.map(String);
}

/** The refusal of a body that carries nothing (absent, empty, null, a bare value) where members are required, or null for any other body. */
export function emptyBodyProblem(required: string[], body: unknown): string | null {
  if (typeof body === 'object' && body !== null) return null;
  const members = required.map((name) => `'${name}'`).join(', ');
  const sent = body === undefined || body === '' ? 'no body was sent' : typeof body === 'string' ? 'a string was sent' : `${String(body)} was sent`;
  return `Payload should be object: ${sent}, and this operation requires a JSON object with ${members}`;
}

/** The body as validation sees it on an operation of this kind: unchanged, or the empty payload in place of one that carries nothing. */
export function lenientBody(kind: BodyKind, body: unknown): unknown {
  if (typeof body === 'object' && body !== null) return body;
  return kind === 'object' ? {} : [];
}

// `metadata: null`. The vendor's request schemas allow null for every metadata object they take (about
// 50 operations, at every depth: a redemption's `order.items[].metadata`, a publication's
// `customer.metadata`, …), and the generated clients send it. The vendor does not say what it means, so
// Punchcard reads it as the value it is: no metadata, the same as `{}`. On a create that is the same as
// leaving metadata out; on an update that replaces metadata (PUT of a customer, product, campaign, order
// upserted by a redemption, …) it clears it; where metadata is merged (the metadata bulk jobs) nothing is
// merged. Only members the route's schema takes as a metadata object are touched (found from the schema
// when the route is registered), never free-form content such as a `metadata` key inside metadata, and
// never a `metadata` member of another kind (an earning rule's `loyalty.order.metadata` increment).

/** Where a body schema takes metadata: each path a list of member names, `[]` standing for every item of a list. */
export function metadataPaths(schema: unknown): string[][] {
  const paths: string[][] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[], depth: number): void => {
    if (typeof node !== 'object' || node === null || depth > 12) return;
    const n = node as Record<string, unknown>;
    if (n[FREE_FORM] === true) return;
    for (const key of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(n[key])) for (const sub of n[key] as unknown[]) visit(sub, path, depth + 1);
    if (n.type === 'array') visit(n.items, [...path, '[]'], depth + 1);
    if (typeof n.properties !== 'object' || n.properties === null) return;
    for (const [name, member] of Object.entries(n.properties as Record<string, unknown>)) {
      if (name === 'metadata' && isMetadataObject(member)) {
        const found = [...path, name];
        if (!seen.has(found.join('.'))) paths.push(found);
        seen.add(found.join('.'));
      } else {
        visit(member, [...path, name], depth + 1);
      }
    }
  };
  visit(schema, [], 0);
  return paths;
}

/** A free-form object, alone or as a choice of a union (`metadata: object | null`). */
function isMetadataObject(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const n = node as Record<string, unknown>;
  if (n[FREE_FORM] === true && n.type === 'object') return true;
  return Array.isArray(n.anyOf) && n.anyOf.some(isMetadataObject);
}

/** `metadata: null` at each of the paths becomes `{}` (in place). */
export function nullMetadataAsEmpty(body: unknown, paths: string[][]): void {
  const walk = (node: unknown, path: string[], at: number): void => {
    if (typeof node !== 'object' || node === null) return;
    const step = path[at] as string;
    if (step === '[]') {
      if (Array.isArray(node)) for (const item of node) walk(item, path, at + 1);
      return;
    }
    if (Array.isArray(node)) return;
    const object = node as Record<string, unknown>;
    if (at === path.length - 1) {
      if (object[step] === null) object[step] = {};
      return;
    }
    walk(object[step], path, at + 1);
  };
  for (const path of paths) walk(body, path, 0);
}

export function installRequestLeniency(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const kind = lenientBodyKind(route.schema?.body);
    const required = requiredMembers(route.schema?.body);
    const metadata = metadataPaths(route.schema?.body);
    if (kind === null && required === null && metadata.length === 0) return;
    const hook: preValidationHookHandler = async (request: FastifyRequest) => {
      if (kind !== null) request.body = lenientBody(kind, request.body);
      const problem = required === null ? null : emptyBodyProblem(required, request.body);
      if (problem !== null) throw domainError('invalid_payload', { details: problem });
      if (metadata.length > 0) nullMetadataAsEmpty(request.body, metadata);
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [hook] : [hook, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
