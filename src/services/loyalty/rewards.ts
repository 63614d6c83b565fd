import { businessError, domainError, errors } from '../../domain/errors.ts';
import { imageUrlProblem, ratio, rewardType, type RewardType } from '../../domain/loyalty/rewards.ts';
import type {
  CampaignRewardInput,
  CreateRewardAssignmentInput,
  CreateRewardInput,
  ListAssignmentsInput,
  ListRewardsInput,
  UpdateRewardAssignmentInput,
  UpdateRewardInput,
} from '../../api/rewards.ts';
import { findLiveCampaign, type CampaignRow } from '../../store/campaigns.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findLiveProduct, findLiveSku } from '../../store/products.ts';
import * as store from '../../store/rewards.ts';
import type { AssignmentRow, RewardRow } from '../../store/rewards.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import * as rulesStore from '../../store/validation-rules.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { toAssignmentObject as toRuleAssignmentObject, toRuleObject } from '../validation-rules/validation-rules.ts';
import { campaignRef, loyaltyProgram } from './cards.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Rewards (seed 2.2, loyalty reference 5.1–5.3): CRUD on `/v1/rewards` and the assignments that put a
// reward, at a price in points, into a loyalty program's catalogue (both path families).

export type CampaignRewardParameters = { campaign: { id: string; balance?: number; type: 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS' | 'LOYALTY_PROGRAM' } };
export type CoinRewardParameters = { coin: { exchange_ratio: number; points_ratio: number } };
export type MaterialRewardParameters = { product: { id: string; sku_id: string | null } };
export type RewardParameters = CampaignRewardParameters | CoinRewardParameters | MaterialRewardParameters;

export interface RewardObject {
  id: string;
  name: string;
  type: RewardType;
  parameters: RewardParameters;
  stock: number | null;
  redeemed: number | null;
  attributes: { image_url?: string; description?: string };
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
  object: 'reward';
}

export interface RewardAssignmentObject {
  id: string;
  reward_id: string;
  related_object_id: string;
  related_object_type: 'campaign';
  parameters?: { loyalty: { points: number; auto_redeem: boolean | null } };
  created_at: string;
  updated_at: string | null;
  object: 'reward_assignment';
}

export function parametersOf(row: RewardRow): RewardParameters {
  return fromJson<RewardParameters>(row.parameters, { coin: { exchange_ratio: 1, points_ratio: 1 } });
}

export function toRewardObject(row: RewardRow): RewardObject {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    parameters: parametersOf(row),
    stock: row.stock === null ? null : Number(row.stock),
    redeemed: Number(row.redeemed),
    attributes: fromJson(row.attributes, {}),
    metadata: fromJson(row.metadata, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'reward',
  };
}

/** The assignment object; `points` (a tier's price for the member) replaces the stored price when given. */
export function toAssignmentObject(row: AssignmentRow, points?: number): RewardAssignmentObject {
  return {
    id: row.id,
    reward_id: row.reward_id,
    related_object_id: row.campaign_id,
    related_object_type: 'campaign',
    // Pay-with-points assignments have no price (vendor example: no parameters at all).
    ...(row.points !== null
      ? { parameters: { loyalty: { points: points ?? Number(row.points), auto_redeem: row.auto_redeem === null ? null : Boolean(row.auto_redeem) } } }
      : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'reward_assignment',
  };
}

// ---- reward definitions ----

type ParametersInput = NonNullable<CreateRewardInput['parameters']>;

const REWARD_CAMPAIGN_TYPES = ['DISCOUNT_COUPONS', 'GIFT_VOUCHERS', 'LOYALTY_PROGRAM'] as const;

async function campaignParameters(db: Executor, actor: Actor, sent: NonNullable<ParametersInput['campaign']>, stored: CampaignRewardParameters | null): Promise<CampaignRewardParameters> {
  const reference = sent.id ?? stored?.campaign.id;
  if (!reference) throw businessError('missing_param', 'Missing required parameter', { details: "Parameter 'parameters.campaign.id' is required" });
  const campaign = await findLiveCampaign(db, actor.projectId, reference);
  if (!campaign) throw errors.notFound('campaign', reference);
  const type = REWARD_CAMPAIGN_TYPES.find((t) => t === campaign.campaign_type);
  if (!type) throw errors.invalidPayload(`Property .parameters.campaign.id names a ${campaign.campaign_type} campaign; rewards hand out DISCOUNT_COUPONS, GIFT_VOUCHERS or LOYALTY_PROGRAM`);
  if (sent.type && sent.type !== type) throw errors.invalidPayload(`Property .parameters.campaign.type ${sent.type} does not match the campaign's type ${type}`);
  const balance = sent.balance !== undefined ? sent.balance : stored && stored.campaign.id === campaign.id ? (stored.campaign.balance ?? null) : null;
  if (type === 'DISCOUNT_COUPONS') {
    if (balance !== null && balance !== undefined) throw errors.invalidPayload('Property .parameters.campaign.balance does not apply to DISCOUNT_COUPONS rewards: a coupon is handed out');
    return { campaign: { id: campaign.id, type } };
  }
  if (balance === null || balance === undefined || balance <= 0) {
    throw businessError('invalid_balance', "Property 'parameters.campaign.balance' is invalid", {
      details: `Property 'parameters.campaign.balance' must be greater than zero for campaign type: ${type}`,
    });
  }
  return { campaign: { id: campaign.id, balance, type } };
}

function coinParameters(sent: NonNullable<ParametersInput['coin']>, stored: CoinRewardParameters | null): CoinRewardParameters {
  const exchange = ratio(sent.exchange_ratio, '.parameters.coin.exchange_ratio', false);
  if (!exchange.ok) throw errors.invalidPayload(exchange.error);
  const points = ratio(sent.points_ratio, '.parameters.coin.points_ratio', true);
  if (!points.ok) throw errors.invalidPayload(points.error);
  const exchangeRatio = exchange.value ?? stored?.coin.exchange_ratio;
  if (exchangeRatio === undefined) throw businessError('missing_param', 'Missing required parameter', { details: "Parameter 'parameters.coin.exchange_ratio' is required" });
  return { coin: { exchange_ratio: exchangeRatio, points_ratio: points.value ?? stored?.coin.points_ratio ?? 1 } };
}

async function productParameters(db: Executor, actor: Actor, sent: NonNullable<ParametersInput['product']>, stored: MaterialRewardParameters | null): Promise<MaterialRewardParameters> {
  const reference = sent.id ?? stored?.product.id;
  if (!reference) throw businessError('missing_param', 'Missing required parameter', { details: "Parameter 'parameters.product.id' is required" });
  const product = await findLiveProduct(db, actor.projectId, reference);
  if (!product) throw errors.notFound('product', reference);
  const skuRef = sent.sku_id !== undefined ? sent.sku_id : sent.sku !== undefined ? sent.sku : (stored?.product.sku_id ?? null);
  if (skuRef === null || skuRef === undefined) return { product: { id: product.id, sku_id: null } };
  const sku = await findLiveSku(db, actor.projectId, skuRef);
  if (!sku) throw errors.notFound('sku', skuRef);
  if (sku.product_id !== product.id) throw errors.invalidPayload(`Property .parameters.product.sku_id names SKU ${sku.id}, which belongs to another product`);
  return { product: { id: product.id, sku_id: sku.id } };
}

async function parametersFor(db: Executor, actor: Actor, type: RewardType, sent: ParametersInput, stored: RewardParameters | null): Promise<RewardParameters> {
  switch (type) {
    case 'CAMPAIGN':
      return campaignParameters(db, actor, sent.campaign ?? {}, stored && 'campaign' in stored ? stored : null);
    case 'COIN':
      return coinParameters(sent.coin ?? {}, stored && 'coin' in stored ? stored : null);
    case 'MATERIAL':
      return productParameters(db, actor, sent.product ?? {}, stored && 'product' in stored ? stored : null);
  }
}

function attributesOf(input: CreateRewardInput['attributes']): RewardObject['attributes'] {
  if (!input) return {};
  if (input.image_url) {
    const problem = imageUrlProblem(input.image_url);
    if (problem) throw errors.invalidPayload(problem);
  }
  return { ...(input.image_url ? { image_url: input.image_url } : {}), ...(input.description ? { description: input.description } : {}) };
}

/** `POST /v1/rewards`. */
export async function createReward(deps: Deps, actor: Actor, input: CreateRewardInput): Promise<RewardObject> {
  const type = rewardType(input.type, input.parameters);
  if (!type.ok) throw errors.invalidPayload(type.error);
  const attributes = attributesOf(input.attributes);
  return inTransaction(deps, async (tx) => {
    const parameters = await parametersFor(tx, actor, type.value, input.parameters ?? {}, null);
    await assertMetadata(tx, actor.projectId, 'reward', input.metadata);
    const id = deps.ids.next('rew');
    await store.insertReward(tx, {
      id,
      project_id: actor.projectId,
      name: input.name,
      type: type.value,
      parameters: toJson(parameters),
      stock: input.stock ?? null,
      redeemed: 0,
      attributes: toJson(attributes),
      metadata: toJson(input.metadata ?? {}),
      created_at: deps.clock.now().toISOString(),
      updated_at: null,
    });
    return toRewardObject(await rewardOf(tx, actor, id));
  });
}

async function rewardOf(db: Executor, actor: Actor, id: string, options: { forUpdate?: boolean } = {}): Promise<RewardRow> {
  const row = await store.findReward(db, actor.projectId, id, options);
  if (!row) throw errors.notFound('reward', id);
  return row;
}

export async function getReward(deps: Deps, actor: Actor, rewardId: string): Promise<RewardObject> {
  return toRewardObject(await rewardOf(deps.db, actor, rewardId));
}

/**
 * `PUT /v1/rewards/{id}`: only the members sent change. The type cannot change; `parameters` sent must
 * be the type's member, and its absent fields keep their stored values. `stock` sets the units left.
 */
export async function updateReward(deps: Deps, actor: Actor, rewardId: string, input: UpdateRewardInput): Promise<RewardObject> {
  const attributes = input.attributes !== undefined ? attributesOf(input.attributes) : undefined;
  return inTransaction(deps, async (tx) => {
    const row = await rewardOf(tx, actor, rewardId, { forUpdate: true });
    if (input.type !== undefined && input.type !== row.type) throw errors.invalidPayload(`Property .type cannot change from ${row.type} to ${input.type}`);
    let parameters: RewardParameters | undefined;
    if (input.parameters !== undefined) {
      const type = rewardType(row.type, input.parameters);
      if (!type.ok) throw errors.invalidPayload(type.error);
      parameters = await parametersFor(tx, actor, row.type, input.parameters, parametersOf(row));
    }
    if (input.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'reward', input.metadata);
    await store.updateReward(tx, actor.projectId, row.id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(parameters ? { parameters: toJson(parameters) } : {}),
      ...(input.stock !== undefined ? { stock: input.stock } : {}),
      ...(attributes !== undefined ? { attributes: toJson(attributes) } : {}),
      ...(input.metadata !== undefined ? { metadata: toJson(input.metadata ?? {}) } : {}),
      updated_at: deps.clock.now().toISOString(),
    });
    return toRewardObject(await rewardOf(tx, actor, row.id));
  });
}

/** `DELETE /v1/rewards/{id}`: refused while the reward is assigned to a campaign (vendor: resource_in_use). */
export async function deleteReward(deps: Deps, actor: Actor, rewardId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    // Held so that an assignment being created at the same time either sees no reward or blocks this.
    const row = await rewardOf(tx, actor, rewardId, { forUpdate: true });
    const { ids, total } = await store.assignmentIdsOfReward(tx, actor.projectId, row.id, 100);
    if (total > 0) {
      throw domainError('resource_in_use', {
        details: `Reward ${row.id} is assigned to ${total} campaign(s); delete the assignments first`,
        resourceId: row.id,
        resourceType: 'reward',
        extra: { related_object_ids: ids, related_object_type: 'reward_assignment', related_object_total: total },
      });
    }
    await store.deleteReward(tx, actor.projectId, row.id);
  });
}

export interface RewardList {
  object: 'list';
  data_ref: 'data';
  data: RewardObject[];
  total: number;
}

/** `GET /v1/rewards`, newest first; with `assignment_id`, the reward of that assignment only. */
export async function listRewards(deps: Deps, actor: Actor, query: ListRewardsInput): Promise<RewardList> {
  if (query.assignment_id !== undefined) {
    const assignment = await store.findAssignment(deps.db, actor.projectId, query.assignment_id);
    const reward = assignment ? await store.findReward(deps.db, actor.projectId, assignment.reward_id) : undefined;
    const data = await readableRows(listing(deps, actor, 'reward'), reward && (query.page ?? 1) === 1 ? [reward] : [], (some) => some.map(toRewardObject));
    return { object: 'list', data_ref: 'data', data, total: reward ? 1 : 0 };
  }
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listRewards(deps.db, { projectId: actor.projectId, limit, offset: ((query.page ?? 1) - 1) * limit });
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'reward'), rows, (some) => some.map(toRewardObject)), total };
}

// ---- assignments ----

function assignmentEvent(deps: Deps, actor: Actor, kind: 'created' | 'updated' | 'deleted', program: CampaignRow, reward: RewardRow, assignment: RewardAssignmentObject) {
  return makeEvent(deps, actor, {
    type: `campaign.reward.assignment.${kind}`,
    entityId: assignment.id,
    campaign: campaignRef(program),
    data: {
      campaign: { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' },
      reward: toRewardObject(reward),
      reward_assignment: assignment,
    },
  });
}

interface AssignmentRequest {
  parameters?: CreateRewardAssignmentInput['parameters'];
  validation_rules?: string[] | undefined;
}

/** The price columns of an assignment of `reward`, from what was sent (loyalty reference 5.3). */
function priceOf(reward: RewardRow, parameters: AssignmentRequest['parameters']): { points: number | null; auto_redeem: boolean | null } {
  const loyalty = parameters?.loyalty ?? null;
  if (reward.type === 'COIN') {
    // The points of pay-with-points rewards are chosen at redemption; they are never auto-redeemed.
    if (loyalty?.points !== undefined && loyalty.points !== null) throw errors.invalidPayload('Property .parameters.loyalty.points does not apply to pay-with-points (COIN) rewards');
    if (loyalty?.auto_redeem) throw errors.invalidPayload('Pay-with-points (COIN) rewards cannot be auto-redeemed');
    return { points: null, auto_redeem: null };
  }
  if (!loyalty) throw businessError('missing_param', 'Missing required parameter', { details: "Parameter 'parameters.loyalty' is required" });
  if (loyalty.points === undefined || loyalty.points === null) throw businessError('missing_param', 'Missing required parameter', { details: "Parameter 'parameters.loyalty.points' is required" });
  return { points: loyalty.points, auto_redeem: loyalty.auto_redeem ?? null };
}

/** Validation rules named by an assignment become rule assignments of the reward assignment. */
async function assignValidationRules(tx: Tx, deps: Deps, actor: Actor, assignmentId: string, ruleIds: readonly string[]): Promise<void> {
  const events = [];
  for (const ruleId of [...new Set(ruleIds)]) {
    const rule = await rulesStore.findRule(tx, actor.projectId, ruleId);
    if (!rule) throw errors.notFound('validation_rules', ruleId);
    const row = {
      id: deps.ids.next('asgm'),
      project_id: actor.projectId,
      rule_id: rule.id,
      related_object_type: 'reward_assignment',
      related_object_id: assignmentId,
      created_at: deps.clock.now().toISOString(),
    };
    await rulesStore.insertAssignmentIfAbsent(tx, row);
    const counts = await rulesStore.assignmentCounts(tx, actor.projectId, [rule.id]);
    events.push(
      makeEvent(deps, actor, {
        type: 'business_validation_rule.assignment.created',
        entityId: row.id,
        data: { rule: toRuleObject(rule, counts.get(rule.id) ?? 0), assignment: toRuleAssignmentObject(row), reward_assignment: { id: assignmentId, object: 'reward_assignment' } },
      }),
    );
  }
  await appendEvents(tx, events);
}

async function assign(tx: Tx, deps: Deps, actor: Actor, reward: RewardRow, program: CampaignRow, request: AssignmentRequest): Promise<RewardAssignmentObject> {
  const parameters = parametersOf(reward);
  if ('campaign' in parameters && parameters.campaign.id === program.id) {
    throw errors.invalidPayload(`Reward ${reward.id} hands out points of campaign ${program.id}; a loyalty campaign cannot use itself as the source of a points reward`);
  }
  const price = priceOf(reward, request.parameters);
  const id = deps.ids.next('rewa');
  const now = deps.clock.now().toISOString();
  let inserted: boolean;
  try {
    inserted = await store.insertAssignmentIfAbsent(tx, {
      id,
      project_id: actor.projectId,
      reward_id: reward.id,
      campaign_id: program.id,
      points: price.points,
      auto_redeem: price.auto_redeem,
      created_at: now,
      updated_at: null,
    });
  } catch (error) {
    // The only other unique index: one auto-redeem assignment per campaign.
    if (isUniqueViolation(error)) throw errors.invalidPayload(`Campaign ${program.id} already has an auto-redeem reward; at most one assignment per campaign may set auto_redeem`);
    throw error;
  }
  if (!inserted) {
    const existing = await store.findAssignmentFor(tx, actor.projectId, reward.id, program.id);
    throw domainError('duplicate_found', {
      details: `Reward ${reward.id} is already assigned to campaign ${program.id}${existing ? ` (${existing.id})` : ''}`,
      resourceId: existing?.id ?? reward.id,
      resourceType: 'reward_assignment',
    });
  }
  if (request.validation_rules && request.validation_rules.length > 0) await assignValidationRules(tx, deps, actor, id, request.validation_rules);
  const row = await store.findAssignment(tx, actor.projectId, id);
  if (!row) throw new Error(`reward assignment ${id} vanished inside its own transaction`);
  const object = toAssignmentObject(row);
  await appendEvents(tx, [assignmentEvent(deps, actor, 'created', program, reward, object)]);
  return object;
}

/** `POST /v1/rewards/{rewardId}/assignments`. */
export async function createRewardAssignment(deps: Deps, actor: Actor, rewardId: string, input: CreateRewardAssignmentInput): Promise<RewardAssignmentObject> {
  return inTransaction(deps, async (tx) => {
    const reward = await rewardOf(tx, actor, rewardId, { forUpdate: true });
    const program = await loyaltyProgram(tx, actor, input.campaign);
    return assign(tx, deps, actor, reward, program, input);
  });
}

/** `POST /v1/loyalties/{campaignId}/rewards`: an array of assignments, all or none, answered as an array. */
export async function createCampaignRewards(deps: Deps, actor: Actor, campaignId: string, items: readonly CampaignRewardInput[]): Promise<RewardAssignmentObject[]> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    const out: RewardAssignmentObject[] = [];
    for (const item of items) {
      const reward = await rewardOf(tx, actor, item.reward, { forUpdate: true });
      out.push(await assign(tx, deps, actor, reward, program, item));
    }
    return out;
  });
}

/** An assignment named by a path: under a reward, or under a campaign. Anything else is not found. */
async function assignmentOf(db: Executor, actor: Actor, assignmentId: string, owner: { rewardId?: string; campaignId?: string }): Promise<AssignmentRow> {
  const row = await store.findAssignment(db, actor.projectId, assignmentId);
  if (!row || (owner.rewardId !== undefined && row.reward_id !== owner.rewardId) || (owner.campaignId !== undefined && row.campaign_id !== owner.campaignId)) {
    throw errors.notFound('reward_assignment', assignmentId);
  }
  return row;
}

export type AssignmentPath = { rewardId: string } | { campaignId: string };

async function ownerOf(db: Executor, actor: Actor, path: AssignmentPath): Promise<{ rewardId?: string; campaignId?: string }> {
  if ('rewardId' in path) return { rewardId: (await rewardOf(db, actor, path.rewardId)).id };
  return { campaignId: (await loyaltyProgram(db, actor, path.campaignId)).id };
}

export async function getRewardAssignment(deps: Deps, actor: Actor, path: AssignmentPath, assignmentId: string): Promise<RewardAssignmentObject> {
  const owner = await ownerOf(deps.db, actor, path);
  return toAssignmentObject(await assignmentOf(deps.db, actor, assignmentId, owner));
}

/** Seed 4.1: the reward of an assignment of the campaign. */
export async function getAssignedReward(deps: Deps, actor: Actor, campaignId: string, assignmentId: string): Promise<RewardObject> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  const assignment = await assignmentOf(deps.db, actor, assignmentId, { campaignId: program.id });
  return toRewardObject(await rewardOf(deps.db, actor, assignment.reward_id));
}

export async function updateRewardAssignment(deps: Deps, actor: Actor, path: AssignmentPath, assignmentId: string, input: UpdateRewardAssignmentInput): Promise<RewardAssignmentObject> {
  return inTransaction(deps, async (tx) => {
    const owner = await ownerOf(tx, actor, path);
    const row = await assignmentOf(tx, actor, assignmentId, owner);
    const reward = await rewardOf(tx, actor, row.reward_id);
    const program = await loyaltyProgram(tx, actor, row.campaign_id);
    const loyalty = input.parameters?.loyalty;
    if (reward.type === 'COIN') priceOf(reward, input.parameters);
    const patch = {
      ...(loyalty?.points !== undefined && loyalty.points !== null && reward.type !== 'COIN' ? { points: loyalty.points } : {}),
      ...(loyalty?.auto_redeem !== undefined && reward.type !== 'COIN' ? { auto_redeem: loyalty.auto_redeem } : {}),
      updated_at: deps.clock.now().toISOString(),
    };
    try {
      await store.updateAssignment(tx, actor.projectId, row.id, patch);
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.invalidPayload(`Campaign ${program.id} already has an auto-redeem reward; at most one assignment per campaign may set auto_redeem`);
      throw error;
    }
    const object = toAssignmentObject(await assignmentOf(tx, actor, row.id, owner));
    await appendEvents(tx, [assignmentEvent(deps, actor, 'updated', program, reward, object)]);
    return object;
  });
}

export async function deleteRewardAssignment(deps: Deps, actor: Actor, path: AssignmentPath, assignmentId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const owner = await ownerOf(tx, actor, path);
    const row = await assignmentOf(tx, actor, assignmentId, owner);
    const reward = await rewardOf(tx, actor, row.reward_id);
    const program = await loyaltyProgram(tx, actor, row.campaign_id);
    await store.deleteAssignment(tx, actor.projectId, row.id);
    // Its validation rule assignments go with it: they guarded nothing else.
    await store.deleteRuleAssignmentsOf(tx, actor.projectId, row.id);
    await appendEvents(tx, [assignmentEvent(deps, actor, 'deleted', program, reward, toAssignmentObject(row))]);
  });
}

export interface AssignmentList {
  object: 'list';
  data_ref: 'data';
  data: RewardAssignmentObject[];
  total: number;
}

/** Assignments of a reward, or of a campaign (oldest first), in pages. */
export async function listRewardAssignments(deps: Deps, actor: Actor, path: AssignmentPath, query: ListAssignmentsInput): Promise<AssignmentList> {
  const owner = await ownerOf(deps.db, actor, path);
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listAssignments(deps.db, {
    projectId: actor.projectId,
    ...owner,
    ...(query.assignment_id !== undefined ? { assignmentId: query.assignment_id } : {}),
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
  });
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'reward_assignment'), rows, (some) => some.map((r) => toAssignmentObject(r))), total };
}
