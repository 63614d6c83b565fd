import { Pacer, yieldToRequests } from '../../lib/slices.ts';
import { lockCards, lockCustomer } from '../../store/loyalty.ts';
import * as store from '../../store/loyalty-tiers.ts';
import type { Tx } from '../../store/db.ts';
import { findLiveVoucherById, type VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { refreshTier } from './earning.ts';

// Tier recalculation outside a points change: every card of a program after its tiers changed
// (TIERS_RECALCULATE_JOB) and the periodic run for held tiers that expire or pending tiers that start.

/** A card locked the way loyalty writes lock: its holder's row first, then the card's. */
async function lockedMemberCard(tx: Tx, projectId: string, voucherId: string): Promise<VoucherRow | undefined> {
  const found = await findLiveVoucherById(tx, projectId, voucherId);
  if (!found) return undefined;
  if (found.holder_id) await lockCustomer(tx, projectId, found.holder_id);
  return (await lockCards(tx, projectId, [voucherId])).get(voucherId);
}

const BATCH = 100;

/** Recalculates every member card of a program (after its tiers changed), one batch per transaction. */
export async function recalculateProgramTiers(deps: Deps, actor: Actor, campaignId: string, onBatch?: () => Promise<void>): Promise<number> {
  let after: string | null = null;
  let done = 0;
  for (;;) {
    const ids = await store.programCards(deps.db, actor.projectId, campaignId, after, BATCH);
    if (ids.length === 0) return done;
    await inTransaction(deps, async (tx) => {
      for (const id of ids) {
        const card = await lockedMemberCard(tx, actor.projectId, id);
        if (card) await refreshTier(tx, deps, actor, card);
      }
    });
    done += ids.length;
    after = ids[ids.length - 1] as string;
    if (onBatch) await onBatch();
    await yieldToRequests();
  }
}

export interface DueTierRun {
  refreshed: number;
  failures: number;
}

/**
 * The periodic part: cards whose held tier expired or whose pending tier starts are recalculated, each
 * project by its own calendar day, each card in its own transaction (safe to run in several workers).
 */
export async function refreshDueTiers(deps: Deps, requestId: string, projectDays: ReadonlyMap<string, string>, onError?: (error: unknown, card: store.DueMembership) => void): Promise<DueTierRun> {
  const run: DueTierRun = { refreshed: 0, failures: 0 };
  if (projectDays.size === 0) return run;
  const latest = [...projectDays.values()].sort().at(-1) as string;
  const pacer = new Pacer();
  let after: store.DueMembership | null = null;
  for (;;) {
    const due = await store.dueMemberships(deps.db, latest, after, BATCH);
    if (due.length === 0) return run;
    for (const item of due) {
      after = item;
      if (!projectDays.has(item.projectId)) continue;
      try {
        await inTransaction(deps, async (tx) => {
          const actor: Actor = { projectId: item.projectId, requestId, source: { channel: 'INTERNAL' } };
          const card = await lockedMemberCard(tx, item.projectId, item.voucherId);
          if (card) await refreshTier(tx, deps, actor, card);
          else await store.deleteMembership(tx, item.projectId, item.voucherId);
        });
        run.refreshed++;
      } catch (error) {
        run.failures++;
        onError?.(error, item);
      }
      await pacer.between();
    }
  }
}
