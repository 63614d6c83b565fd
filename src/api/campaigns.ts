import Type, { type Static } from 'typebox';
import { CategoryNameMember } from './categories.ts';
import { DateOrDateTime, Limit, Metadata, Nullable, StoredInteger } from './common.ts';
import { FreeFormObject } from './free-form.ts';
import { Discount, Gift, LoyaltyCardTemplate } from './discounts.ts';

// Campaigns of every type (promotions reference 1, loyalty reference 1; seed 2.3, 2.4).

export const ValidityTimeframe = Type.Object({
  interval: Type.String({ minLength: 2, description: 'ISO 8601 duration between window starts, e.g. P2D' }),
  duration: Type.String({ minLength: 2, description: 'ISO 8601 duration of each window, e.g. PT1H' }),
});

const DayOfWeek = Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday … 6 = Saturday' });

export const ValidityHours = Type.Object({
  daily: Type.Array(
    Type.Object({
      start_time: Type.String({ description: 'HH:mm' }),
      expiration_time: Type.String({ description: 'HH:mm' }),
      days_of_week: Type.Array(DayOfWeek, { minItems: 1, maxItems: 7 }),
    }),
    { maxItems: 20 },
  ),
});

/** The start/expiration dates and recurring limits shared by campaigns, vouchers, tiers and earning rules. */
export const ValidityFields = {
  start_date: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  expiration_date: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  validity_timeframe: Type.Optional(Nullable(ValidityTimeframe)),
  validity_day_of_week: Type.Optional(Nullable(Type.Array(DayOfWeek, { maxItems: 7 }))),
  validity_hours: Type.Optional(Nullable(ValidityHours)),
};

/** How many times a voucher can be redeemed (`redemption_quantity`, a bigint column); null = unlimited. */
export const RedemptionQuantity = StoredInteger('bigint', { minimum: 1, description: 'How many times the voucher can be redeemed; null = unlimited' });

export const CodeConfig = Type.Object({
  length: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  charset: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'alphanumeric, alphabetic, alphabetic_lowercase, alphabetic_uppercase, numbers, or the characters themselves' })),
  prefix: Type.Optional(Type.String({ maxLength: 100 })),
  postfix: Type.Optional(Type.String({ maxLength: 100 })),
  pattern: Type.Optional(Type.String({ maxLength: 200, description: "Every '#' becomes a random charset character" })),
  initial_count: Type.Optional(StoredInteger('bigint', { description: 'Ignored' })),
});

export const VOUCHER_TYPES = ['DISCOUNT_VOUCHER', 'GIFT_VOUCHER', 'LOYALTY_CARD'] as const;

export const VoucherTemplate = Type.Object({
  type: Type.Enum(VOUCHER_TYPES),
  discount: Type.Optional(Discount),
  gift: Type.Optional(Gift),
  loyalty_card: Type.Optional(LoyaltyCardTemplate),
  redemption: Type.Optional(Type.Object({ quantity: Type.Optional(Nullable(RedemptionQuantity)) })),
  code_config: Type.Optional(CodeConfig),
  is_referral_code: Type.Optional(Type.Boolean()),
  ...ValidityFields,
});
export type VoucherTemplateInput = Static<typeof VoucherTemplate>;

export const CAMPAIGN_TYPES = ['DISCOUNT_COUPONS', 'PROMOTION', 'GIFT_VOUCHERS', 'REFERRAL_PROGRAM', 'LOYALTY_PROGRAM'] as const;
export const CAMPAIGN_STATUSES = ['DONE', 'IN_PROGRESS', 'FAILED', 'DRAFT', 'MODIFYING'] as const;

/** Most codes one request may ask for; larger campaigns grow with `POST /v1/campaigns/{id}/vouchers`. */
export const MAX_VOUCHERS_PER_REQUEST = 5_000_000;

const CommonCampaignFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  metadata: Type.Optional(Nullable(Metadata)),
  category: Type.Optional(Nullable(CategoryNameMember())),
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  join_once: Type.Optional(Type.Boolean()),
  auto_join: Type.Optional(Type.Boolean()),
  use_voucher_metadata_schema: Type.Optional(Type.Boolean()),
  activity_duration_after_publishing: Type.Optional(Nullable(Type.String({ minLength: 2, description: 'ISO 8601 duration' }))),
  ...ValidityFields,
};

/**
 * A validation rule assignment list as the vendor echoes it on tiers (`{object, data_ref, data, total}`);
 * only each item's `rule_id` is read.
 */
export const RuleAssignmentListInput = Type.Object({
  data: Type.Optional(Type.Array(Type.Object({ rule_id: Type.String({ minLength: 1, description: 'val_…' }) }), { maxItems: 10 })),
});

/**
 * The members of a promotion tier a client sets (promotions reference 1.3, 4.2). Declared here because
 * `promotion.tiers` of a campaign create carries them; the promotion routes build their bodies from it.
 */
export const PromotionTierFields = {
  banner: Type.Optional(Nullable(Type.String({ maxLength: 5000, description: 'Text shown to customers' }))),
  action: Type.Optional(Nullable(Type.Object({ discount: Type.Optional(Nullable(Discount)) }))),
  metadata: Type.Optional(Nullable(Metadata)),
  hierarchy: Type.Optional(
    StoredInteger('integer', { minimum: 1, maximum: 1_000_000, description: 'Order in which tiers apply (ascending); default: after the highest' }),
  ),
  active: Type.Optional(Type.Boolean()),
  category: Type.Optional(Nullable(CategoryNameMember())),
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  validation_rules: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1 }), { maxItems: 10, description: 'Validation rule ids to assign' }))),
  validation_rule_assignments: Type.Optional(Nullable(RuleAssignmentListInput)),
  ...ValidityFields,
};

export const PromotionTierCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 500 }),
  ...PromotionTierFields,
});
export type PromotionTierCreateInput = Static<typeof PromotionTierCreateBody>;

/** Most tiers one campaign create may carry; more can be added with POST /v1/promotions/{id}/tiers. */
export const MAX_TIERS_PER_CREATE = 100;

export const CreateCampaignBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 500 }),
  campaign_type: Type.Optional(Type.Enum(CAMPAIGN_TYPES)),
  type: Type.Optional(Type.Enum(['AUTO_UPDATE', 'STATIC', 'STANDALONE'])),
  vouchers_count: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_VOUCHERS_PER_REQUEST })),
  voucher: Type.Optional(VoucherTemplate),
  promotion: Type.Optional(Nullable(Type.Object({ tiers: Type.Optional(Nullable(Type.Array(PromotionTierCreateBody, { maxItems: MAX_TIERS_PER_CREATE }))) }))),
  referral_program: Type.Optional(Nullable(FreeFormObject())),
  loyalty_tiers_expiration: Type.Optional(Nullable(FreeFormObject())),
  validation_rules: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1 })),
  ...CommonCampaignFields,
});
export type CreateCampaignInput = Static<typeof CreateCampaignBody>;

export const UpdateCampaignBody = Type.Object({
  ...CommonCampaignFields,
  type: Type.Optional(Type.Enum(['AUTO_UPDATE', 'STATIC'])),
  unset_metadata_fields: Type.Optional(Type.Array(Type.String())),
  discount: Type.Optional(Discount),
  gift: Type.Optional(Gift),
  loyalty_card: Type.Optional(LoyaltyCardTemplate),
  referral_program: Type.Optional(Nullable(FreeFormObject())),
  loyalty_tiers_expiration: Type.Optional(Nullable(FreeFormObject())),
  options: Type.Optional(
    Type.Object({
      recalculate_tiers: Type.Optional(Type.Boolean({ description: 'Loyalty programs: recompute every member’s tier under the current rules (in the background)' })),
    }),
  ),
});
export type UpdateCampaignInput = Static<typeof UpdateCampaignBody>;

export const ListCampaignsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  campaign_type: Type.Optional(Type.Enum(CAMPAIGN_TYPES)),
  campaign_status: Type.Optional(Type.Enum(CAMPAIGN_STATUSES)),
  is_referral_code: Type.Optional(Type.Boolean()),
  expand: Type.Optional(Type.String({ description: 'category: embed categories on every campaign' })),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at'])),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'filters[<field>][conditions][<$op>]=…, fields: campaigns (name), campaigns_id (id), campaign_status, categories / category_ids, type, voucher_type, created_date, updated_at, start_date, expiration_date, validity_timeframe (start of its windows), validity_day_of_week ($is: has every day), metadata.<key>; filters[active][conditions][$enabled|$disabled|$expired|$active]=, filters[status][conditions][$active|$failed|$in_progress|$expired|before_start]=; filters[junction]=and|or (the state filters always add to the others)',
    }),
  ),
});
export type ListCampaignsInput = Static<typeof ListCampaignsQuery>;

export const AddVouchersQuery = Type.Object({
  vouchers_count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_VOUCHERS_PER_REQUEST, default: 1 })),
});

export const AddVouchersBody = Type.Object({
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  code_config: Type.Optional(CodeConfig),
  category: Type.Optional(Nullable(CategoryNameMember())),
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  metadata: Type.Optional(Nullable(Metadata)),
  additional_info: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  redemption: Type.Optional(Type.Object({ quantity: Type.Optional(Nullable(RedemptionQuantity)) })),
  start_date: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  expiration_date: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
});
export type AddVouchersInput = Static<typeof AddVouchersBody>;

const CategoryOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hierarchy: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('category'),
});

export const CampaignObject = Type.Object({
  id: Type.String({ description: 'camp_…' }),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  campaign_type: Type.Enum(CAMPAIGN_TYPES),
  type: Type.Enum(['AUTO_UPDATE', 'STATIC', 'STANDALONE']),
  voucher: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Template of the campaign’s vouchers' })),
  auto_join: Type.Boolean(),
  join_once: Type.Boolean(),
  use_voucher_metadata_schema: Type.Boolean(),
  validity_timeframe: Type.Optional(ValidityTimeframe),
  validity_day_of_week: Type.Optional(Type.Array(Type.Integer())),
  validity_hours: Type.Optional(ValidityHours),
  activity_duration_after_publishing: Type.Optional(Type.String()),
  vouchers_count: Type.Integer(),
  start_date: Type.Optional(Type.String()),
  expiration_date: Type.Optional(Type.String()),
  active: Type.Boolean(),
  metadata: Metadata,
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
  category: Type.Optional(Type.String({ description: 'Category name' })),
  creation_status: Type.Enum(CAMPAIGN_STATUSES),
  vouchers_generation_status: Type.Enum(CAMPAIGN_STATUSES),
  protected: Type.Boolean(),
  category_id: Nullable(Type.String()),
  categories: Type.Array(CategoryOut),
  promotion: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'PROMOTION campaigns: the list of tiers' })),
  referral_program: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  loyalty_tiers_expiration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  validation_rules_assignments: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'List of the rules assigned to the campaign' })),
  object: Type.Literal('campaign'),
});
export type CampaignOut = Static<typeof CampaignObject>;

export const CampaignList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('campaigns'),
  campaigns: Type.Array(CampaignObject),
  total: Type.Integer(),
});

export const AsyncActionAccepted = Type.Object({ async_action_id: Type.String({ description: 'aa_…; follow it with GET /v1/async-actions/{id}' }) });

export const DeleteCampaignQuery = Type.Object({
  force: Type.Optional(Type.Boolean({ description: 'true: delete permanently; otherwise move to the bin' })),
});
