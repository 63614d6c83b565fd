// The `referral_program` of a REFERRAL_PROGRAM campaign (promotions reference 1.3; vendor ReferralProgram):
// which event converts a referral, and what the referee gets on top of the code's discount. A definition
// that passes here can always be applied when a referral converts; anything else is refused at creation.

export type ConversionEventType = 'redemption' | 'custom_event';

export type RewardType = 'LOYALTY_CARD' | 'GIFT_VOUCHER' | 'DISCOUNT_VOUCHER';

/** A reward campaign as a request names it: by id or by name. */
export interface RewardParent {
  id: string | null;
  name: string | null;
}

export interface RefereeReward {
  /** The campaign whose card (gift card or loyalty card) receives the reward. */
  parent: RewardParent;
  type: 'LOYALTY_CARD' | 'GIFT_VOUCHER';
  /** Points, or gift credits in minor units. */
  amount: number;
}

/** A coupon of a DISCOUNT_COUPONS campaign, published to the rewarded customer (referral tiers only). */
export interface CouponReward {
  parent: RewardParent;
  type: 'DISCOUNT_VOUCHER';
  amount: null;
}

/** What a referral tier gives the referrer: points, gift credits, or a coupon. */
export type ReferralReward = RefereeReward | CouponReward;

/** The referee reward gives points or credits only (vendor ReferralProgram.referee_reward.type). */
export const REFEREE_REWARD_TYPES: readonly RewardType[] = ['LOYALTY_CARD', 'GIFT_VOUCHER'];
export const TIER_REWARD_TYPES: readonly RewardType[] = ['LOYALTY_CARD', 'GIFT_VOUCHER', 'DISCOUNT_VOUCHER'];

export interface ReferralProgram {
  conversionEventType: ConversionEventType;
  customEvent: { id: string | null; name: string | null } | null;
  refereeReward: RefereeReward | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalText = (value: unknown): value is string | null | undefined => value === undefined || value === null || (typeof value === 'string' && value.length > 0);

export type ParseResult = { ok: true; program: ReferralProgram } | { ok: false; problem: string };

/** Checks a `referral_program` as sent (or stored) and answers its parsed form, or the problem naming the member. */
export function parseReferralProgram(input: unknown, path = 'referral_program'): ParseResult {
  const fail = (problem: string): ParseResult => ({ ok: false, problem });
  if (input === undefined || input === null) return { ok: true, program: { conversionEventType: 'redemption', customEvent: null, refereeReward: null } };
  if (!isRecord(input)) return fail(`Property .${path} should be object`);

  const type = input.conversion_event_type ?? 'redemption';
  if (type !== 'redemption' && type !== 'custom_event') {
    return fail(`Property .${path}.conversion_event_type should be equal to one of the allowed values [ redemption, custom_event ]`);
  }

  let customEvent: ReferralProgram['customEvent'] = null;
  if (input.custom_event !== undefined && input.custom_event !== null) {
    const event = input.custom_event;
    if (!isRecord(event)) return fail(`Property .${path}.custom_event should be object`);
    if (!optionalText(event.id) || !optionalText(event.name)) return fail(`Property .${path}.custom_event: id and name should be non-empty strings`);
    if (!event.id && !event.name) return fail(`Property .${path}.custom_event should have required property 'id' or 'name'`);
    customEvent = { id: event.id ?? null, name: event.name ?? null };
  }
  if (type === 'custom_event' && customEvent === null) {
    return fail(`Property .${path}.custom_event is required when conversion_event_type is custom_event`);
  }
  if (type === 'redemption' && customEvent !== null) {
    return fail(`Property .${path}.custom_event applies only when conversion_event_type is custom_event`);
  }

  let refereeReward: RefereeReward | null = null;
  if (input.referee_reward !== undefined && input.referee_reward !== null) {
    const parsed = parseReward(input.referee_reward, `.${path}.referee_reward`, REFEREE_REWARD_TYPES);
    if (!parsed.ok) return fail(parsed.problem);
    // parseReward already refused any type outside REFEREE_REWARD_TYPES; this narrows the union.
    if (parsed.reward.type === 'DISCOUNT_VOUCHER') return fail(`Property .${path}.referee_reward.type cannot be DISCOUNT_VOUCHER`);
    refereeReward = parsed.reward;
  }
  return { ok: true, program: { conversionEventType: type, customEvent, refereeReward } };
}

export type RewardParseResult = { ok: true; reward: ReferralReward } | { ok: false; problem: string };

/**
 * Checks a reward in the vendor's `referee_reward` shape (`related_object_parent`, `type`, `amount`) as
 * sent or stored; `at` is the member's path for the problem text, `allowed` the types the caller takes.
 * Points and credits need a positive whole `amount`; a coupon takes none (one coupon is published).
 */
export function parseReward(reward: unknown, at: string, allowed: readonly RewardType[]): RewardParseResult {
  const fail = (problem: string): RewardParseResult => ({ ok: false, problem });
  if (!isRecord(reward)) return fail(`Property ${at} should be object`);
  const type = allowed.find((t) => t === reward.type);
  if (type === undefined) return fail(`Property ${at}.type should be equal to one of the allowed values [ ${allowed.join(', ')} ]`);
  const parent = reward.related_object_parent;
  if (!isRecord(parent)) return fail(`Property ${at} should have required property 'related_object_parent'`);
  if (!optionalText(parent.id) || !optionalText(parent.name)) return fail(`Property ${at}.related_object_parent: id and name should be non-empty strings`);
  if (!parent.id && !parent.name) return fail(`Property ${at}.related_object_parent should have required property 'id' or 'name'`);
  if (parent.object !== undefined && parent.object !== null && parent.object !== 'CAMPAIGN') {
    return fail(`Property ${at}.related_object_parent.object should be equal to one of the allowed values [ CAMPAIGN ]`);
  }
  const rewardParent: RewardParent = { id: parent.id ?? null, name: parent.name ?? null };
  if (type === 'DISCOUNT_VOUCHER') {
    if (reward.amount !== undefined && reward.amount !== null) {
      return fail(`Property ${at}.amount applies only to LOYALTY_CARD and GIFT_VOUCHER rewards; a DISCOUNT_VOUCHER reward publishes one coupon`);
    }
    return { ok: true, reward: { parent: rewardParent, type, amount: null } };
  }
  if (typeof reward.amount !== 'number' || !Number.isSafeInteger(reward.amount) || reward.amount <= 0) {
    return fail(`Property ${at}.amount should be a positive integer (${type === 'GIFT_VOUCHER' ? 'credits in minor units' : 'points'})`);
  }
  return { ok: true, reward: { parent: rewardParent, type, amount: reward.amount } };
}

export type RewardCampaignType = 'LOYALTY_PROGRAM' | 'GIFT_VOUCHERS' | 'DISCOUNT_COUPONS';

/** The campaign type a reward comes from: a loyalty card's program, a gift card's campaign, or coupons. */
export function rewardCampaignType(reward: { type: RewardType }): RewardCampaignType {
  switch (reward.type) {
    case 'LOYALTY_CARD':
      return 'LOYALTY_PROGRAM';
    case 'GIFT_VOUCHER':
      return 'GIFT_VOUCHERS';
    case 'DISCOUNT_VOUCHER':
      return 'DISCOUNT_COUPONS';
  }
}

/** Whether an event converts referrals of the program: its type, and for custom events its name or id. */
export function convertsOn(program: ReferralProgram, trigger: { type: ConversionEventType; eventName?: string; eventSchemaId?: string }): boolean {
  if (trigger.type !== program.conversionEventType) return false;
  if (trigger.type === 'redemption' || program.customEvent === null) return true;
  const { id, name } = program.customEvent;
  return (name !== null && trigger.eventName === name) || (id !== null && trigger.eventSchemaId === id);
}
