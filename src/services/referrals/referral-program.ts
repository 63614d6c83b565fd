import { businessError, errors } from '../../domain/errors.ts';
import { parseReferralProgram, rewardCampaignType, type ReferralProgram, type ReferralReward } from '../../domain/referrals/referral-program.ts';
import { findLiveCampaign, type CampaignRow } from '../../store/campaigns.ts';
import type { Executor } from '../../store/db.ts';
import { fromJson } from '../../store/json.ts';

// Checks of a REFERRAL_PROGRAM campaign's `referral_program` that need the database: the referee reward
// must name an existing campaign of the matching kind (a gift card campaign for GIFT_VOUCHER credits, a
// loyalty program for LOYALTY_CARD points). Called by campaign create and update before anything is written;
// referral tiers check their referrer rewards the same way (plus coupons from DISCOUNT_COUPONS campaigns).

export async function rewardCampaign(db: Executor, projectId: string, reward: ReferralReward): Promise<CampaignRow | undefined> {
  const reference = reward.parent.id ?? reward.parent.name;
  return reference === null ? undefined : findLiveCampaign(db, projectId, reference);
}

/**
 * The live campaign a reward names, when it has the type the reward needs; otherwise 404 (no such
 * campaign) or 400 `invalid_campaign`. `member` names the reward in the problem text.
 */
export async function checkRewardCampaign(db: Executor, projectId: string, reward: ReferralReward, member: string): Promise<CampaignRow> {
  const campaign = await rewardCampaign(db, projectId, reward);
  if (!campaign) throw errors.notFound('campaign', reward.parent.id ?? reward.parent.name ?? '');
  const expected = rewardCampaignType(reward);
  if (campaign.campaign_type !== expected) {
    throw businessError('invalid_campaign', 'Invalid campaign', {
      details: `${member} of type ${reward.type} needs a ${expected} campaign; ${campaign.name} is ${campaign.campaign_type}`,
    });
  }
  return campaign;
}

export async function checkReferralProgram(db: Executor, projectId: string, input: unknown): Promise<ReferralProgram> {
  const parsed = parseReferralProgram(input);
  if (!parsed.ok) throw errors.invalidPayload(parsed.problem);
  const reward = parsed.program.refereeReward;
  if (reward) await checkRewardCampaign(db, projectId, reward, 'referral_program.referee_reward');
  return parsed.program;
}

/** The stored program of a referral campaign (validated when it was written). */
export function programOf(campaign: CampaignRow): ReferralProgram {
  const parsed = parseReferralProgram(fromJson<unknown>(campaign.referral_program, null));
  if (!parsed.ok) throw new Error(`campaign ${campaign.id} stores an invalid referral_program: ${parsed.problem}`);
  return parsed.program;
}
