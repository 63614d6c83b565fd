import type { PromotionTierOut } from '../../api/promotions.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { findCategoriesByIds, toCategoryObject, type CategoryRow } from '../../store/categories.ts';
import type { Executor } from '../../store/db.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import { fromJson } from '../../store/json.ts';
import {
  assignmentsOfTiers,
  EMPTY_TIER_SUMMARY,
  findTierSummaries,
  type TierAssignmentRow,
  type TierRow,
  type TierSummary,
  type TierWithCampaign,
} from '../../store/promotion-tiers.ts';
import { toAssignmentObject } from '../validation-rules/validation-rules.ts';

// The promotion tier object (seed 2.9, promotions reference 4.1) built from stored rows. Every member of
// 2.9 is always present; what a tier does not have is null, so clients see one shape.

export type PromotionTierObject = PromotionTierOut;

type Timeframe = PromotionTierOut['validity_timeframe'];
type Hours = PromotionTierOut['validity_hours'];

function campaignPart(campaign: CampaignRow): PromotionTierOut['campaign'] {
  return {
    id: campaign.id,
    start_date: campaign.start_date,
    expiration_date: campaign.expiration_date,
    validity_timeframe: fromJson<Timeframe>(campaign.validity_timeframe, null),
    validity_day_of_week: fromJson<number[] | null>(campaign.validity_day_of_week, null),
    validity_hours: fromJson<Hours>(campaign.validity_hours, null),
    active: Boolean(campaign.active),
    category_id: campaign.category_id,
    object: 'campaign',
  };
}

export function tierObject(
  tier: TierRow,
  campaign: CampaignRow,
  assignments: readonly TierAssignmentRow[],
  category: CategoryRow | undefined,
  summary: TierSummary,
): PromotionTierObject {
  return {
    id: tier.id,
    object: 'promotion_tier',
    created_at: tier.created_at,
    updated_at: tier.updated_at,
    name: tier.name,
    banner: tier.banner,
    action: fromJson<PromotionTierOut['action']>(tier.action, {}),
    metadata: fromJson<Record<string, unknown>>(tier.metadata, {}),
    hierarchy: Number(tier.hierarchy),
    // The vendor once answered campaign_id null on create; both always carry the campaign (reference 4.1).
    promotion_id: campaign.id,
    campaign: campaignPart(campaign),
    campaign_id: campaign.id,
    active: Boolean(tier.active),
    start_date: tier.start_date,
    expiration_date: tier.expiration_date,
    validity_timeframe: fromJson<Timeframe>(tier.validity_timeframe, null),
    validity_day_of_week: fromJson<number[] | null>(tier.validity_day_of_week, null),
    validity_hours: fromJson<Hours>(tier.validity_hours, null),
    summary: {
      redemptions: { total_redeemed: summary.redeemed },
      orders: { total_amount: summary.ordersAmount, total_discount_amount: summary.discountAmount },
    },
    validation_rule_assignments: { object: 'list', data_ref: 'data', data: assignments.map(toAssignmentObject), total: assignments.length },
    category_id: tier.category_id,
    categories: category ? [toCategoryObject(category)] : [],
  };
}

/**
 * Tier objects for several tiers with the lookups batched (one query per kind, not per tier).
 * `summaries`: the tiers' summaries when the caller read them already (a tier absent from it has none).
 */
export async function renderTiers(
  db: Executor,
  projectId: string,
  items: readonly TierWithCampaign[],
  defs?: DefinitionsView,
  summaries?: ReadonlyMap<string, TierSummary>,
): Promise<PromotionTierObject[]> {
  if (items.length === 0) return [];
  const assignments = await assignmentsOfTiers(
    db,
    projectId,
    items.map((i) => i.tier.id),
    defs,
  );
  const byTier = new Map<string, TierAssignmentRow[]>();
  for (const row of assignments) byTier.set(row.related_object_id, [...(byTier.get(row.related_object_id) ?? []), row]);
  const categories = await findCategoriesByIds(
    db,
    projectId,
    items.map((i) => i.tier.category_id).filter((id): id is string => id !== null),
    defs,
  );
  const summaryOf =
    summaries ??
    (await findTierSummaries(
      db,
      projectId,
      items.map((i) => i.tier.id),
    ));
  return items.map(({ tier, campaign }) =>
    tierObject(tier, campaign, byTier.get(tier.id) ?? [], tier.category_id !== null ? categories.get(tier.category_id) : undefined, summaryOf.get(tier.id) ?? EMPTY_TIER_SUMMARY),
  );
}

export async function renderTier(db: Executor, projectId: string, item: TierWithCampaign): Promise<PromotionTierObject> {
  const [object] = await renderTiers(db, projectId, [item]);
  if (!object) throw new Error('rendering one tier gave none');
  return object;
}
