import Type, { type Static } from 'typebox';
import { CampaignObject, CodeConfig, CreateCampaignBody, PromotionTierCreateBody, RedemptionQuantity } from './campaigns.ts';
import { Limit, Nullable } from './common.ts';
import { PromotionTierObject } from './promotions.ts';

// Campaign templates (vendor /v1/templates/campaigns…, management list and copy).

const Name = Type.String({ minLength: 1, maxLength: 500, description: 'Unique among the project’s templates' });
const Description = Type.Optional(Nullable(Type.String({ maxLength: 5000 })));

export const CreateCampaignTemplateBody = Type.Object({
  name: Name,
  description: Description,
  campaign_id: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'A DISCOUNT_COUPONS or GIFT_VOUCHERS campaign (id or name) to take the configuration from' }))),
  promotion_tier_id: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Or a promotion tier (promo_…): it becomes a DISCOUNT_COUPONS configuration' }))),
});
export type CreateCampaignTemplateInput = Static<typeof CreateCampaignTemplateBody>;

export const UpdateCampaignTemplateBody = Type.Object(
  { name: Type.Optional(Name), description: Description },
  { description: 'Only the name and the description change; members not sent stay' },
);
export type UpdateCampaignTemplateInput = Static<typeof UpdateCampaignTemplateBody>;

export const CopyCampaignTemplateBody = Type.Object({
  name: Name,
  description: Description,
  destination_project_id: Type.String({ minLength: 1, description: 'The project the copy is made in (proj_…)' }),
});
export type CopyCampaignTemplateInput = Static<typeof CopyCampaignTemplateBody>;

export const CampaignTemplateObject = Type.Object({
  id: Type.String({ description: 'camp_tpl_…' }),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  campaign_type: Type.Enum(['DISCOUNT_COUPONS', 'GIFT_VOUCHERS']),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('campaign_template'),
});
export type CampaignTemplateOut = Static<typeof CampaignTemplateObject>;

export const ListCampaignTemplatesQuery = Type.Object({
  limit: Type.Optional(Limit),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Cursor: templates after this one in list order' })),
  order: Type.Optional(Type.Enum(['id', '-id'], { description: 'Default id: oldest first' })),
  include_total: Type.Optional(Type.Boolean({ description: 'Add `total`: every template of the project, whatever the filters' })),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'filters[<field>][conditions][<$op>]=…, fields: id, name, campaign_type; filters[junction]=and|or' }),
  ),
});
export type ListCampaignTemplatesInput = Static<typeof ListCampaignTemplatesQuery>;

export const CampaignTemplateList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(CampaignTemplateObject),
  total: Type.Optional(Type.Integer()),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String({ description: 'Pass as starting_after_id for the next page' })),
});
export type CampaignTemplateListOut = Static<typeof CampaignTemplateList>;

/** What a campaign made from a template may set instead of the template's configuration. */
const CampaignSetupFields = Type.Pick(CreateCampaignBody, [
  'description',
  'type',
  'join_once',
  'auto_join',
  'use_voucher_metadata_schema',
  'vouchers_count',
  'start_date',
  'expiration_date',
  'validity_timeframe',
  'validity_day_of_week',
  'validity_hours',
  'activity_duration_after_publishing',
  'category_id',
  'category',
  'metadata',
]);

export const CampaignSetupBody = Type.Object({
  ...CampaignSetupFields.properties,
  name: CreateCampaignBody.properties.name,
  voucher: Type.Optional(
    Nullable(
      Type.Object({
        code_config: Type.Optional(Nullable(CodeConfig)),
        redemption: Type.Optional(Nullable(Type.Object({ quantity: Type.Optional(Nullable(RedemptionQuantity)) }))),
      }),
    ),
  ),
});
export type CampaignSetupInput = Static<typeof CampaignSetupBody>;

/** What a promotion tier made from a template may set instead of the template's configuration. */
const TierSetupFields = Type.Pick(PromotionTierCreateBody, [
  'name',
  'banner',
  'metadata',
  'hierarchy',
  'active',
  'start_date',
  'expiration_date',
  'validity_timeframe',
  'validity_day_of_week',
  'validity_hours',
  'category',
  'category_id',
]);

export const TierSetupBody = Type.Object({
  ...TierSetupFields.properties,
  campaign_id: Type.String({ minLength: 1, description: 'The PROMOTION campaign (id or name) the tier is added to' }),
});
export type TierSetupInput = Static<typeof TierSetupBody>;

export const CreatedResources = Type.Array(
  Type.Object({ id: Type.String(), object: Type.Literal('validation_rules') }),
  { description: "The copies of the template's validation rules made for the new campaign or tier" },
);

export const CampaignSetupObject = Type.Object({ created_resources: CreatedResources, campaign: CampaignObject, object: Type.Literal('campaign_setup') });
export type CampaignSetupOut = Static<typeof CampaignSetupObject>;

export const TierSetupObject = Type.Object({
  created_resources: CreatedResources,
  promotion_tier: PromotionTierObject,
  object: Type.Literal('promotion_tier_setup'),
});
export type TierSetupOut = Static<typeof TierSetupObject>;
