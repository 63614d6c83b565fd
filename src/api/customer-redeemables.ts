import Type, { type Static } from 'typebox';
import { REDEEMABLE_STATUSES } from '../domain/vouchers/redeemable-status.ts';
import { Limit, Nullable } from './common.ts';
import { VoucherObject } from './vouchers.ts';

// `GET /v1/customers/{customerId}/redeemables` (vendor list-customer-redeemables, CustomerRedeemable).

export const CustomerRedeemablesQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['id', '-id'], { description: 'Default -id: newest first' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Cursor: redeemables after this holder id in list order' })),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'filters[<field>][conditions][<$op>]=…, fields: id, created_at, redeemable_id, redeemable_object, holder_role, campaign_id, campaign_type, voucher_type; filters[junction]=and|or',
    }),
  ),
});
export type CustomerRedeemablesInput = Static<typeof CustomerRedeemablesQuery>;

export const CustomerRedeemable = Type.Object({
  id: Type.String({ description: 'rh_…: the holder record' }),
  created_at: Type.String({ description: 'When the customer came to hold it (published, referred)' }),
  redeemable_id: Type.String(),
  redeemable_object: Type.Literal('voucher'),
  customer_id: Type.String(),
  holder_role: Type.Enum(['OWNER', 'REFERRER', 'REFEREE']),
  campaign_id: Nullable(Type.String()),
  campaign_type: Nullable(Type.String()),
  voucher_type: Type.String(),
  redeemable: Type.Object({
    type: Type.Literal('voucher'),
    voucher: VoucherObject,
    status: Type.Enum([...REDEEMABLE_STATUSES], { description: 'Whether it can be used now, or the first reason it cannot' }),
  }),
});
export type CustomerRedeemableOut = Static<typeof CustomerRedeemable>;

export const CustomerRedeemableList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(CustomerRedeemable),
  total: Type.Integer({ description: 'Redeemables matching the filters' }),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String({ description: 'Pass as starting_after_id for the next page' })),
});
export type CustomerRedeemableListOut = Static<typeof CustomerRedeemableList>;
