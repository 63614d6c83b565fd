import Type, { type Static } from 'typebox';
import { DateOrDateTime, Limit } from './common.ts';

// Locations (vendor list-locations, get-location, Location).

export const ListLocationsQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at'])),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'filters[<field>][conditions][<$op>]=…, fields: name, created_at, updated_at; filters[junction]=and|or' }),
  ),
  end_date: Type.Optional(DateOrDateTime),
});
export type ListLocationsInput = Static<typeof ListLocationsQuery>;

export const LocationObject = Type.Object({
  id: Type.String({ description: 'loc_…' }),
  object: Type.Literal('location'),
  name: Type.String(),
  shape: Type.Record(Type.String(), Type.Unknown(), { description: 'A circle (distance) or a polygon (geojson)' }),
  created_at: Type.String(),
  updated_at: Type.Union([Type.String(), Type.Null()]),
});

export const LocationList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(LocationObject),
  total: Type.Integer(),
  has_more: Type.Boolean(),
});
export type LocationListOut = Static<typeof LocationList>;
