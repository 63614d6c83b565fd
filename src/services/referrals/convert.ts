import { businessError, errors } from '../../domain/errors.ts';
import { pointsExpiryDate } from '../../domain/loyalty/points-expiry.ts';
import { convertsOn, rewardCampaignType, type ConversionEventType, type RefereeReward } from '../../domain/referrals/referral-program.ts';
import { localDate } from '../../domain/validity/validity.ts';
import { findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomerById, toCustomerObject } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { findHeldVoucher } from '../../store/publications.ts';
import { countReferredCustomer, insertReferralIfAbsent } from '../../store/referrals.ts';
import { findLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import { resolveCustomer, type CustomerRef } from '../customers/customers.ts';
import { creditCredits, creditPoints, type BalanceObject, type TransactionObject } from '../ledger/ledger.ts';
import { programExpirationRules } from '../loyalty/cards.ts';
import { publishVoucher } from '../publications/publish.ts';
import { projectTimeZone } from '../vouchers/vouchers.ts';
import { recordReferee, referrerOf } from './holders.ts';
import { programOf, rewardCampaign } from './referral-program.ts';

// Converting a referral (promotions reference 1.3; platform reference 3.2 `referrals`): a customer used a
// referral code, by redeeming it or through the program's custom event. The customer becomes a referee of
// the code's referrer (recorded once per program; the customer object shows it under `referrals`, and
// the referrer's `loyalty.referred_customers` grows by one), and the program's referee reward is granted
// through the publish service and the ledger. Called inside the caller's transaction by the redemption
// engine and the custom-events endpoint; everything it changes commits or rolls back with the caller.
//
// Referrer rewards come from referral tiers, which the v2018-08-01 API cannot define (the vendor manages
// them in its dashboard only), so a conversion grants none.

export type ReferralTrigger =
  | { type: 'redemption'; redemptionId: string }
  | { type: 'custom_event'; eventId: string; eventName: string; eventSchemaId?: string };

export interface ConvertReferralInput {
  /** The referral code (or its voucher id). */
  code: string;
  /** The referred customer: an existing id, or a source_id (created when unknown). */
  customer: CustomerRef;
  trigger: ReferralTrigger;
}

export interface RefereeRewardGranted {
  type: 'GIFT_VOUCHER' | 'LOYALTY_CARD';
  amount: number;
  voucher: { id: string; code: string; campaign_id: string | null };
  transaction: TransactionObject;
  balance: BalanceObject;
}

export type ConversionResult =
  | { status: 'converted'; referralId: string; campaignId: string; customerId: string; referrerId: string; reward: RefereeRewardGranted | null }
  /** Nothing was recorded: the event is not this program's conversion event, or the customer was referred in it already. */
  | { status: 'skipped'; reason: 'conversion_event_mismatch' | 'already_referred' | 'no_referrer'; campaignId: string; customerId: string };

const simpleCustomer = (row: { id: string; source_id: string | null; name: string | null; email: string | null; metadata: Record<string, unknown> }) => ({
  id: row.id,
  source_id: row.source_id,
  name: row.name,
  email: row.email,
  metadata: row.metadata,
  object: 'customer' as const,
});

async function referralProgramOf(tx: Tx, actor: Actor, code: VoucherRow): Promise<CampaignRow> {
  const campaign = code.campaign_id ? await findLiveCampaignById(tx, actor.projectId, code.campaign_id) : undefined;
  if (!code.is_referral_code || !campaign || campaign.campaign_type !== 'REFERRAL_PROGRAM') {
    throw businessError('invalid_voucher', 'Invalid voucher', {
      details: `Voucher ${code.code} is not a referral code of a referral program`,
      resourceId: code.code,
      resourceType: 'voucher',
    });
  }
  return campaign;
}

/** The referee's card in the reward campaign: the one they hold, or one published to them now. */
async function rewardCard(tx: Tx, deps: Deps, actor: Actor, campaign: CampaignRow, customer: Parameters<typeof publishVoucher>[3]['customer']): Promise<VoucherRow> {
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

async function grantRefereeReward(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  reward: RefereeReward,
  customer: Parameters<typeof publishVoucher>[3]['customer'],
  reason: string,
): Promise<RefereeRewardGranted> {
  const campaign = await rewardCampaign(tx, actor.projectId, reward);
  if (!campaign || campaign.campaign_type !== rewardCampaignType(reward)) {
    throw businessError('invalid_campaign', 'Invalid campaign', {
      details: `The referee reward's campaign ${reward.parent.id ?? reward.parent.name ?? ''} is gone or no longer a ${rewardCampaignType(reward)} campaign`,
    });
  }
  const card = await rewardCard(tx, deps, actor, campaign, customer);
  const common = { points: reward.amount, source: 'Automation', reason, operationType: 'AUTOMATIC' as const };
  if (reward.type === 'GIFT_VOUCHER') {
    const result = await creditCredits(tx, deps, actor, card, 'CREDITS_ADDITION', common);
    return { type: reward.type, amount: reward.amount, voucher: { id: card.id, code: card.code, campaign_id: card.campaign_id }, transaction: result.transaction, balance: result.balance };
  }
  // Reward points age by the loyalty program's own rules, counted from today in the project's time zone.
  const today = localDate(deps.clock.now(), await projectTimeZone(tx, actor.projectId));
  const result = await creditPoints(tx, deps, actor, card, 'POINTS_ADDITION', { ...common, expiresAt: pointsExpiryDate(programExpirationRules(campaign), today) });
  return { type: reward.type, amount: reward.amount, voucher: { id: card.id, code: card.code, campaign_id: card.campaign_id }, transaction: result.transaction, balance: result.balance };
}

/**
 * Records that `customer` was referred through `code`, once per referral program, and grants the
 * program's referee reward. Refuses a referrer using their own code (`referrer_not_permitted_to_redeem`).
 */
export async function convertReferral(tx: Tx, deps: Deps, actor: Actor, input: ConvertReferralInput): Promise<ConversionResult> {
  const code = await findLiveVoucher(tx, actor.projectId, input.code);
  if (!code) throw errors.notFound('voucher', input.code);
  const campaign = await referralProgramOf(tx, actor, code);
  const program = programOf(campaign);
  const { customer } = await resolveCustomer(tx, deps, actor, input.customer, { createIfMissing: true });
  const skipped = (reason: 'conversion_event_mismatch' | 'already_referred' | 'no_referrer'): ConversionResult => ({ status: 'skipped', reason, campaignId: campaign.id, customerId: customer.id });

  const referrerId = referrerOf(code);
  if (referrerId === null) return skipped('no_referrer');
  if (referrerId === customer.id) {
    throw businessError('referrer_not_permitted_to_redeem', 'Referrer not permitted to redeem', {
      details: `Customer ${customer.id} is the referrer of ${code.code} and cannot be referred by it`,
      resourceId: code.code,
      resourceType: 'voucher',
    });
  }
  const trigger: { type: ConversionEventType; eventName?: string; eventSchemaId?: string } =
    input.trigger.type === 'redemption'
      ? { type: 'redemption' }
      : { type: 'custom_event', eventName: input.trigger.eventName, ...(input.trigger.eventSchemaId !== undefined ? { eventSchemaId: input.trigger.eventSchemaId } : {}) };
  if (!convertsOn(program, trigger)) return skipped('conversion_event_mismatch');

  const referralId = deps.ids.next('rfrl');
  const relatedObjectId = input.trigger.type === 'redemption' ? input.trigger.redemptionId : input.trigger.eventId;
  const recorded = await insertReferralIfAbsent(tx, {
    id: referralId,
    project_id: actor.projectId,
    campaign_id: campaign.id,
    voucher_id: code.id,
    referrer_id: referrerId,
    customer_id: customer.id,
    related_object_type: input.trigger.type === 'redemption' ? 'redemption' : 'custom_event',
    related_object_id: relatedObjectId,
    created_at: deps.clock.now().toISOString(),
  });
  if (!recorded) return skipped('already_referred');
  await countReferredCustomer(tx, actor.projectId, referrerId);
  await recordReferee(tx, deps, actor, code, customer.id);

  const referrerRow = await findLiveCustomerById(tx, actor.projectId, referrerId);
  const referrer = referrerRow ? simpleCustomer(toCustomerObject(referrerRow)) : null;
  const campaignRef = { id: campaign.id, type: campaign.campaign_type, name: campaign.name };
  const voucher = { id: code.id, code: code.code, campaign: campaign.name, campaign_id: campaign.id, is_referral_code: true, holder_id: code.holder_id, referrer_id: referrerId, object: 'voucher' };
  const cause =
    input.trigger.type === 'redemption'
      ? { redemption: { id: input.trigger.redemptionId }, custom_event: null }
      : { redemption: null, custom_event: { id: input.trigger.eventId, type: input.trigger.eventName } };
  const events = [
    makeEvent(deps, actor, {
      type: 'customer.referred',
      activityType: 'customer.referred',
      activityCategory: 'ACTION',
      customerId: customer.id,
      campaign: campaignRef,
      voucherCode: code.code,
      entityId: referralId,
      data: { customer: simpleCustomer(customer), referrer, campaign: { id: campaign.id, name: campaign.name, campaign_type: campaign.campaign_type, object: 'campaign' }, voucher, ...cause },
    }),
  ];

  let reward: RefereeRewardGranted | null = null;
  if (program.refereeReward) {
    reward = await grantRefereeReward(tx, deps, actor, program.refereeReward, customer, `Referral reward: ${campaign.name}`);
    events.push(
      makeEvent(deps, actor, {
        type: 'customer.rewarded',
        activityType: 'customer.rewarded',
        activityCategory: 'EFFECT',
        customerId: customer.id,
        campaign: campaignRef,
        voucherCode: reward.voucher.code,
        entityId: reward.transaction.id,
        data: {
          customer: simpleCustomer(customer),
          holder: simpleCustomer(customer),
          voucher: reward.voucher,
          campaign: { id: campaign.id, name: campaign.name, campaign_type: campaign.campaign_type, object: 'campaign' },
          referral_tier: null,
          balance: reward.balance,
          ...cause,
        },
      }),
    );
  }
  await appendEvents(tx, events);
  return { status: 'converted', referralId, campaignId: campaign.id, customerId: customer.id, referrerId, reward };
}
