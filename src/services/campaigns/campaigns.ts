import { tiersExpirationProblem } from '../../domain/loyalty/tiers.ts';
import { TIERS_RECALCULATE_JOB, type TierRecalculatePayload } from '../loyalty/tiers.ts';
import { assignRuleIn } from '../validation-rules/assignments.ts';
import type {
  AddVouchersInput,
  CreateCampaignInput,
  ListCampaignsInput,
  UpdateCampaignInput,
} from '../../api/campaigns.ts';
import { FilterError, parseFilter, type ParsedFilter } from '../../domain/filters/filter.ts';
import { discountProblem, giftProblem, loyaltyCardProblem, normalizeDiscount } from '../../domain/discounts/discount.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { checkFormula } from '../../domain/formulas/check.ts';
import { insertBinEntry } from '../../store/bin.ts';
import * as store from '../../store/campaigns.ts';
import type { CampaignState } from '../../store/campaigns.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { enqueueJob, insertFinishedJob } from '../../store/jobs.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import type { CampaignType, VouchersTable } from '../../store/schema.ts';
import type { Updateable } from 'kysely';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { codeKey, findLiveVoucherById, insertVouchersSkippingTakenCodes, updateUnusedVouchers } from '../../store/vouchers.ts';
import { categoryIdOf } from '../catalog/categories.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { renderVouchers, type VoucherObject } from '../vouchers/render.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { checkDuration, checkValidity, inferCampaignType, templateOf, voucherTemplateFor, type VoucherTemplate } from './campaign-input.ts';
import { renderCampaign, renderCampaigns, type CampaignObject } from './render.ts';
import { checkReferralProgram } from '../referrals/referral-program.ts';
import { createTiersInTransaction } from '../promotions/tiers.ts';
import { generateVouchers, SYNC_GENERATION_LIMIT, voucherRow, type VoucherOverrides } from './voucher-generation.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Campaigns of every type: create (with code generation), read by id or name, list, update, delete (as
// an async action), enable/disable, and adding vouchers. Loyalty endpoints reuse these with the type
// fixed to LOYALTY_PROGRAM.

export const GENERATE_JOB = 'CAMPAIGN.VOUCHERS_GENERATE';
export const DELETE_JOB = 'CAMPAIGN.VOUCHERS_DELETE';

export interface GenerateJobPayload {
  campaign_id: string;
  count: number;
  overrides: VoucherOverrides;
}

export interface DeleteJobPayload {
  campaign_id: string;
  force: boolean;
}

function campaignEvent(deps: Deps, actor: Actor, type: string, campaign: CampaignObject, extra: Record<string, unknown> = {}) {
  return makeEvent(deps, actor, {
    type,
    entityId: campaign.id,
    campaign: { id: campaign.id, type: campaign.campaign_type, name: campaign.name },
    data: { campaign, ...extra },
  });
}

async function liveCampaign(tx: Executor, actor: Actor, idOrName: string, onlyType?: CampaignType): Promise<store.CampaignRow> {
  const row = await store.findLiveCampaign(tx, actor.projectId, idOrName);
  if (!row || (onlyType && row.campaign_type !== onlyType)) throw errors.notFound('campaign', idOrName);
  return row;
}

export interface CreateOptions {
  /** Set by `/v1/loyalties`: the type is fixed. */
  campaignType?: CampaignType;
}

/** `POST /v1/campaigns` and `POST /v1/loyalties`. */
export async function createCampaign(deps: Deps, actor: Actor, input: CreateCampaignInput, options: CreateOptions = {}): Promise<CampaignObject> {
  try {
    return await inTransaction(deps, (tx) => createCampaignIn(tx, deps, actor, input, options));
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('campaign', 'name', input.name);
    throw error;
  }
}

/**
 * Creates a campaign inside the caller's transaction (a campaign made from a template is created with
 * its validation rules). A name another campaign holds fails on the unique index: the caller turns that
 * into 409, once its transaction has rolled back.
 */
export async function createCampaignIn(tx: Tx, deps: Deps, actor: Actor, input: CreateCampaignInput, options: CreateOptions = {}): Promise<CampaignObject> {
  const campaignType = inferCampaignType(input, options.campaignType);
  checkValidity(input, '');
  checkDuration(input.activity_duration_after_publishing, 'activity_duration_after_publishing');
  if (campaignType === 'REFERRAL_PROGRAM' && !input.voucher?.discount) {
    throw businessError('invalid_campaign', 'Invalid campaign', { details: "Property 'discount' is required for REFERRAL_PROGRAM campaign" });
  }
  if (input.loyalty_tiers_expiration) {
    if (campaignType !== 'LOYALTY_PROGRAM') {
      throw businessError('invalid_campaign', 'Invalid campaign', { details: `loyalty_tiers_expiration does not apply to ${campaignType} campaigns` });
    }
    const problem = tiersExpirationProblem(input.loyalty_tiers_expiration);
    if (problem) throw errors.invalidPayload(problem);
  }
  const count = input.vouchers_count ?? 0;
  if (campaignType === 'PROMOTION' && count > 0) {
    throw businessError('invalid_campaign', 'Invalid campaign', { details: 'PROMOTION campaigns have no vouchers; vouchers_count must be 0' });
  }
  const tierInputs = input.promotion?.tiers ?? [];
  if (campaignType !== 'PROMOTION' && tierInputs.length > 0) {
    throw businessError('invalid_campaign', 'Invalid campaign', { details: `promotion.tiers only apply to PROMOTION campaigns, not ${campaignType}` });
  }
  const now = deps.clock.now().toISOString();
  const project = await findProject(tx, actor.projectId);
  const projectCharset = fromJson<{ charset?: string | null } | null>(project?.default_code_config, null)?.charset ?? null;
  const template = voucherTemplateFor(campaignType, input.voucher, projectCharset);
  if (campaignType === 'REFERRAL_PROGRAM') await checkReferralProgram(tx, actor.projectId, input.referral_program);
  const categoryId = (await categoryIdOf(tx, deps, actor, input)) ?? null;
  await assertMetadata(tx, actor.projectId, 'campaign', input.metadata);
  const async = count > SYNC_GENERATION_LIMIT;
  const id = deps.ids.next('camp');
  await store.insertCampaign(tx, {
    id,
    project_id: actor.projectId,
    name: input.name,
    description: input.description ?? null,
    campaign_type: campaignType,
    type: input.type ?? (campaignType === 'PROMOTION' ? 'STATIC' : 'AUTO_UPDATE'),
    auto_join: campaignType === 'LOYALTY_PROGRAM' ? (input.auto_join ?? false) : false,
    // Loyalty members hold one card per program whatever was asked; standalone vouchers are never "joined".
    join_once: campaignType === 'LOYALTY_PROGRAM' ? true : input.type === 'STANDALONE' ? false : (input.join_once ?? false),
    use_voucher_metadata_schema: input.use_voucher_metadata_schema ?? false,
    vouchers_count: 0,
    start_date: input.start_date ?? null,
    expiration_date: input.expiration_date ?? null,
    validity_timeframe: input.validity_timeframe ? toJson(input.validity_timeframe) : null,
    validity_day_of_week: input.validity_day_of_week ? toJson(input.validity_day_of_week) : null,
    validity_hours: input.validity_hours ? toJson(input.validity_hours) : null,
    activity_duration_after_publishing: input.activity_duration_after_publishing ?? null,
    active: true,
    metadata: toJson(input.metadata ?? {}),
    category_id: categoryId,
    creation_status: async ? 'IN_PROGRESS' : 'DONE',
    vouchers_generation_status: async ? 'IN_PROGRESS' : 'DONE',
    protected: false,
    voucher_template: template ? toJson(template) : null,
    referral_program: input.referral_program ? toJson(input.referral_program) : null,
    loyalty_tiers_expiration: input.loyalty_tiers_expiration ? toJson(input.loyalty_tiers_expiration) : null,
    created_at: now,
    updated_at: null,
    binned_at: null,
  });
  if (template && count > 0 && !async) {
    const codes = await generateVouchers(tx, deps, { projectId: actor.projectId, campaignId: id, campaignCategoryId: categoryId, template, overrides: {} }, count);
    await store.addToVouchersCount(tx, actor.projectId, id, codes.length);
  }
  const row = await store.findLiveCampaignById(tx, actor.projectId, id);
  if (!row) throw new Error('campaign vanished inside its own transaction');
  // PROMOTION tiers are created with the campaign (hierarchy 1, 2, … in array order), their events after its own.
  const tiers = await createTiersInTransaction(tx, deps, actor, row, tierInputs, (i) => `.promotion.tiers[${i}]`);
  const campaign = await renderCampaign(tx, actor.projectId, row);
  const events = [campaignEvent(deps, actor, 'campaign.created', campaign, { created_at: now }), ...tiers.events];
  if (template && count > 0 && async) {
    const jobId = deps.ids.next('aa');
    const payload: GenerateJobPayload = { campaign_id: id, count, overrides: {} };
    await enqueueJob(tx, { id: jobId, projectId: actor.projectId, kind: GENERATE_JOB, payload, requestId: actor.requestId, now });
    events.push(campaignEvent(deps, actor, 'campaign.vouchers.generation.started', campaign, { count, async_action_id: jobId }));
  }
  await appendEvents(tx, events);
  // Rules named at creation are assigned in the same transaction: the campaign exists with them or not at all.
  if (!input.validation_rules || input.validation_rules.length === 0) return campaign;
  for (const ruleId of input.validation_rules) {
    await assignRuleIn(tx, deps, actor, ruleId, { related_object_type: 'campaign', related_object_id: id }, false);
  }
  return renderCampaign(tx, actor.projectId, row);
}

export async function getCampaign(deps: Deps, actor: Actor, idOrName: string, onlyType?: CampaignType): Promise<CampaignObject> {
  const row = await liveCampaign(deps.db, actor, idOrName, onlyType);
  return renderCampaign(deps.db, actor.projectId, row);
}

export interface CampaignList {
  object: 'list';
  data_ref: 'campaigns';
  campaigns: CampaignObject[];
  total: number;
}

export async function listCampaigns(deps: Deps, actor: Actor, query: ListCampaignsInput, onlyType?: CampaignType): Promise<CampaignList> {
  const limit = query.limit ?? 10;
  const page = query.page ?? 1;
  if (onlyType && query.campaign_type && query.campaign_type !== onlyType) {
    return { object: 'list', data_ref: 'campaigns', campaigns: [], total: 0 };
  }
  const types = onlyType ? [onlyType] : query.campaign_type ? [query.campaign_type] : undefined;
  const { filter, states } = campaignFilters(query.filters);
  const { rows, total } = await store.listLiveCampaigns(deps.db, {
    dialect: deps.dialect,
    now: deps.clock.now(),
    ...(filter ? { filter } : {}),
    states,
    projectId: actor.projectId,
    limit,
    offset: (page - 1) * limit,
    order: query.order ?? '-created_at',
    ...(types ? { campaignTypes: types } : {}),
    ...(query.campaign_status ? { status: query.campaign_status } : {}),
    ...(query.is_referral_code !== undefined ? { isReferralCode: query.is_referral_code } : {}),
  });
  return { object: 'list', data_ref: 'campaigns', campaigns: await readableRows(listing(deps, actor, 'campaign'), rows, (some) => renderCampaigns(deps.db, actor.projectId, some)), total };
}

const STATE_OPERATORS: Record<'active' | 'status', Record<string, CampaignState>> = {
  active: { $enabled: 'enabled', $disabled: 'disabled', $expired: 'expired', $active: 'active' },
  status: { $active: 'generated', $failed: 'failed', $in_progress: 'in_progress', $expired: 'expired', before_start: 'before_start', $before_start: 'before_start' },
};

/** `filters[is_referral_code][conditions][$is|$is_not]=true|false`: whether the campaign is a referral program. */
function referralState(value: unknown): CampaignState {
  const conditions = typeof value === 'object' && value !== null ? ((value as Record<string, unknown>).conditions as Record<string, unknown> | undefined) : undefined;
  const entries = Object.entries(conditions ?? {});
  const [operator, operand] = entries[0] ?? [];
  const flag = String(Array.isArray(operand) ? operand[0] : operand);
  if (entries.length !== 1 || (operator !== '$is' && operator !== '$is_not') || (flag !== 'true' && flag !== 'false')) {
    throw errors.invalidQuery('Property .filters.is_referral_code.conditions should be one of $is, $is_not with true or false');
  }
  return (flag === 'true') === (operator === '$is') ? 'referral' : 'not_referral';
}

/**
 * `filters` of the campaign list: the vendor's state filters (`active`, `status`), whose operators take no
 * operand, are read here; every other field goes through the list filter grammar.
 */
function campaignFilters(raw: Record<string, unknown> | undefined): { filter: ParsedFilter | undefined; states: CampaignState[][] } {
  if (!raw) return { filter: undefined, states: [] };
  const rest: Record<string, unknown> = {};
  const states: CampaignState[][] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'is_referral_code') {
      states.push([referralState(value)]);
      continue;
    }
    if (key !== 'active' && key !== 'status') {
      rest[key] = value;
      continue;
    }
    const body = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    // The vendor's schema puts the operators right under the field, its prose under `conditions`: both are taken.
    const conditions = typeof body.conditions === 'object' && body.conditions !== null ? (body.conditions as Record<string, unknown>) : body;
    const operators = Object.keys(conditions);
    const known = STATE_OPERATORS[key];
    const unknown = operators.find((op) => !(op in known));
    if (operators.length === 0 || unknown !== undefined) {
      throw errors.invalidQuery(`Property .filters.${key}.conditions should name one of [ ${Object.keys(known).join(', ')} ]`);
    }
    states.push(operators.map((op) => known[op] as CampaignState));
  }
  try {
    return { filter: Object.keys(rest).length > 0 ? parseFilter(rest, store.campaignFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined, states };
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
}

/** Fields of a voucher that follow the campaign while the voucher is unused and unpublished. */
function cascadePatch(input: UpdateCampaignInput, template: VoucherTemplate | null): Updateable<VouchersTable> {
  const patch: Updateable<VouchersTable> = {};
  if (input.discount !== undefined && template?.discount) patch.discount = toJson(template.discount);
  if (input.start_date !== undefined) patch.start_date = input.start_date;
  if (input.expiration_date !== undefined) patch.expiration_date = input.expiration_date;
  if (input.validity_timeframe !== undefined) patch.validity_timeframe = input.validity_timeframe ? toJson(input.validity_timeframe) : null;
  if (input.validity_day_of_week !== undefined) patch.validity_day_of_week = input.validity_day_of_week ? toJson(input.validity_day_of_week) : null;
  if (input.validity_hours !== undefined) patch.validity_hours = input.validity_hours ? toJson(input.validity_hours) : null;
  return patch;
}

/**
 * `PUT /v1/campaigns/{id}`: only the members sent change; members that do not apply to the campaign's type
 * are refused. Template changes (discount, validity) also reach the campaign's vouchers that were neither
 * published nor redeemed, in one statement.
 */
export async function updateCampaign(
  deps: Deps,
  actor: Actor,
  idOrName: string,
  input: UpdateCampaignInput,
  onlyType?: CampaignType,
): Promise<CampaignObject> {
  checkDuration(input.activity_duration_after_publishing, 'activity_duration_after_publishing');
  return inTransaction(deps, async (tx) => {
    const row = await liveCampaign(tx, actor, idOrName, onlyType);
    if (row.protected) {
      throw businessError('resource_protected', 'Resource is protected', {
        details: `Resource campaign with id ${row.id} is protected and cannot be modified`,
        resourceId: row.id,
        resourceType: 'campaign',
      });
    }
    const merged = {
      start_date: input.start_date !== undefined ? input.start_date : row.start_date,
      expiration_date: input.expiration_date !== undefined ? input.expiration_date : row.expiration_date,
      validity_timeframe: input.validity_timeframe !== undefined ? input.validity_timeframe : fromJson(row.validity_timeframe, null),
      validity_day_of_week: input.validity_day_of_week !== undefined ? input.validity_day_of_week : fromJson(row.validity_day_of_week, null),
      validity_hours: input.validity_hours !== undefined ? input.validity_hours : fromJson(row.validity_hours, null),
    };
    checkValidity(merged, '');
    let template = templateOf(row);
    if (input.discount !== undefined) {
      if (template?.type !== 'DISCOUNT_VOUCHER') throw businessError('invalid_campaign', 'Invalid campaign', { details: `discount does not apply to ${row.campaign_type} campaigns` });
      const problem = discountProblem(input.discount, checkFormula, 'discount');
      if (problem) throw errors.invalidPayload(problem);
      template = { ...template, discount: normalizeDiscount(input.discount) };
    }
    if (input.gift !== undefined) {
      if (template?.type !== 'GIFT_VOUCHER') throw businessError('invalid_campaign', 'Invalid campaign', { details: `gift does not apply to ${row.campaign_type} campaigns` });
      const problem = giftProblem(input.gift);
      if (problem) throw errors.invalidPayload(problem);
      template = { ...template, gift: { amount: input.gift.amount, effect: input.gift.effect ?? template.gift?.effect ?? null } };
    }
    if (input.loyalty_card !== undefined) {
      if (template?.type !== 'LOYALTY_CARD') throw businessError('invalid_campaign', 'Invalid campaign', { details: `loyalty_card does not apply to ${row.campaign_type} campaigns` });
      const problem = loyaltyCardProblem(input.loyalty_card);
      if (problem) throw errors.invalidPayload(problem);
      template = { ...template, loyalty_card: { ...input.loyalty_card } };
    }
    if (input.referral_program !== undefined && row.campaign_type !== 'REFERRAL_PROGRAM') {
      throw businessError('invalid_campaign', 'Invalid campaign', { details: `referral_program does not apply to ${row.campaign_type} campaigns` });
    }
    if (input.referral_program !== undefined) await checkReferralProgram(tx, actor.projectId, input.referral_program);
    if ((input.loyalty_tiers_expiration !== undefined || input.options?.recalculate_tiers) && row.campaign_type !== 'LOYALTY_PROGRAM') {
      throw businessError('invalid_campaign', 'Invalid campaign', { details: `loyalty tier settings do not apply to ${row.campaign_type} campaigns` });
    }
    if (input.loyalty_tiers_expiration) {
      const problem = tiersExpirationProblem(input.loyalty_tiers_expiration);
      if (problem) throw errors.invalidPayload(problem);
    }
    const categoryId = await categoryIdOf(tx, deps, actor, input);
    let metadata = input.metadata !== undefined ? (input.metadata ?? {}) : fromJson<Record<string, unknown>>(row.metadata, {});
    if (input.unset_metadata_fields) {
      metadata = Object.fromEntries(Object.entries(metadata).filter(([k]) => !input.unset_metadata_fields?.includes(k)));
    }
    if (input.metadata !== undefined || input.unset_metadata_fields !== undefined) await assertMetadata(tx, actor.projectId, 'campaign', metadata);
    const now = deps.clock.now().toISOString();
    await store.updateLiveCampaign(tx, actor.projectId, row.id, {
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.type !== undefined && row.type !== 'STANDALONE' ? { type: input.type } : {}),
      ...(input.join_once !== undefined && row.campaign_type !== 'LOYALTY_PROGRAM' && row.type !== 'STANDALONE' ? { join_once: input.join_once } : {}),
      ...(input.auto_join !== undefined && row.campaign_type === 'LOYALTY_PROGRAM' ? { auto_join: input.auto_join } : {}),
      ...(input.use_voucher_metadata_schema !== undefined ? { use_voucher_metadata_schema: input.use_voucher_metadata_schema } : {}),
      ...(input.activity_duration_after_publishing !== undefined ? { activity_duration_after_publishing: input.activity_duration_after_publishing } : {}),
      start_date: merged.start_date,
      expiration_date: merged.expiration_date,
      validity_timeframe: merged.validity_timeframe ? toJson(merged.validity_timeframe) : null,
      validity_day_of_week: merged.validity_day_of_week ? toJson(merged.validity_day_of_week) : null,
      validity_hours: merged.validity_hours ? toJson(merged.validity_hours) : null,
      metadata: toJson(metadata),
      ...(categoryId !== undefined ? { category_id: categoryId } : {}),
      voucher_template: template ? toJson(template) : null,
      ...(input.referral_program !== undefined ? { referral_program: input.referral_program ? toJson(input.referral_program) : null } : {}),
      ...(input.loyalty_tiers_expiration !== undefined
        ? { loyalty_tiers_expiration: input.loyalty_tiers_expiration ? toJson(input.loyalty_tiers_expiration) : null }
        : {}),
      updated_at: now,
    });
    const cascade = cascadePatch(input, template);
    if (Object.keys(cascade).length > 0) await updateUnusedVouchers(tx, actor.projectId, row.id, { ...cascade, updated_at: now });
    const updated = await store.findLiveCampaignById(tx, actor.projectId, row.id);
    if (!updated) throw errors.notFound('campaign', idOrName);
    const campaign = await renderCampaign(tx, actor.projectId, updated);
    await appendEvents(tx, [campaignEvent(deps, actor, 'campaign.updated', campaign)]);
    if (input.options?.recalculate_tiers) {
      // "Refresh tiers": every member's tier is recomputed under the current rules, in the background.
      const payload: TierRecalculatePayload = { campaign_id: row.id };
      await enqueueJob(tx, { id: deps.ids.next('aa'), projectId: actor.projectId, kind: TIERS_RECALCULATE_JOB, payload, requestId: actor.requestId, now });
    }
    return campaign;
  });
}

/** `POST /v1/campaigns/{id}/enable|disable`: a disabled campaign's vouchers and tiers cannot be used. */
export async function setCampaignActive(deps: Deps, actor: Actor, idOrName: string, active: boolean, onlyType?: CampaignType): Promise<CampaignObject> {
  return inTransaction(deps, async (tx) => {
    const row = await liveCampaign(tx, actor, idOrName, onlyType);
    await store.updateLiveCampaign(tx, actor.projectId, row.id, { active, updated_at: deps.clock.now().toISOString() });
    const updated = await store.findLiveCampaignById(tx, actor.projectId, row.id);
    if (!updated) throw errors.notFound('campaign', idOrName);
    const campaign = await renderCampaign(tx, actor.projectId, updated);
    await appendEvents(tx, [campaignEvent(deps, actor, active ? 'campaign.enabled' : 'campaign.disabled', campaign)]);
    return campaign;
  });
}

/**
 * `DELETE /v1/campaigns/{id}`: the campaign leaves every read at once (its name is free again) and a job
 * bins or deletes its vouchers; answers the async action id. Without `force` the campaign gets a bin entry.
 * Redemption records stay: they are the history of what was granted.
 */
export async function deleteCampaign(deps: Deps, actor: Actor, idOrName: string, force: boolean, onlyType?: CampaignType): Promise<string> {
  return inTransaction(deps, async (tx) => {
    const row = await liveCampaign(tx, actor, idOrName, onlyType);
    const now = deps.clock.now().toISOString();
    const campaign = await renderCampaign(tx, actor.projectId, row);
    if (!(await store.binCampaign(tx, actor.projectId, row.id, now))) throw errors.notFound('campaign', idOrName);
    if (!force) {
      await insertBinEntry(tx, {
        id: deps.ids.next('tbe'),
        project_id: actor.projectId,
        resource_id: row.id,
        resource_type: 'campaign',
        resource_name: row.name,
        resource_parent_id: null,
        deleted_by_user_id: null,
        created_at: now,
      });
    }
    const jobId = deps.ids.next('aa');
    const payload: DeleteJobPayload = { campaign_id: row.id, force };
    await enqueueJob(tx, { id: jobId, projectId: actor.projectId, kind: DELETE_JOB, payload, requestId: actor.requestId, now });
    await appendEvents(tx, [campaignEvent(deps, actor, 'campaign.deleted', campaign, { deleted_at: now, permanent: force })]);
    return jobId;
  });
}

function overridesOf(input: AddVouchersInput, categoryId: string | null | undefined): VoucherOverrides {
  return {
    ...(categoryId !== undefined ? { category_id: categoryId } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata ?? {} } : {}),
    ...(input.additional_info !== undefined ? { additional_info: input.additional_info } : {}),
    ...(input.redemption?.quantity !== undefined ? { redemption_quantity: input.redemption.quantity } : {}),
    ...(input.start_date !== undefined ? { start_date: input.start_date } : {}),
    ...(input.expiration_date !== undefined ? { expiration_date: input.expiration_date } : {}),
  };
}

async function codeBearingCampaign(tx: Tx, actor: Actor, idOrName: string): Promise<{ row: store.CampaignRow; template: VoucherTemplate }> {
  const row = await liveCampaign(tx, actor, idOrName);
  const template = templateOf(row);
  if (!template) throw businessError('invalid_campaign', 'Invalid campaign', { details: `${row.campaign_type} campaigns have no vouchers` });
  if (row.vouchers_generation_status === 'IN_PROGRESS') {
    throw businessError('invalid_campaign', 'Invalid campaign', { details: 'The campaign is still generating vouchers; try again when it is DONE' });
  }
  return { row, template };
}

async function timeZoneOf(db: Executor, projectId: string): Promise<string> {
  return (await findProject(db, projectId))?.timezone ?? 'UTC';
}

async function renderOne(tx: Executor, deps: Deps, actor: Actor, voucherId: string): Promise<VoucherObject> {
  const row = await findLiveVoucherById(tx, actor.projectId, voucherId);
  if (!row) throw new Error('voucher vanished inside its own transaction');
  const [voucher] = await renderVouchers(tx, actor.projectId, [row], { timeZone: await timeZoneOf(tx, actor.projectId), now: deps.clock.now() });
  if (!voucher) throw new Error('rendering one voucher gave none');
  return voucher;
}

/** `POST /v1/campaigns/{id}/vouchers/{code}` (and the single-voucher form without a code): one voucher, answered. */
export async function addVoucher(deps: Deps, actor: Actor, idOrName: string, code: string | undefined, input: AddVouchersInput): Promise<VoucherObject> {
  return inTransaction(deps, async (tx) => {
    const { row, template } = await codeBearingCampaign(tx, actor, idOrName);
    const categoryId = await categoryIdOf(tx, deps, actor, input);
    const source = { projectId: actor.projectId, campaignId: row.id, campaignCategoryId: row.category_id, template, overrides: overridesOf(input, categoryId) };
    await assertMetadata(tx, actor.projectId, 'voucher', source.overrides.metadata);
    let voucherId: string;
    const now = deps.clock.now().toISOString();
    if (code !== undefined) {
      const key = await codeKey(tx, actor.projectId, code);
      const voucher = voucherRow(deps, source, code, key, now);
      const taken = await insertVouchersSkippingTakenCodes(tx, [voucher]);
      if (taken.size > 0) throw errors.duplicate('voucher', 'code', code);
      voucherId = voucher.id as string;
    } else {
      const [made] = await generateVouchers(tx, deps, source, 1);
      if (!made) throw new Error('generating one voucher gave none');
      voucherId = made.id;
    }
    await store.addToVouchersCount(tx, actor.projectId, row.id, 1);
    const voucher = await renderOne(tx, deps, actor, voucherId);
    const campaign = await renderCampaign(tx, actor.projectId, row);
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'voucher.created',
        entityId: voucherId,
        campaign: { id: row.id, type: row.campaign_type, name: row.name },
        voucherCode: voucher.code,
        data: { voucher, campaign },
      }),
    ]);
    return voucher;
  });
}

/**
 * `POST /v1/campaigns/{id}/vouchers?vouchers_count=N` with N > 1: answers an async action id. Up to
 * SYNC_GENERATION_LIMIT vouchers are made before answering (the action is already DONE); more are made by
 * the worker.
 */
export async function addVouchers(deps: Deps, actor: Actor, idOrName: string, count: number, input: AddVouchersInput): Promise<string> {
  if (input.code !== undefined) throw errors.invalidPayload('Property .code can only be given with vouchers_count=1');
  return inTransaction(deps, async (tx) => {
    const { row, template } = await codeBearingCampaign(tx, actor, idOrName);
    const categoryId = await categoryIdOf(tx, deps, actor, input);
    const overrides = overridesOf(input, categoryId);
    await assertMetadata(tx, actor.projectId, 'voucher', overrides.metadata);
    const jobId = deps.ids.next('aa');
    const now = deps.clock.now().toISOString();
    const payload: GenerateJobPayload = { campaign_id: row.id, count, overrides };
    const campaign = await renderCampaign(tx, actor.projectId, row);
    if (count <= SYNC_GENERATION_LIMIT) {
      const codes = await generateVouchers(tx, deps, { projectId: actor.projectId, campaignId: row.id, campaignCategoryId: row.category_id, template, overrides }, count);
      await store.addToVouchersCount(tx, actor.projectId, row.id, codes.length);
      await insertFinishedJob(tx, {
        id: jobId,
        projectId: actor.projectId,
        kind: GENERATE_JOB,
        payload,
        requestId: actor.requestId,
        now,
        result: { message: `Generated ${codes.length} vouchers.`, done_count: codes.length },
      });
      await appendEvents(tx, [campaignEvent(deps, actor, 'campaign.vouchers.added', campaign, { count: codes.length })]);
    } else {
      await store.setGenerationStatus(tx, actor.projectId, row.id, 'IN_PROGRESS', now);
      await enqueueJob(tx, { id: jobId, projectId: actor.projectId, kind: GENERATE_JOB, payload, requestId: actor.requestId, now });
      await appendEvents(tx, [campaignEvent(deps, actor, 'campaign.vouchers.generation.started', campaign, { count, async_action_id: jobId })]);
    }
    return jobId;
  });
}

/**
 * Deleting a binned campaign's bin entry: the campaign row and its vouchers go for good, in the
 * background (a campaign can hold millions of vouchers). Runs inside the caller's transaction.
 */
export async function purgeBinnedCampaign(tx: Tx, deps: Deps, actor: Actor, campaignId: string): Promise<string> {
  const jobId = deps.ids.next('aa');
  const payload: DeleteJobPayload = { campaign_id: campaignId, force: true };
  await enqueueJob(tx, { id: jobId, projectId: actor.projectId, kind: DELETE_JOB, payload, requestId: actor.requestId, now: deps.clock.now().toISOString() });
  return jobId;
}
