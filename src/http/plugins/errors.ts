import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { DomainError, domainError } from '../../domain/errors.ts';
import { describeValidationError } from '../../api/checks.ts';
import { UnreadableStoredJson } from '../../lib/unreadable-rows.ts';

// Every failure leaves in the vendor's error body (DECISIONS 1): domain errors, schema violations,
// framework errors (bad JSON, oversized or unsupported bodies), unknown routes and wrong methods. A 5xx
// never carries internals; they go to the log under the request id.

export interface ErrorBody {
  code: number;
  key: string;
  message: string;
  details?: string;
  request_id: string;
  resource_id?: string;
  resource_type?: string;
  [extra: string]: unknown;
}

export function errorBody(error: DomainError, requestId: string): ErrorBody {
  return {
    code: error.status,
    key: error.key,
    message: error.message,
    ...(error.details !== undefined ? { details: error.details } : {}),
    request_id: requestId,
    ...(error.resourceId !== undefined ? { resource_id: error.resourceId } : {}),
    ...(error.resourceType !== undefined ? { resource_type: error.resourceType } : {}),
    ...(error.extra ?? {}),
  };
}

export function sendError(reply: FastifyReply, error: DomainError): FastifyReply {
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error, reply.request.id));
}

function toDomainError(error: FastifyError, requestId: string): DomainError | null {
  if (error instanceof DomainError) return error;
  // A list leaves such a row out (src/lib/unreadable-rows.ts); an answer about the object itself cannot.
  if (error instanceof UnreadableStoredJson) {
    return domainError('internal_error', {
      message: 'Stored data cannot be read',
      details: `A stored value this request needs is not valid JSON: the database holds damaged data. Quote request id ${requestId}`,
    });
  }
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    const details = describeValidationError(error.validation as never, part);
    return domainError(part === 'body' ? 'invalid_payload' : 'invalid_query_params', { details });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return domainError('payload_too_large', { details: 'Request body is larger than the 10485760 bytes allowed' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return domainError('unsupported_media_type', {
        details: 'Send JSON bodies as application/json (OAuth endpoints take application/x-www-form-urlencoded)',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return domainError('invalid_payload', { details: 'Request body size does not match Content-Length' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return domainError('malformed_json', { details: 'Request body is not valid JSON' });
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return domainError('invalid_payload', { message: 'Bad request', details: error.message });
  }
  return null;
}

const ROUTABLE_METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function installErrorHandling(app: FastifyInstance): void {
  // A shadow router of every registered path answers "is this path known under another method?" for 405s.
  const shadow = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (!ROUTABLE_METHODS.includes(method as HTTPMethod)) continue;
      if (shadow.find(method as HTTPMethod, route.url)) continue;
      shadow.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = toDomainError(error, request.id);
    if (mapped) {
      if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(reply, mapped);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, domainError('internal_error', { details: `Something went wrong; quote request id ${request.id}` }));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ROUTABLE_METHODS.filter((m) => m !== request.method && shadow.find(m, path) !== null);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(
        reply,
        domainError('method_not_allowed', {
          details: `${request.method} is not supported by this endpoint. Did you mean ${allowed.join(' or ')}?`,
        }),
      );
    }
    return sendError(reply, domainError('not_found', { details: `No route ${request.method} ${path}` }));
  });
}
