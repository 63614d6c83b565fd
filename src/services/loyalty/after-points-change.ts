import { findLiveCampaignById } from '../../store/campaigns.ts';
import type { Tx } from '../../store/db.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';
import { scheduleAutoRedeem } from './auto-redeem-queue.ts';
import { refreshTier } from './earning.ts';

/**
 * What follows any change of a card's points made outside earning (which does the same itself): the
 * holder's tier may move, and when points were added an auto-redeem reward may now be affordable.
 * Runs inside the transaction of the change.
 */
export async function afterPointsChange(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, change: { added: boolean }): Promise<void> {
  await refreshTier(tx, deps, actor, card);
  if (!change.added || !card.campaign_id) return;
  const program = await findLiveCampaignById(tx, actor.projectId, card.campaign_id);
  if (program) await scheduleAutoRedeem(tx, deps, actor, program, card);
}
