import type { PromotionTierListOut } from '../../api/promotions.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import type { Executor } from '../../store/db.ts';
import { tiersOfCampaigns } from '../../store/promotion-tiers.ts';
import { renderTiers } from './tier-object.ts';

// The `promotion` member of PROMOTION campaign objects (promotions reference 1.4): the campaign's tiers in
// the order they apply, as a list with `total` and `has_more`.

/** Tiers shown inside a campaign object; the rest are paged with GET /v1/promotions/{id}/tiers. */
export const TIERS_PER_CAMPAIGN_OBJECT = 100;

/** The `promotion` member of each PROMOTION campaign among `rows`, by campaign id (batched for a page). */
export async function promotionMembers(db: Executor, projectId: string, rows: readonly CampaignRow[]): Promise<Map<string, PromotionTierListOut>> {
  const campaigns = new Map(rows.filter((r) => r.campaign_type === 'PROMOTION').map((r) => [r.id, r]));
  const out = new Map<string, PromotionTierListOut>();
  if (campaigns.size === 0) return out;
  const { rows: tierRows, totals } = await tiersOfCampaigns(db, projectId, [...campaigns.keys()], TIERS_PER_CAMPAIGN_OBJECT);
  const items = tierRows.flatMap((tier) => {
    const campaign = campaigns.get(tier.campaign_id);
    return campaign ? [{ tier, campaign }] : [];
  });
  const tiers = await renderTiers(db, projectId, items);
  for (const id of campaigns.keys()) {
    const own = tiers.filter((t) => t.campaign_id === id);
    const total = totals.get(id) ?? 0;
    out.set(id, { object: 'list', data_ref: 'tiers', tiers: own, total, has_more: own.length < total });
  }
  return out;
}
