import { errors } from '../../domain/errors.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import type {
  CreateStackInput,
  ListCampaignStacksInput,
  ListStacksInput,
  PromotionStackListOut,
  PromotionStackOut,
  UpdateStackInput,
} from '../../api/promotions.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { findCategoriesByIds, findCategory, toCategoryObject } from '../../store/categories.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { findTiersWithCampaign } from '../../store/promotion-tiers.ts';
import * as store from '../../store/promotion-stacks.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { eventCampaign, promotionCampaign } from './tiers.ts';

// Promotion stacks (promotions reference 4.3): a named selection of 1–30 tiers of one PROMOTION campaign,
// applied in the order of `tiers.ids` (`hierarchy_mode` MANUAL). Every change commits with its
// `campaign.promotion_stack.*` event (payload `campaign`, `promotion_stack`); deletion is recorded as
// `campaign.promotion_stack.deleted`, an internal event no webhook configuration can name.

export type PromotionStackObject = PromotionStackOut;

async function renderStacks(db: Executor, projectId: string, rows: readonly store.StackRow[]): Promise<PromotionStackObject[]> {
  const tierIds = await store.tierIdsOfStacks(
    db,
    projectId,
    rows.map((r) => r.id),
  );
  const categories = await findCategoriesByIds(
    db,
    projectId,
    rows.map((r) => r.category_id).filter((id): id is string => id !== null),
  );
  return rows.map((row) => {
    const category = row.category_id !== null ? categories.get(row.category_id) : undefined;
    return {
      id: row.id,
      name: row.name,
      created_at: row.created_at,
      updated_at: row.updated_at,
      campaign_id: row.campaign_id,
      object: 'promotion_stack',
      tiers: { ids: tierIds.get(row.id) ?? [], hierarchy_mode: 'MANUAL' },
      category_id: row.category_id,
      categories: category ? [toCategoryObject(category)] : [],
    };
  });
}

async function renderStack(db: Executor, projectId: string, row: store.StackRow): Promise<PromotionStackObject> {
  const [object] = await renderStacks(db, projectId, [row]);
  if (!object) throw new Error('rendering one stack gave none');
  return object;
}

/**
 * The tier ids of a stack as sent: each once, each a tier of the campaign (404 otherwise). The tiers are
 * share-locked on PostgreSQL so a concurrent deletion waits and then sees the stack that uses them.
 */
async function checkTiers(tx: Tx, projectId: string, campaign: CampaignRow, ids: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  for (const [index, id] of ids.entries()) {
    if (seen.has(id)) throw errors.invalidPayload(`Property .tiers.ids[${index}]: tier ${id} is listed twice; a stack applies each tier once`);
    seen.add(id);
  }
  const found = new Set((await findTiersWithCampaign(tx, projectId, ids, 'share')).filter((i) => i.campaign.id === campaign.id).map((i) => i.tier.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw errors.notFound('promotion_tier', missing);
  return [...ids];
}

async function categoryIdOf(db: Executor, projectId: string, categoryId: string | null | undefined): Promise<string | null | undefined> {
  if (categoryId === undefined || categoryId === null) return categoryId;
  if (!(await findCategory(db, projectId, categoryId))) throw errors.notFound('category', categoryId);
  return categoryId;
}

async function stackEvent(tx: Tx, deps: Deps, actor: Actor, type: 'created' | 'updated' | 'deleted', campaign: CampaignRow, stack: PromotionStackObject) {
  const campaignOut = await eventCampaign(tx, actor.projectId, campaign);
  return makeEvent(deps, actor, {
    type: `campaign.promotion_stack.${type}`,
    entityId: stack.id,
    campaign: { id: campaign.id, type: campaign.campaign_type, name: campaign.name },
    data: { campaign: campaignOut, promotion_stack: stack },
  });
}

async function liveStack(db: Executor, projectId: string, campaign: CampaignRow, stackId: string): Promise<store.StackRow> {
  const row = await store.findStack(db, projectId, campaign.id, stackId);
  if (!row) throw errors.notFound('promotion_stack', stackId);
  return row;
}

/** `POST /v1/promotions/{campaignId}/stacks`. */
export async function createStack(deps: Deps, actor: Actor, campaignIdOrName: string, input: CreateStackInput): Promise<PromotionStackObject> {
  return inTransaction(deps, async (tx) => {
    const campaign = await promotionCampaign(tx, actor.projectId, campaignIdOrName);
    const tierIds = await checkTiers(tx, actor.projectId, campaign, input.tiers.ids);
    const categoryId = (await categoryIdOf(tx, actor.projectId, input.category_id)) ?? null;
    const id = deps.ids.next('stack');
    await store.insertStack(tx, {
      id,
      project_id: actor.projectId,
      campaign_id: campaign.id,
      name: input.name,
      hierarchy_mode: 'MANUAL',
      category_id: categoryId,
      created_at: deps.clock.now().toISOString(),
      updated_at: null,
    });
    await store.replaceStackTiers(tx, actor.projectId, id, tierIds);
    const row = await liveStack(tx, actor.projectId, campaign, id);
    const stack = await renderStack(tx, actor.projectId, row);
    await appendEvents(tx, [await stackEvent(tx, deps, actor, 'created', campaign, stack)]);
    return stack;
  });
}

/** `GET /v1/promotions/{campaignId}/stacks/{stackId}`. */
export async function getStack(deps: Deps, actor: Actor, campaignIdOrName: string, stackId: string): Promise<PromotionStackObject> {
  const campaign = await promotionCampaign(deps.db, actor.projectId, campaignIdOrName);
  return renderStack(deps.db, actor.projectId, await liveStack(deps.db, actor.projectId, campaign, stackId));
}

/** `PUT /v1/promotions/{campaignId}/stacks/{stackId}`: the members sent change; `tiers` replaces the list. */
export async function updateStack(deps: Deps, actor: Actor, campaignIdOrName: string, stackId: string, input: UpdateStackInput): Promise<PromotionStackObject> {
  return inTransaction(deps, async (tx) => {
    const campaign = await promotionCampaign(tx, actor.projectId, campaignIdOrName);
    const row = await liveStack(tx, actor.projectId, campaign, stackId);
    const tierIds = input.tiers !== undefined ? await checkTiers(tx, actor.projectId, campaign, input.tiers.ids) : undefined;
    const categoryId = await categoryIdOf(tx, actor.projectId, input.category_id);
    await store.updateStack(tx, actor.projectId, row.id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(categoryId !== undefined ? { category_id: categoryId } : {}),
      updated_at: deps.clock.now().toISOString(),
    });
    if (tierIds !== undefined) await store.replaceStackTiers(tx, actor.projectId, row.id, tierIds);
    const stack = await renderStack(tx, actor.projectId, await liveStack(tx, actor.projectId, campaign, row.id));
    await appendEvents(tx, [await stackEvent(tx, deps, actor, 'updated', campaign, stack)]);
    return stack;
  });
}

/** `DELETE /v1/promotions/{campaignId}/stacks/{stackId}`. */
export async function deleteStack(deps: Deps, actor: Actor, campaignIdOrName: string, stackId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const campaign = await promotionCampaign(tx, actor.projectId, campaignIdOrName);
    const row = await liveStack(tx, actor.projectId, campaign, stackId);
    const stack = await renderStack(tx, actor.projectId, row);
    if (!(await store.deleteStackRow(tx, actor.projectId, row.id))) throw errors.notFound('promotion_stack', stackId);
    await appendEvents(tx, [await stackEvent(tx, deps, actor, 'deleted', campaign, stack)]);
  });
}

async function list(deps: Deps, actor: Actor, query: Omit<store.StackListQuery, 'projectId' | 'offset'>, page: number): Promise<PromotionStackListOut> {
  const { rows, total } = await store.listStacks(deps.db, { ...query, projectId: actor.projectId, offset: (page - 1) * query.limit });
  return { object: 'list', data_ref: 'data', data: await renderStacks(deps.db, actor.projectId, rows), total };
}

/** `GET /v1/promotions/{campaignId}/stacks`: the campaign's stacks, oldest first. */
export async function listCampaignStacks(deps: Deps, actor: Actor, campaignIdOrName: string, query: ListCampaignStacksInput): Promise<PromotionStackListOut> {
  const campaign = await promotionCampaign(deps.db, actor.projectId, campaignIdOrName);
  return list(deps, actor, { campaignId: campaign.id, limit: query.limit ?? 100, order: 'created_at' }, query.page ?? 1);
}

/** `GET /v1/promotions/stacks`: newest first unless `order` says otherwise; date bounds are exclusive. */
export async function listAllStacks(deps: Deps, actor: Actor, query: ListStacksInput): Promise<PromotionStackListOut> {
  const bounds: Pick<store.StackListQuery, 'createdBefore' | 'createdAfter' | 'updatedBefore' | 'updatedAfter'> = {};
  if (query.created_at?.before !== undefined) bounds.createdBefore = queryInstant(query.created_at.before);
  if (query.created_at?.after !== undefined) bounds.createdAfter = queryInstant(query.created_at.after);
  if (query.updated_at?.before !== undefined) bounds.updatedBefore = queryInstant(query.updated_at.before);
  if (query.updated_at?.after !== undefined) bounds.updatedAfter = queryInstant(query.updated_at.after);
  return list(deps, actor, { limit: query.limit ?? 10, order: query.order ?? '-created_at', ...bounds }, query.page ?? 1);
}
