import type { Static } from 'typebox';
import type { CampaignSummary as CampaignSummaryOut, CampaignSummaryInput } from '../../api/vouchers.ts';
import { errors } from '../../domain/errors.ts';
import { findLiveCampaign } from '../../store/campaigns.ts';
import { publicationTotals, redemptionTotals, referredCustomers, transactionTotals, voucherTotals, type Window } from '../../store/campaign-summary.ts';
import type { Actor, Deps } from '../context.ts';
import { renderCampaign } from '../campaigns/render.ts';

// `GET /v1/campaigns/{id}/summary` (promotions reference 1.1; vendor CampaignsSummary*): counts derived
// from what is stored — redemption and rollback records, vouchers (live and binned), publications,
// balance transactions and referrals — optionally within a window of whole UTC days. Members follow the
// campaign type as in the vendor schema. Validations are not stored, so the `validations*` members the
// vendor lists are left out rather than reported as zero. Vouchers deleted for good leave no record and
// are not counted in `vouchers_deleted`.

export type CampaignSummary = Static<typeof CampaignSummaryOut>;

const abs = (n: number | undefined) => Math.abs(n ?? 0);

export async function campaignSummary(deps: Deps, actor: Actor, idOrName: string, query: CampaignSummaryInput): Promise<CampaignSummary> {
  if (query.start_date !== undefined && query.end_date !== undefined && query.start_date > query.end_date) {
    throw errors.invalidQuery('Property .start_date must not be after .end_date');
  }
  const { projectId } = actor;
  const db = deps.db;
  const campaign = await findLiveCampaign(db, projectId, idOrName);
  if (!campaign) throw errors.notFound('campaign', idOrName);
  const window: Window = {
    ...(query.start_date !== undefined ? { from: `${query.start_date}T00:00:00.000Z` } : {}),
    ...(query.end_date !== undefined ? { to: `${query.end_date}T23:59:59.999Z` } : {}),
  };
  const redemptions = await redemptionTotals(db, projectId, campaign.id, window);
  const summary: CampaignSummary = {
    object: 'campaign_summary',
    campaign: await renderCampaign(db, projectId, campaign),
    redemptions: redemptions.redemptions,
    redemptions_succeeded: redemptions.redemptionsSucceeded,
    redemptions_failed: redemptions.redemptionsFailed,
    rollbacks: redemptions.rollbacks,
    rollbacks_succeeded: redemptions.rollbacksSucceeded,
    rollbacks_failed: redemptions.rollbacksFailed,
    orders_amount: redemptions.ordersAmount,
    orders_rolledback_amount: redemptions.ordersRolledBackAmount,
  };
  const type = campaign.campaign_type;
  if (type === 'DISCOUNT_COUPONS' || type === 'PROMOTION') {
    summary.discounted_amount = redemptions.discountedAmount;
    summary.rolledback_discounted_amount = redemptions.rolledBackDiscountedAmount;
  }
  if (type === 'PROMOTION') return summary;

  const kind = type === 'GIFT_VOUCHERS' ? 'gift' : type === 'LOYALTY_PROGRAM' ? 'loyalty' : 'none';
  const vouchers = await voucherTotals(db, projectId, campaign.id, kind, window);
  const publications = await publicationTotals(db, projectId, campaign.id, window);
  summary.vouchers_created = vouchers.created;
  summary.vouchers_deleted = vouchers.deleted;
  summary.publications = publications.total;
  summary.publications_succeeded = publications.succeeded;
  summary.publications_failed = publications.failed;

  if (kind === 'gift') {
    const totals = await transactionTotals(db, projectId, campaign.id, window);
    summary.created_vouchers_amount = vouchers.createdValue;
    summary.amount_added = abs(totals.get('CREDITS_ADDITION'));
    summary.amount_subtracted = abs(totals.get('CREDITS_REMOVAL'));
    summary.amount_redeemed = abs(totals.get('CREDITS_REDEMPTION'));
    summary.amount_rolledback = abs(totals.get('CREDITS_REFUND'));
    summary.amount_deleted = vouchers.deletedValue;
  } else if (kind === 'loyalty') {
    const totals = await transactionTotals(db, projectId, campaign.id, window);
    summary.created_vouchers_points = vouchers.createdValue;
    summary.points_added = abs(totals.get('POINTS_ADDITION')) + abs(totals.get('POINTS_ACCRUAL')) + abs(totals.get('PENDING_POINTS_ACTIVATION'));
    summary.points_subtracted = abs(totals.get('POINTS_REMOVAL'));
    summary.points_redeemed = abs(totals.get('POINTS_REDEMPTION'));
    summary.points_rolledback = abs(totals.get('POINTS_REFUND'));
    summary.points_expired = abs(totals.get('POINTS_EXPIRATION'));
    summary.points_transferred_in = abs(totals.get('POINTS_TRANSFER_IN'));
    summary.points_transferred_out = abs(totals.get('POINTS_TRANSFER_OUT'));
    summary.points_deleted = vouchers.deletedValue;
  } else if (type === 'REFERRAL_PROGRAM') {
    summary.referred_customers = await referredCustomers(db, projectId, campaign.id, window);
  }
  return summary;
}
