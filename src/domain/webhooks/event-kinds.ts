// Webhook event kinds (seed 6.1, platform reference 6.2, DECISIONS 22). A configuration may name a kind in
// the spec's spelling — four of them say `aded` — or in the corrected `added` spelling; both are stored as
// given. Deliveries always carry the corrected spelling, which is also the type the event log uses.

export const SPEC_EVENT_KINDS = [
  'business_validation_rule.assignment.created',
  'business_validation_rule.assignment.deleted',
  'business_validation_rule.created',
  'business_validation_rule.deleted',
  'business_validation_rule.updated',
  'campaign.created',
  'campaign.deleted',
  'campaign.disabled',
  'campaign.enabled',
  'campaign.earning_rule.assigned',
  'campaign.earning_rule.deleted',
  'campaign.earning_rule.disabled',
  'campaign.earning_rule.enabled',
  'campaign.earning_rule.updated',
  'campaign.loyalty_tier.created',
  'campaign.loyalty_tier.deleted',
  'campaign.loyalty_tier.updated',
  'campaign.promotion_stack.created',
  'campaign.promotion_stack.updated',
  'campaign.promotion_tier.created',
  'campaign.promotion_tier.deleted',
  'campaign.promotion_tier.disabled',
  'campaign.promotion_tier.enabled',
  'campaign.promotion_tier.updated',
  'campaign.referral_tier.created',
  'campaign.referral_tier.deleted',
  'campaign.referral_tier.updated',
  'campaign.reward.assignment.created',
  'campaign.reward.assignment.deleted',
  'campaign.reward.assignment.updated',
  'campaign.updated',
  'campaign.vouchers.aded',
  'campaign.vouchers.generation.completed',
  'campaign.vouchers.generation.failed',
  'campaign.vouchers.generation.started',
  'customer.confirmed',
  'customer.created',
  'customer.deleted',
  'customer.rewarded',
  'customer.rewarded.loyalty_points',
  'publication.succeeded',
  'redemption.failed',
  'redemption.rollback.failed',
  'redemption.rollback.succeeded',
  'redemption.succeeded',
  'voucher.created',
  'voucher.deleted',
  'voucher.disabled',
  'voucher.enabled',
  'voucher.gift.balance_aded',
  'voucher.gift.transaction.created',
  'voucher.loyalty_card.pending_points.activated',
  'voucher.loyalty_card.pending_points.aded',
  'voucher.loyalty_card.pending_points.canceled',
  'voucher.loyalty_card.pending_points.updated',
  'voucher.loyalty_card.points_aded',
  'voucher.loyalty_card.points_expired',
  'voucher.loyalty_card.transaction.created',
  'voucher.published',
  'voucher.updated',
] as const;

/** Spec spelling → corrected spelling, for the four misspelt kinds. */
const CORRECTED: Readonly<Record<string, string>> = {
  'campaign.vouchers.aded': 'campaign.vouchers.added',
  'voucher.gift.balance_aded': 'voucher.gift.balance_added',
  'voucher.loyalty_card.pending_points.aded': 'voucher.loyalty_card.pending_points.added',
  'voucher.loyalty_card.points_aded': 'voucher.loyalty_card.points_added',
};

/**
 * Kinds Punchcard adds (README "Customer cockpit"): a customer's consent answers changed, through the API
 * or the customer's own preference center.
 */
export const EXTENSION_EVENT_KINDS = ['customer.consents.updated'] as const;

/** Every name a webhook configuration accepts: the 60 spec names, the 4 corrected spellings and Punchcard's own. */
export const WEBHOOK_EVENT_KINDS: readonly string[] = [...SPEC_EVENT_KINDS, ...Object.values(CORRECTED), ...EXTENSION_EVENT_KINDS];

/** The type a delivery of `kind` carries (and the event log uses): the corrected spelling. */
export function deliveredType(kind: string): string {
  return CORRECTED[kind] ?? kind;
}

/** The delivered types a configuration subscribes to, whichever spelling it stored. */
export function subscribedTypes(kinds: readonly string[]): Set<string> {
  return new Set(kinds.map(deliveredType));
}

/**
 * Punchcard extension: the event a "send a test" request appends. It is delivered only to the webhook it
 * names (its entity), through the same queue and sender as real events; no configuration can subscribe
 * to it (it is not among WEBHOOK_EVENT_KINDS).
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test' as const;

/** Attempts per delivery before it is marked FAILED (DECISIONS 23): the first try and 11 retries. */
export const MAX_DELIVERY_ATTEMPTS = 12;

const MINUTE_MS = 60_000;
const MAX_RETRY_DELAY_MS = 24 * 60 * MINUTE_MS;

/** Wait before the next try after `attemptsMade` failed attempts: 1 min, doubling, at most 24 h. */
export function retryDelayMs(attemptsMade: number): number {
  return Math.min(MINUTE_MS * 2 ** Math.max(0, attemptsMade - 1), MAX_RETRY_DELAY_MS);
}
