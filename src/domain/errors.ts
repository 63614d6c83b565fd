// Business code throws DomainErrors built by the named factories below. The key decides the HTTP status
// through one table, so a key can never be answered with two different statuses.

const STATUS_BY_KEY = {
  invalid_payload: 400,
  invalid_query_params: 400,
  malformed_json: 400,
  missing_parameters: 400,
  invalid_scope: 400,
  invalid_grant_type: 400,
  resource_in_use: 400,
  unauthorized: 401,
  forbidden: 403,
  missing_required_permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  duplicate_found: 409,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  idempotency_answer_withheld: 409,
  payload_too_large: 413,
  header_fields_too_large: 431,
  unsupported_media_type: 415,
  too_many_requests: 429,
  limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorKey = keyof typeof STATUS_BY_KEY;

const MESSAGE_BY_KEY: Record<ErrorKey, string> = {
  invalid_payload: 'Invalid payload',
  invalid_query_params: 'Invalid query params',
  malformed_json: 'Malformed JSON',
  missing_parameters: 'Missing parameters',
  invalid_scope: 'Invalid scope',
  invalid_grant_type: 'Invalid grant_type',
  resource_in_use: 'Resource in use',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  missing_required_permission: 'Missing permission',
  not_found: 'Resource not found',
  method_not_allowed: 'HTTP Method Not Allowed',
  request_timeout: 'Request timeout',
  duplicate_found: 'Duplicated resource found',
  idempotency_key_reused: 'Idempotency key reused',
  idempotency_request_in_progress: 'Request in progress',
  idempotency_answer_withheld: 'Answer not kept',
  payload_too_large: 'Payload too large',
  header_fields_too_large: 'Request header fields too large',
  unsupported_media_type: 'Unsupported media type',
  too_many_requests: 'Too many requests hit the API too quickly.',
  limit_exceeded: 'Limit exceeded',
  internal_error: 'Internal server error',
  service_unavailable: 'Service unavailable',
};

export interface DomainErrorInit {
  details?: string;
  message?: string;
  resourceId?: string;
  resourceType?: string;
  /** Extra members placed in the error body (e.g. `related_object_ids` of resource_in_use). */
  extra?: Record<string, unknown>;
}

export class DomainError extends Error {
  readonly key: string;
  readonly status: number;
  readonly details: string | undefined;
  readonly resourceId: string | undefined;
  readonly resourceType: string | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(key: string, status: number, init: DomainErrorInit & { message: string }) {
    super(init.message);
    this.key = key;
    this.status = status;
    this.details = init.details;
    this.resourceId = init.resourceId;
    this.resourceType = init.resourceType;
    this.extra = init.extra;
  }
}

export function domainError(key: ErrorKey, init: DomainErrorInit = {}): DomainError {
  return new DomainError(key, STATUS_BY_KEY[key], { ...init, message: init.message ?? MESSAGE_BY_KEY[key] });
}

/**
 * Keys added by later areas (redemption failure codes and the like) that are not in the table above are
 * business-rule violations: 400, as the vendor answers them.
 */
export function businessError(key: string, message: string, init: DomainErrorInit = {}): DomainError {
  const known = (STATUS_BY_KEY as Record<string, number>)[key];
  return new DomainError(key, known ?? 400, { ...init, message });
}

export function statusForKey(key: ErrorKey): number {
  return STATUS_BY_KEY[key];
}

export const errors = {
  notFound: (resourceType: string, id: string) =>
    domainError('not_found', { details: `Cannot find ${resourceType} with id ${id}`, resourceId: id, resourceType }),
  invalidPayload: (details: string) => domainError('invalid_payload', { details }),
  invalidQuery: (details: string) => domainError('invalid_query_params', { details }),
  duplicate: (resourceType: string, field: string, value: string) =>
    domainError('duplicate_found', {
      details: `Duplicated ${resourceType} exists with ${field} ${value}`,
      resourceId: value,
      resourceType,
    }),
  unauthorized: (details?: string) => domainError('unauthorized', details === undefined ? {} : { details }),
  forbidden: (details?: string) => domainError('forbidden', details === undefined ? {} : { details }),
  missingScope: (path: string) =>
    domainError('missing_required_permission', { details: `The token's scopes do not open ${path}` }),
};
