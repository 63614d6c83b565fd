// The auto-update segment filter builder's model, and its translation to the filter the segment API
// takes (`{ junction: 'and' | 'or', <field>: { conditions: { <$operator>: [values] } } }`, checked by
// src/domain/filters against the customer fields of src/domain/segments/customer-filter.ts). Segments
// refuse time-relative operators, so none is offered. Pure code: unit-tested by tests/web/segment-filter.

export type FilterFieldKind = 'text' | 'date' | 'instant' | 'metadata';

export const FILTER_FIELDS: Record<string, { label: string; kind: FilterFieldKind }> = {
  email: { label: 'E-mail', kind: 'text' },
  name: { label: 'Name', kind: 'text' },
  source_id: { label: 'Source id', kind: 'text' },
  id: { label: 'Id', kind: 'text' },
  phone: { label: 'Phone', kind: 'text' },
  description: { label: 'Description', kind: 'text' },
  city: { label: 'City', kind: 'text' },
  'address.state': { label: 'State', kind: 'text' },
  'address.country': { label: 'Country', kind: 'text' },
  'address.postal_code': { label: 'Postal code', kind: 'text' },
  'address.line_1': { label: 'Address line 1', kind: 'text' },
  'address.line_2': { label: 'Address line 2', kind: 'text' },
  birthdate: { label: 'Birth date', kind: 'date' },
  birthday: { label: 'Birthday', kind: 'date' },
  created_at: { label: 'Created', kind: 'instant' },
  updated_at: { label: 'Last changed', kind: 'instant' },
  metadata: { label: 'Metadata', kind: 'metadata' },
};

export const FILTER_OPERATORS: Record<string, string> = {
  $is: 'is',
  $is_not: 'is not',
  $in: 'is one of',
  $not_in: 'is none of',
  $contains: 'contains',
  $not_contain: 'does not contain',
  $starts_with: 'starts with',
  $ends_with: 'ends with',
  $more_than: 'more than',
  $more_than_equal: 'at least',
  $less_than: 'less than',
  $less_than_equal: 'at most',
  $after: 'is after',
  $before: 'is before',
  $has_value: 'is set',
  $is_unknown: 'is not set',
};

const PRESENCE = ['$has_value', '$is_unknown'];
const EQUALITY = ['$is', '$is_not', '$in', '$not_in'];
const TEXT_MATCH = ['$contains', '$not_contain', '$starts_with', '$ends_with'];
const COMPARISON = ['$more_than', '$more_than_equal', '$less_than', '$less_than_equal'];

export const FILTER_OPERATORS_BY_KIND: Record<FilterFieldKind, string[]> = {
  text: [...EQUALITY, ...TEXT_MATCH, ...PRESENCE],
  date: [...EQUALITY, '$after', '$before', ...PRESENCE],
  instant: ['$after', '$before', '$is', ...PRESENCE],
  metadata: [...EQUALITY, ...TEXT_MATCH, ...COMPARISON, ...PRESENCE],
};

const MANY = new Set(['$in', '$not_in', ...TEXT_MATCH]);

export interface FilterRow {
  field: string;
  /** The metadata key, for the metadata field. */
  key: string;
  operator: string;
  /** As typed; several values separated by commas. */
  value: string;
}

export interface FilterModel {
  junction: 'and' | 'or';
  rows: FilterRow[];
}

export const takesValue = (operator: string): boolean => !PRESENCE.includes(operator);
export const takesSeveral = (operator: string): boolean => MANY.has(operator);

const pathOf = (row: FilterRow) => (FILTER_FIELDS[row.field]?.kind === 'metadata' ? `metadata.${row.key.trim()}` : row.field);

function valuesOf(row: FilterRow): Array<string | number> {
  if (!takesValue(row.operator)) return [];
  const parts = (MANY.has(row.operator) ? row.value.split(',') : [row.value]).map((v) => v.trim()).filter((v) => v !== '');
  return COMPARISON.includes(row.operator) ? parts.map(Number) : parts;
}

/** What is wrong with each row (by position), or an empty list. */
export function filterProblems(model: FilterModel): Array<{ index: number; message: string }> {
  const problems: Array<{ index: number; message: string }> = [];
  const seen = new Set<string>();
  model.rows.forEach((row, index) => {
    const kind = FILTER_FIELDS[row.field]?.kind;
    if (kind === 'metadata' && row.key.trim() === '') problems.push({ index, message: 'Name the metadata key' });
    const values = valuesOf(row);
    if (takesValue(row.operator) && values.length === 0) problems.push({ index, message: 'Enter a value' });
    else if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) problems.push({ index, message: 'Enter a number' });
    else if ((kind === 'date' || kind === 'instant') && values.some((v) => !/^\d{4}-\d{2}-\d{2}/.test(String(v)))) problems.push({ index, message: 'Enter a date such as 2026-12-31' });
    const twice = `${pathOf(row)} ${row.operator}`;
    if (seen.has(twice)) problems.push({ index, message: 'The same field and operator are used twice' });
    seen.add(twice);
  });
  return problems;
}

/** The filter the segment API takes; rows on one field become that field's conditions (all must hold). */
export function toFilter(model: FilterModel): Record<string, unknown> {
  const filter: Record<string, unknown> = { junction: model.junction };
  for (const row of model.rows) {
    const path = pathOf(row);
    const field = (filter[path] ?? { conditions: {} }) as { conditions: Record<string, unknown[]> };
    field.conditions[row.operator] = valuesOf(row);
    filter[path] = field;
  }
  return filter;
}

/** The builder's model of a stored filter, or null when it holds something the builder does not show. */
export function fromFilter(filter: Record<string, unknown> | null): FilterModel | null {
  if (filter === null) return null;
  const junction = filter.junction === 'or' ? 'or' : 'and';
  const rows: FilterRow[] = [];
  for (const [path, value] of Object.entries(filter)) {
    if (path === 'junction') continue;
    const isMetadata = path.startsWith('metadata.');
    const field = isMetadata ? 'metadata' : path;
    if (!FILTER_FIELDS[field]) return null;
    const conditions = (value as { conditions?: Record<string, unknown> } | null)?.conditions;
    if (typeof conditions !== 'object' || conditions === null) return null;
    for (const [operator, values] of Object.entries(conditions)) {
      if (!Array.isArray(values) || !(operator in FILTER_OPERATORS)) return null;
      rows.push({ field, key: isMetadata ? path.slice('metadata.'.length) : '', operator, value: values.map(String).join(', ') });
    }
  }
  return { junction, rows };
}

/** The filter in words: "E-mail ends with @example.com and Metadata "tier" is gold". */
export function describeFilter(model: FilterModel): string {
  if (model.rows.length === 0) return 'Every customer';
  return model.rows
    .map((row) => {
      const label = FILTER_FIELDS[row.field]?.kind === 'metadata' ? `Metadata "${row.key}"` : (FILTER_FIELDS[row.field]?.label ?? row.field);
      return `${label} ${FILTER_OPERATORS[row.operator] ?? row.operator}${takesValue(row.operator) ? ` ${row.value}` : ''}`;
    })
    .join(` ${model.junction} `);
}
