import { businessError, errors } from '../../domain/errors.ts';
import { convertsOn, rewardCampaignType, type ConversionEventType } from '../../domain/referrals/referral-program.ts';
import { findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomerById, toCustomerObject, type CustomerObject } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { countReferredCustomer, insertReferralIfAbsent } from '../../store/referrals.ts';
import { findLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import { resolveCustomer, type CustomerRef } from '../customers/customers.ts';
import { recordReferee, referrerOf } from './holders.ts';
import { programOf, rewardCampaign } from './referral-program.ts';
import { grantBalanceReward, simpleCustomer, type BalanceRewardGranted } from './rewards.ts';
import { rewardReferrer, type ReferrerRewardGranted } from './tiers.ts';

// Converting a referral (promotions reference 1.3; platform reference 3.2 `referrals`): a customer used a
// referral code, by redeeming it or through the program's custom event. The customer becomes a referee of
// the code's referrer (recorded once per program; the customer object shows it under `referrals`, and
// the referrer's `loyalty.referred_customers` grows by one), the program's referee reward is granted
// through the publish service and the ledger, and the referrer is paid the referral tier (a Punchcard
// extension, ./tiers.ts) their new number of converted referees reaches. Called inside the caller's
// transaction by the redemption engine and the custom-events endpoint; everything it changes commits or
// rolls back with the caller.

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

/** The referee reward as given: points or credits, with the card's transaction and balance. */
export type RefereeRewardGranted = BalanceRewardGranted;

export type ConversionResult =
  | {
      status: 'converted';
      referralId: string;
      campaignId: string;
      customerId: string;
      referrerId: string;
      reward: RefereeRewardGranted | null;
      /** The referral tier this conversion paid the referrer, if it reached one. */
      referrerReward: ReferrerRewardGranted | null;
    }
  /** Nothing was recorded: the event is not this program's conversion event, or the customer was referred in it already. */
  | { status: 'skipped'; reason: 'conversion_event_mismatch' | 'already_referred' | 'no_referrer'; campaignId: string; customerId: string };

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

async function grantRefereeReward(tx: Tx, deps: Deps, actor: Actor, program: CampaignRow, customer: CustomerObject): Promise<RefereeRewardGranted | null> {
  const reward = programOf(program).refereeReward;
  if (!reward) return null;
  const campaign = await rewardCampaign(tx, actor.projectId, reward);
  if (!campaign || campaign.campaign_type !== rewardCampaignType(reward)) {
    throw businessError('invalid_campaign', 'Invalid campaign', {
      details: `The referee reward's campaign ${reward.parent.id ?? reward.parent.name ?? ''} is gone or no longer a ${rewardCampaignType(reward)} campaign`,
    });
  }
  return grantBalanceReward(tx, deps, actor, campaign, reward, customer, `Referral reward: ${program.name}`);
}

/**
 * Records that `customer` was referred through `code`, once per referral program, grants the program's
 * referee reward, and pays the referrer the referral tier their new count of conversions reaches.
 * Refuses a referrer using their own code (`referrer_not_permitted_to_redeem`).
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

  const reward = await grantRefereeReward(tx, deps, actor, campaign, customer);
  if (reward) {
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
  const referrerReward = await rewardReferrer(tx, deps, actor, { program: campaign, referralId, referrerId, referrer: referrerRow ? toCustomerObject(referrerRow) : null, cause });
  return { status: 'converted', referralId, campaignId: campaign.id, customerId: customer.id, referrerId, reward, referrerReward };
}
