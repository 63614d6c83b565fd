// Checks a metadata object against a metadata schema (platform reference 5.3) and describes every
// violation in the vendor's wording (`<field>: must be …, … (actual value is '<v>')`, reference 2.4).
// Pure: schemas of nested object types are handed in by the caller.

export const METADATA_TYPES = ['string', 'number', 'object', 'date', 'datetime', 'geopoint', 'boolean', 'image_url'] as const;
export type MetadataType = (typeof METADATA_TYPES)[number];

export interface MetadataPropertyDefinition {
  type: MetadataType;
  optional: boolean;
  array: boolean;
  /** Soft-removed: not checked, and no longer "defined" for `allow_defined_only`. */
  deleted?: boolean | null;
  /** For `object`: the custom schema (its `related_object`) the nested object must follow. */
  object_type?: string | null;
  min_length?: number | null;
  max_length?: number | null;
  exact_length?: number | null;
  eq?: ReadonlyArray<string | number> | null;
  ne?: readonly number[] | null;
  lt?: number | null;
  lte?: number | null;
  gt?: number | null;
  gte?: number | null;
}

export interface MetadataSchemaDefinition {
  properties: Readonly<Record<string, MetadataPropertyDefinition>>;
  allow_defined_only?: boolean | null;
}

export interface MetadataCheckOptions {
  /** The schema of a nested object type, by name; unknown names leave the nested object unchecked. */
  nested?: (objectType: string) => MetadataSchemaDefinition | undefined;
  /** Prefix of reported field names (used for nested objects). */
  path?: string;
  /** What the schema describes, for the `allow_defined_only` wording (e.g. `customer`). */
  subject?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

function isDate(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = DATE.exec(value);
  return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

function isDateTime(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = DATE_TIME.exec(value);
  return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) && !Number.isNaN(Date.parse(value));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** `{latitude, longitude}` in degrees, or a GeoJSON point `{type: 'Point', coordinates: [longitude, latitude]}`. */
function isGeopoint(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const inRange = (lat: unknown, lng: unknown) =>
    typeof lat === 'number' && typeof lng === 'number' && Math.abs(lat) <= 90 && Math.abs(lng) <= 180;
  if ('latitude' in value || 'longitude' in value) return inRange(value.latitude, value.longitude);
  const coordinates = value.coordinates;
  return value.type === 'Point' && Array.isArray(coordinates) && coordinates.length === 2 && inRange(coordinates[1], coordinates[0]);
}

const TYPE_PHRASE: Record<MetadataType, string> = {
  string: 'a string',
  number: 'a number',
  object: 'an object',
  date: 'a date (YYYY-MM-DD)',
  datetime: 'an ISO 8601 date-time',
  geopoint: 'a geopoint {latitude, longitude}',
  boolean: 'a boolean',
  image_url: 'an http(s) image URL',
};

function hasType(type: MetadataType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainObject(value);
    case 'date':
      return isDate(value);
    case 'datetime':
      return isDateTime(value);
    case 'geopoint':
      return isGeopoint(value);
    case 'image_url':
      return isHttpUrl(value);
  }
}

const listOf = (values: ReadonlyArray<string | number>) => `[${values.join(', ')}]`;

/** The constraints one (non-array) value breaks, as "must …" phrases. */
function brokenConstraints(def: MetadataPropertyDefinition, value: unknown): string[] {
  if (!hasType(def.type, value)) return [`must be ${TYPE_PHRASE[def.type]}`];
  const out: string[] = [];
  if (def.type === 'string' && typeof value === 'string') {
    const length = [...value].length;
    if (def.exact_length != null && length !== def.exact_length) out.push(`must be exactly ${def.exact_length} characters long`);
    if (def.min_length != null && length < def.min_length) out.push(`must be at least ${def.min_length} characters long`);
    if (def.max_length != null && length > def.max_length) out.push(`must be at most ${def.max_length} characters long`);
    if (def.eq != null && def.eq.length > 0 && !def.eq.includes(value)) out.push(`must be one of ${listOf(def.eq)}`);
  }
  if (def.type === 'number' && typeof value === 'number') {
    if (def.eq != null && def.eq.length > 0 && !def.eq.includes(value)) out.push(`must be one of ${listOf(def.eq)}`);
    if (def.ne != null && def.ne.includes(value)) out.push(`must not be one of ${listOf(def.ne)}`);
    if (def.lt != null && !(value < def.lt)) out.push(`must be less than ${def.lt}`);
    if (def.lte != null && !(value <= def.lte)) out.push(`must be less than or equal to ${def.lte}`);
    if (def.gt != null && !(value > def.gt)) out.push(`must be greater than ${def.gt}`);
    if (def.gte != null && !(value >= def.gte)) out.push(`must be greater than or equal to ${def.gte}`);
  }
  return out;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

const problem = (field: string, phrases: readonly string[], value: unknown) => `${field}: ${phrases.join(', ')} (actual value is '${shown(value)}')`;

function valueProblems(field: string, def: MetadataPropertyDefinition, value: unknown, options: MetadataCheckOptions): string[] {
  const phrases = brokenConstraints(def, value);
  if (phrases.length > 0) return [problem(field, phrases, value)];
  if (def.type === 'object' && def.object_type && options.nested && isPlainObject(value)) {
    const nested = options.nested(def.object_type);
    // Nested objects cannot contain further nested objects (vendor rule), so the check stops one level down.
    if (nested) return metadataProblems(nested, value, { path: field, subject: def.object_type });
  }
  return [];
}

/**
 * Every way `metadata` breaks `schema`, one line per field (empty when it conforms). A `null` value counts
 * as absent. Members the schema does not define are allowed unless `allow_defined_only` is set.
 */
export function metadataProblems(
  schema: MetadataSchemaDefinition,
  metadata: Readonly<Record<string, unknown>>,
  options: MetadataCheckOptions = {},
): string[] {
  const prefix = options.path ? `${options.path}.` : '';
  const problems: string[] = [];
  for (const [name, def] of Object.entries(schema.properties)) {
    if (def.deleted) continue;
    const field = `${prefix}${name}`;
    const value = metadata[name];
    if (value === undefined || value === null) {
      if (!def.optional) problems.push(`${field}: must be defined, the property is required (actual value is '${String(value)}')`);
      continue;
    }
    if (def.array) {
      if (!Array.isArray(value)) {
        problems.push(problem(field, [`must be an array of ${def.type}`], value));
        continue;
      }
      value.forEach((item: unknown, index) => problems.push(...valueProblems(`${field}[${index}]`, def, item, options)));
      continue;
    }
    problems.push(...valueProblems(field, def, value, options));
  }
  if (schema.allow_defined_only) {
    for (const name of Object.keys(metadata)) {
      const def = schema.properties[name];
      if (def && !def.deleted) continue;
      const subject = options.subject ? `the ${options.subject} metadata schema` : 'the metadata schema';
      problems.push(`${prefix}${name}: must be a property defined in ${subject}, which allows defined properties only (actual value is '${shown(metadata[name])}')`);
    }
  }
  return problems;
}
