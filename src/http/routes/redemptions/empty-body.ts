import type { FastifyRequest } from 'fastify';

/**
 * For POST routes whose body is optional: the SDK posts rollbacks and legacy calls without a body (no
 * Content-Length, `Content-Type: application/json`), which means "no members" rather than a schema
 * violation. Runs before validation, so the body schema still checks whatever was sent.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
