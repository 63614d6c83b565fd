import type { TargetLookup } from '../validation-rules/target-lookup.ts';
import { findEarningRulesByIds } from '../../store/earning-rules.ts';
import { findAssignment } from '../../store/rewards.ts';

// Validation rules can guard earning rules (checked before points are added) and reward assignments
// (checked when the reward is redeemed); these resolve them for the assignment registry.

export const earningRuleTarget: TargetLookup = async (db, projectId, reference) => {
  const [row] = await findEarningRulesByIds(db, projectId, [reference]);
  if (!row) return undefined;
  return {
    id: row.id,
    summary: { id: row.id, event: row.event, campaign_id: row.campaign_id, source: { banner: row.source_banner }, active: Boolean(row.active), object: 'earning_rule' },
  };
};

export const rewardAssignmentTarget: TargetLookup = async (db, projectId, reference) => {
  const row = await findAssignment(db, projectId, reference);
  if (!row) return undefined;
  return { id: row.id, summary: { id: row.id, reward_id: row.reward_id, related_object_id: row.campaign_id, related_object_type: 'campaign', object: 'reward_assignment' } };
};
