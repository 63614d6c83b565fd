import Type, { type Static } from 'typebox';
import { REWARD_TYPES } from '../domain/loyalty/rewards.ts';
import { Limit, Metadata, Nullable } from './common.ts';
import { CreateOrderBody, OrderObject } from './orders.ts';

// Rewards, reward assignments, member rewards and reward redemption (seed 2.2, 2.8, 4.1; loyalty
// reference 5). Cross-member rules (the type, the referenced campaign and product) are checked by the
// service.

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
/** The vendor's request schema types ratios as strings while its examples send numbers; both are read. */
const Ratio = (description: string) => Type.Union([Type.Number(), Type.String({ pattern: '^\\s*[0-9]+(\\.[0-9]+)?\\s*$' })], { description });

export const CampaignParameters = Type.Object({
  id: Type.Optional(Id('Campaign id or name: the coupons, gift cards or loyalty cards handed out')),
  balance: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Points (loyalty) or minor units (gift cards) added' }))),
  type: Type.Optional(Nullable(Type.Enum(['DISCOUNT_COUPONS', 'GIFT_VOUCHERS', 'LOYALTY_PROGRAM'], { description: 'Output; follows the campaign' }))),
});

export const CoinParameters = Type.Object({
  exchange_ratio: Type.Optional(Ratio('Cash value (major units) of points_ratio points')),
  points_ratio: Type.Optional(Nullable(Ratio('Points that are worth exchange_ratio; 1 when absent'))),
});

export const ProductParameters = Type.Object({
  id: Type.Optional(Id('Product id or source_id')),
  sku_id: Type.Optional(Nullable(Id('SKU id or source_id of the product'))),
  sku: Type.Optional(Nullable(Id('SDK spelling of sku_id'))),
});

export const RewardParameters = Type.Object(
  {
    campaign: Type.Optional(Nullable(CampaignParameters)),
    coin: Type.Optional(Nullable(CoinParameters)),
    product: Type.Optional(Nullable(ProductParameters)),
  },
  { description: 'Exactly one member: campaign (CAMPAIGN), coin (COIN) or product (MATERIAL)' },
);

export const Attributes = Type.Object({
  image_url: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'HTTPS URL of a .png or .jpg' }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
});

const Stock = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Units available; null = unlimited' });

export const CreateRewardBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 500 }),
  type: Type.Optional(Type.Enum(REWARD_TYPES, { description: 'Taken from the one parameters member present (campaign, coin or product) when absent' })),
  parameters: Type.Optional(RewardParameters),
  stock: Type.Optional(Nullable(Stock)),
  attributes: Type.Optional(Nullable(Attributes)),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type CreateRewardInput = Static<typeof CreateRewardBody>;

export const UpdateRewardBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    type: Type.Optional(Type.Enum(REWARD_TYPES, { description: 'Must stay the same' })),
    parameters: Type.Optional(RewardParameters),
    stock: Type.Optional(Nullable(Stock)),
    attributes: Type.Optional(Nullable(Attributes)),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { description: 'Only the members sent change' },
);
export type UpdateRewardInput = Static<typeof UpdateRewardBody>;

export const RewardObject = Type.Object({
  id: Type.String({ description: 'rew_…' }),
  name: Type.String(),
  type: Type.Enum(REWARD_TYPES),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'campaign {id, balance, type} | coin {exchange_ratio, points_ratio} | product {id, sku_id}' }),
  stock: Nullable(Type.Integer()),
  redeemed: Nullable(Type.Integer()),
  attributes: Type.Object({ image_url: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }),
  metadata: Metadata,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('reward'),
});

const PageFields = {
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
};

export const ListRewardsQuery = Type.Object({
  ...PageFields,
  assignment_id: Type.Optional(Type.String({ minLength: 1, description: 'Only the reward of this assignment' })),
});
export type ListRewardsInput = Static<typeof ListRewardsQuery>;

export const RewardList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(RewardObject),
  total: Type.Integer(),
});

// ---- assignments ----

export const LoyaltyParameters = Type.Object({
  points: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: 'Price in points' }))),
  auto_redeem: Type.Optional(Nullable(Type.Boolean({ description: 'Redeem automatically once the balance reaches the price; one per campaign' }))),
});

export const AssignmentParameters = Type.Object({ loyalty: Type.Optional(Nullable(LoyaltyParameters)) });

const AssignmentFields = {
  parameters: Type.Optional(Nullable(AssignmentParameters)),
  validation_rules: Type.Optional(Type.Array(Id('val_…'), { maxItems: 10, description: 'Rules checked when the reward is redeemed (pay with points)' })),
};

export const CreateRewardAssignmentBody = Type.Object({ campaign: Id('Loyalty campaign id or name'), ...AssignmentFields });
export type CreateRewardAssignmentInput = Static<typeof CreateRewardAssignmentBody>;

export const CampaignRewardItem = Type.Object({ reward: Id('rew_…'), ...AssignmentFields });
export const CreateCampaignRewardsBody = Type.Array(CampaignRewardItem, { minItems: 1, maxItems: 100 });
export type CampaignRewardInput = Static<typeof CampaignRewardItem>;

export const UpdateRewardAssignmentBody = Type.Object({ parameters: Type.Optional(Nullable(AssignmentParameters)) });
export type UpdateRewardAssignmentInput = Static<typeof UpdateRewardAssignmentBody>;

export const RewardAssignmentObject = Type.Object({
  id: Type.String({ description: 'rewa_…' }),
  reward_id: Type.String(),
  related_object_id: Type.String({ description: 'Campaign id' }),
  related_object_type: Type.Literal('campaign'),
  parameters: Type.Optional(Type.Object({ loyalty: Type.Object({ points: Type.Integer(), auto_redeem: Nullable(Type.Boolean()) }) }, { description: 'Absent for pay-with-points rewards' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('reward_assignment'),
});

export const RewardAssignmentArray = Type.Array(RewardAssignmentObject);

export const RewardAssignmentList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(RewardAssignmentObject),
  total: Type.Integer(),
});

export const ListAssignmentsQuery = Type.Object({
  ...PageFields,
  assignment_id: Type.Optional(Type.String({ minLength: 1, description: 'Only this assignment' })),
});
export type ListAssignmentsInput = Static<typeof ListAssignmentsQuery>;

export const RewardParams = Type.Object({ rewardId: Id('rew_…') });
export const RewardAssignmentParams = Type.Object({ rewardId: Id('rew_…'), assignmentId: Id('rewa_…') });
export const CampaignAssignmentParams = Type.Object({ campaignId: Id('Loyalty campaign id or name'), assignmentId: Id('rewa_…') });
export const CampaignParams = Type.Object({ campaignId: Id('Loyalty campaign id or name') });

export const TierRewardList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(Type.Object({ reward: RewardObject, assignment: RewardAssignmentObject, object: Type.Literal('loyalty_tier_reward') })),
  total: Type.Integer(),
});

// ---- member rewards and redemption ----

export const MemberRewardsQuery = Type.Object({
  ...PageFields,
  affordable_only: Type.Optional(Type.Boolean({ description: 'Only rewards the card balance pays for' })),
});
export type MemberRewardsInput = Static<typeof MemberRewardsQuery>;

export const MemberRewardList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(Type.Object({ reward: RewardObject, assignment: RewardAssignmentObject, object: Type.Literal('loyalty_reward') })),
  total: Type.Integer(),
});

export const RedeemRewardBody = Type.Object({
  reward: Type.Optional(
    Nullable(
      Type.Object({
        id: Type.Optional(Nullable(Id('Reward id (rew_…), or the id of its assignment to the card’s campaign'))),
        assignment_id: Type.Optional(Nullable(Id('rewa_…'))),
        points: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: 'Pay with points: points to spend' }))),
      }),
    ),
  ),
  order: Type.Optional(Nullable(CreateOrderBody)),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type RedeemRewardInput = Static<typeof RedeemRewardBody>;

export const CardRedemptionParams = Type.Object({ campaignId: Id('Loyalty campaign id or name'), memberId: Id('Loyalty card code') });
export const MemberParams = Type.Object({ memberId: Id('Loyalty card code') });

export const RedemptionObject = Type.Object(
  {
    id: Type.String({ description: 'r_…' }),
    object: Type.Enum(['redemption', 'redemption_rollback']),
    date: Type.String({ format: 'date-time' }),
    customer_id: Nullable(Type.String()),
    tracking_id: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    amount: Type.Optional(Type.Integer({ description: 'Points spent' })),
    redemption: Nullable(Type.String({ description: 'Parent redemption; null here' })),
    result: Type.Enum(['SUCCESS', 'FAILURE']),
    status: Type.Enum(['SUCCEEDED', 'FAILED', 'ROLLED_BACK']),
    order: Nullable(OrderObject),
    channel: Type.Object({ channel_id: Nullable(Type.String()), channel_type: Type.String() }),
    customer: Nullable(
      Type.Object({
        id: Type.String(),
        name: Nullable(Type.String()),
        email: Nullable(Type.String()),
        source_id: Nullable(Type.String()),
        metadata: Metadata,
        object: Type.Literal('customer'),
      }),
    ),
    related_object_type: Type.String(),
    related_object_id: Type.String(),
    voucher: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    reward: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The reward with customer, assignment_id, voucher, product, sku, loyalty_tier_id' })),
    loyalty_card: Type.Optional(Type.Object({ points: Type.Integer() })),
  },
  { additionalProperties: true },
);
