import { domainError, errors } from '../../domain/errors.ts';
import { findLiveCampaign } from '../../store/campaigns.ts';
import type { Executor } from '../../store/db.ts';
import { findLiveVoucher } from '../../store/vouchers.ts';
import { earningRuleTarget, rewardAssignmentTarget } from '../loyalty/assignment-targets.ts';
import { promotionTierTarget } from '../promotions/assignment-target.ts';
import type { AssignmentTarget, TargetLookup } from './target-lookup.ts';

// The objects a validation rule can be assigned to, one lookup per `related_object_type`. A lookup
// resolves what the client sent (an id, a voucher code, a campaign name) to the object's id and a short
// summary that assignment events carry under the type's name (platform reference 6.4).
//
// Adding a target type (promotion tiers, earning rules, …) is one line in TARGETS below.

export type AssignmentObjectType = 'voucher' | 'campaign' | 'promotion_tier' | 'earning_rule' | 'distribution' | 'reward_assignment';

const campaignTarget: TargetLookup = async (db, projectId, reference) => {
  const row = await findLiveCampaign(db, projectId, reference);
  if (!row) return undefined;
  return {
    id: row.id,
    summary: { id: row.id, name: row.name, campaign_type: row.campaign_type, type: row.type, active: Boolean(row.active), object: 'campaign' },
  };
};

const voucherTarget: TargetLookup = async (db, projectId, reference) => {
  const row = await findLiveVoucher(db, projectId, reference);
  if (!row) return undefined;
  return {
    id: row.id,
    summary: { id: row.id, code: row.code, campaign_id: row.campaign_id, type: row.type, active: Boolean(row.active), object: 'voucher' },
  };
};

const TARGETS: Partial<Record<AssignmentObjectType, TargetLookup>> = {
  campaign: campaignTarget,
  voucher: voucherTarget,
  earning_rule: earningRuleTarget,
  reward_assignment: rewardAssignmentTarget,
  promotion_tier: promotionTierTarget,
};

/** The object an assignment request names; 404 when it does not exist, 400 for a type not yet served. */
export async function resolveAssignmentTarget(
  db: Executor,
  projectId: string,
  type: AssignmentObjectType,
  reference: string,
): Promise<AssignmentTarget> {
  const lookup = TARGETS[type];
  if (!lookup) {
    throw domainError('invalid_payload', {
      details: `Validation rules cannot be assigned to related_object_type ${type} yet; supported: ${Object.keys(TARGETS).join(', ')}`,
    });
  }
  const target = await lookup(db, projectId, reference);
  if (!target) throw errors.notFound(type, reference);
  return target;
}

/** Types whose summary an assignment event carries (null when the assignment is to another type). */
export const EVENT_TARGET_MEMBERS: readonly AssignmentObjectType[] = ['voucher', 'campaign', 'distribution', 'promotion_tier', 'earning_rule'];
