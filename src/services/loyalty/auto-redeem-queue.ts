import type { CampaignRow } from '../../store/campaigns.ts';
import type { Tx } from '../../store/db.ts';
import { enqueueJob } from '../../store/jobs.ts';
import * as store from '../../store/rewards.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';

// Queuing an automatic reward redemption, apart from the redemption itself (./reward-redemption.ts,
// runAutoRedeem): earning and every other points change queue one, and redeeming a reward earns and
// changes points, so the queue side must not import the redemption side.

export const AUTO_REDEEM_JOB = 'LOYALTY.AUTO_REDEEM';

export interface AutoRedeemPayload {
  voucher_id: string;
}

/**
 * After points were added to a card whose program has an auto-redeem reward (loyalty reference 5.5):
 * queues the automatic redemption. It runs as its own work so that a reward out of stock never undoes
 * the change that added the points; each automatic redemption is then one transaction.
 */
export async function scheduleAutoRedeem(tx: Tx, deps: Deps, actor: Actor, program: CampaignRow, card: VoucherRow): Promise<boolean> {
  const assignment = await store.autoRedeemAssignment(tx, actor.projectId, program.id);
  if (!assignment || assignment.points === null || Number(card.loyalty_balance) <= 0) return false;
  const payload: AutoRedeemPayload = { voucher_id: card.id };
  await enqueueJob(tx, { id: deps.ids.next('aa'), projectId: actor.projectId, kind: AUTO_REDEEM_JOB, payload, requestId: actor.requestId, now: deps.clock.now().toISOString() });
  return true;
}
