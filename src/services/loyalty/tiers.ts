import type { Insertable } from 'kysely';
import { errors } from '../../domain/errors.ts';
import { mappedLoyalty, mapPoints, type PointsMapping } from '../../domain/loyalty/earning.ts';
import {
  decideTier,
  heldOn,
  membershipChanged,
  periodOf,
  readTiersPolicy,
  type HeldTier,
  type Membership,
  type TierChange,
  type TierDecision,
} from '../../domain/loyalty/tiers.ts';
import { startOfLocalDay } from '../../domain/time/local-day.ts';
import type { CreateTierInput, ListTiersInput, PageInput, UpdateTierInput } from '../../api/loyalty-tiers.ts';
import { domainError } from '../../domain/errors.ts';
import { findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import type { Executor, Tx } from '../../store/db.ts';
import * as rulesStore from '../../store/earning-rules.ts';
import { appendEvents } from '../../store/events.ts';
import { enqueueJob } from '../../store/jobs.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { lockCards } from '../../store/loyalty.ts';
import * as store from '../../store/loyalty-tiers.ts';
import type { TierMemberRow, TierRow } from '../../store/loyalty-tiers.ts';
import { assignmentsOfCampaign, findRewardsByIds } from '../../store/rewards.ts';
import type { LoyaltyTiersTable } from '../../store/schema.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { campaignRef, customerSummary, loyaltyCard, loyaltyProgram, projectDay, type ProjectDay } from './cards.ts';
import { loyaltyOf, toEarningRuleObject, type EarningRuleObject } from './earning-rules.ts';
import { toAssignmentObject, toRewardObject, type RewardAssignmentObject, type RewardObject } from './rewards.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Loyalty tiers (loyalty reference 6, 1.6): creating and reading a program's tiers, the tiers a member
// holds, and `updateTier`, which recalculates one card's tier after its points changed (the rules are
// the pure src/domain/loyalty/tiers.ts) and appends `customer.loyalty.tier.*` on a change. The
// tier-event earning rules that change fires are run by `refreshTier` (./earning.ts).

export const TIERS_RECALCULATE_JOB = 'LOYALTY.TIERS_RECALCULATE';

export interface TierRecalculatePayload {
  campaign_id: string;
}

export interface TierExpirationObject {
  customer_id: string | null;
  campaign_id: string;
  tier_id: string;
  start_date: string | null;
  expiration_date: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface TierObject {
  id: string;
  name: string;
  campaign_id: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string | null;
  points: { from: number; to: number | null };
  config: { points: { from: number; to: number | null } };
  earning_rules: Record<string, PointsMapping>;
  rewards: Record<string, PointsMapping>;
  expiration?: TierExpirationObject;
  object: 'loyalty_tier';
}

export function earningMappings(row: TierRow): Record<string, PointsMapping> {
  return fromJson(row.earning_rules, {});
}

export function rewardMappings(row: TierRow): Record<string, PointsMapping> {
  return fromJson(row.rewards, {});
}

export function toTierObject(row: TierRow, expiration?: TierExpirationObject): TierObject {
  const points = { from: Number(row.points_from), to: row.points_to === null ? null : Number(row.points_to) };
  return {
    id: row.id,
    name: row.name,
    campaign_id: row.campaign_id,
    metadata: fromJson(row.metadata, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    points,
    config: { points },
    earning_rules: earningMappings(row),
    rewards: rewardMappings(row),
    ...(expiration ? { expiration } : {}),
    object: 'loyalty_tier',
  };
}

// ---- definitions ----

type MappingInput = NonNullable<CreateTierInput['earning_rules']>[string];

function mappingOf(input: MappingInput, path: string): PointsMapping {
  if (input.type === 'MULTIPLY') {
    if (input.multiplier === undefined) throw errors.invalidPayload(`Property ${path}.multiplier is required for MULTIPLY`);
    return { type: 'MULTIPLY', multiplier: input.multiplier };
  }
  if (input.points === undefined) throw errors.invalidPayload(`Property ${path}.points is required for CUSTOM`);
  return { type: 'CUSTOM', points: input.points };
}

async function checkedMappings(
  tx: Tx,
  actor: Actor,
  program: CampaignRow,
  input: CreateTierInput,
  path: string,
): Promise<{ earningRules: Record<string, PointsMapping>; rewards: Record<string, PointsMapping> }> {
  const earningRules: Record<string, PointsMapping> = {};
  const ruleIds = Object.keys(input.earning_rules ?? {});
  const rules = new Map((await rulesStore.findEarningRulesByIds(tx, actor.projectId, ruleIds)).map((r) => [r.id, r]));
  for (const [id, mapping] of Object.entries(input.earning_rules ?? {})) {
    if (rules.get(id)?.campaign_id !== program.id) throw errors.notFound('earning_rule', id);
    earningRules[id] = mappingOf(mapping, `${path}.earning_rules.${id}`);
  }
  const rewards: Record<string, PointsMapping> = {};
  const assignments = new Map((await assignmentsOfCampaign(tx, actor.projectId, program.id)).map((a) => [a.id, a]));
  for (const [id, mapping] of Object.entries(input.rewards ?? {})) {
    const assignment = assignments.get(id);
    if (!assignment) throw errors.notFound('reward_assignment', id);
    const mapped = mappingOf(mapping, `${path}.rewards.${id}`);
    // Pay-with-points rewards have no price to replace (loyalty reference 6.1).
    if (assignment.points === null) throw errors.invalidPayload(`Property ${path}.rewards.${id}: pay-with-points rewards take no tier mapping`);
    rewards[id] = mapped;
  }
  return { earningRules, rewards };
}

/**
 * `POST /v1/loyalties/{campaignId}/tiers`: an array of tiers, all or none. Ranges may not overlap each
 * other or the program's tiers. The program's members are then recalculated in the background.
 */
export async function createTiers(deps: Deps, actor: Actor, campaignId: string, items: readonly CreateTierInput[]): Promise<TierObject[]> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    await store.lockTierDefinitions(tx, actor.projectId, program.id);
    const ranges = (await store.tiersOfCampaign(tx, actor.projectId, program.id)).map((t) => ({
      name: t.name,
      from: Number(t.points_from),
      to: t.points_to === null ? Number.POSITIVE_INFINITY : Number(t.points_to),
    }));
    const now = deps.clock.now().toISOString();
    const rows: Insertable<LoyaltyTiersTable>[] = [];
    for (const [i, item] of items.entries()) {
      const path = items.length > 1 ? `[${i}]` : '';
      const from = item.points.from ?? 0;
      const to = item.points.to ?? null;
      if (to !== null && to < from) throw errors.invalidPayload(`Property ${path}.points.to (${to}) must not be below points.from (${from})`);
      const upper = to ?? Number.POSITIVE_INFINITY;
      const clash = ranges.find((r) => r.from <= upper && from <= r.to);
      if (clash) throw errors.invalidPayload(`Property ${path}.points ${from}-${to ?? '∞'} overlaps tier '${clash.name}' (${clash.from}-${Number.isFinite(clash.to) ? clash.to : '∞'})`);
      ranges.push({ name: item.name, from, to: upper });
      const { earningRules, rewards } = await checkedMappings(tx, actor, program, item, path);
      await assertMetadata(tx, actor.projectId, 'loyalty_tier', item.metadata);
      rows.push({
        id: deps.ids.next('ltr'),
        project_id: actor.projectId,
        campaign_id: program.id,
        name: item.name,
        points_from: from,
        points_to: to,
        earning_rules: toJson(earningRules),
        rewards: toJson(rewards),
        metadata: toJson(item.metadata ?? {}),
        created_at: now,
        updated_at: null,
      });
    }
    await store.insertTiers(tx, rows);
    const stored = await store.findTiersByIds(tx, actor.projectId, rows.map((r) => r.id));
    const tiers = rows.map((r) => toTierObject(stored.get(r.id) as TierRow));
    await appendEvents(
      tx,
      tiers.map((tier) =>
        makeEvent(deps, actor, {
          type: 'campaign.loyalty_tier.created',
          entityId: tier.id,
          campaign: campaignRef(program),
          data: { campaign: { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' }, loyalty_tier: tier },
        }),
      ),
    );
    const payload: TierRecalculatePayload = { campaign_id: program.id };
    await enqueueJob(tx, { id: deps.ids.next('aa'), projectId: actor.projectId, kind: TIERS_RECALCULATE_JOB, payload, requestId: actor.requestId, now });
    return tiers;
  });
}

/** The other tiers' ranges, for the overlap check of a tier being changed. */
function rangesExcept(tiers: readonly TierRow[], tierId: string) {
  return tiers
    .filter((t) => t.id !== tierId)
    .map((t) => ({ name: t.name, from: Number(t.points_from), to: t.points_to === null ? Number.POSITIVE_INFINITY : Number(t.points_to) }));
}

function tierDefinitionEvent(deps: Deps, actor: Actor, program: CampaignRow, type: string, tier: TierObject) {
  return makeEvent(deps, actor, {
    type,
    entityId: tier.id,
    campaign: campaignRef(program),
    data: { campaign: { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' }, loyalty_tier: tier },
  });
}

/**
 * `PUT /v1/loyalties/{campaignId}/tiers/{loyaltyTierId}` (Punchcard extension): only the members sent
 * change; `points` replaces the range (checked against the other tiers as on create), `earning_rules` and
 * `rewards` replace their mappings. The program's members are then recalculated in the background.
 */
export async function updateTierDefinition(deps: Deps, actor: Actor, campaignId: string, tierId: string, input: UpdateTierInput): Promise<TierObject> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    await store.lockTierDefinitions(tx, actor.projectId, program.id);
    const row = await tierOf(tx, actor, program, tierId);
    const from = input.points ? (input.points.from ?? 0) : Number(row.points_from);
    const to = input.points ? (input.points.to ?? null) : row.points_to === null ? null : Number(row.points_to);
    if (to !== null && to < from) throw errors.invalidPayload(`Property .points.to (${to}) must not be below points.from (${from})`);
    const upper = to ?? Number.POSITIVE_INFINITY;
    const clash = rangesExcept(await store.tiersOfCampaign(tx, actor.projectId, program.id), row.id).find((r) => r.from <= upper && from <= r.to);
    if (clash) throw errors.invalidPayload(`Property .points ${from}-${to ?? '∞'} overlaps tier '${clash.name}' (${clash.from}-${Number.isFinite(clash.to) ? clash.to : '∞'})`);
    const { earningRules, rewards } = await checkedMappings(tx, actor, program, { name: input.name ?? row.name, points: { from, to }, earning_rules: input.earning_rules ?? null, rewards: input.rewards ?? null }, '');
    if (input.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'loyalty_tier', input.metadata);
    const now = deps.clock.now().toISOString();
    await store.updateTierRow(tx, actor.projectId, row.id, {
      name: input.name ?? row.name,
      points_from: from,
      points_to: to,
      ...(input.earning_rules !== undefined ? { earning_rules: toJson(earningRules) } : {}),
      ...(input.rewards !== undefined ? { rewards: toJson(rewards) } : {}),
      ...(input.metadata !== undefined ? { metadata: toJson(input.metadata ?? {}) } : {}),
      updated_at: now,
    });
    const tier = toTierObject(await tierOf(tx, actor, program, row.id));
    await appendEvents(tx, [tierDefinitionEvent(deps, actor, program, 'campaign.loyalty_tier.updated', tier)]);
    const payload: TierRecalculatePayload = { campaign_id: program.id };
    await enqueueJob(tx, { id: deps.ids.next('aa'), projectId: actor.projectId, kind: TIERS_RECALCULATE_JOB, payload, requestId: actor.requestId, now });
    return tier;
  });
}

/**
 * `DELETE /v1/loyalties/{campaignId}/tiers/{loyaltyTierId}` (Punchcard extension): refused while an
 * earning rule triggers on the tier. Cards that held it are placed again by the background recalculation.
 */
export async function deleteTierDefinition(deps: Deps, actor: Actor, campaignId: string, tierId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    await store.lockTierDefinitions(tx, actor.projectId, program.id);
    const row = await tierOf(tx, actor, program, tierId);
    const rules = await store.earningRulesOnTier(tx, actor.projectId, row.id, 100);
    if (rules.length > 0) {
      throw domainError('resource_in_use', {
        details: `Tier ${row.id} triggers ${rules.length} earning rule(s) (${rules.join(', ')}); delete them first`,
        resourceId: row.id,
        resourceType: 'loyalty_tier',
        extra: { related_object_ids: rules, related_object_type: 'earning_rule', related_object_total: rules.length },
      });
    }
    const tier = toTierObject(row);
    await store.deleteTierRow(tx, actor.projectId, row.id);
    await appendEvents(tx, [tierDefinitionEvent(deps, actor, program, 'campaign.loyalty_tier.deleted', tier)]);
    const now = deps.clock.now().toISOString();
    const payload: TierRecalculatePayload = { campaign_id: program.id };
    await enqueueJob(tx, { id: deps.ids.next('aa'), projectId: actor.projectId, kind: TIERS_RECALCULATE_JOB, payload, requestId: actor.requestId, now });
  });
}

async function tierOf(db: Executor, actor: Actor, program: CampaignRow, tierId: string): Promise<TierRow> {
  const row = await store.findTier(db, actor.projectId, tierId);
  if (!row || row.campaign_id !== program.id) throw errors.notFound('loyalty_tier', tierId);
  return row;
}

export async function getTier(deps: Deps, actor: Actor, campaignId: string, tierId: string): Promise<TierObject> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  return toTierObject(await tierOf(deps.db, actor, program, tierId));
}

export interface TierList {
  object: 'list';
  data_ref: 'data';
  data: TierObject[];
  total: number;
}

export async function listTiers(deps: Deps, actor: Actor, campaignId: string, query: ListTiersInput): Promise<TierList> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listTiers(deps.db, {
    projectId: actor.projectId,
    campaignId: program.id,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    order: query.order ?? 'created_at',
  });
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'loyalty_tier'), rows, (some) => some.map((r) => toTierObject(r))), total };
}

/** `GET …/tiers/{id}/earning-rules`: the program's rules with their points as the tier maps them. */
export async function listTierEarningRules(
  deps: Deps,
  actor: Actor,
  campaignId: string,
  tierId: string,
  query: PageInput,
): Promise<{ object: 'list'; data_ref: 'data'; data: EarningRuleObject[]; total: number }> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  const tier = await tierOf(deps.db, actor, program, tierId);
  const mappings = earningMappings(tier);
  const limit = query.limit ?? 10;
  const { rows, total } = await rulesStore.listEarningRules(deps.db, {
    projectId: actor.projectId,
    campaignId: program.id,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    order: 'created_at',
  });
  const data = await readableRows(listing(deps, actor, 'earning_rule'), rows, (some) => some.map((r) => toEarningRuleObject(r, mappedLoyalty(loyaltyOf(r), mappings[r.id]))));
  return { object: 'list', data_ref: 'data', data, total };
}

export interface TierRewardList {
  object: 'list';
  data_ref: 'data';
  data: Array<{ reward: RewardObject; assignment: RewardAssignmentObject; object: 'loyalty_tier_reward' }>;
  total: number;
}

/** The price a tier's mapping gives an assignment's reward, or the assignment's own price. */
export function tierPrice(points: number, mapping: PointsMapping | undefined): number {
  return mapPoints(points, mapping);
}

/** `GET …/tiers/{id}/rewards`: the program's rewards at the tier's prices. */
export async function listTierRewards(deps: Deps, actor: Actor, campaignId: string, tierId: string): Promise<TierRewardList> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  const tier = await tierOf(deps.db, actor, program, tierId);
  const mappings = rewardMappings(tier);
  const assignments = await assignmentsOfCampaign(deps.db, actor.projectId, program.id);
  const rewards = await findRewardsByIds(deps.db, actor.projectId, assignments.map((a) => a.reward_id));
  const data = await readableRows(listing(deps, actor, 'reward_assignment'), assignments, (some) =>
    some.flatMap((a) => {
      const reward = rewards.get(a.reward_id);
      if (!reward) return [];
      const price = a.points === null ? undefined : tierPrice(Number(a.points), mappings[a.id]);
      return [{ reward: toRewardObject(reward), assignment: toAssignmentObject(a, price), object: 'loyalty_tier_reward' as const }];
    }),
  );
  return { object: 'list', data_ref: 'data', data, total: data.length };
}

// ---- membership ----

function membershipOf(row: TierMemberRow | undefined): Membership {
  if (!row) return { current: null, pending: null };
  const held = (tierId: string | null, startDate: string | null, expirationDate: string | null): HeldTier | null =>
    tierId && startDate ? { tierId, startDate, expirationDate } : null;
  return {
    current: held(row.tier_id, row.start_date, row.expiration_date),
    pending: held(row.pending_tier_id, row.pending_start_date, row.pending_expiration_date),
  };
}

/** The tier a card holds today (as stored; an expired tier counts as none until the refresh runs). */
export async function heldTier(db: Executor, projectId: string, card: VoucherRow, today: string): Promise<TierRow | null> {
  const held = heldOn(membershipOf(await store.findMembership(db, projectId, card.id)), today);
  if (!held) return null;
  return (await store.findTier(db, projectId, held.tierId)) ?? null;
}

/** `GET /v1/loyalties/members/{memberId}/tiers`: the tier the card holds, with its dates. */
export async function listMemberTiers(deps: Deps, actor: Actor, memberId: string): Promise<TierList> {
  const card = await loyaltyCard(deps.db, actor, memberId);
  const day = await projectDay(deps.db, deps, actor.projectId);
  const row = await store.findMembership(deps.db, actor.projectId, card.id);
  const held = row ? heldOn(membershipOf(row), day.today) : null;
  const tier = held ? await store.findTier(deps.db, actor.projectId, held.tierId) : undefined;
  if (!row || !held || !tier) return { object: 'list', data_ref: 'data', data: [], total: 0 };
  const expiration: TierExpirationObject = {
    customer_id: card.holder_id,
    campaign_id: tier.campaign_id,
    tier_id: tier.id,
    start_date: held.startDate,
    expiration_date: held.expirationDate,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  const data = await readableRows(listing(deps, actor, 'loyalty_tier'), [tier], (some) => some.map((t) => toTierObject(t, expiration)));
  return { object: 'list', data_ref: 'data', data, total: data.length };
}

/**
 * The points a policy measures: the balance, or the points collected since the period began. The
 * customer cockpit shows the progress to the next tier with it (src/services/cockpit/wallet.ts).
 */
export async function metricOf(tx: Executor, actor: Actor, card: VoucherRow, program: CampaignRow, day: ProjectDay): Promise<number> {
  const policy = readTiersPolicy(fromJson(program.loyalty_tiers_expiration, null));
  if (policy.qualification === 'BALANCE') return Number(card.loyalty_balance);
  const since = startOfLocalDay(periodOf(day.today, policy.period).start, day.timeZone).toISOString();
  return store.pointsCollected(tx, actor.projectId, card.id, since);
}

function tierEvent(deps: Deps, actor: Actor, change: TierChange, program: CampaignRow, card: VoucherRow, data: Record<string, unknown>) {
  const type = `customer.loyalty.tier.${change}`;
  return makeEvent(deps, actor, {
    type,
    activityType: card.holder_id ? type : null,
    activityCategory: card.holder_id ? 'EFFECT' : null,
    customerId: card.holder_id,
    campaign: campaignRef(program),
    voucherCode: card.code,
    entityId: card.id,
    data,
  });
}

/** What `updateTier` did: the decision, and the change it recorded, which tier-event earning rules react to. */
export interface TierUpdate {
  decision: TierDecision;
  /** Set when the card's tier changed: the locked card, the tier a tier-event rule names (the one reached, or for `left` the one lost) and the event recorded. */
  changed: { card: VoucherRow; change: TierChange; tier: TierRow; eventId: string } | null;
}

/**
 * Recalculates the card's tier inside the caller's transaction and records a change (membership row and
 * `customer.loyalty.tier.*` event). Use `refreshTier` (./earning.ts), which also fires the tier-event
 * earning rules. Answers null when the card's program has no tiers and the card holds none.
 */
export async function updateTier(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow): Promise<TierUpdate | null> {
  const locked = (await lockCards(tx, actor.projectId, [card.id])).get(card.id);
  if (!locked || locked.type !== 'LOYALTY_CARD' || !locked.campaign_id) return null;
  const program = await findLiveCampaignById(tx, actor.projectId, locked.campaign_id);
  if (!program) return null;
  const tiers = await store.tiersOfCampaign(tx, actor.projectId, program.id);
  const storedRow = await store.findMembership(tx, actor.projectId, locked.id);
  if (tiers.length === 0 && !storedRow) return null;
  const day = await projectDay(tx, deps, actor.projectId);
  const stored = membershipOf(storedRow);
  const decision = decideTier({
    tiers: tiers.map((t) => ({ id: t.id, from: Number(t.points_from), to: t.points_to === null ? null : Number(t.points_to) })),
    policy: readTiersPolicy(fromJson(program.loyalty_tiers_expiration, null)),
    stored,
    metric: await metricOf(tx, actor, locked, program, day),
    today: day.today,
  });
  if (membershipChanged(stored, decision.membership)) {
    const { current, pending } = decision.membership;
    if (!current && !pending) await store.deleteMembership(tx, actor.projectId, locked.id);
    else {
      const now = day.now.toISOString();
      await store.saveMembership(tx, {
        project_id: actor.projectId,
        voucher_id: locked.id,
        campaign_id: program.id,
        customer_id: locked.holder_id,
        tier_id: current?.tierId ?? null,
        start_date: current?.startDate ?? null,
        expiration_date: current?.expirationDate ?? null,
        pending_tier_id: pending?.tierId ?? null,
        pending_start_date: pending?.startDate ?? null,
        pending_expiration_date: pending?.expirationDate ?? null,
        created_at: storedRow?.created_at ?? now,
        updated_at: storedRow ? now : null,
      });
    }
  }
  if (!decision.change) return { decision, changed: null };

  const byId = new Map(tiers.map((t) => [t.id, t]));
  const from = decision.from ? (byId.get(decision.from) ?? null) : null;
  const to = decision.to ? (byId.get(decision.to) ?? null) : null;
  const customer = await customerSummary(tx, actor.projectId, locked.holder_id);
  const campaign = { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' };
  const createdAt = day.now.toISOString();
  const data =
    decision.change === 'upgraded' || decision.change === 'downgraded'
      ? { customer, campaign, loyalty_tier_from: from ? toTierObject(from) : null, loyalty_tier_to: to ? toTierObject(to) : null, created_at: createdAt }
      : { customer, campaign, loyalty_tier: decision.change === 'left' ? (from ? toTierObject(from) : null) : to ? toTierObject(to) : null, created_at: createdAt };
  const event = tierEvent(deps, actor, decision.change, program, locked, data);
  await appendEvents(tx, [event]);
  const subject = decision.change === 'left' ? from : to;
  return { decision, changed: subject ? { card: locked, change: decision.change, tier: subject, eventId: event.id } : null };
}
