import Type, { type Static } from 'typebox';
import { Limit, Nullable } from './common.ts';

// The bin (platform reference 4.4). Filters arrive as qs brackets, e.g.
// `filters[resource_type][conditions][$in][0]=product`; unknown fields and operators are refused.

const RESOURCE_TYPES = ['campaign', 'product', 'sku', 'voucher'] as const;
const ResourceType = Type.Enum([...RESOURCE_TYPES]);

const Flag = (description: string) => Type.Optional(Type.String({ description: `${description}; the value is ignored` }));

export const TextConditions = Type.Object(
  {
    $in: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'Equal to one of these' })),
    $not_in: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'Equal to none of these (or empty)' })),
    $is: Type.Optional(Type.String({ description: 'Equal to' })),
    $is_not: Type.Optional(Type.String({ description: 'Not equal to (or empty)' })),
    $has_value: Flag('Not empty'),
    $is_unknown: Flag('Empty'),
    $starts_with: Type.Optional(Type.String({ description: 'Starts with (case-sensitive)' })),
    $ends_with: Type.Optional(Type.String({ description: 'Ends with (case-sensitive)' })),
    $contains: Type.Optional(Type.String({ description: 'Contains (case-sensitive)' })),
    $not_contain: Type.Optional(Type.String({ description: 'Does not contain (or empty)' })),
  },
  { additionalProperties: false },
);

export const TypeConditions = Type.Object(
  {
    $in: Type.Optional(Type.Array(ResourceType, { maxItems: 4 })),
    $not_in: Type.Optional(Type.Array(ResourceType, { maxItems: 4 })),
    $is: Type.Optional(ResourceType),
    $is_not: Type.Optional(ResourceType),
    $has_value: Flag('Not empty'),
    $is_unknown: Flag('Empty'),
    $starts_with: Type.Optional(Type.String()),
    $ends_with: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const textField = Type.Optional(Type.Object({ conditions: Type.Optional(TextConditions) }, { additionalProperties: false }));

export const BinFilters = Type.Object(
  {
    junction: Type.Optional(
      Type.Enum(['and', 'or'], { description: 'How all the conditions combine (default and)' }),
    ),
    id: textField,
    resource_id: textField,
    resource_name: textField,
    resource_type: Type.Optional(Type.Object({ conditions: Type.Optional(TypeConditions) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type BinFiltersInput = Static<typeof BinFilters>;

export const BinListQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['id', '-id'], { description: 'By bin entry id; a leading dash sorts descending (default id)' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Entries after this bin entry id in list order' })),
  filters: Type.Optional(BinFilters),
});
export type BinListInput = Static<typeof BinListQuery>;

export const BinEntryParams = Type.Object({
  binEntryId: Type.String({ minLength: 1, description: 'Bin entry id (tbe_…)' }),
});

export const BinEntryObject = Type.Object({
  id: Type.String({ description: 'tbe_…' }),
  created_at: Type.String({ format: 'date-time', description: 'When the resource was moved to the bin' }),
  deleted_by_user_id: Nullable(Type.String({ description: 'Null when deleted through the API' })),
  resource_id: Type.String(),
  resource_type: ResourceType,
  resource_name: Nullable(Type.String({ description: 'Name of the resource (a SKU’s `sku`, a voucher’s code)' })),
  resource_parent_id: Nullable(Type.String({ description: 'The product of a SKU, the campaign of a voucher; null otherwise' })),
  object: ResourceType,
});

export const BinList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(BinEntryObject),
  total: Type.Integer({ description: 'Number of entries in this page (as the vendor counts), not of all matches' }),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String({ description: 'Pass as starting_after_id for the next page; only when has_more' })),
});
