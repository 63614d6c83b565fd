import type { Insertable } from 'kysely';
import { loyaltyCardProblem } from '../../domain/discounts/discount.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { ANY_TIER, eventKind, itemTargets, normalizeLoyalty, type EarningLoyalty, type LoyaltyInput } from '../../domain/loyalty/earning.ts';
import type { CreateEarningRuleInput, ListEarningRulesInput, UpdateEarningRuleInput } from '../../api/earning-rules.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import type { Executor, Tx } from '../../store/db.ts';
import * as store from '../../store/earning-rules.ts';
import type { EarningRuleRow } from '../../store/earning-rules.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findTier } from '../../store/loyalty-tiers.ts';
import { findCollection } from '../../store/product-collections.ts';
import { findLiveProductById, findLiveSkuById } from '../../store/products.ts';
import type { EarningRulesTable } from '../../store/schema.ts';
import { findSegment } from '../../store/segments.ts';
import { findRule } from '../../store/validation-rules.ts';
import { checkValidity } from '../campaigns/campaign-input.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { campaignRef, loyaltyProgram } from './cards.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Earning rules of a loyalty program (loyalty reference 4.1–4.4): create (an array, all or none), read,
// update, enable/disable, delete, list. The rules fire in src/services/loyalty/earning.ts.

export interface EarningRuleObject {
  id: string;
  created_at: string;
  updated_at: string | null;
  validation_rule_id: string | null;
  loyalty: EarningLoyalty;
  event: string;
  custom_event: { schema_id: string } | null;
  segment: { id: string } | null;
  loyalty_tier: { id: string } | null;
  pending_points: { period_type: 'DAY'; period_value: number } | null;
  source: { banner: string | null; object_id: string; object_type: 'campaign' };
  active: boolean;
  start_date: string | null;
  expiration_date: string | null;
  validity_timeframe: Record<string, unknown> | null;
  validity_day_of_week: number[] | null;
  validity_hours: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  /** Left out when the rule has none (the program's expiry applies): the vendor's schema has no null here. */
  expiration_rules?: Record<string, unknown>;
  automation_id: string;
  object: 'earning_rule';
}

export function loyaltyOf(row: EarningRuleRow): EarningLoyalty {
  return fromJson<EarningLoyalty>(row.loyalty, { type: 'FIXED', points: 0 });
}

/**
 * The earning rule object; unset optional members are null, as the vendor answers them, but for
 * `expiration_rules`, which its schema does not let be null (left out).
 */
export function toEarningRuleObject(row: EarningRuleRow, loyalty: EarningLoyalty = loyaltyOf(row)): EarningRuleObject {
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    validation_rule_id: row.validation_rule_id,
    loyalty,
    event: row.event,
    custom_event: row.custom_event_schema_id ? { schema_id: row.custom_event_schema_id } : null,
    segment: row.segment_id ? { id: row.segment_id } : null,
    loyalty_tier: row.loyalty_tier_id ? { id: row.loyalty_tier_id } : null,
    pending_points: fromJson(row.pending_points, null),
    source: { banner: row.source_banner, object_id: row.campaign_id, object_type: 'campaign' },
    active: Boolean(row.active),
    start_date: row.start_date,
    expiration_date: row.expiration_date,
    validity_timeframe: fromJson(row.validity_timeframe, null),
    validity_day_of_week: fromJson(row.validity_day_of_week, null),
    validity_hours: fromJson(row.validity_hours, null),
    metadata: fromJson(row.metadata, {}),
    ...withExpirationRules(fromJson<Record<string, unknown> | null>(row.expiration_rules, null)),
    automation_id: row.automation_id,
    object: 'earning_rule',
  };
}

function withExpirationRules(rules: Record<string, unknown> | null): { expiration_rules?: Record<string, unknown> } {
  return rules === null ? {} : { expiration_rules: rules };
}

function campaignSummary(program: CampaignRow) {
  return { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' };
}

function ruleEvent(deps: Deps, actor: Actor, type: string, program: CampaignRow, rule: EarningRuleObject) {
  return makeEvent(deps, actor, { type, entityId: rule.id, campaign: campaignRef(program), data: { campaign: campaignSummary(program), earning_rule: rule } });
}

/** Prefixes a domain check's `Property .x` detail with the item's position in the create array. */
function at(path: string, detail: string): string {
  return path === '' ? detail : detail.replace(/^Property \./, `Property ${path}.`);
}

function loyaltyFrom(input: LoyaltyInput, event: string, path: string): EarningLoyalty {
  const checked = normalizeLoyalty(input, event);
  if (!checked.ok) throw errors.invalidPayload(at(path, checked.error));
  return checked.value;
}

async function checkItemTargets(db: Executor, projectId: string, loyalty: EarningLoyalty): Promise<void> {
  for (const target of itemTargets(loyalty)) {
    const found =
      target.object === 'product'
        ? await findLiveProductById(db, projectId, target.id)
        : target.object === 'sku'
          ? await findLiveSkuById(db, projectId, target.id)
          : await findCollection(db, projectId, target.id);
    if (!found) throw errors.notFound(target.object, target.id);
  }
}

async function checkValidationRule(db: Executor, projectId: string, id: string | null | undefined): Promise<void> {
  if (id && !(await findRule(db, projectId, id))) throw errors.notFound('validation_rules', id);
}

function checkExpirationRules(rules: UpdateEarningRuleInput['expiration_rules'], path: string): void {
  if (!rules) return;
  const problem = loyaltyCardProblem({ points: 0, expiration_rules: rules }, path);
  if (problem) throw errors.invalidPayload(`Property ${problem}`);
}

function validityColumns(input: UpdateEarningRuleInput): Partial<Insertable<EarningRulesTable>> {
  return {
    ...(input.start_date !== undefined ? { start_date: input.start_date } : {}),
    ...(input.expiration_date !== undefined ? { expiration_date: input.expiration_date } : {}),
    ...(input.validity_timeframe !== undefined ? { validity_timeframe: input.validity_timeframe ? toJson(input.validity_timeframe) : null } : {}),
    ...(input.validity_day_of_week !== undefined ? { validity_day_of_week: input.validity_day_of_week ? toJson(input.validity_day_of_week) : null } : {}),
    ...(input.validity_hours !== undefined ? { validity_hours: input.validity_hours ? toJson(input.validity_hours) : null } : {}),
  };
}

/** Checks one create item against its event and the project's objects; answers the row to insert. */
async function ruleRow(tx: Tx, deps: Deps, actor: Actor, program: CampaignRow, input: CreateEarningRuleInput, path: string): Promise<Insertable<EarningRulesTable>> {
  const event = input.event ?? 'order.paid';
  const kind = eventKind(event);
  const loyalty = loyaltyFrom(input.loyalty, event, path);
  await checkItemTargets(tx, actor.projectId, loyalty);

  const segmentId = input.segment?.id ?? null;
  if (kind === 'segment') {
    if (!segmentId) throw errors.invalidPayload(`Property ${path}.segment.id is required for customer.segment.entered rules`);
    if (!(await findSegment(tx, actor.projectId, segmentId))) throw errors.notFound('segment', segmentId);
  } else if (segmentId) throw errors.invalidPayload(`Property ${path}.segment applies to customer.segment.entered rules only`);

  const schemaId = input.custom_event?.schema_id ?? null;
  if (kind === 'custom') {
    if (!schemaId) throw businessError('missing_param', 'Missing required parameter', { details: `Property ${path}.custom_event.schema_id is required for custom event rules` });
  } else if (schemaId) throw errors.invalidPayload(`Property ${path}.custom_event applies to custom event rules only`);

  const tierId = input.loyalty_tier?.id ?? null;
  if (kind === 'tier') {
    if (!tierId) throw businessError('missing_param', 'Missing required parameter', { details: `Property ${path}.loyalty_tier.id is required for ${event} rules` });
    // The tier may belong to another program (vendor docs); `__ANY__` means any tier of this one.
    if (tierId !== ANY_TIER && !(await findTier(tx, actor.projectId, tierId))) throw errors.notFound('loyalty_tier', tierId);
  } else if (tierId) throw errors.invalidPayload(`Property ${path}.loyalty_tier applies to customer.loyalty.tier.* rules only`);

  if (input.pending_points && kind !== 'order') throw errors.invalidPayload(`Property ${path}.pending_points applies to order.paid rules only`);
  checkValidity(input, path);
  checkExpirationRules(input.expiration_rules, path);
  await checkValidationRule(tx, actor.projectId, input.validation_rule_id);
  await assertMetadata(tx, actor.projectId, 'earning_rule', input.metadata);

  const id = deps.ids.next('ern');
  return {
    id,
    project_id: actor.projectId,
    campaign_id: program.id,
    event,
    custom_event_schema_id: schemaId,
    segment_id: segmentId,
    loyalty_tier_id: tierId,
    loyalty: toJson(loyalty),
    pending_points: input.pending_points ? toJson({ period_type: 'DAY', period_value: input.pending_points.period_value }) : null,
    source_banner: input.source?.banner ?? null,
    automation_id: `auto_${id.slice('ern_'.length)}`,
    start_date: input.start_date ?? null,
    expiration_date: input.expiration_date ?? null,
    validity_timeframe: input.validity_timeframe ? toJson(input.validity_timeframe) : null,
    validity_day_of_week: input.validity_day_of_week ? toJson(input.validity_day_of_week) : null,
    validity_hours: input.validity_hours ? toJson(input.validity_hours) : null,
    metadata: toJson(input.metadata ?? {}),
    expiration_rules: input.expiration_rules ? toJson(input.expiration_rules) : null,
    validation_rule_id: input.validation_rule_id ?? null,
    active: input.active ?? true,
    created_at: deps.clock.now().toISOString(),
    updated_at: null,
  };
}

/** `POST /v1/loyalties/{campaignId}/earning-rules`: every item is checked first; all are stored or none. */
export async function createEarningRules(deps: Deps, actor: Actor, campaignId: string, items: readonly CreateEarningRuleInput[]): Promise<EarningRuleObject[]> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    const rows: Insertable<EarningRulesTable>[] = [];
    for (const [i, item] of items.entries()) rows.push(await ruleRow(tx, deps, actor, program, item, items.length > 1 ? `[${i}]` : ''));
    await store.insertEarningRules(tx, rows);
    const created = await store.findEarningRulesByIds(tx, actor.projectId, rows.map((r) => r.id));
    const byId = new Map(created.map((r) => [r.id, r]));
    const objects = rows.map((r) => {
      const row = byId.get(r.id);
      if (!row) throw new Error(`earning rule ${r.id} vanished inside its own transaction`);
      return toEarningRuleObject(row);
    });
    await appendEvents(
      tx,
      objects.map((rule) => ruleEvent(deps, actor, 'campaign.earning_rule.assigned', program, rule)),
    );
    return objects;
  });
}

async function ruleOf(db: Executor, actor: Actor, program: CampaignRow, earningRuleId: string): Promise<EarningRuleRow> {
  const row = await store.findEarningRule(db, actor.projectId, program.id, earningRuleId);
  if (!row) throw errors.notFound('earning_rule', earningRuleId);
  return row;
}

export async function getEarningRule(deps: Deps, actor: Actor, campaignId: string, earningRuleId: string): Promise<EarningRuleObject> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  return toEarningRuleObject(await ruleOf(deps.db, actor, program, earningRuleId));
}

/**
 * `PUT …/earning-rules/{id}`: only the members sent change. `event`, `segment`, `custom_event` and
 * `loyalty_tier` identify what the rule reacts to; the vendor's update schema leaves them out, so a
 * different value is refused rather than silently ignored.
 */
export async function updateEarningRule(deps: Deps, actor: Actor, campaignId: string, earningRuleId: string, input: UpdateEarningRuleInput): Promise<EarningRuleObject> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    const row = await ruleOf(tx, actor, program, earningRuleId);
    const fixed: Array<[string, unknown, unknown]> = [
      ['event', input.event, row.event],
      ['segment.id', input.segment === undefined ? undefined : (input.segment?.id ?? null), row.segment_id],
      ['custom_event.schema_id', input.custom_event === undefined ? undefined : (input.custom_event?.schema_id ?? null), row.custom_event_schema_id],
      ['loyalty_tier.id', input.loyalty_tier === undefined ? undefined : (input.loyalty_tier?.id ?? null), row.loyalty_tier_id],
    ];
    for (const [name, sent, stored] of fixed) {
      if (sent !== undefined && sent !== stored) throw errors.invalidPayload(`Property .${name} cannot be changed; create a new earning rule instead`);
    }
    const loyalty = input.loyalty ? loyaltyFrom(input.loyalty, row.event, '') : undefined;
    if (loyalty) await checkItemTargets(tx, actor.projectId, loyalty);
    if (input.pending_points && row.event !== 'order.paid') throw errors.invalidPayload('Property .pending_points applies to order.paid rules only');
    const merged = {
      start_date: input.start_date !== undefined ? input.start_date : row.start_date,
      expiration_date: input.expiration_date !== undefined ? input.expiration_date : row.expiration_date,
      validity_timeframe: input.validity_timeframe !== undefined ? input.validity_timeframe : fromJson(row.validity_timeframe, null),
      validity_day_of_week: input.validity_day_of_week !== undefined ? input.validity_day_of_week : fromJson(row.validity_day_of_week, null),
      validity_hours: input.validity_hours !== undefined ? input.validity_hours : fromJson(row.validity_hours, null),
    };
    checkValidity(merged, '');
    checkExpirationRules(input.expiration_rules, '');
    await checkValidationRule(tx, actor.projectId, input.validation_rule_id);
    if (input.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'earning_rule', input.metadata);
    await store.updateEarningRule(tx, actor.projectId, row.id, {
      ...(loyalty ? { loyalty: toJson(loyalty) } : {}),
      ...(input.validation_rule_id !== undefined ? { validation_rule_id: input.validation_rule_id } : {}),
      ...(input.source !== undefined ? { source_banner: input.source?.banner ?? null } : {}),
      ...(input.active !== undefined && input.active !== null ? { active: input.active } : {}),
      ...(input.pending_points !== undefined
        ? { pending_points: input.pending_points ? toJson({ period_type: 'DAY', period_value: input.pending_points.period_value }) : null }
        : {}),
      ...(input.expiration_rules !== undefined ? { expiration_rules: input.expiration_rules ? toJson(input.expiration_rules) : null } : {}),
      ...(input.metadata !== undefined ? { metadata: toJson(input.metadata ?? {}) } : {}),
      ...validityColumns(input),
      updated_at: deps.clock.now().toISOString(),
    });
    const rule = toEarningRuleObject(await ruleOf(tx, actor, program, row.id));
    await appendEvents(tx, [ruleEvent(deps, actor, 'campaign.earning_rule.updated', program, rule)]);
    return rule;
  });
}

/** `POST …/earning-rules/{id}/enable|disable`: the toggle, independent of the rule's dates. */
export async function setEarningRuleActive(deps: Deps, actor: Actor, campaignId: string, earningRuleId: string, active: boolean): Promise<EarningRuleObject> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    const row = await ruleOf(tx, actor, program, earningRuleId);
    await store.updateEarningRule(tx, actor.projectId, row.id, { active, updated_at: deps.clock.now().toISOString() });
    const rule = toEarningRuleObject(await ruleOf(tx, actor, program, row.id));
    await appendEvents(tx, [ruleEvent(deps, actor, active ? 'campaign.earning_rule.enabled' : 'campaign.earning_rule.disabled', program, rule)]);
    return rule;
  });
}

export async function deleteEarningRule(deps: Deps, actor: Actor, campaignId: string, earningRuleId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    const removed = await store.deleteEarningRule(tx, actor.projectId, program.id, earningRuleId);
    if (!removed) throw errors.notFound('earning_rule', earningRuleId);
    await appendEvents(tx, [ruleEvent(deps, actor, 'campaign.earning_rule.deleted', program, toEarningRuleObject(removed))]);
  });
}

export interface EarningRuleList {
  object: 'list';
  data_ref: 'data';
  data: EarningRuleObject[];
  total: number;
}

export async function listEarningRules(deps: Deps, actor: Actor, campaignId: string, query: ListEarningRulesInput): Promise<EarningRuleList> {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listEarningRules(deps.db, {
    projectId: actor.projectId,
    campaignId: program.id,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    order: query.order ?? 'created_at',
  });
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'earning_rule'), rows, (some) => some.map((r) => toEarningRuleObject(r))), total };
}
