import type { CampaignRow } from '../../store/campaigns.ts';
import { fromJson } from '../../store/json.ts';
import { findTierWithCampaign, type TierRow } from '../../store/promotion-tiers.ts';
import type { TargetLookup } from '../validation-rules/target-lookup.ts';

// Validation rules can guard promotion tiers (checked, with the campaign's rules, when a tier is
// validated or redeemed); this resolves a tier for the assignment registry.

/** The short form events carry for a tier (platform reference 6.5: id, name, banner, campaign, metadata). */
export function tierSummary(tier: Pick<TierRow, 'id' | 'name' | 'metadata'> & { banner?: string | null | undefined }, campaign: Pick<CampaignRow, 'id' | 'name'>): Record<string, unknown> {
  return {
    id: tier.id,
    name: tier.name,
    banner: tier.banner ?? null,
    campaign: { id: campaign.id, name: campaign.name, object: 'campaign' },
    campaign_id: campaign.id,
    metadata: fromJson<Record<string, unknown>>(tier.metadata, {}),
    object: 'promotion_tier',
  };
}

export const promotionTierTarget: TargetLookup = async (db, projectId, reference) => {
  const found = await findTierWithCampaign(db, projectId, reference);
  if (!found) return undefined;
  return { id: found.tier.id, summary: tierSummary(found.tier, found.campaign) };
};
