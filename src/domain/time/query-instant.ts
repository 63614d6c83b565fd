// Query dates arrive as a date (`2024-01-01`) or a date-time with or without a zone. Stored timestamps are
// UTC ISO strings compared as text, so every bound is turned into that exact form first; comparing the
// raw input as text would misorder `…T10:00:00Z` against `…T10:00:00.000Z`.

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The instant a query date names, as a stored-timestamp string. A date means midnight UTC at its start,
 * or with `wholeDay` the last millisecond of that day (for inclusive upper bounds). A date-time without a
 * zone is read as UTC, never in the server's local zone. Input is already format-checked by the schema.
 */
export function queryInstant(value: string, options: { wholeDay?: boolean } = {}): string {
  if (DATE_ONLY.test(value)) {
    return options.wholeDay ? `${value}T23:59:59.999Z` : `${value}T00:00:00.000Z`;
  }
  const text = value.replace(' ', 'T');
  return new Date(HAS_ZONE.test(text) ? text : `${text}Z`).toISOString();
}
