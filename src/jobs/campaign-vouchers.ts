import { yieldToRequests } from '../lib/slices.ts';
import { inTransaction, internalActor, makeEvent } from '../services/context.ts';
import { templateOf } from '../services/campaigns/campaign-input.ts';
import { DELETE_JOB, GENERATE_JOB, type DeleteJobPayload, type GenerateJobPayload } from '../services/campaigns/campaigns.ts';
import { renderCampaign } from '../services/campaigns/render.ts';
import { drawCodes, GENERATION_CHUNK, GENERATION_DRAW, insertDrawnVouchers, type DrawnCode } from '../services/campaigns/voucher-generation.ts';
import { addToVouchersCount, deleteCampaignRow, findCampaignInAnyState, setGenerationStatus } from '../store/campaigns.ts';
import { commitWithoutWaitingForDisk } from '../store/db.ts';
import { appendEvents } from '../store/events.ts';
import { projectCodesAreCaseSensitive } from '../store/projects.ts';
import { deleteCampaignPromotions } from '../store/promotion-tiers.ts';
import { deleteReferralTiersOfCampaign } from '../store/referral-tiers.ts';
import { deleteAssignmentsOf } from '../store/validation-rules.ts';
import { recordJobProgress, type Job } from '../store/jobs.ts';
import { binCampaignVouchers, purgeCampaignVouchers } from '../store/vouchers.ts';
import type { JobContext, Worker } from './worker.ts';

// Background work on a campaign's vouchers: generating large batches of codes and binning or deleting
// the vouchers of a deleted campaign. Each chunk commits with its progress, so a job resumed after a
// crash continues where it stopped and never makes a voucher twice.

function actorOf(job: Job) {
  return internalActor(job.projectId, job.requestId ?? job.id);
}

async function generate(job: Job, ctx: JobContext): Promise<unknown> {
  const { deps } = ctx;
  const payload = job.payload as GenerateJobPayload;
  const caseSensitive = await projectCodesAreCaseSensitive(deps.db, job.projectId);
  let done = (job.result as { done_count?: number } | null)?.done_count ?? 0;
  let drawn: DrawnCode[] = [];
  let next = 0;
  while (done < payload.count) {
    if (next >= drawn.length) {
      const campaign = await findCampaignInAnyState(deps.db, job.projectId, payload.campaign_id);
      const template = campaign ? templateOf(campaign) : null;
      if (!template) return { message: `Stopped after ${done} vouchers: the campaign was deleted.`, done_count: done };
      // Codes taken meanwhile make a draw fall short; the next draw covers what is still missing.
      drawn = drawCodes(template.code_config, caseSensitive, Math.min(GENERATION_DRAW, payload.count - done));
      next = 0;
    }
    const chunk = drawn.slice(next, next + Math.min(GENERATION_CHUNK, payload.count - done));
    next += chunk.length;
    const stillThere = await inTransaction(deps, async (tx) => {
      // A chunk lost in a crash is remade when the job resumes (its progress is in the same commit), so it
      // need not wait for the disk; the DONE commit below waits, and with it everything before it.
      await commitWithoutWaitingForDisk(tx);
      const campaign = await findCampaignInAnyState(tx, job.projectId, payload.campaign_id);
      const template = campaign ? templateOf(campaign) : null;
      // The campaign was deleted meanwhile: stop making vouchers nobody can see.
      if (!campaign || campaign.binned_at !== null || !template) return false;
      const made = await insertDrawnVouchers(
        tx,
        deps,
        { projectId: job.projectId, campaignId: campaign.id, campaignCategoryId: campaign.category_id, template, overrides: payload.overrides },
        chunk,
      );
      await addToVouchersCount(tx, job.projectId, campaign.id, made.length);
      done += made.length;
      await recordJobProgress(tx, job.id, { done_count: done }, Math.floor((done / payload.count) * 99), deps.clock.now().toISOString());
      return true;
    });
    if (!stillThere) return { message: `Stopped after ${done} vouchers: the campaign was deleted.`, done_count: done };
    await yieldToRequests();
  }
  await inTransaction(deps, async (tx) => {
    const campaign = await findCampaignInAnyState(tx, job.projectId, payload.campaign_id);
    if (!campaign || campaign.binned_at !== null) return;
    const now = deps.clock.now().toISOString();
    await setGenerationStatus(tx, job.projectId, campaign.id, 'DONE', now);
    const updated = await findCampaignInAnyState(tx, job.projectId, campaign.id);
    if (!updated) return;
    const object = await renderCampaign(tx, job.projectId, updated);
    await appendEvents(tx, [
      makeEvent(deps, actorOf(job), {
        type: 'campaign.vouchers.generation.completed',
        entityId: campaign.id,
        campaign: { id: campaign.id, type: campaign.campaign_type, name: campaign.name },
        data: { campaign: object, count: done, completed_at: now },
      }),
    ]);
  });
  return { message: `Generated ${done} vouchers.`, done_count: done };
}

async function generationFailed(job: Job, ctx: JobContext, error: unknown): Promise<void> {
  const { deps } = ctx;
  const payload = job.payload as GenerateJobPayload;
  await inTransaction(deps, async (tx) => {
    const campaign = await findCampaignInAnyState(tx, job.projectId, payload.campaign_id);
    if (!campaign || campaign.binned_at !== null) return;
    await setGenerationStatus(tx, job.projectId, campaign.id, 'FAILED', deps.clock.now().toISOString());
    const updated = await findCampaignInAnyState(tx, job.projectId, campaign.id);
    if (!updated) return;
    await appendEvents(tx, [
      makeEvent(deps, actorOf(job), {
        type: 'campaign.vouchers.generation.failed',
        entityId: campaign.id,
        campaign: { id: campaign.id, type: campaign.campaign_type, name: campaign.name },
        data: { campaign: await renderCampaign(tx, job.projectId, updated), reason: error instanceof Error ? error.message : String(error) },
      }),
    ]);
  });
}

async function remove(job: Job, ctx: JobContext): Promise<unknown> {
  const { deps } = ctx;
  const payload = job.payload as DeleteJobPayload;
  let done = (job.result as { done_count?: number } | null)?.done_count ?? 0;
  for (;;) {
    const removed = await inTransaction(deps, async (tx) => {
      const now = deps.clock.now().toISOString();
      const n = payload.force
        ? await purgeCampaignVouchers(tx, job.projectId, payload.campaign_id, GENERATION_CHUNK)
        : await binCampaignVouchers(tx, job.projectId, payload.campaign_id, GENERATION_CHUNK, now);
      done += n;
      await recordJobProgress(tx, job.id, { done_count: done }, 50, now);
      return n;
    });
    if (removed === 0) break;
    await yieldToRequests();
  }
  if (payload.force) {
    await inTransaction(deps, async (tx) => {
      // Everything that only makes sense with the campaign goes with it: its tiers and stacks (promotion
      // or referral), and the validation-rule assignments naming it.
      await deleteCampaignPromotions(tx, job.projectId, payload.campaign_id);
      await deleteReferralTiersOfCampaign(tx, job.projectId, payload.campaign_id);
      await deleteAssignmentsOf(tx, job.projectId, 'campaign', payload.campaign_id);
      await deleteCampaignRow(tx, job.projectId, payload.campaign_id);
    });
  }
  return { message: `Deleted ${done} vouchers.`, done_count: done };
}

export function registerCampaignVoucherJobs(worker: Worker): void {
  worker.register(GENERATE_JOB, generate, generationFailed);
  worker.register(DELETE_JOB, remove);
}

