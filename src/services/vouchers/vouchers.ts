import type { Insertable } from 'kysely';
import type { CreateVoucherInput, ListVouchersInput, UpdateVoucherInput } from '../../api/vouchers.ts';
import { generateCodes } from '../../domain/codes/code-config.ts';
import { discountProblem, normalizeDiscount } from '../../domain/discounts/discount.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { FilterError, parseFilter } from '../../domain/filters/filter.ts';
import { checkFormula } from '../../domain/formulas/check.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { insertBinEntry } from '../../store/bin.ts';
import { addToVouchersCount, findLiveCampaign, findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findCategory, findCategoryByName } from '../../store/categories.ts';
import { findLiveCustomer } from '../../store/customers.ts';
import type { Executor, Tx } from '../../store/db.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import { projectSettings } from '../../store/redemption-facts.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject, projectCodesAreCaseSensitive } from '../../store/projects.ts';
import type { VouchersTable } from '../../store/schema.ts';
import { assignedRules, findRule } from '../../store/validation-rules.ts';
import { binVoucher, listLiveVouchers, purgeVoucher, voucherFilterFields } from '../../store/voucher-list.ts';
import { codeKey, codeKeyOf, findLiveVoucherByCode, findLiveVoucherById, findLiveVoucherByCodeWithDefinitions, insertVouchersSkippingTakenCodes, lockVoucherRow, updateLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import { withMembers } from '../../lib/objects.ts';
import { categoryIdOf } from '../catalog/categories.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { templateOf } from '../campaigns/campaign-input.ts';
import { checkValidity } from '../campaigns/campaign-input.ts';
import { renderCampaign, type CampaignObject } from '../campaigns/render.ts';
import { assignRuleIn } from '../validation-rules/assignments.ts';
import { toAssignmentObject } from '../validation-rules/validation-rules.ts';
import { assetLinker } from '../loyalty/card-assets.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { renderVouchers, type VoucherObject } from './render.ts';
import { fieldsOf, newVoucherRow, voucherDefinition } from './voucher-input.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Vouchers one by one (promotions reference 2.1–2.3): standalone vouchers of the three types or vouchers
// added to a campaign, read by code, listed with the vendor's filters, updated, enabled or disabled, and
// deleted to the bin or for good. Every change appends its voucher.* event in the same transaction.

export type { VoucherObject } from './render.ts';

export async function projectTimeZone(db: Executor, projectId: string): Promise<string> {
  return (await findProject(db, projectId))?.timezone ?? 'UTC';
}

/** Voucher objects; with `defs`, the project's settings, campaigns and categories come from the definitions cache. */
export async function renderVoucherRows(db: Executor, deps: Deps, projectId: string, rows: readonly VoucherRow[], defs?: DefinitionsView): Promise<VoucherObject[]> {
  if (rows.length === 0) return [];
  const timeZone = defs ? ((await projectSettings(db, projectId, defs))?.timezone ?? 'UTC') : await projectTimeZone(db, projectId);
  return renderVouchers(db, projectId, rows, { timeZone, now: deps.clock.now(), assets: assetLinker(deps), ...(defs ? { definitions: defs } : {}) });
}

export async function renderVoucherRow(db: Executor, deps: Deps, projectId: string, row: VoucherRow): Promise<VoucherObject> {
  const [object] = await renderVoucherRows(db, deps, projectId, [row]);
  if (!object) throw new Error('rendering one voucher gave none');
  return object;
}

/** A live voucher named by its code in a path; 404 otherwise. */
export async function liveVoucherByCode(db: Executor, projectId: string, code: string): Promise<VoucherRow> {
  const row = await findLiveVoucherByCode(db, projectId, code);
  if (!row) throw errors.notFound('voucher', code);
  return row;
}

export async function projectCharset(db: Executor, projectId: string): Promise<string | null> {
  const project = await findProject(db, projectId);
  return fromJson<{ charset?: string | null } | null>(project?.default_code_config, null)?.charset ?? null;
}

/** The campaign a voucher is added to; it must carry a voucher template (PROMOTION campaigns do not). */
export async function codeBearingCampaign(db: Executor, projectId: string, reference: string): Promise<CampaignRow> {
  const campaign = await findLiveCampaign(db, projectId, reference);
  if (!campaign) throw errors.notFound('campaign', reference);
  if (!templateOf(campaign)) {
    throw businessError('invalid_campaign', 'Invalid campaign', { details: `${campaign.campaign_type} campaigns have no vouchers` });
  }
  return campaign;
}

export interface VoucherEventInit {
  type: 'voucher.created' | 'voucher.updated' | 'voucher.deleted' | 'voucher.enabled' | 'voucher.disabled';
  voucher: VoucherObject;
  campaign: CampaignObject | null;
  extra?: Record<string, unknown>;
}

/** voucher.* events carry `voucher` and `campaign` (platform reference 6.4); a deleted held voucher is also an activity. */
export function voucherEvent(deps: Deps, actor: Actor, init: VoucherEventInit) {
  const holder = typeof init.voucher.holder_id === 'string' ? init.voucher.holder_id : null;
  const activity = init.type === 'voucher.deleted' && holder !== null;
  return makeEvent(deps, actor, {
    type: init.type,
    entityId: init.voucher.id,
    voucherCode: init.voucher.code,
    customerId: holder,
    activityType: activity ? 'customer.voucher.deleted' : null,
    activityCategory: activity ? 'ACTION' : null,
    campaign: init.campaign ? { id: init.campaign.id, type: init.campaign.campaign_type, name: init.campaign.name } : null,
    data: { voucher: init.voucher, campaign: init.campaign, ...(init.extra ?? {}) },
  });
}

async function campaignObjectOf(db: Executor, projectId: string, campaignId: string | null): Promise<CampaignObject | null> {
  if (campaignId === null) return null;
  const row = await findLiveCampaignById(db, projectId, campaignId);
  return row ? renderCampaign(db, projectId, row) : null;
}

const GENERATION_ATTEMPTS = 20;

/**
 * Inserts one voucher with the given code (409 when a live voucher has it), or with a fresh code drawn
 * from `definition.code_config`; the unique index decides, so concurrent creators never share a code.
 */
export async function insertOneVoucher(
  tx: Tx,
  projectId: string,
  code: string | undefined,
  codeConfig: Parameters<typeof generateCodes>[0],
  build: (code: string, key: string) => Insertable<VouchersTable>,
): Promise<string> {
  if (code !== undefined) {
    const row = build(code, await codeKey(tx, projectId, code));
    if ((await insertVouchersSkippingTakenCodes(tx, [row])).size > 0) throw errors.duplicate('voucher', 'code', code);
    return row.id;
  }
  const caseSensitive = await projectCodesAreCaseSensitive(tx, projectId);
  for (let attempt = 0; attempt < GENERATION_ATTEMPTS; attempt++) {
    const [drawn] = generateCodes(codeConfig, 1);
    if (drawn === undefined) break;
    const row = build(drawn, codeKeyOf(drawn, caseSensitive));
    if ((await insertVouchersSkippingTakenCodes(tx, [row])).size === 0) return row.id;
  }
  throw businessError('invalid_code_config', 'Invalid code config', {
    details: `No free code found in ${GENERATION_ATTEMPTS} draws: lengthen the pattern or widen the charset`,
  });
}

/**
 * `POST /v1/vouchers` (code from the body or generated) and `POST /v1/vouchers/{code}`. Without a
 * campaign the voucher is standalone; with `campaign`/`campaign_id` it joins that campaign and starts
 * from its template. Validation rules named in the body are checked before anything is written.
 */
export async function createVoucher(deps: Deps, actor: Actor, pathCode: string | undefined, input: CreateVoucherInput): Promise<VoucherObject> {
  const created = await inTransaction(deps, (tx) => createVoucherIn(tx, deps, actor, pathCode, input));
  if ((input.validation_rules ?? []).length === 0) return created;
  return getVoucher(deps, actor, created.code);
}

/** `createVoucher` inside the caller's transaction (a CSV import creates many vouchers in one). */
export async function createVoucherIn(tx: Tx, deps: Deps, actor: Actor, pathCode: string | undefined, input: CreateVoucherInput): Promise<VoucherObject> {
  const code = pathCode ?? input.code ?? undefined;
  const rules = [...new Set(input.validation_rules ?? [])];
  const reference = input.campaign_id ?? input.campaign ?? null;
  const campaign = reference !== null ? await codeBearingCampaign(tx, actor.projectId, reference) : null;
  if (campaign && input.campaign_id && input.campaign && campaign.id !== input.campaign_id && campaign.name !== input.campaign) {
    throw errors.invalidPayload('Properties .campaign and .campaign_id name different campaigns');
  }
  const definition = voucherDefinition(input, campaign ? templateOf(campaign) : null, await projectCharset(tx, actor.projectId));
  const categoryId = await categoryIdOf(tx, deps, actor, input);
  for (const ruleId of rules) {
    if (!(await findRule(tx, actor.projectId, ruleId))) throw errors.notFound('validation_rules', ruleId);
  }
  const now = deps.clock.now().toISOString();
  const fields = fieldsOf(input, categoryId !== undefined ? categoryId : (campaign?.category_id ?? null));
  await assertMetadata(tx, actor.projectId, 'voucher', fields.metadata);
  const id = await insertOneVoucher(tx, actor.projectId, code, definition.code_config, (c, key) =>
    newVoucherRow(deps, actor.projectId, campaign?.id ?? null, definition, fields, c, key, now),
  );
  if (campaign) await addToVouchersCount(tx, actor.projectId, campaign.id, 1);
  const row = await findLiveVoucherById(tx, actor.projectId, id);
  if (!row) throw new Error('voucher vanished inside its own transaction');
  const voucher = await renderVoucherRow(tx, deps, actor.projectId, row);
  const campaignObject = campaign ? await renderCampaign(tx, actor.projectId, campaign) : null;
  await appendEvents(tx, [voucherEvent(deps, actor, { type: 'voucher.created', voucher, campaign: campaignObject })]);
  // The voucher and its rules are created together or not at all.
  for (const ruleId of rules) await assignRuleIn(tx, deps, actor, ruleId, { related_object_type: 'voucher', related_object_id: id }, false);
  return voucher;
}

/**
 * `GET /v1/vouchers/{code}`: the voucher with the validation rules assigned to it. The project's settings,
 * the campaign, the category and whether any voucher has rules of its own come from the definitions cache,
 * so a voucher without rules costs one statement: the voucher, with the definitions version read by it.
 */
export async function getVoucher(deps: Deps, actor: Actor, code: string): Promise<VoucherObject> {
  const found = await findLiveVoucherByCodeWithDefinitions(deps.db, actor.projectId, code);
  if (!found) throw errors.notFound('voucher', code);
  const { row, definitions: defs } = found;
  const [voucher] = await renderVoucherRows(deps.db, deps, actor.projectId, [row], defs);
  if (!voucher) throw new Error('rendering one voucher gave none');
  const assigned = await assignedRules(deps.db, actor.projectId, [{ type: 'voucher', id: row.id }], defs);
  const data = assigned.slice(0, ASSIGNMENTS_SHOWN).map((a) => toAssignmentObject(a.assignment));
  return withMembers(voucher, { validation_rules_assignments: { object: 'list', data_ref: 'data', data, total: assigned.length } });
}

/** Assignments a voucher object lists (the oldest first); `total` counts them all. */
const ASSIGNMENTS_SHOWN = 100;

export interface VoucherList {
  object: 'list';
  data_ref: 'vouchers';
  vouchers: VoucherObject[];
  total: number;
}

const EMPTY: VoucherList = { object: 'list', data_ref: 'vouchers', vouchers: [], total: 0 };

/** `GET /v1/vouchers`: newest first by default; a filter naming something unknown matches nothing. */
export async function listVouchers(deps: Deps, actor: Actor, query: ListVouchersInput): Promise<VoucherList> {
  const { projectId } = actor;
  const db = deps.db;
  let filter;
  try {
    filter = query.filters ? parseFilter(query.filters, voucherFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  let campaignId = query.campaign_id;
  if (query.campaign !== undefined) {
    const campaign = await findLiveCampaign(db, projectId, query.campaign);
    if (!campaign || (campaignId !== undefined && campaignId !== campaign.id)) return EMPTY;
    campaignId = campaign.id;
  }
  let categoryId: string | undefined;
  if (query.category !== undefined) {
    const category = (await findCategoryByName(db, projectId, query.category)) ?? (await findCategory(db, projectId, query.category));
    if (!category) return EMPTY;
    categoryId = category.id;
  }
  let holderId: string | undefined;
  if (query.customer !== undefined) {
    const customer = await findLiveCustomer(db, projectId, query.customer);
    if (!customer) return EMPTY;
    holderId = customer.id;
  }
  const limit = query.limit ?? 10;
  const { rows, total } = await listLiveVouchers(db, {
    projectId,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    order: query.order ?? '-created_at',
    ...(campaignId !== undefined ? { campaignId } : {}),
    ...(categoryId !== undefined ? { categoryId } : {}),
    ...(holderId !== undefined ? { holderId } : {}),
    ...(query.code !== undefined ? { codeKey: await codeKey(db, projectId, query.code) } : {}),
    ...(query.ids !== undefined ? { ids: query.ids } : {}),
    ...(query.created_at?.before !== undefined ? { createdBefore: queryInstant(query.created_at.before) } : {}),
    ...(query.created_at?.after !== undefined ? { createdAfter: queryInstant(query.created_at.after) } : {}),
    ...(query.updated_at?.before !== undefined ? { updatedBefore: queryInstant(query.updated_at.before) } : {}),
    ...(query.updated_at?.after !== undefined ? { updatedAfter: queryInstant(query.updated_at.after) } : {}),
    ...(filter ? { filter } : {}),
    dialect: deps.dialect,
    now: deps.clock.now(),
  });
  return { object: 'list', data_ref: 'vouchers', vouchers: await readableRows(listing(deps, actor, 'voucher'), rows, (some) => renderVoucherRows(db, deps, projectId, some)), total };
}

/**
 * `PUT /v1/vouchers/{code}`: the members sent change, others stay. Gift credits and loyalty points never
 * change here (they move through the balance endpoint and the ledger), and a voucher never changes type.
 */
export async function updateVoucher(deps: Deps, actor: Actor, code: string, input: UpdateVoucherInput): Promise<VoucherObject> {
  return inTransaction(deps, async (tx) => applyVoucherUpdate(tx, deps, actor, await liveVoucherByCode(tx, actor.projectId, code), input));
}

/**
 * `POST /v1/vouchers/bulk/async` and `…/metadata/async`, one item: merges `metadata` into the voucher's
 * (members not sent stay), in the caller's transaction. The row is locked first so a concurrent update
 * cannot be lost between the read and the write.
 */
export async function mergeVoucherMetadata(tx: Tx, deps: Deps, actor: Actor, code: string, metadata: Record<string, unknown>): Promise<VoucherObject> {
  const found = await liveVoucherByCode(tx, actor.projectId, code);
  await lockVoucherRow(tx, actor.projectId, found.id);
  const row = (await findLiveVoucherById(tx, actor.projectId, found.id)) ?? found;
  return applyVoucherUpdate(tx, deps, actor, row, { metadata: { ...fromJson<Record<string, unknown>>(row.metadata, {}), ...metadata } });
}

/** Writes an update to a live voucher and appends `voucher.updated`, in the caller's transaction. */
async function applyVoucherUpdate(tx: Tx, deps: Deps, actor: Actor, row: VoucherRow, input: UpdateVoucherInput): Promise<VoucherObject> {
  const code = row.code;
  if (input.type !== undefined && input.type !== row.type) {
    throw errors.invalidPayload(`Property .type cannot change a ${row.type} voucher into ${input.type}`);
  }
  let discount: string | undefined;
  if (input.discount !== undefined) {
    if (row.type !== 'DISCOUNT_VOUCHER') throw errors.invalidPayload(`Property .discount does not apply to ${row.type} vouchers`);
    const problem = discountProblem(input.discount, checkFormula, 'discount');
    if (problem) throw errors.invalidPayload(problem);
    discount = toJson(normalizeDiscount(input.discount));
  }
  const merged = {
    start_date: input.start_date !== undefined ? input.start_date : row.start_date,
    expiration_date: input.expiration_date !== undefined ? input.expiration_date : row.expiration_date,
    validity_timeframe: input.validity_timeframe !== undefined ? input.validity_timeframe : fromJson(row.validity_timeframe, null),
    validity_day_of_week: input.validity_day_of_week !== undefined ? input.validity_day_of_week : fromJson(row.validity_day_of_week, null),
    validity_hours: input.validity_hours !== undefined ? input.validity_hours : fromJson(row.validity_hours, null),
  };
  checkValidity(merged, '');
  const categoryId = await categoryIdOf(tx, deps, actor, input);
  if (input.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'voucher', input.metadata);
  const now = deps.clock.now().toISOString();
  const changed = await updateLiveVoucher(tx, actor.projectId, row.id, {
    ...(discount !== undefined ? { discount } : {}),
    start_date: merged.start_date,
    expiration_date: merged.expiration_date,
    validity_timeframe: merged.validity_timeframe ? toJson(merged.validity_timeframe) : null,
    validity_day_of_week: merged.validity_day_of_week ? toJson(merged.validity_day_of_week) : null,
    validity_hours: merged.validity_hours ? toJson(merged.validity_hours) : null,
    ...(categoryId !== undefined ? { category_id: categoryId } : {}),
    ...(input.active !== undefined && input.active !== null ? { active: input.active } : {}),
    ...(input.additional_info !== undefined ? { additional_info: input.additional_info } : {}),
    ...(input.metadata !== undefined ? { metadata: toJson(input.metadata ?? {}) } : {}),
    ...(input.redemption?.quantity !== undefined ? { redemption_quantity: input.redemption.quantity } : {}),
    updated_at: now,
  });
  if (!changed) throw errors.notFound('voucher', code);
  const after = await findLiveVoucherById(tx, actor.projectId, row.id);
  if (!after) throw errors.notFound('voucher', code);
  const voucher = await renderVoucherRow(tx, deps, actor.projectId, after);
  await appendEvents(tx, [voucherEvent(deps, actor, { type: 'voucher.updated', voucher, campaign: await campaignObjectOf(tx, actor.projectId, row.campaign_id) })]);
  return voucher;
}

/** `POST /v1/vouchers/{code}/enable|disable`: a disabled voucher cannot be redeemed or published. */
export async function setVoucherActive(deps: Deps, actor: Actor, code: string, active: boolean): Promise<VoucherObject> {
  return inTransaction(deps, async (tx) => {
    const row = await liveVoucherByCode(tx, actor.projectId, code);
    await updateLiveVoucher(tx, actor.projectId, row.id, { active, updated_at: deps.clock.now().toISOString() });
    const after = await findLiveVoucherById(tx, actor.projectId, row.id);
    if (!after) throw errors.notFound('voucher', code);
    const voucher = await renderVoucherRow(tx, deps, actor.projectId, after);
    await appendEvents(tx, [
      voucherEvent(deps, actor, {
        type: active ? 'voucher.enabled' : 'voucher.disabled',
        voucher,
        campaign: await campaignObjectOf(tx, actor.projectId, row.campaign_id),
      }),
    ]);
    return voucher;
  });
}

/**
 * `DELETE /v1/vouchers/{code}`: to the bin (with an entry in `/v1/trash-bin`) or, with `force`, for good.
 * Either way the voucher leaves every read and its code is free for a new voucher at once.
 */
export async function deleteVoucher(deps: Deps, actor: Actor, code: string, force: boolean): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await liveVoucherByCode(tx, actor.projectId, code);
    const voucher = await renderVoucherRow(tx, deps, actor.projectId, row);
    const campaign = await campaignObjectOf(tx, actor.projectId, row.campaign_id);
    const now = deps.clock.now().toISOString();
    if (force) {
      await purgeVoucher(tx, actor.projectId, row.id);
    } else {
      if (!(await binVoucher(tx, actor.projectId, row.id, now))) throw errors.notFound('voucher', code);
      await insertBinEntry(tx, {
        id: deps.ids.next('tbe'),
        project_id: actor.projectId,
        resource_id: row.id,
        resource_type: 'voucher',
        resource_name: row.code,
        resource_parent_id: row.campaign_id,
        deleted_by_user_id: null,
        created_at: now,
      });
    }
    if (row.campaign_id !== null) await addToVouchersCount(tx, actor.projectId, row.campaign_id, -1);
    await appendEvents(tx, [voucherEvent(deps, actor, { type: 'voucher.deleted', voucher, campaign, extra: { deleted_at: now, permanent: force } })]);
  });
}

/** Deleting a binned voucher's bin entry (src/services/catalog/bin.ts): the voucher goes for good. */
export async function purgeBinnedVoucher(tx: Tx, projectId: string, voucherId: string): Promise<void> {
  await purgeVoucher(tx, projectId, voucherId);
}
