import Type, { type Static } from 'typebox';
import { Limit, Metadata, Nullable, StoredInteger } from './common.ts';

// Referral tiers: referrer rewards of a REFERRAL_PROGRAM campaign (a Punchcard extension; the vendor
// configures them in its dashboard only). The reward has the shape of the vendor's
// `referral_program.referee_reward`, plus DISCOUNT_VOUCHER (a coupon published to the referrer). Which
// members a type needs (amount for points and credits, none for a coupon) is checked by the service.

export const RewardParentInput = Type.Object({
  id: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Reward campaign id (camp_…)' }))),
  name: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Reward campaign name, when no id is given' }))),
  object: Type.Optional(Nullable(Type.Enum(['CAMPAIGN']))),
});

const RewardType = Type.Enum(['LOYALTY_CARD', 'GIFT_VOUCHER', 'DISCOUNT_VOUCHER'], {
  description: 'LOYALTY_CARD: points on a card of a LOYALTY_PROGRAM; GIFT_VOUCHER: credits on a card of a GIFT_VOUCHERS campaign; DISCOUNT_VOUCHER: a coupon of a DISCOUNT_COUPONS campaign',
});

export const ReferralTierRewardInput = Type.Object({
  related_object_parent: RewardParentInput,
  type: RewardType,
  amount: Type.Optional(
    Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: 'Points, or gift credits in minor units; not for DISCOUNT_VOUCHER' })),
  ),
});

const Conversions = StoredInteger('integer', { minimum: 1, maximum: 1_000_000, description: "The referrer's number of converted referees in the program that earns the tier (unique per program)" });
const Banner = Nullable(Type.String({ maxLength: 1000, description: 'Text shown to customers' }));

export const CreateReferralTierBody = Type.Object({
  banner: Type.Optional(Banner),
  conversions: Conversions,
  parameters: Type.Object({ reward: ReferralTierRewardInput }),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type CreateReferralTierInput = Static<typeof CreateReferralTierBody>;

export const UpdateReferralTierBody = Type.Object(
  {
    banner: Type.Optional(Banner),
    conversions: Type.Optional(Conversions),
    parameters: Type.Optional(Type.Object({ reward: ReferralTierRewardInput })),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { description: 'Only the members sent change; `parameters.reward` is replaced whole' },
);
export type UpdateReferralTierInput = Static<typeof UpdateReferralTierBody>;

export const ReferralTierObject = Type.Object({
  id: Type.String({ description: 'rt_…' }),
  campaign_id: Type.String(),
  banner: Nullable(Type.String()),
  conversions: Type.Integer(),
  parameters: Type.Object({
    reward: Type.Object({
      related_object_parent: Type.Object({
        id: Type.String(),
        name: Nullable(Type.String({ description: "The reward campaign's current name; null once it is gone" })),
        object: Type.Literal('CAMPAIGN'),
      }),
      type: RewardType,
      amount: Nullable(Type.Integer()),
    }),
  }),
  metadata: Metadata,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('referral_tier'),
});
export type ReferralTierOut = Static<typeof ReferralTierObject>;

export const ListReferralTiersQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  order: Type.Optional(Type.Enum(['conversions', '-conversions'], { description: 'Default conversions: the first tier a referrer reaches first' })),
});
export type ListReferralTiersInput = Static<typeof ListReferralTiersQuery>;

export const ReferralTierList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(ReferralTierObject),
  total: Type.Integer(),
  has_more: Type.Boolean(),
});
export type ReferralTierListOut = Static<typeof ReferralTierList>;

export const ReferralProgramParams = Type.Object({ campaignId: Type.String({ minLength: 1, description: 'Referral program id (camp_…) or name' }) });
export const ReferralTierParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'Referral program id (camp_…) or name' }),
  tierId: Type.String({ minLength: 1, description: 'rt_…' }),
});
