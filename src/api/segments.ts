import Type, { type Static } from 'typebox';
import { DateTime, Limit, Nullable } from './common.ts';
import { FreeFormObject } from './free-form.ts';

// Customer segments (vendor OpenAPI Segment, SegmentsCreateRequestBody; platform reference 7.4 for the
// filter grammar). The filter itself is checked by src/domain/filters against the customer fields.

const Filter = FreeFormObject({
  description:
    'Customer filter: { junction: "and" | "or", <field>: { conditions: { "$operator": [values] } } }. Fields: id, source_id, name, email, phone, description, city, address.<member>, birthdate, birthday, created_at, updated_at, metadata.<key>',
});

export const CreateSegmentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.Enum(['static', 'auto-update'], { description: 'static: the customers listed; auto-update: the customers the filter matches' }),
  customers: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 10000, description: 'static: customer ids or source_ids' }),
  ),
  filter: Type.Optional(Filter),
  filters: Type.Optional(FreeFormObject({ description: 'Accepted as another name for `filter`' })),
});
export type CreateSegmentInput = Static<typeof CreateSegmentBody>;

export const SegmentObject = Type.Object({
  id: Type.String({ description: 'seg_…' }),
  name: Type.String(),
  created_at: DateTime,
  updated_at: Nullable(DateTime),
  type: Type.Enum(['static', 'auto-update']),
  filter: Nullable(Type.Record(Type.String(), Type.Unknown())),
  initial_sync_status: Type.Enum(['IN_PROGRESS', 'DONE'], {
    description: 'DONE once every existing customer has been checked; large projects are synced in the background',
  }),
  object: Type.Literal('segment'),
});
export type SegmentObjectOut = Static<typeof SegmentObject>;

export const SegmentParams = Type.Object({ segmentId: Type.String({ minLength: 1, description: 'seg_…' }) });

export const ListSegmentsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
  order: Type.Optional(Type.Enum(['created_at', '-created_at'], { description: 'Default -created_at' })),
});
export type ListSegmentsInput = Static<typeof ListSegmentsQuery>;

export const SegmentList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(SegmentObject),
  total: Type.Integer(),
});

export const SimpleSegment = Type.Object({ id: Type.String(), name: Type.String(), object: Type.Literal('segment') });

export const CustomerSegmentList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(SimpleSegment),
  total: Type.Integer(),
});
