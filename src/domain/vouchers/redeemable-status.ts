// The status a customer's redeemable shows (vendor CustomerRedeemable.redeemable.status): why it can or
// cannot be used right now, the first reason that applies in this order. Pure: the instant is passed in.

export const REDEEMABLE_STATUSES = ['ACTIVE', 'USED', 'DISABLED', 'NOT_ACTIVE_YET', 'EXPIRED', 'NO_BALANCE'] as const;
export type RedeemableStatus = (typeof REDEEMABLE_STATUSES)[number];

export interface RedeemableFacts {
  type: string;
  active: boolean;
  start_date: string | null;
  expiration_date: string | null;
  /** Uses allowed; null when unlimited. */
  redemption_quantity: number | null;
  redeemed_quantity: number;
  gift_balance: number;
}

export function redeemableStatus(facts: RedeemableFacts, now: Date): RedeemableStatus {
  const at = now.toISOString();
  if (!facts.active) return 'DISABLED';
  if (facts.start_date !== null && facts.start_date > at) return 'NOT_ACTIVE_YET';
  if (facts.expiration_date !== null && facts.expiration_date < at) return 'EXPIRED';
  if (facts.redemption_quantity !== null && facts.redeemed_quantity >= facts.redemption_quantity) return 'USED';
  // A gift card with no credits left pays for nothing. A loyalty card without points is still an active
  // membership (it earns), so it stays ACTIVE.
  if (facts.type === 'GIFT_VOUCHER' && facts.gift_balance <= 0) return 'NO_BALANCE';
  return 'ACTIVE';
}
