import { inactiveReason, type InactiveReason, type ValidityWindow } from '../../domain/validity/validity.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import type { Executor } from '../../store/db.ts';
import { fromJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import { recurringTierWindows, restrictedPromotionCampaigns, type TierListQuery, type TierWindowRow, type TierWithCampaign } from '../../store/promotion-tiers.ts';

// When a tier is available (promotions reference 4.2 Rec.): the tier and its campaign are both active and
// `now` is inside both date ranges and both sets of recurring limits, days and hours read in the
// project's time zone.
//
// Lists filter in SQL by index wherever a condition can be written as one (the tier's `active` and its
// dates, stored as UTC text). Recurring limits and campaign dates (stored in the zone they were sent in)
// cannot, so only the rows that have them are read and decided here; the list query then excludes the
// tiers and campaigns found closed.

type WindowColumns = Pick<CampaignRow, 'active' | 'start_date' | 'expiration_date' | 'validity_timeframe' | 'validity_day_of_week' | 'validity_hours'>;

export function windowOf(row: WindowColumns): ValidityWindow {
  return {
    active: Boolean(row.active),
    start_date: row.start_date,
    expiration_date: row.expiration_date,
    validity_timeframe: fromJson<ValidityWindow['validity_timeframe']>(row.validity_timeframe, null),
    validity_day_of_week: fromJson<number[] | null>(row.validity_day_of_week, null),
    validity_hours: fromJson<ValidityWindow['validity_hours']>(row.validity_hours, null),
  };
}

export interface TierInactivity {
  subject: 'promotion_tier' | 'campaign';
  reason: InactiveReason;
}

/** Why a tier cannot be used at `at` (its campaign's window first), or null when it can. */
export function tierInactivity(item: TierWithCampaign, at: Date, timeZone: string): TierInactivity | null {
  const campaign = inactiveReason(windowOf(item.campaign), at, timeZone);
  if (campaign) return { subject: 'campaign', reason: campaign };
  const tier = inactiveReason(windowOf(item.tier), at, timeZone);
  return tier ? { subject: 'promotion_tier', reason: tier } : null;
}

export async function projectTimeZone(db: Executor, projectId: string): Promise<string> {
  return (await findProject(db, projectId))?.timezone ?? 'UTC';
}

/** The `available` filter of a tier list at `at`. */
export async function availabilityAt(db: Executor, projectId: string, at: Date): Promise<NonNullable<TierListQuery['available']>> {
  const timeZone = await projectTimeZone(db, projectId);
  const closed = (row: WindowColumns) => inactiveReason(windowOf(row), at, timeZone) !== null;
  const campaigns = await restrictedPromotionCampaigns(db, projectId);
  const tiers: TierWindowRow[] = await recurringTierWindows(db, projectId);
  return {
    now: at.toISOString(),
    closedCampaignIds: campaigns.filter(closed).map((c) => c.id),
    closedTierIds: tiers.filter(closed).map((t) => t.id),
  };
}
