import type { FieldCatalog, FieldSpec } from '../filters/filter.ts';

// The customer fields an auto-update segment can filter on (platform reference 7.4). Only fields that
// change through the customers service are offered: membership is recomputed on every customer create,
// update and delete, so a field fed by another area (order summaries, loyalty points, publications)
// would leave memberships stale and is refused until that area keeps segments in step too.

const TEXT_COLUMNS: Record<string, string> = {
  id: 'id',
  source_id: 'source_id',
  name: 'name',
  email: 'email',
  phone: 'phone',
  description: 'description',
  city: 'address_city',
  // The address city has its own column (kept for the indexed list filter); both names reach it.
  'address.city': 'address_city',
};

const ADDRESS_MEMBERS = new Set(['state', 'line_1', 'line_2', 'country', 'postal_code']);

export const customerFilterFields: FieldCatalog = (field: string): FieldSpec | null => {
  const column = TEXT_COLUMNS[field];
  if (column !== undefined) return { kind: 'text', column };
  if (field === 'birthdate' || field === 'birthday') return { kind: 'date', column: field };
  if (field === 'created_at' || field === 'updated_at') return { kind: 'instant', column: field };
  if (field.startsWith('metadata.') && field.length > 'metadata.'.length) {
    return { kind: 'json', column: 'metadata', member: field.slice('metadata.'.length) };
  }
  if (field.startsWith('address.')) {
    const member = field.slice('address.'.length);
    if (ADDRESS_MEMBERS.has(member)) return { kind: 'json', column: 'address', member };
  }
  return null;
};
