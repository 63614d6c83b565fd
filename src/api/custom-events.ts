import Type, { type Static } from 'typebox';
import { CustomerBody } from './customers.ts';
import { Metadata, Nullable } from './common.ts';

// Custom event schemas (seed 2.12, 4.8; platform reference 5.2) and custom events (seed 4.15, 5.1).

export const CUSTOM_EVENT_PROPERTY_TYPES = ['string', 'number', 'date', 'datetime', 'boolean'] as const;
const PropertyType = Type.Enum([...CUSTOM_EVENT_PROPERTY_TYPES]);

const EventName = Type.String({ minLength: 1, maxLength: 300, description: 'The custom event name, 1–300 characters' });
const PropertyName = Type.String({ minLength: 1, maxLength: 100 });

export const CreateProperty = Type.Object({
  type: PropertyType,
  optional: Type.Boolean(),
  deleted: Type.Optional(Type.Boolean({ description: 'true soft-removes the property' })),
});

export const UpdateProperty = Type.Object({
  type: Type.Optional(PropertyType),
  optional: Type.Optional(Type.Boolean()),
  deleted: Type.Optional(Type.Boolean({ description: 'true soft-removes the property; false restores it' })),
});
export type UpdatePropertyInput = Static<typeof UpdateProperty>;

export const CreateCustomEventSchemaBody = Type.Object({
  name: EventName,
  schema: Type.Object({ properties: Type.Record(PropertyName, CreateProperty, { description: 'May be empty' }) }),
});
export type CreateCustomEventSchemaInput = Static<typeof CreateCustomEventSchemaBody>;

export const UpdateCustomEventSchemaBody = Type.Object({
  schema: Type.Object({
    properties: Type.Record(PropertyName, UpdateProperty, { description: 'Only the properties to add or change; the others stay' }),
  }),
});
export type UpdateCustomEventSchemaInput = Static<typeof UpdateCustomEventSchemaBody>;

const PropertyOut = Type.Object({ type: PropertyType, optional: Type.Boolean(), deleted: Type.Optional(Type.Boolean()) });

export const CustomEventSchemaObject = Type.Object({
  id: Type.String({ description: 'ms_…' }),
  name: Type.String(),
  schema: Type.Object({ properties: Type.Record(Type.String(), PropertyOut) }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('custom-event-schema'),
});

export const CustomEventSchemaList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(CustomEventSchemaObject),
  total: Type.Integer(),
});

export const CustomEventSchemaParams = Type.Object({
  projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }),
  customEventSchemaId: Type.String({ minLength: 1, description: 'Custom event schema id (ms_…)' }),
});

export const CustomEventBody = Type.Object({
  event: EventName,
  customer: CustomerBody,
  referral: Type.Optional(
    Nullable(
      Type.Object({
        code: Type.String({ minLength: 1, maxLength: 300, description: 'Referral code' }),
        referrer_id: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
      }),
    ),
  ),
  loyalty: Type.Optional(Nullable(Type.Object({ code: Type.String({ minLength: 1, maxLength: 300, description: 'Loyalty card code' }) }))),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type CustomEventInput = Static<typeof CustomEventBody>;

export const CustomEventResponse = Type.Object({
  object: Type.Literal('event'),
  type: Type.String({ description: 'The event name' }),
  customer: Type.Object({
    id: Type.String(),
    source_id: Nullable(Type.String()),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    metadata: Metadata,
    object: Type.Literal('customer'),
  }),
  referral: Type.Null(),
  loyalty: Type.Null(),
  metadata: Metadata,
});
