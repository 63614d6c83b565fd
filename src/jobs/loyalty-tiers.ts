import { localDate } from '../domain/validity/validity.ts';
import { newRequestId } from '../lib/ids.ts';
import { internalActor } from '../services/context.ts';
import { AUTO_REDEEM_JOB, type AutoRedeemPayload } from '../services/loyalty/auto-redeem-queue.ts';
import { runAutoRedeem } from '../services/loyalty/reward-redemption.ts';
import { recalculateProgramTiers, refreshDueTiers } from '../services/loyalty/tier-recalculation.ts';
import { TIERS_RECALCULATE_JOB, type TierRecalculatePayload } from '../services/loyalty/tiers.ts';
import type { Job } from '../store/jobs.ts';
import { listProjects } from '../store/projects.ts';
import type { JobContext, Worker } from './worker.ts';

// Loyalty tiers and rewards in the background: a program's members are recalculated after its tiers are
// created; auto-redeem rewards are redeemed after points were added; and cards whose held tier expired
// (or whose pending tier starts) are recalculated whenever the periodic task comes round — each project
// by its own calendar day.

export const LOYALTY_TIERS_EVERY_MS = 60_000;

async function recalculate(job: Job, ctx: JobContext): Promise<unknown> {
  const payload = job.payload as TierRecalculatePayload;
  let batches = 0;
  const cards = await recalculateProgramTiers(ctx.deps, internalActor(job.projectId, job.requestId ?? job.id), payload.campaign_id, async () => {
    batches += 1;
    await ctx.progress(99 - 99 / (1 + batches / 10));
  });
  return { message: `Recalculated the tiers of ${cards} cards.`, done_count: cards };
}

async function autoRedeem(job: Job, ctx: JobContext): Promise<unknown> {
  const payload = job.payload as AutoRedeemPayload;
  const count = await runAutoRedeem(ctx.deps, internalActor(job.projectId, job.requestId ?? job.id), payload.voucher_id);
  return { message: `Redeemed ${count} rewards automatically.`, done_count: count };
}

export function registerLoyaltyTierJobs(worker: Worker): void {
  worker.register(TIERS_RECALCULATE_JOB, recalculate);
  worker.register(AUTO_REDEEM_JOB, autoRedeem);
  worker.every('loyalty-tiers', LOYALTY_TIERS_EVERY_MS, async ({ deps, log }) => {
    const now = deps.clock.now();
    const days = new Map((await listProjects(deps.db)).map((p) => [p.id, localDate(now, p.timezone)] as const));
    const run = await refreshDueTiers(deps, newRequestId(), days, (error, card) => log.error({ err: error, voucher_id: card.voucherId }, 'tier refresh failed'));
    if (run.refreshed > 0 || run.failures > 0) log.info(run, 'loyalty tiers refreshed');
  });
}
