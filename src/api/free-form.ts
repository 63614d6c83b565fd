import Type from 'typebox';

// Free-form JSON: members whose content the client chooses (metadata, SKU attributes, rule objects,
// filters, vendor members kept as sent). They are stored as they come and read again by every list page,
// export, webhook and SQL JSON function that touches the row, so one object must never be able to break
// or bloat those reads for anyone else. Every such member of a request schema carries the FREE_FORM
// marker; the validators (src/http/plugins/validation.ts) check each marked value against these limits
// and answer 400 invalid_payload naming the path. Characters (NUL, lone surrogates) are refused for the
// whole request by the route-independent guard in the same plugin.
//
// Why these numbers: metadata is key/value data for rules and filters; 16 levels hold the deepest
// validation rule the rule language accepts (five levels of sub-rules), and 64 KiB is hundreds of
// ordinary keys while keeping a 10-row list page of objects far below a megabyte. Keys are at most 255
// characters, like every name and identifier of the API. Both databases accept anything within them
// (SQLite's JSON functions stop at 1000 levels).

export const FREE_FORM_LIMITS = {
  /** Objects and arrays nested in one free-form value, the value itself counting as the first level. */
  depth: 16,
  /** UTF-8 bytes of the value as JSON text. */
  bytes: 64 * 1024,
  /** Characters of one object key. */
  keyLength: 255,
} as const;

/** The schema keyword that marks a free-form member (an `x-` extension, so OpenAPI tools ignore it). */
export const FREE_FORM = 'x-free-form';

/** Options that mark a schema as free-form, for objects that keep undeclared members (`additionalProperties: true`). */
export const FREE_FORM_MARK = { [FREE_FORM]: true } as const;

/** An object of any members, e.g. metadata. */
export const FreeFormObject = (options: { description?: string } = {}) => Type.Record(Type.String(), Type.Unknown(), { ...options, ...FREE_FORM_MARK });

export interface FreeFormProblem {
  /** Where inside the value: object keys and array indexes. */
  path: Array<string | number>;
  /** Completes "Property <path> …". */
  message: string;
}

function shapeProblem(value: unknown, path: Array<string | number>, level: number): FreeFormProblem | null {
  if (value === null || typeof value !== 'object') return null;
  if (level > FREE_FORM_LIMITS.depth) return { path, message: `nesting exceeds ${FREE_FORM_LIMITS.depth} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = shapeProblem(value[i], [...path, i], level + 1);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, member] of Object.entries(value)) {
    if (key.length > FREE_FORM_LIMITS.keyLength) return { path: [...path, key], message: `key is longer than ${FREE_FORM_LIMITS.keyLength} characters` };
    const problem = shapeProblem(member, [...path, key], level + 1);
    if (problem) return problem;
  }
  return null;
}

/** The first way a free-form value breaks the limits, or null. Never walks deeper than the depth limit. */
export function freeFormProblem(value: unknown): FreeFormProblem | null {
  const shape = shapeProblem(value, [], 1);
  if (shape) return shape;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  if (bytes > FREE_FORM_LIMITS.bytes) return { path: [], message: `is ${bytes} bytes as JSON; at most ${FREE_FORM_LIMITS.bytes} are allowed` };
  return null;
}
