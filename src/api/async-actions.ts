import Type, { type Static } from 'typebox';
import { DateOrDateTime, Limit, Nullable } from './common.ts';

// Async actions (platform reference 8): the status of work that runs after the request answered.

export const AsyncActionObject = Type.Object({
  id: Type.String({ description: 'aa_…' }),
  type: Type.String({ description: 'e.g. CAMPAIGN.VOUCHERS_GENERATE, CAMPAIGN.VOUCHERS_DELETE' }),
  status: Type.Enum(['ENQUEUED', 'IN_PROGRESS', 'DONE', 'FAILED']),
  operation_status: Type.Optional(Type.Enum(['SUCCESS', 'FAILED', 'UNKNOWN'])),
  created_at: Type.String(),
  updated_at: Type.String(),
  request_id: Nullable(Type.String()),
  processing_time: Type.Optional(Type.Integer({ description: 'milliseconds from creation to the end' })),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  result: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
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
