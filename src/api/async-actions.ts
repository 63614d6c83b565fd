import Type, { type Static } from 'typebox';
import { DateOrDateTime, Limit, Nullable } from './common.ts';

// Async actions (platform reference 8): the status of work that runs after the request answered.

/**
 * The action types Punchcard shows, all of them the vendor's. A job of another kind (a loyalty program's
 * tier recalculation, an automatic reward redemption, an export's file) is internal work: it is neither
 * listed nor found as an async action.
 */
export const ASYNC_ACTION_TYPES = [
  'CAMPAIGN.VOUCHERS_IMPORT',
  'CAMPAIGN.VOUCHERS_IMPORT_CSV',
  'CAMPAIGN.VOUCHERS_DELETE',
  'CAMPAIGN.VOUCHERS_GENERATE',
  'CUSTOMERS.IMPORT_CSV',
  'CUSTOMERS.BULK_UPDATE',
  'CUSTOMERS.METADATA_UPDATE',
  'PRODUCTS.BULK_UPDATE',
  'PRODUCTS.METADATA_UPDATE',
  'PRODUCTS.IMPORT_CSV',
  'SKUS.IMPORT_CSV',
  'VOUCHERS.IMPORT',
  'VOUCHERS.IMPORT_CSV',
  'VOUCHERS.BULK_UPDATE',
  'VOUCHERS.METADATA_UPDATE',
  'ORDERS.IMPORT',
] as const;

export const AsyncActionObject = Type.Object({
  id: Type.String({ description: 'aa_…' }),
  type: Type.Enum(ASYNC_ACTION_TYPES),
  status: Type.Enum(['ENQUEUED', 'IN_PROGRESS', 'DONE', 'FAILED']),
  operation_status: Type.Optional(Type.Enum(['SUCCESS', 'FAILED', 'UNKNOWN'])),
  created_at: Type.String(),
  updated_at: Type.String(),
  request_id: Nullable(Type.String()),
  processing_time: Type.Optional(Type.Integer({ description: 'milliseconds from creation to the end' })),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  // Left out while the action waits and has recorded nothing yet; a CSV import counts from the start.
  result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  object: Type.Literal('async_action'),
});

export const ListAsyncActionsQuery = Type.Object({
  limit: Type.Optional(Limit),
  end_date: Type.Optional(DateOrDateTime),
});
export type ListAsyncActionsInput = Static<typeof ListAsyncActionsQuery>;

export const AsyncActionList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('async_actions'),
  async_actions: Type.Array(AsyncActionObject),
  has_more: Type.Boolean(),
});
