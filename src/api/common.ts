import Type, { type TInteger, type TNumberOptions, type TSchema, type TString } from 'typebox';
import { FreeFormObject } from './free-form.ts';

// Shapes shared by every area. Response schemas document the wire format in the OpenAPI file; they are
// not used to filter responses (see the serializer in app.ts).

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'HTTP status code, equal to the response status' }),
    key: Type.String({ description: 'Machine-readable error key' }),
    message: Type.String(),
    details: Type.Optional(Type.String({ description: 'The specific cause' })),
    request_id: Type.String(),
    resource_id: Type.Optional(Type.String()),
    resource_type: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** Custom key/value pairs; free-form, so within FREE_FORM_LIMITS (src/api/free-form.ts). */
export const Metadata = FreeFormObject({ description: 'Custom key/value pairs' });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO-8601 date or date-time, as the vendor accepts in list filters (`created_at[before]=2024-01-01`). */
export const DateOrDateTime = Type.String({ format: 'date-or-date-time', description: 'ISO 8601 date or date-time' });
export const DateTime = Type.String({ format: 'date-time' });
export const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

/**
 * Where an integer from a request ends up, which decides the largest value it may take:
 * - `integer`: a PostgreSQL `integer` column, 32-bit (SQLite would store more, so the bound is ours);
 * - `bigint`: a `bigint` column, or a member of a stored JSON document (amounts, points, counts). Both
 *   databases hold 64 bits, but JavaScript computes exactly only up to 2^53 − 1, so that is the bound.
 * A value past its bound used to reach the database: SQLite stored it and PostgreSQL failed with 500.
 */
export type StoredColumn = 'integer' | 'bigint';

export const STORED_INTEGER_RANGE: Record<StoredColumn, { minimum: number; maximum: number }> = {
  integer: { minimum: -2_147_483_648, maximum: 2_147_483_647 },
  bigint: { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
};

/**
 * An integer request member (body, query or path) bounded to what its column stores. `options` may
 * narrow the range (a domain limit such as `maximum: 100`), never widen it. Every integer a request
 * schema declares goes through here (a test walks the route schemas for unbounded ones).
 */
export function StoredInteger(column: StoredColumn, options: TNumberOptions & { minimum?: number; maximum?: number } = {}): TInteger {
  const range = STORED_INTEGER_RANGE[column];
  const minimum = options.minimum ?? range.minimum;
  const maximum = options.maximum ?? range.maximum;
  if (minimum < range.minimum || maximum > range.maximum) {
    throw new Error(`StoredInteger(${column}) allows ${range.minimum}..${range.maximum}, not ${minimum}..${maximum}`);
  }
  return Type.Integer({ ...options, minimum, maximum });
}

export const Limit = StoredInteger('integer', { minimum: 1, maximum: 100, default: 10 });

/** Error responses every authenticated route can give. */
export function errorResponses(...codes: number[]): Record<number, typeof ErrorBody> {
  const out: Record<number, typeof ErrorBody> = {};
  for (const code of [400, 401, ...codes]) out[code] = ErrorBody;
  return out;
}

export const NoContent = Type.Null({ description: 'No content' });

/** Path parameters of one identifier, e.g. `IdParams('customerId', 'Customer id or source_id')`. */
export function IdParams<K extends string>(name: K, description: string) {
  return Type.Object({ [name]: Type.String({ minLength: 1, description }) } as Record<K, TString>);
}
