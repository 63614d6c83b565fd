import Type, { type Static } from 'typebox';
import { CustomerBody } from './customers.ts';
import { Limit, Metadata, Nullable } from './common.ts';

// Referral code holders (vendor /v1/referrals/…/holders): the referrer a code was published to and the
// referees added to it.

export const MAX_HOLDERS_PER_REQUEST = 100;

export const AddHoldersBody = Type.Object({
  holders: Type.Array(CustomerBody, { minItems: 1, maxItems: MAX_HOLDERS_PER_REQUEST, description: 'Customers to add as referees (id or source_id; unknown source_ids are created)' }),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type AddHoldersInput = Static<typeof AddHoldersBody>;

export const HolderObject = Type.Object({
  id: Type.String({ description: 'rh_…' }),
  created_at: Type.String(),
  redeemable_id: Type.String(),
  redeemable_object: Type.Literal('voucher'),
  campaign_id: Nullable(Type.String()),
  campaign_type: Type.Literal('REFERRAL_PROGRAM'),
  voucher_type: Type.Enum(['DISCOUNT_VOUCHER', 'GIFT_VOUCHER', 'LOYALTY_CARD']),
  customer_id: Type.String(),
  holder_role: Type.Enum(['OWNER', 'REFERRER', 'REFEREE']),
  metadata: Metadata,
  object: Type.Literal('redeemable_holder'),
});
export type HolderOut = Static<typeof HolderObject>;

export const AddHoldersResponse = Type.Object({ holders: Type.Array(HolderObject) });

export const ListHoldersQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['id', '-id'], { description: 'Default -id: newest first' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1 })),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'filters[<field>][conditions][<$op>]=…, fields: id, created_at, holder_role, customer_id; filters[junction]=and|or' }),
  ),
});
export type ListHoldersInput = Static<typeof ListHoldersQuery>;

export const HolderList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(HolderObject),
  total: Type.Integer(),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String()),
});

export const MemberParams = Type.Object({ memberId: Type.String({ minLength: 1, description: 'Referral code or its voucher id' }) });
export const CampaignMemberParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'Referral program id or name' }),
  memberId: Type.String({ minLength: 1, description: 'Referral code or its voucher id' }),
});
export const HolderParams = Type.Object({ memberId: Type.String({ minLength: 1 }), holderId: Type.String({ minLength: 1 }) });
export const CampaignHolderParams = Type.Object({
  campaignId: Type.String({ minLength: 1 }),
  memberId: Type.String({ minLength: 1 }),
  holderId: Type.String({ minLength: 1 }),
});
