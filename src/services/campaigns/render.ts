import type { Executor } from '../../store/db.ts';
import { assignedRules } from '../../store/validation-rules.ts';
import { toAssignmentObject } from '../validation-rules/validation-rules.ts';
import { findCategoriesByIds, toCategoryObject, type CategoryObject, type CategoryRow } from '../../store/categories.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { fromJson } from '../../store/json.ts';
import type { CampaignOut } from '../../api/campaigns.ts';
import { promotionMembers } from '../promotions/campaign-member.ts';

// The campaign object (seed 2.3, promotions reference 1.4) built from stored rows. Type-specific members
// (promotion tiers, validation rule assignments) are added by their areas through `renderCampaigns`.

export type CampaignObject = CampaignOut;

export function campaignObject(row: CampaignRow, category: CategoryRow | undefined): CampaignObject {
  const template = fromJson<Record<string, unknown> | null>(row.voucher_template, null);
  const categoryObject: CategoryObject | undefined = category ? toCategoryObject(category) : undefined;
  const timeframe = fromJson<CampaignOut['validity_timeframe'] | null>(row.validity_timeframe, null);
  const days = fromJson<number[] | null>(row.validity_day_of_week, null);
  const hours = fromJson<CampaignOut['validity_hours'] | null>(row.validity_hours, null);
  const referral = fromJson<Record<string, unknown> | null>(row.referral_program, null);
  const tiersExpiration = fromJson<Record<string, unknown> | null>(row.loyalty_tiers_expiration, null);
  // Members the campaign does not have are left out rather than sent as null, as the vendor does.
  return {
    id: row.id,
    name: row.name,
    campaign_type: row.campaign_type,
    type: row.type,
    auto_join: Boolean(row.auto_join),
    join_once: Boolean(row.join_once),
    use_voucher_metadata_schema: Boolean(row.use_voucher_metadata_schema),
    vouchers_count: Number(row.vouchers_count),
    active: Boolean(row.active),
    metadata: fromJson(row.metadata, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    creation_status: row.creation_status,
    vouchers_generation_status: row.vouchers_generation_status,
    protected: Boolean(row.protected),
    category_id: row.category_id,
    categories: categoryObject ? [categoryObject] : [],
    ...(row.description !== null ? { description: row.description } : {}),
    ...(template ? { voucher: template } : {}),
    ...(timeframe ? { validity_timeframe: timeframe } : {}),
    ...(days ? { validity_day_of_week: days } : {}),
    ...(hours ? { validity_hours: hours } : {}),
    ...(row.activity_duration_after_publishing !== null ? { activity_duration_after_publishing: row.activity_duration_after_publishing } : {}),
    ...(row.start_date !== null ? { start_date: row.start_date } : {}),
    ...(row.expiration_date !== null ? { expiration_date: row.expiration_date } : {}),
    ...(categoryObject ? { category: categoryObject.name } : {}),
    ...(referral ? { referral_program: referral } : {}),
    ...(tiersExpiration ? { loyalty_tiers_expiration: tiersExpiration } : {}),
    object: 'campaign',
  };
}

/** Campaign objects for several rows with the lookups batched (one query per kind, not per campaign). */
export async function renderCampaigns(db: Executor, projectId: string, rows: readonly CampaignRow[]): Promise<CampaignObject[]> {
  const categories = await findCategoriesByIds(
    db,
    projectId,
    rows.map((r) => r.category_id).filter((id): id is string => id !== null),
  );
  const promotions = await promotionMembers(db, projectId, rows);
  const assigned = await assignedRules(
    db,
    projectId,
    rows.map((r) => ({ type: 'campaign', id: r.id })),
  );
  return rows.map((row) => {
    const object = campaignObject(row, row.category_id ? categories.get(row.category_id) : undefined);
    const promotion = promotions.get(row.id);
    const assignments = assigned.filter((a) => a.assignment.related_object_id === row.id).map((a) => toAssignmentObject(a.assignment));
    return {
      ...object,
      ...(promotion ? { promotion } : {}),
      validation_rules_assignments: { object: 'list', data_ref: 'data', data: assignments, total: assignments.length },
    };
  });
}

export async function renderCampaign(db: Executor, projectId: string, row: CampaignRow): Promise<CampaignObject> {
  const [object] = await renderCampaigns(db, projectId, [row]);
  if (!object) throw new Error('rendering one campaign gave none');
  return object;
}
