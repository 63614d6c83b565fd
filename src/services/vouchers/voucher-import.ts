import type { Insertable } from 'kysely';
import type { ImportVoucherInput } from '../../api/vouchers.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { yieldToRequests } from '../../lib/slices.ts';
import { addToVouchersCount, findCampaignInAnyState, type CampaignRow } from '../../store/campaigns.ts';
import { findCategory } from '../../store/categories.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { enqueueJob, recordJobProgress } from '../../store/jobs.ts';
import { projectCodesAreCaseSensitive } from '../../store/projects.ts';
import type { VouchersTable } from '../../store/schema.ts';
import { codeKeyOf, codesInUse, insertVouchersSkippingTakenCodes } from '../../store/vouchers.ts';
import { categoryIdNamedBy } from '../catalog/categories.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { templateOf, type VoucherTemplate } from '../campaigns/campaign-input.ts';
import { renderCampaign } from '../campaigns/render.ts';
import { metadataCheck } from '../metadata-schemas/metadata-schemas.ts';
import { fieldsOf, newVoucherRow, voucherDefinition } from './voucher-input.ts';
import { codeBearingCampaign, projectCharset } from './vouchers.ts';

// Bulk imports of vouchers with given codes (platform reference 8.3): `POST /v1/vouchers/import`
// (standalone vouchers, VOUCHERS.IMPORT) and `POST /v1/campaigns/{id}/import` (into a campaign,
// CAMPAIGN.VOUCHERS_IMPORT). The request checks every item (definitions, metadata, duplicate and existing
// codes, categories named by id) and refuses the whole import with a precise 400/404 before anything is
// written; the worker then inserts the vouchers in chunks, one transaction each, recording progress so a
// resumed job carries on where it stopped; a category named by a new name is created with its chunk. A
// code taken by someone else in between is reported as a failed item.

export const VOUCHERS_IMPORT_JOB = 'VOUCHERS.IMPORT';
export const CAMPAIGN_IMPORT_JOB = 'CAMPAIGN.VOUCHERS_IMPORT';

export const IMPORT_CHUNK = 1000;
/** The result lists at most this many failed items; `failed_count` counts them all. */
const MAX_FAILED_LISTED = 1000;
const CODES_PER_QUERY = 500;

export interface ImportJobPayload {
  campaign_id: string | null;
  items: ImportVoucherInput[];
}

export interface ImportProgress {
  next_index: number;
  done_count: number;
  failed_count: number;
  failed: Array<{ code: string; reason: string }>;
}

function definitionsOf(items: readonly ImportVoucherInput[], template: VoucherTemplate | null, charset: string | null, offset: number): VoucherTemplate[] {
  return items.map((item, i) => voucherDefinition(item, template, charset, `[${offset + i}]`));
}

/** The category ids a chunk's items resolve to, by `id:` or `name:` and the value; undefined: no such id. */
type CategoryMemo = Map<string, string | undefined>;

/**
 * The item's category id, as a voucher create resolves it (`category_id` wins; a new name in `category`
 * creates the category in the chunk's transaction): null when it names none, the campaign's when it
 * says nothing, undefined when its `category_id` names a category deleted since the request was checked.
 */
async function categoryOf(tx: Tx, deps: Deps, actor: Actor, item: ImportVoucherInput, campaign: CampaignRow | null, memo: CategoryMemo): Promise<string | null | undefined> {
  const id = item.category_id;
  if (id !== undefined && id !== null) return memoized(memo, `id:${id}`, async () => (await findCategory(tx, actor.projectId, id))?.id);
  const name = item.category;
  if (name !== undefined && name !== null) return memoized(memo, `name:${name}`, () => categoryIdNamedBy(tx, deps, actor, name));
  if (id === null || name === null) return null;
  return campaign?.category_id ?? null;
}

async function memoized(memo: CategoryMemo, key: string, load: () => Promise<string | undefined>): Promise<string | undefined> {
  if (!memo.has(key)) memo.set(key, await load());
  return memo.get(key);
}

/** Checks the whole import and enqueues it; answers the async action id. */
export async function importVouchers(deps: Deps, actor: Actor, campaignRef: string | null, items: readonly ImportVoucherInput[]): Promise<string> {
  return inTransaction(deps, async (tx) => {
    const campaign = campaignRef !== null ? await codeBearingCampaign(tx, actor.projectId, campaignRef) : null;
    definitionsOf(items, campaign ? templateOf(campaign) : null, await projectCharset(tx, actor.projectId), 0);
    const checkMetadata = await metadataCheck(tx, actor.projectId, 'voucher');
    for (const [i, item] of items.entries()) checkMetadata(item.metadata, `[${i}]`);

    const caseSensitive = await projectCodesAreCaseSensitive(tx, actor.projectId);
    const keys = items.map((item) => codeKeyOf(item.code, caseSensitive));
    const seen = new Map<string, number>();
    for (const [i, key] of keys.entries()) {
      const first = seen.get(key);
      if (first !== undefined) {
        throw businessError('duplicate_key', 'Duplicate codes', { details: `Items [${first}] and [${i}] have the same code ${items[i]?.code ?? ''}` });
      }
      seen.set(key, i);
    }
    const taken: string[] = [];
    for (let i = 0; i < keys.length && taken.length < 10; i += CODES_PER_QUERY) {
      const slice = keys.slice(i, i + CODES_PER_QUERY);
      const used = await codesInUse(tx, actor.projectId, slice);
      for (const [j, key] of slice.entries()) if (used.has(key)) taken.push(items[i + j]?.code ?? key);
    }
    if (taken.length > 0) throw businessError('duplicate_key', 'Duplicate codes', { details: `Codes already exist in the project: ${taken.slice(0, 10).join(', ')}` });

    // Categories named by id must exist; names are created as the chunks are imported.
    const checked = new Set<string>();
    for (const item of items) {
      const id = item.category_id;
      if (id === undefined || id === null || checked.has(id)) continue;
      if (!(await findCategory(tx, actor.projectId, id))) throw errors.notFound('category', id);
      checked.add(id);
    }

    const jobId = deps.ids.next('aa');
    const payload: ImportJobPayload = { campaign_id: campaign?.id ?? null, items: [...items] };
    await enqueueJob(tx, {
      id: jobId,
      projectId: actor.projectId,
      kind: campaign ? CAMPAIGN_IMPORT_JOB : VOUCHERS_IMPORT_JOB,
      payload,
      requestId: actor.requestId,
      now: deps.clock.now().toISOString(),
    });
    return jobId;
  });
}

/** Imports one chunk inside `tx`; answers the progress after it, or null when the campaign is gone. */
export async function importChunk(tx: Tx, deps: Deps, actor: Actor, jobId: string, payload: ImportJobPayload, progress: ImportProgress): Promise<ImportProgress | null> {
  const { projectId } = actor;
  let campaign: CampaignRow | null = null;
  if (payload.campaign_id !== null) {
    const row = await findCampaignInAnyState(tx, projectId, payload.campaign_id);
    // A campaign deleted while its import waited gets no vouchers nobody could see.
    if (!row || row.binned_at !== null) return null;
    campaign = row;
  }
  const chunk = payload.items.slice(progress.next_index, progress.next_index + IMPORT_CHUNK);
  const template = campaign ? templateOf(campaign) : null;
  const definitions = definitionsOf(chunk, template, await projectCharset(tx, projectId), progress.next_index);
  const categories: CategoryMemo = new Map();
  const caseSensitive = await projectCodesAreCaseSensitive(tx, projectId);
  const now = deps.clock.now().toISOString();
  const failed: ImportProgress['failed'] = [];
  const rows: Array<Insertable<VouchersTable>> = [];
  for (const [i, item] of chunk.entries()) {
    const definition = definitions[i];
    const categoryId = await categoryOf(tx, deps, actor, item, campaign, categories);
    if (!definition || categoryId === undefined) {
      failed.push({ code: item.code, reason: `Category ${item.category_id ?? ''} does not exist` });
      continue;
    }
    rows.push(newVoucherRow(deps, projectId, campaign?.id ?? null, definition, fieldsOf(item, categoryId), item.code, codeKeyOf(item.code, caseSensitive), now));
  }
  let done = 0;
  for (let i = 0; i < rows.length; i += CODES_PER_QUERY) {
    const slice = rows.slice(i, i + CODES_PER_QUERY);
    const taken = await insertVouchersSkippingTakenCodes(tx, slice);
    done += slice.length - taken.size;
    for (const row of slice) if (taken.has(row.code_key)) failed.push({ code: row.code, reason: 'A voucher with this code already exists' });
  }
  if (campaign && done > 0) await addToVouchersCount(tx, projectId, campaign.id, done);
  const next: ImportProgress = {
    next_index: progress.next_index + chunk.length,
    done_count: progress.done_count + done,
    failed_count: progress.failed_count + failed.length,
    failed: [...progress.failed, ...failed].slice(0, MAX_FAILED_LISTED),
  };
  const percent = Math.floor((next.next_index / Math.max(1, payload.items.length)) * 99);
  await recordJobProgress(tx, jobId, next, percent, now);
  if (campaign && next.next_index >= payload.items.length && next.done_count > 0) {
    // Announced with the last chunk, so the event exists exactly when the import has committed.
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'campaign.vouchers.added',
        entityId: campaign.id,
        campaign: { id: campaign.id, type: campaign.campaign_type, name: campaign.name },
        data: { campaign: await renderCampaign(tx, projectId, campaign), count: next.done_count },
      }),
    ]);
  }
  return next;
}

/** Runs a whole import job chunk by chunk; answers the async action result. */
export async function runImport(deps: Deps, actor: Actor, jobId: string, payload: ImportJobPayload, resumed: unknown): Promise<Record<string, unknown>> {
  const earlier = resumed as Partial<ImportProgress> | null;
  let progress: ImportProgress = {
    next_index: earlier?.next_index ?? 0,
    done_count: earlier?.done_count ?? 0,
    failed_count: earlier?.failed_count ?? 0,
    failed: earlier?.failed ?? [],
  };
  while (progress.next_index < payload.items.length) {
    const current = progress;
    const next = await inTransaction(deps, (tx) => importChunk(tx, deps, actor, jobId, payload, current));
    if (next === null) {
      return { message: `Stopped after ${progress.done_count} voucher(s): the campaign was deleted.`, failed: progress.failed, done_count: progress.done_count, failed_count: progress.failed_count };
    }
    progress = next;
    await yieldToRequests();
  }
  return {
    message: `${progress.done_count} voucher(s) imported successfully, ${progress.failed_count} failed.`,
    failed: progress.failed,
    done_count: progress.done_count,
    failed_count: progress.failed_count,
  };
}
