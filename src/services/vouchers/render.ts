import { localDate } from '../../domain/validity/validity.ts';
import type { Executor } from '../../store/db.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import { findCategoriesByIds, toCategoryObject } from '../../store/categories.ts';
import { findCampaignsByIds } from '../../store/campaigns.ts';
import { fromJson } from '../../store/json.ts';
import { nextExpirations, type NextExpiration } from '../../store/ledger.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { VoucherOut } from '../../api/vouchers.ts';

// The voucher object (promotions reference 2.3; seed 2.5 for the loyalty-card form) built from stored
// rows, with the campaign, category and next points expiry looked up in batches.

export type VoucherObject = VoucherOut;

export function giftObject(row: VoucherRow): VoucherOut['gift'] {
  if (row.type !== 'GIFT_VOUCHER') return null;
  return {
    amount: Number(row.gift_amount ?? 0),
    subtracted_amount: Number(row.gift_subtracted_amount),
    balance: Number(row.gift_balance),
    effect: row.gift_effect,
  };
}

export function loyaltyCardObject(row: VoucherRow, next: NextExpiration | undefined): Record<string, unknown> | null {
  if (row.type !== 'LOYALTY_CARD') return null;
  return {
    points: Number(row.loyalty_points),
    balance: Number(row.loyalty_balance),
    ...(next ? { next_expiration_date: next.date, next_expiration_points: next.points } : {}),
    pending_points: Number(row.loyalty_pending_points),
    expired_points: Number(row.loyalty_expired_points),
    subtracted_points: Number(row.loyalty_subtracted_points),
  };
}

/** `assets` of a voucher object: where its code is drawn as a QR code and as a barcode. */
export interface VoucherAssets {
  qr: { id: string; url: string };
  barcode: { id: string; url: string };
}

/** The project's time zone decides which day points expire by; `now` is the instant rendered for. */
export interface VoucherContext {
  timeZone: string;
  now: Date;
  /**
   * Builds a voucher's asset links (src/services/loyalty/card-assets.ts `assetLinker`); links are signed
   * with an installation secret, so callers that have it pass this and the object gains `assets`.
   */
  assets?: (row: VoucherRow) => VoucherAssets;
  /** Campaigns and categories from the definitions cache (src/store/definitions.ts). */
  definitions?: DefinitionsView;
}

export async function renderVouchers(
  db: Executor,
  projectId: string,
  rows: readonly VoucherRow[],
  context: VoucherContext,
): Promise<VoucherObject[]> {
  const categories = await findCategoriesByIds(
    db,
    projectId,
    rows.map((r) => r.category_id).filter((id): id is string => id !== null),
    context.definitions,
  );
  const campaigns = await findCampaignsByIds(
    db,
    projectId,
    rows.map((r) => r.campaign_id).filter((id): id is string => id !== null),
    context.definitions,
  );
  const cards = rows.filter((r) => r.type === 'LOYALTY_CARD').map((r) => r.id);
  const expirations = await nextExpirations(db, projectId, cards, localDate(context.now, context.timeZone));
  return rows.map((row) => {
    const category = row.category_id ? categories.get(row.category_id) : undefined;
    const campaign = row.campaign_id ? campaigns.get(row.campaign_id) : undefined;
    const code = encodeURIComponent(row.code);
    return {
      id: row.id,
      code: row.code,
      campaign: campaign?.name ?? null,
      campaign_id: row.campaign_id,
      category: category?.name ?? null,
      category_id: row.category_id,
      categories: category ? [toCategoryObject(category)] : [],
      type: row.type,
      discount: fromJson<Record<string, unknown> | null>(row.discount, null),
      gift: giftObject(row),
      loyalty_card: loyaltyCardObject(row, expirations.get(row.id)),
      start_date: row.start_date,
      expiration_date: row.expiration_date,
      validity_timeframe: fromJson<VoucherOut['validity_timeframe']>(row.validity_timeframe, null),
      validity_day_of_week: fromJson<number[] | null>(row.validity_day_of_week, null),
      validity_hours: fromJson<VoucherOut['validity_hours']>(row.validity_hours, null),
      active: Boolean(row.active),
      additional_info: row.additional_info,
      metadata: fromJson<Record<string, unknown>>(row.metadata, {}),
      is_referral_code: Boolean(row.is_referral_code),
      ...(context.assets ? { assets: context.assets(row) } : {}),
      holder_id: row.holder_id,
      referrer_id: row.referrer_id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      publish: { object: 'list', count: Number(row.publish_count), url: `/v1/vouchers/${code}/publications?page=1&limit=10` },
      redemption: {
        quantity: row.redemption_quantity === null ? null : Number(row.redemption_quantity),
        redeemed_quantity: Number(row.redeemed_quantity),
        ...(row.type === 'GIFT_VOUCHER' ? { redeemed_amount: Number(row.redeemed_amount) } : {}),
        ...(row.type === 'LOYALTY_CARD' ? { redeemed_points: Number(row.redeemed_points) } : {}),
        object: 'list',
        url: `/v1/vouchers/${code}/redemptions?page=1&limit=10`,
      },
      object: 'voucher',
    };
  });
}
