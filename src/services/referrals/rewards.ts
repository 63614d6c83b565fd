import { pointsExpiryDate } from '../../domain/loyalty/points-expiry.ts';
import { localDate } from '../../domain/validity/validity.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import type { CustomerObject } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { lockCustomer } from '../../store/loyalty.ts';
import { findHeldVoucher } from '../../store/publications.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';
import { creditCredits, creditPoints, type BalanceObject, type TransactionObject } from '../ledger/ledger.ts';
import { afterPointsChange } from '../loyalty/after-points-change.ts';
import { programExpirationRules } from '../loyalty/cards.ts';
import { publishVoucher } from '../publications/publish.ts';
import { projectTimeZone } from '../vouchers/vouchers.ts';

// Giving a referral reward — the program's referee reward, or a referral tier's referrer reward — to a
// customer, inside the conversion's transaction: points on their card of a loyalty program, credits on
// their gift card (either card published to them first when they hold none, as auto-join does), or a
// coupon published to them. Balances move only through the ledger; cards and coupons only through the
// publish service, so every change appends its usual events.

/** Points or credits given: the card they went to, its transaction and its balance after. */
export interface BalanceRewardGranted {
  type: 'LOYALTY_CARD' | 'GIFT_VOUCHER';
  amount: number;
  voucher: { id: string; code: string; campaign_id: string | null };
  transaction: TransactionObject;
  balance: BalanceObject;
}

/** A coupon published to the customer. */
export interface CouponRewardGranted {
  type: 'DISCOUNT_VOUCHER';
  amount: null;
  voucher: { id: string; code: string; campaign_id: string | null };
  transaction: null;
  balance: null;
}

export type GrantedReward = BalanceRewardGranted | CouponRewardGranted;

const voucherRef = (v: VoucherRow) => ({ id: v.id, code: v.code, campaign_id: v.campaign_id });

/** The vendor's SimpleCustomer, as reward and referral events carry customers. */
export function simpleCustomer(customer: Pick<CustomerObject, 'id' | 'source_id' | 'name' | 'email' | 'metadata'>) {
  return { id: customer.id, source_id: customer.source_id, name: customer.name, email: customer.email, metadata: customer.metadata, object: 'customer' as const };
}

/** The customer's card in the reward campaign: the one they hold, or one published to them now. */
async function rewardCard(tx: Tx, deps: Deps, actor: Actor, campaign: CampaignRow, customer: CustomerObject): Promise<VoucherRow> {
  // Looking for a held card and publishing one must not interleave with another transaction doing the
  // same for this customer (two conversions at once would hand out two cards): they queue on the row.
  await lockCustomer(tx, actor.projectId, customer.id);
  const held = await findHeldVoucher(tx, actor.projectId, campaign.id, customer.id);
  if (held) return held;
  const published = await publishVoucher(tx, deps, actor, {
    customer,
    campaign,
    // An automatic publication carries no metadata, so a project's publication schema (written for its own
    // publications) can never refuse a reward the referral program owes.
    channel: 'Automation',
    joinOnce: Boolean(campaign.join_once),
  });
  return published.voucher;
}

/**
 * Gives points or credits from `campaign` (already checked to be the LOYALTY_PROGRAM or GIFT_VOUCHERS
 * campaign the reward needs) to `customer`. `reason` is written on the balance transaction.
 */
export async function grantBalanceReward(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  campaign: CampaignRow,
  reward: { type: 'LOYALTY_CARD' | 'GIFT_VOUCHER'; amount: number },
  customer: CustomerObject,
  reason: string,
): Promise<BalanceRewardGranted> {
  const card = await rewardCard(tx, deps, actor, campaign, customer);
  const common = { points: reward.amount, source: 'Automation', reason, operationType: 'AUTOMATIC' as const };
  if (reward.type === 'GIFT_VOUCHER') {
    const result = await creditCredits(tx, deps, actor, card, 'CREDITS_ADDITION', common);
    return { type: reward.type, amount: reward.amount, voucher: voucherRef(card), transaction: result.transaction, balance: result.balance };
  }
  // Reward points age by the loyalty program's own rules, counted from today in the project's time zone.
  const today = localDate(deps.clock.now(), await projectTimeZone(tx, actor.projectId));
  const result = await creditPoints(tx, deps, actor, card, 'POINTS_ADDITION', { ...common, expiresAt: pointsExpiryDate(programExpirationRules(campaign), today) });
  // As after any points added outside earning: the holder's loyalty tier may move, and an auto-redeem
  // reward may now be affordable.
  await afterPointsChange(tx, deps, actor, result.card, { added: true });
  return { type: reward.type, amount: reward.amount, voucher: voucherRef(card), transaction: result.transaction, balance: result.balance };
}

/** Gives any referral reward: points or credits as above, or one coupon of a DISCOUNT_COUPONS campaign. */
export async function grantReward(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  campaign: CampaignRow,
  reward: { type: 'LOYALTY_CARD' | 'GIFT_VOUCHER'; amount: number } | { type: 'DISCOUNT_VOUCHER'; amount: null },
  customer: CustomerObject,
  reason: string,
): Promise<GrantedReward> {
  if (reward.type !== 'DISCOUNT_VOUCHER') return grantBalanceReward(tx, deps, actor, campaign, reward, customer, reason);
  const published = await publishVoucher(tx, deps, actor, { customer, campaign, channel: 'Automation', joinOnce: Boolean(campaign.join_once) });
  return { type: reward.type, amount: null, voucher: voucherRef(published.voucher), transaction: null, balance: null };
}
