import Type, { type TSchema, type TString } from 'typebox';

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

export const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Custom key/value pairs' });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO-8601 date or date-time, as the vendor accepts in list filters (`created_at[before]=2024-01-01`). */
export const DateOrDateTime = Type.String({ format: 'date-or-date-time', description: 'ISO 8601 date or date-time' });
export const DateTime = Type.String({ format: 'date-time' });
export const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 10 });

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
