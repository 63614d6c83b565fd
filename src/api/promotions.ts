import Type, { type Static } from 'typebox';
import { PromotionTierCreateBody, PromotionTierFields, ValidityHours, ValidityTimeframe } from './campaigns.ts';
import { CategoryObject } from './categories.ts';
import { DateOrDateTime, Limit, Metadata, Nullable } from './common.ts';
import { AssignmentObject } from './validation-rules.ts';

// Promotion tiers and promotion stacks (seed 2.9, 4.12, 4.13; promotions reference 4).

export { PromotionTierCreateBody };
export type { PromotionTierCreateInput } from './campaigns.ts';

/** `PUT /v1/promotions/tiers/{id}`: every member optional; the `id` the SDK keeps in the body is ignored. */
export const PromotionTierUpdateBody = Type.Object({
  id: Type.Optional(Type.String({ description: 'Ignored: the path names the tier' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  ...PromotionTierFields,
});
export type PromotionTierUpdateInput = Static<typeof PromotionTierUpdateBody>;

export const TIER_ORDERS = ['created_at', '-created_at', 'updated_at', '-updated_at'] as const;

export const ListTiersQuery = Type.Object({
  is_available: Type.Optional(Type.Boolean({ description: 'true: only tiers usable now (tier and campaign active, inside dates and recurring windows)' })),
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  order: Type.Optional(Type.Enum(TIER_ORDERS)),
});
export type ListTiersInput = Static<typeof ListTiersQuery>;

/**
 * Seed 4.12 sets no upper bound on the client-side page; one is still needed so the row offset stays a
 * number both databases accept.
 */
const UnboundedPage = Type.Integer({ minimum: 1, maximum: 1_000_000 });

export const ClientListTiersQuery = Type.Object({
  is_available: Type.Optional(Type.Boolean({ description: 'true: only tiers usable now' })),
  limit: Type.Optional(Limit),
  page: Type.Optional(UnboundedPage),
  order: Type.Optional(Type.Enum(TIER_ORDERS)),
});

/** The campaign's own list: in hierarchy order; the SDK sends no parameters and expects every tier. */
export const ListCampaignTiersQuery = Type.Object({
  is_available: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  page: Type.Optional(UnboundedPage),
});
export type ListCampaignTiersInput = Static<typeof ListCampaignTiersQuery>;

export const PromotionTierObject = Type.Object({
  id: Type.String({ description: 'promo_…' }),
  object: Type.Literal('promotion_tier'),
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
  name: Type.String(),
  banner: Nullable(Type.String()),
  action: Type.Object({ discount: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Discount definition' })) }),
  metadata: Metadata,
  hierarchy: Type.Integer(),
  promotion_id: Type.String({ description: 'The campaign id' }),
  campaign: Type.Object({
    id: Type.String(),
    start_date: Nullable(Type.String()),
    expiration_date: Nullable(Type.String()),
    validity_timeframe: Nullable(ValidityTimeframe),
    validity_day_of_week: Nullable(Type.Array(Type.Integer())),
    validity_hours: Nullable(ValidityHours),
    active: Type.Boolean(),
    category_id: Nullable(Type.String()),
    object: Type.Literal('campaign'),
  }),
  campaign_id: Type.String(),
  active: Type.Boolean(),
  start_date: Nullable(Type.String()),
  expiration_date: Nullable(Type.String()),
  validity_timeframe: Nullable(ValidityTimeframe),
  validity_day_of_week: Nullable(Type.Array(Type.Integer())),
  validity_hours: Nullable(ValidityHours),
  summary: Type.Object({
    redemptions: Type.Object({ total_redeemed: Type.Integer() }),
    orders: Type.Object({ total_amount: Type.Integer(), total_discount_amount: Type.Integer() }),
  }),
  validation_rule_assignments: Type.Object({
    object: Type.Literal('list'),
    data_ref: Type.Literal('data'),
    data: Type.Array(AssignmentObject),
    total: Type.Integer(),
  }),
  category_id: Nullable(Type.String()),
  categories: Type.Array(CategoryObject),
});
export type PromotionTierOut = Static<typeof PromotionTierObject>;

export const PromotionTierList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('tiers'),
  tiers: Type.Array(PromotionTierObject),
  total: Type.Integer(),
  has_more: Type.Boolean({ description: 'More tiers exist for the same filters after this page' }),
});
export type PromotionTierListOut = Static<typeof PromotionTierList>;

// ---- stacks ----

export const StackTiers = Type.Object({
  ids: Type.Array(Type.String({ minLength: 1, description: 'promo_… of the campaign' }), {
    minItems: 1,
    maxItems: 30,
    description: 'The tiers in the order they apply',
  }),
  hierarchy_mode: Type.Optional(Type.Enum(['MANUAL'], { description: 'Only MANUAL: the order of ids' })),
});

export const CreateStackBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 500 }),
  tiers: StackTiers,
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
});
export type CreateStackInput = Static<typeof CreateStackBody>;

export const UpdateStackBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  tiers: Type.Optional(StackTiers),
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
});
export type UpdateStackInput = Static<typeof UpdateStackBody>;

export const PromotionStackObject = Type.Object({
  id: Type.String({ description: 'stack_…' }),
  name: Type.String(),
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
  campaign_id: Type.String(),
  object: Type.Literal('promotion_stack'),
  tiers: Type.Object({ ids: Type.Array(Type.String()), hierarchy_mode: Type.Literal('MANUAL') }),
  category_id: Nullable(Type.String()),
  categories: Type.Array(CategoryObject),
});
export type PromotionStackOut = Static<typeof PromotionStackObject>;

export const PromotionStackList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(PromotionStackObject),
  total: Type.Integer(),
});
export type PromotionStackListOut = Static<typeof PromotionStackList>;

const DateRange = (description: string) =>
  Type.Object({ before: Type.Optional(DateOrDateTime), after: Type.Optional(DateOrDateTime) }, { description });

export const ListStacksQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at', 'name', '-name'])),
  created_at: Type.Optional(DateRange('created_at[before] / created_at[after], exclusive; a date means midnight UTC')),
  updated_at: Type.Optional(DateRange('updated_at[before] / updated_at[after], exclusive; a stack never updated counts as updated when created')),
});
export type ListStacksInput = Static<typeof ListStacksQuery>;

export const ListCampaignStacksQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  page: Type.Optional(UnboundedPage),
});
export type ListCampaignStacksInput = Static<typeof ListCampaignStacksQuery>;
