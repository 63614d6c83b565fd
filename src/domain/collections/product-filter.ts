import type { FieldCatalog, FieldSpec } from '../filters/filter.ts';

// The product fields an AUTO_UPDATE collection can filter on (the SDK's AllowedFiltersKeys that map to a
// product's own data). The collection holds the live products that match; a SKU belongs through its
// product. Collections are evaluated when asked, never materialised, so time-relative operators are fine.

export const productFilterFields: FieldCatalog = (field: string): FieldSpec | null => {
  switch (field) {
    case 'id':
    case 'source_id':
    case 'name':
    case 'image_url':
      return { kind: 'text', column: field };
    case 'price':
      return { kind: 'number', column: 'price' };
    case 'created_at':
    case 'updated_at':
      return { kind: 'instant', column: field };
    default:
      if (field.startsWith('metadata.') && field.length > 'metadata.'.length) {
        return { kind: 'json', column: 'metadata', member: field.slice('metadata.'.length) };
      }
      return null;
  }
};
