import { domainError, errors } from '../../domain/errors.ts';
import type {
  ListCampaignTiersInput,
  ListTiersInput,
  PromotionTierCreateInput,
  PromotionTierListOut,
  PromotionTierUpdateInput,
} from '../../api/promotions.ts';
import { findLiveCampaign, type CampaignRow } from '../../store/campaigns.ts';
import { findCategory } from '../../store/categories.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import {
  assignmentsOfTiers,
  deleteTierRow,
  findTierWithCampaign,
  findTiersWithCampaign,
  insertTiers,
  listTiers,
  lockCampaignRow,
  maxHierarchy,
  updateTier,
  type TierOrder,
  type TierWithCampaign,
} from '../../store/promotion-tiers.ts';
import { stacksUsingTier } from '../../store/promotion-stacks.ts';
import type { PromotionTiersTable } from '../../store/schema.ts';
import type { Insertable, Updateable } from 'kysely';
import { categoryIdOf } from '../catalog/categories.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { campaignObject, type CampaignObject } from '../campaigns/render.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { tierSummary } from './assignment-target.ts';
import { availabilityAt } from './availability.ts';
import { actionJson, checkWindow, windowColumns } from './tier-input.ts';
import { assignRulesToTier, lockRules, ruleIdsOf, unassignRulesFromTier } from './tier-rules.ts';
import { renderTier, renderTiers, type PromotionTierObject } from './tier-object.ts';

// Promotion tiers (seed 2.9, 4.12, 4.13; promotions reference 1.3, 4.1, 4.2): created with their PROMOTION
// campaign or one by one, read, listed, updated, enabled/disabled and deleted. Every change commits with
// its `campaign.promotion_tier.*` events (payload `campaign`, `promotion_tier`) in one transaction.

export type TierEventType = 'created' | 'updated' | 'deleted' | 'enabled' | 'disabled';

/** The campaign as tier and stack events carry it: the campaign object without its list of tiers. */
export async function eventCampaign(db: Executor, projectId: string, campaign: CampaignRow): Promise<CampaignObject> {
  const category = campaign.category_id !== null ? await findCategory(db, projectId, campaign.category_id) : undefined;
  return campaignObject(campaign, category);
}

function tierEvent(deps: Deps, actor: Actor, type: TierEventType, campaign: CampaignObject, tier: PromotionTierObject): NewEvent {
  return makeEvent(deps, actor, {
    type: `campaign.promotion_tier.${type}`,
    entityId: tier.id,
    campaign: { id: campaign.id, type: campaign.campaign_type, name: campaign.name },
    data: { campaign, promotion_tier: tier },
  });
}

/** A live PROMOTION campaign named by id or name; any other campaign is not found on these paths. */
export async function promotionCampaign(db: Executor, projectId: string, idOrName: string): Promise<CampaignRow> {
  const row = await findLiveCampaign(db, projectId, idOrName);
  if (!row || row.campaign_type !== 'PROMOTION') throw errors.notFound('campaign', idOrName);
  return row;
}

async function liveTier(db: Executor, projectId: string, id: string, lock?: 'update'): Promise<TierWithCampaign> {
  const found = await findTierWithCampaign(db, projectId, id, lock);
  if (!found) throw errors.notFound('promotion_tier', id);
  return found;
}

/**
 * Creates tiers of a campaign inside the caller's transaction, in array order. A tier without
 * `hierarchy` gets the next one after the highest so far (1, 2, … for a new campaign). Answers the tiers
 * and the events to append (tier created, then its rule assignments) after the caller's own.
 */
export async function createTiersInTransaction(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  campaign: CampaignRow,
  inputs: readonly PromotionTierCreateInput[],
  pathOf: (index: number) => string,
): Promise<{ tiers: PromotionTierObject[]; events: NewEvent[] }> {
  if (inputs.length === 0) return { tiers: [], events: [] };
  const now = deps.clock.now().toISOString();
  let highest = await maxHierarchy(tx, actor.projectId, campaign.id);
  const rows: Insertable<PromotionTiersTable>[] = [];
  const rulesPerTier = [];
  for (const [index, input] of inputs.entries()) {
    const path = pathOf(index);
    checkWindow(input, path);
    const action = actionJson(input.action, path);
    const categoryId = (await categoryIdOf(tx, deps, actor, input)) ?? null;
    await assertMetadata(tx, actor.projectId, 'promotion_tier', input.metadata);
    rulesPerTier.push(await lockRules(tx, actor.projectId, ruleIdsOf(input) ?? []));
    const hierarchy = input.hierarchy ?? highest + 1;
    highest = Math.max(highest, hierarchy);
    rows.push({
      id: deps.ids.next('promo'),
      project_id: actor.projectId,
      campaign_id: campaign.id,
      name: input.name,
      banner: input.banner ?? null,
      action,
      metadata: toJson(input.metadata ?? {}),
      hierarchy,
      active: input.active ?? true,
      ...windowColumns(input),
      category_id: categoryId,
      created_at: now,
      updated_at: null,
    });
  }
  await insertTiers(tx, rows);
  const assignmentEvents: NewEvent[][] = [];
  for (const [index, row] of rows.entries()) {
    const rules = rulesPerTier[index];
    assignmentEvents.push(rules ? await assignRulesToTier(tx, deps, actor, rules, row.id, tierSummary(row, campaign)) : []);
  }
  const items = await findTiersWithCampaign(
    tx,
    actor.projectId,
    rows.map((r) => r.id),
  );
  const tiers = await renderTiers(tx, actor.projectId, items);
  const campaignOut = await eventCampaign(tx, actor.projectId, campaign);
  const events = tiers.flatMap((tier, index) => [tierEvent(deps, actor, 'created', campaignOut, tier), ...(assignmentEvents[index] ?? [])]);
  return { tiers, events };
}

/** `POST /v1/promotions/{campaignId}/tiers`. */
export async function createTier(deps: Deps, actor: Actor, campaignIdOrName: string, input: PromotionTierCreateInput): Promise<PromotionTierObject> {
  return inTransaction(deps, async (tx) => {
    const campaign = await promotionCampaign(tx, actor.projectId, campaignIdOrName);
    // Tiers of one campaign are numbered one request at a time.
    await lockCampaignRow(tx, actor.projectId, campaign.id);
    const { tiers, events } = await createTiersInTransaction(tx, deps, actor, campaign, [input], () => '');
    await appendEvents(tx, events);
    const [tier] = tiers;
    if (!tier) throw new Error('creating one tier gave none');
    return tier;
  });
}

/** `GET /v1/promotions/tiers/{id}`. */
export async function getTier(deps: Deps, actor: Actor, id: string): Promise<PromotionTierObject> {
  return renderTier(deps.db, actor.projectId, await liveTier(deps.db, actor.projectId, id));
}

/**
 * `PUT /v1/promotions/tiers/{id}`: only the members sent change (the SDK's `id` in the body is ignored).
 * `validation_rules` / `validation_rule_assignments`, when sent, become the tier's complete set of rules.
 */
export async function updateTierById(deps: Deps, actor: Actor, id: string, input: PromotionTierUpdateInput): Promise<PromotionTierObject> {
  return inTransaction(deps, async (tx) => {
    const { tier, campaign } = await liveTier(tx, actor.projectId, id, 'update');
    const window = {
      start_date: input.start_date !== undefined ? input.start_date : tier.start_date,
      expiration_date: input.expiration_date !== undefined ? input.expiration_date : tier.expiration_date,
      validity_timeframe: input.validity_timeframe !== undefined ? input.validity_timeframe : fromJson(tier.validity_timeframe, null),
      validity_day_of_week: input.validity_day_of_week !== undefined ? input.validity_day_of_week : fromJson(tier.validity_day_of_week, null),
      validity_hours: input.validity_hours !== undefined ? input.validity_hours : fromJson(tier.validity_hours, null),
    };
    checkWindow(window, '');
    const patch: Updateable<PromotionTiersTable> = { ...windowColumns(window), updated_at: deps.clock.now().toISOString() };
    if (input.action !== undefined) patch.action = actionJson(input.action, '');
    if (input.name !== undefined) patch.name = input.name;
    if (input.banner !== undefined) patch.banner = input.banner;
    if (input.metadata !== undefined) {
      await assertMetadata(tx, actor.projectId, 'promotion_tier', input.metadata);
      patch.metadata = toJson(input.metadata ?? {});
    }
    if (input.hierarchy !== undefined) patch.hierarchy = input.hierarchy;
    if (input.active !== undefined) patch.active = input.active;
    const categoryId = await categoryIdOf(tx, deps, actor, input);
    if (categoryId !== undefined) patch.category_id = categoryId;
    const wanted = ruleIdsOf(input);
    const rules = wanted !== undefined ? await lockRules(tx, actor.projectId, wanted) : undefined;
    await updateTier(tx, actor.projectId, tier.id, patch);
    const updated = await liveTier(tx, actor.projectId, tier.id);
    const events: NewEvent[] = [];
    if (rules !== undefined) {
      const summary = tierSummary(updated.tier, campaign);
      const current = new Set((await assignmentsOfTiers(tx, actor.projectId, [tier.id])).map((a) => a.rule_id));
      const dropped = [...current].filter((ruleId) => !rules.has(ruleId));
      events.push(...(await unassignRulesFromTier(tx, deps, actor, tier.id, summary, dropped)));
      events.push(...(await assignRulesToTier(tx, deps, actor, rules, tier.id, summary)));
    }
    const object = await renderTier(tx, actor.projectId, updated);
    await appendEvents(tx, [tierEvent(deps, actor, 'updated', await eventCampaign(tx, actor.projectId, campaign), object), ...events]);
    return object;
  });
}

/** `POST /v1/promotions/tiers/{id}/enable|disable`: answers the tier with its new `active`. */
export async function setTierActive(deps: Deps, actor: Actor, id: string, active: boolean): Promise<PromotionTierObject> {
  return inTransaction(deps, async (tx) => {
    const { tier, campaign } = await liveTier(tx, actor.projectId, id, 'update');
    await updateTier(tx, actor.projectId, tier.id, { active, updated_at: deps.clock.now().toISOString() });
    const object = await renderTier(tx, actor.projectId, await liveTier(tx, actor.projectId, tier.id));
    await appendEvents(tx, [tierEvent(deps, actor, active ? 'enabled' : 'disabled', await eventCampaign(tx, actor.projectId, campaign), object)]);
    return object;
  });
}

/**
 * `DELETE /v1/promotions/tiers/{id}`: the tier and its rule assignments go. A tier that a promotion stack
 * applies cannot be deleted (400 resource_in_use naming the stacks): the stack would silently change.
 */
export async function deleteTier(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    // Locked first: a stack created concurrently share-locks the tier, so one of the two waits and sees the other.
    const found = await liveTier(tx, actor.projectId, id, 'update');
    const users = await stacksUsingTier(tx, actor.projectId, id, 10);
    if (users.total > 0) {
      throw domainError('resource_in_use', {
        details: `Resource promotion_tier with id ${id} is in use by promotion_stack with ids [${users.ids.join(', ')}]`,
        resourceId: id,
        resourceType: 'promotion_tier',
        extra: { related_object_ids: users.ids, related_object_type: 'promotion_stack', related_object_total: users.total },
      });
    }
    const object = await renderTier(tx, actor.projectId, found);
    const assignmentEvents = await unassignRulesFromTier(tx, deps, actor, id, tierSummary(found.tier, found.campaign));
    if (!(await deleteTierRow(tx, actor.projectId, id))) throw errors.notFound('promotion_tier', id);
    await appendEvents(tx, [...assignmentEvents, tierEvent(deps, actor, 'deleted', await eventCampaign(tx, actor.projectId, found.campaign), object)]);
  });
}

interface ListOptions {
  campaignId?: string;
  isAvailable: boolean;
  limit: number;
  page: number;
  order: TierOrder;
}

async function list(deps: Deps, actor: Actor, options: ListOptions): Promise<PromotionTierListOut> {
  const { items, total } = await listTiers(deps.db, {
    projectId: actor.projectId,
    limit: options.limit,
    offset: (options.page - 1) * options.limit,
    order: options.order,
    ...(options.campaignId !== undefined ? { campaignId: options.campaignId } : {}),
    ...(options.isAvailable ? { available: await availabilityAt(deps.db, actor.projectId, deps.clock.now()) } : {}),
  });
  return {
    object: 'list',
    data_ref: 'tiers',
    tiers: await renderTiers(deps.db, actor.projectId, items),
    total,
    has_more: options.page * options.limit < total,
  };
}

/**
 * `GET /v1/promotions/tiers` and `GET /client/v1/promotions/tiers` (seed 4.12): all tiers of the project's
 * live PROMOTION campaigns, oldest first unless `order` says otherwise.
 */
export async function listAllTiers(deps: Deps, actor: Actor, query: ListTiersInput): Promise<PromotionTierListOut> {
  return list(deps, actor, {
    isAvailable: query.is_available === true,
    limit: query.limit ?? 10,
    page: query.page ?? 1,
    order: query.order ?? 'created_at',
  });
}

/** `GET /v1/promotions/{campaignId}/tiers`: the campaign's tiers in the order they apply. */
export async function listTiersOfCampaign(deps: Deps, actor: Actor, campaignIdOrName: string, query: ListCampaignTiersInput): Promise<PromotionTierListOut> {
  const campaign = await promotionCampaign(deps.db, actor.projectId, campaignIdOrName);
  return list(deps, actor, {
    campaignId: campaign.id,
    isAvailable: query.is_available === true,
    limit: query.limit ?? 100,
    page: query.page ?? 1,
    order: 'hierarchy',
  });
}

