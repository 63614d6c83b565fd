import type { InactiveReason } from '../validity/validity.ts';

// Why a redeemable cannot be applied (promotions reference 6.7, 6.8): the stable failure keys, the
// vendor's lower-case messages and the HTTP code each carries inside a result or an error body. The
// same key is a validation result's `result.error.key`, a FAILURE record's `failure_code` and the `key`
// of the 400 a failed redemption answers.

export const FAILURE_MESSAGES = {
  not_found: 'Resource not found',
  voucher_disabled: 'voucher is disabled',
  voucher_not_active: 'voucher not active',
  voucher_expired: 'voucher expired',
  voucher_not_active_now: 'voucher not active now',
  promotion_inactive: 'Inactive Promotion',
  promotion_not_active_now: 'promotion not active now',
  quantity_exceeded: 'quantity exceeded',
  gift_amount_exceeded: 'gift amount exceeded',
  loyalty_card_points_exceeded: 'loyalty card points exceeded',
  customer_rules_violated: 'customer does not match validation rules',
  order_rules_violated: 'order does not match validation rules',
  redemption_rules_violated: 'redemption does not match validation rules',
  missing_customer: 'Customer is required to validate rules',
  missing_order: 'Missing order',
  missing_order_items: 'Missing order items',
  missing_order_items_amount: 'Missing order items amount',
  missing_amount: 'Missing amount',
  invalid_amount: 'Invalid Amount',
  invalid_customer: 'Customer must be a holder of a loyalty card.',
  missing_reward: 'Missing reward',
  reward_out_of_stock: 'Reward out of stock',
  referrer_not_permitted_to_redeem: 'Referrer not permitted to redeem',
  no_applicable_redeemables: 'No applicable redeemables',
} as const;

export type FailureKey = keyof typeof FAILURE_MESSAGES;

export function failureCode(key: FailureKey): 404 | 400 {
  return key === 'not_found' ? 404 : 400;
}

export function isFailureKey(key: string): key is FailureKey {
  return Object.hasOwn(FAILURE_MESSAGES, key);
}

/** A redeemable's failure: the key, the vendor message, what exactly was wrong, and a rule's own message. */
export interface RedeemableFailure {
  key: FailureKey;
  message: string;
  details: string;
  /** The user-configured message of the validation rule that failed (the error body's `error.message`). */
  ruleMessage: string | null;
}

export function failure(key: FailureKey, details: string, ruleMessage: string | null = null): RedeemableFailure {
  return { key, message: FAILURE_MESSAGES[key], details, ruleMessage };
}

const VOUCHER_KEYS: Record<InactiveReason, FailureKey> = {
  disabled: 'voucher_disabled',
  not_started: 'voucher_not_active',
  expired: 'voucher_expired',
  outside_timeframe: 'voucher_not_active_now',
  outside_day_of_week: 'voucher_not_active_now',
  outside_hours: 'voucher_not_active_now',
};

// Reference 6.7 *Rec.*: a tier before its start is "not active now", a disabled or expired one inactive.
const TIER_KEYS: Record<InactiveReason, FailureKey> = {
  disabled: 'promotion_inactive',
  not_started: 'promotion_not_active_now',
  expired: 'promotion_inactive',
  outside_timeframe: 'promotion_not_active_now',
  outside_day_of_week: 'promotion_not_active_now',
  outside_hours: 'promotion_not_active_now',
};

const REASON_TEXT: Record<InactiveReason, string> = {
  disabled: 'is disabled',
  not_started: 'has not started yet',
  expired: 'has expired',
  outside_timeframe: 'is outside its validity timeframe now',
  outside_day_of_week: 'is not valid on this day of the week',
  outside_hours: 'is outside its validity hours now',
};

/**
 * The failure of a closed validity window. A voucher's campaign closing counts as the voucher closing
 * (same keys); a tier's campaign closing makes the tier inactive as its own window would (reference 6.9).
 */
export function inactiveFailure(redeemable: 'voucher' | 'promotion_tier', subject: string, reason: InactiveReason): RedeemableFailure {
  const key = redeemable === 'voucher' ? VOUCHER_KEYS[reason] : TIER_KEYS[reason];
  return failure(key, `${subject} ${REASON_TEXT[reason]}`);
}
