import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { STREAMED_BODY } from '../schemas/csv-imports.ts';

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
// `invalid_payload` ("Payload should be object"), because the request cannot mean anything there.
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

/** The body as validation sees it on an operation of this kind: unchanged, or the empty payload in place of one that carries nothing. */
export function lenientBody(kind: BodyKind, body: unknown): unknown {
  if (typeof body === 'object' && body !== null) return body;
  return kind === 'object' ? {} : [];
}

export function installRequestLeniency(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const kind = lenientBodyKind(route.schema?.body);
    if (kind === null) return;
    const hook: preValidationHookHandler = async (request: FastifyRequest) => {
      request.body = lenientBody(kind, request.body);
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [hook] : [hook, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
