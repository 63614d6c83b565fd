import Type, { type Static } from 'typebox';
import { METADATA_TYPES } from '../domain/metadata-schemas/metadata-problems.ts';
import { Nullable } from './common.ts';

// Metadata schemas (platform reference 5.3): the management API writes them (snake_case definitions),
// `GET /v1/metadata-schemas` reads them in the vendor's older camelCase shape.

const Length = Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100000 })));
const Bound = Type.Optional(Nullable(Type.Number()));

export const PropertyDefinitionInput = Type.Object({
  type: Type.Optional(Type.Enum([...METADATA_TYPES], { description: 'Required for a new property; cannot change later' })),
  optional: Type.Optional(Type.Boolean({ description: 'Default true' })),
  array: Type.Optional(Type.Boolean({ description: 'Default false' })),
  deleted: Type.Optional(Type.Boolean({ description: 'true soft-removes the definition' })),
  object_type: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'For type object: the custom schema (related_object) the value follows' }))),
  min_length: Length,
  max_length: Length,
  exact_length: Length,
  eq: Type.Optional(Nullable(Type.Array(Type.Union([Type.String({ maxLength: 1000 }), Type.Number()]), { maxItems: 1000, description: 'Allowed values (string or number)' }))),
  ne: Type.Optional(Nullable(Type.Array(Type.Number(), { maxItems: 1000, description: 'Values not allowed (number)' }))),
  lt: Bound,
  lte: Bound,
  gt: Bound,
  gte: Bound,
});
export type PropertyDefinitionInputT = Static<typeof PropertyDefinitionInput>;

const PropertyName = Type.String({ minLength: 1, maxLength: 100 });
const Properties = Type.Record(PropertyName, PropertyDefinitionInput, { description: 'Property name → definition' });

export const CreateMetadataSchemaBody = Type.Object({
  related_object: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z0-9_.-]+$',
    description: 'customer, product, campaign, voucher, order, order_item, … or a custom name',
  }),
  allow_defined_only: Type.Optional(Nullable(Type.Boolean({ default: false }))),
  properties: Properties,
});
export type CreateMetadataSchemaInput = Static<typeof CreateMetadataSchemaBody>;

export const UpdateMetadataSchemaBody = Type.Object({
  allow_defined_only: Type.Optional(Nullable(Type.Boolean())),
  properties: Type.Optional(Nullable(Properties)),
});
export type UpdateMetadataSchemaInput = Static<typeof UpdateMetadataSchemaBody>;

const PropertyOut = Type.Object(
  {
    type: Type.Enum([...METADATA_TYPES]),
    optional: Type.Boolean(),
    array: Type.Boolean(),
    object_type: Nullable(Type.String()),
    deleted: Type.Optional(Type.Boolean()),
    min_length: Type.Optional(Type.Integer()),
    max_length: Type.Optional(Type.Integer()),
    exact_length: Type.Optional(Type.Integer()),
    eq: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
    ne: Type.Optional(Type.Array(Type.Number())),
    lt: Type.Optional(Type.Number()),
    lte: Type.Optional(Type.Number()),
    gt: Type.Optional(Type.Number()),
    gte: Type.Optional(Type.Number()),
  },
  { description: 'A definition; constraints appear only when set' },
);

export const MetadataSchemaObject = Type.Object({
  id: Type.String({ description: 'ms_…' }),
  related_object: Type.String(),
  properties: Type.Record(Type.String(), PropertyOut),
  allow_defined_only: Nullable(Type.Boolean()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('metadata_schema'),
});

export const MetadataSchemaList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(MetadataSchemaObject),
  total: Type.Integer(),
});

export const LegacyPropertyOut = Type.Object(
  {
    type: Type.Enum([...METADATA_TYPES]),
    array: Type.Boolean(),
    optional: Type.Boolean(),
    objectType: Nullable(Type.String()),
    deleted: Type.Optional(Type.Boolean()),
    minLength: Type.Optional(Type.Integer()),
    maxLength: Type.Optional(Type.Integer()),
    exactLength: Type.Optional(Type.Integer()),
    eq: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
    ne: Type.Optional(Type.Array(Type.Number())),
    lt: Type.Optional(Type.Number()),
    lte: Type.Optional(Type.Number()),
    gt: Type.Optional(Type.Number()),
    gte: Type.Optional(Type.Number()),
  },
  { description: 'The vendor’s camelCase definition shape of /v1/metadata-schemas' },
);

export const LegacyMetadataSchemaObject = Type.Object({
  id: Type.String(),
  related_object: Type.String(),
  properties: Type.Record(Type.String(), LegacyPropertyOut),
  allow_defined_only: Nullable(Type.Boolean()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('metadata_schema'),
});

export const LegacyMetadataSchemaList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('schemas'),
  schemas: Type.Array(LegacyMetadataSchemaObject),
  total: Type.Integer(),
});

export const MetadataSchemaParams = Type.Object({
  projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }),
  metadataSchemaId: Type.String({ minLength: 1, description: 'Metadata schema id (ms_…)' }),
});

export const ResourceParams = Type.Object({
  resource: Type.String({ minLength: 1, maxLength: 100, description: 'A standard related object (customer, product, …) or a custom schema name' }),
});
