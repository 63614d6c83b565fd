import Type, { type Static } from 'typebox';
import { Limit, Metadata, Nullable } from './common.ts';

// Loyalty tiers (loyalty reference 6). Which ids the mappings may name is checked by the service.

export const PointsMappingInput = Type.Object(
  {
    type: Type.Enum(['MULTIPLY', 'CUSTOM']),
    multiplier: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'MULTIPLY: points × multiplier' })),
    points: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'CUSTOM: this many points instead' })),
  },
  { description: '{type: MULTIPLY, multiplier} or {type: CUSTOM, points}' },
);

const Mappings = (what: string) =>
  Type.Optional(Nullable(Type.Record(Type.String({ minLength: 1, maxLength: 255 }), PointsMappingInput, { description: `${what} id → mapping` })));

export const PointsRange = Type.Object({
  from: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Lowest points of the tier; 0 when absent' }))),
  to: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Highest points of the tier (inclusive); open when absent' }))),
});

export const CreateTierItem = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  points: PointsRange,
  earning_rules: Mappings('Earning rule (ern_…)'),
  rewards: Mappings('Reward assignment (rewa_…)'),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type CreateTierInput = Static<typeof CreateTierItem>;

export const CreateTiersBody = Type.Array(CreateTierItem, { minItems: 1, maxItems: 50, description: 'Tiers to create, all or none' });

export const UpdateTierBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    points: Type.Optional(PointsRange),
    earning_rules: Mappings('Earning rule (ern_…)'),
    rewards: Mappings('Reward assignment (rewa_…)'),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { description: 'Only the members sent change; points replaces the whole range, earning_rules and rewards their whole mapping' },
);
export type UpdateTierInput = Static<typeof UpdateTierBody>;

export const TierParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'Loyalty campaign id or name' }),
  loyaltyTierId: Type.String({ minLength: 1, description: 'ltr_…' }),
});

export const ListTiersQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at'], { description: 'Default created_at' })),
});
export type ListTiersInput = Static<typeof ListTiersQuery>;

export const PageQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type PageInput = Static<typeof PageQuery>;

export const Range = Type.Object({ from: Type.Integer(), to: Nullable(Type.Integer()) });
const MappingOut = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()));

export const TierObject = Type.Object({
  id: Type.String({ description: 'ltr_…' }),
  name: Type.String(),
  campaign_id: Type.String(),
  metadata: Nullable(Metadata),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  points: Range,
  config: Type.Object({ points: Range }),
  earning_rules: MappingOut,
  rewards: MappingOut,
  expiration: Type.Optional(
    Type.Object(
      {
        customer_id: Nullable(Type.String()),
        campaign_id: Type.String(),
        tier_id: Type.String(),
        start_date: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
        expiration_date: Nullable(Type.String({ description: 'YYYY-MM-DD, the last day held; null while the points qualify' })),
        created_at: Type.String(),
        updated_at: Nullable(Type.String()),
      },
      { description: 'Member tier lists only' },
    ),
  ),
  object: Type.Literal('loyalty_tier'),
});

export const TierArray = Type.Array(TierObject);

export const TierList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(TierObject),
  total: Type.Integer(),
});

export const MemberTierParams = Type.Object({ memberId: Type.String({ minLength: 1, description: 'Loyalty card code' }) });
