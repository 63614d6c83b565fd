import Type, { type Static } from 'typebox';
import { CustomerBody } from './customers.ts';
import { Limit, Metadata, Nullable, StoredInteger } from './common.ts';
import { VoucherObject } from './vouchers.ts';

// Publications (promotions reference 2.5; vendor /v1/publications): handing vouchers to customers.

export const MAX_PUBLISHED_AT_ONCE = 50;

export const PublicationCampaign = Type.Object({
  name: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Campaign name (an id is accepted too)' }))),
  id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  count: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_PUBLISHED_AT_ONCE, description: 'How many vouchers to publish at once' }))),
});

export const CreatePublicationBody = Type.Object({
  customer: CustomerBody,
  voucher: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Code of the voucher to publish' }))),
  campaign: Type.Optional(Nullable(PublicationCampaign)),
  channel: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  source_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'Your id of the publication; repeating it answers the first publication' }))),
  metadata: Type.Optional(Nullable(Metadata)),
  join_once: Type.Optional(Type.Boolean({ description: 'Also accepted as a query parameter (the SDK sends it in the body)' })),
});
export type CreatePublicationInput = Static<typeof CreatePublicationBody>;

export const CreatePublicationQuery = Type.Object({
  join_once: Type.Optional(Type.Boolean({ description: 'A customer gets at most one voucher of the campaign' })),
});

/** `GET /v1/publications/create`: the same request in the query string (`customer[source_id]=…`). */
export const CreatePublicationByQuery = Type.Object({
  customer: CustomerBody,
  voucher: Type.Optional(Type.String({ minLength: 1 })),
  campaign: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Object({ name: Type.Optional(Type.String({ minLength: 1 })), id: Type.Optional(Type.String({ minLength: 1 })) })])),
  channel: Type.Optional(Type.String({ maxLength: 255 })),
  source_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  metadata: Type.Optional(Metadata),
  join_once: Type.Optional(Type.Boolean()),
});
export type CreatePublicationByQueryInput = Static<typeof CreatePublicationByQuery>;

export const SimpleCustomer = Type.Object({
  id: Type.String(),
  source_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  metadata: Metadata,
  object: Type.Literal('customer'),
});

export const PublicationObject = Type.Object(
  {
    id: Type.String({ description: 'pub_…' }),
    object: Type.Literal('publication'),
    created_at: Type.String(),
    customer_id: Type.String(),
    tracking_id: Nullable(Type.String()),
    metadata: Metadata,
    channel: Nullable(Type.String()),
    source_id: Nullable(Type.String()),
    result: Type.Enum(['SUCCESS', 'FAILURE']),
    customer: SimpleCustomer,
    vouchers_id: Type.Array(Type.String()),
    voucher: Type.Optional(VoucherObject),
    vouchers: Type.Optional(Type.Array(Type.String(), { description: 'Codes, when several vouchers were published at once' })),
  },
  { description: 'Publication' },
);
export type PublicationOut = Static<typeof PublicationObject>;

/** A publication as listed: the voucher in short form (vendor list example). */
export const PublicationListItem = Type.Object({
  id: Type.String(),
  object: Type.Literal('publication'),
  created_at: Type.String(),
  customer_id: Type.String(),
  tracking_id: Nullable(Type.String()),
  metadata: Metadata,
  channel: Nullable(Type.String()),
  source_id: Nullable(Type.String()),
  result: Type.Enum(['SUCCESS', 'FAILURE']),
  customer: Nullable(SimpleCustomer),
  voucher: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'code, object, campaign, discount / gift / loyalty_card, is_referral_code; null once the voucher was deleted for good' })),
  vouchers_id: Type.Array(Type.String()),
});
export type PublicationListItemOut = Static<typeof PublicationListItem>;

export const PUBLICATION_ORDERS = ['id', '-id', 'voucher_code', '-voucher_code', 'tracking_id', '-tracking_id', 'customer_id', '-customer_id', 'created_at', '-created_at', 'channel', '-channel'] as const;

export const ListPublicationsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(StoredInteger('integer', { minimum: 1, default: 1, description: 'Pages above 1000 are refused with page_over_limit' })),
  order: Type.Optional(Type.Enum(PUBLICATION_ORDERS)),
  campaign: Type.Optional(Type.String({ minLength: 1, description: 'Campaign name or id' })),
  customer: Type.Optional(Type.String({ minLength: 1, description: 'Customer id or source_id' })),
  voucher: Type.Optional(Type.String({ minLength: 1, description: 'Voucher code' })),
  result: Type.Optional(Type.Enum(['SUCCESS', 'FAILURE'])),
  voucher_type: Type.Optional(Type.String({ minLength: 1, description: 'discount, gift or loyalty (DISCOUNT_VOUCHER, GIFT_VOUCHER, LOYALTY_CARD and the SDK spellings are accepted)' })),
  is_referral_code: Type.Optional(Type.Boolean()),
  source_id: Type.Optional(Type.String({ minLength: 1 })),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'filters[<field>][conditions][<$op>]=…, fields: customer_id, result, source_id, related_object_id (voucher id), parent_object_id (campaign id), voucher_type, created_at, metadata.<key>; filters[junction]=and|or',
    }),
  ),
});
export type ListPublicationsInput = Static<typeof ListPublicationsQuery>;

export const PublicationList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('publications'),
  publications: Type.Array(PublicationListItem),
  total: Type.Integer(),
});
