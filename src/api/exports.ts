import Type, { type Static } from 'typebox';
import { EXPORTED_OBJECTS, MAX_EXPORT_FIELDS } from '../domain/exports/objects.ts';
import { Limit, Nullable } from './common.ts';
import { FreeFormObject } from './free-form.ts';

// Exports (seed 4.14; platform reference 7). `order`, `fields` and `filters` depend on the exported
// object, so their members are checked by src/domain/exports (precise 400s naming the property), not
// here.

export const EXPORT_STATUSES = ['SCHEDULED', 'IN_PROGRESS', 'DONE', 'ERROR'] as const;

const ExportedObject = Type.Enum([...EXPORTED_OBJECTS], { description: 'What to export' });

/** What and how to export; the scoped export routes (a campaign's or a card's transactions, …) take it too. */
export const ExportParametersBody = Type.Object({
  order: Type.Optional(
    Nullable(Type.String({ maxLength: 100, description: 'One of the orders the object offers (e.g. -created_at); a leading dash sorts descending' })),
  ),
  fields: Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
        maxItems: MAX_EXPORT_FIELDS,
        description: "CSV columns, from the object's allowed fields (metadata.<key> where metadata is allowed); the defaults when absent or empty",
      }),
    ),
  ),
  filters: Type.Optional(
    Nullable(
      FreeFormObject({
        description: '`junction` (and/or) and `<field>: {conditions: {<$operator>: [values]}}` per filterable field',
      }),
    ),
  ),
  campaign_id: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'Voucher, voucher_transactions and points_expiration exports: only this campaign’s records' })),
  ),
  voucher_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'voucher_transactions exports: only this voucher’s transactions (v_…)' }))),
  response_format: Type.Optional(Type.Enum(['CSV'], { description: 'Only CSV exists' })),
});

export const CreateExportBody = Type.Object({
  exported_object: ExportedObject,
  parameters: Type.Optional(Nullable(ExportParametersBody)),
});
export type CreateExportInput = Static<typeof CreateExportBody>;

/**
 * The body of the routes that export one area's records (`POST /v1/orders/export`, a campaign's, a voucher's
 * or a card's transactions, a program's points expiration): the object and the scope come from the route.
 */
export const ScopedExportBody = Type.Object({
  parameters: Type.Optional(Nullable(Type.Omit(ExportParametersBody, ['campaign_id', 'voucher_id']))),
});
export type ScopedExportInput = Static<typeof ScopedExportBody>;

export const ExportObject = Type.Object({
  id: Type.String({ description: 'exp_…' }),
  object: Type.Literal('export'),
  created_at: Type.String({ description: 'When the export was scheduled' }),
  status: Type.Enum([...EXPORT_STATUSES]),
  channel: Type.String({ description: 'API' }),
  exported_object: ExportedObject,
  parameters: Type.Object({
    order: Type.String(),
    fields: Type.Array(Type.String()),
    filters: Type.Record(Type.String(), Type.Unknown()),
    campaign_id: Type.Optional(Type.String({ description: 'The campaign the export is limited to' })),
    voucher_id: Type.Optional(Type.String({ description: 'The voucher whose transactions are exported' })),
  }),
  result: Nullable(
    Type.Object({
      url: Nullable(Type.String({ description: 'DONE: absolute download link carrying its token' })),
      url_expires_at: Type.Optional(Type.String({ description: 'DONE: when the link stops working' })),
      row_count: Type.Optional(Type.Integer({ description: 'Rows in the file (the header row not counted)' })),
      message: Type.Optional(Type.String({ description: 'ERROR: why the export failed' })),
    }),
  ),
  user_id: Nullable(Type.String()),
});
export type ExportObjectType = Static<typeof ExportObject>;

export const ListExportsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'status', '-status'], { description: 'Default -created_at (newest first)' })),
});
export type ListExportsInput = Static<typeof ListExportsQuery>;

export const ExportList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('exports'),
  exports: Type.Array(ExportObject),
  total: Type.Integer({ description: "All the project's exports" }),
});

export const ExportGetQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 512, description: 'Download token from result.url: answers the CSV file instead of the export' })),
});

export const CsvFile = Type.String({ description: 'The CSV file: a header row of field names, then one row per record' });
