import type {
  CampaignSetupInput,
  CampaignSetupOut,
  CampaignTemplateListOut,
  CampaignTemplateOut,
  CopyCampaignTemplateInput,
  CreateCampaignTemplateInput,
  ListCampaignTemplatesInput,
  TierSetupInput,
  TierSetupOut,
  UpdateCampaignTemplateInput,
} from '../../api/campaign-templates.ts';
import type { CreateCampaignInput, VoucherTemplateInput } from '../../api/campaigns.ts';
import type { CreateValidationRuleInput } from '../../api/validation-rules.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { FilterError, parseFilter } from '../../domain/filters/filter.ts';
import * as store from '../../store/campaign-templates.ts';
import { findLiveCampaign, type CampaignRow } from '../../store/campaigns.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import { findTierWithCampaign, lockCampaignRow } from '../../store/promotion-tiers.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { assignedRules } from '../../store/validation-rules.ts';
import { templateOf } from '../campaigns/campaign-input.ts';
import { createCampaignIn } from '../campaigns/campaigns.ts';
import { renderCampaign } from '../campaigns/render.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { createTiersInTransaction, promotionCampaign } from '../promotions/tiers.ts';
import { renderTier } from '../promotions/tier-object.ts';
import { assignRuleIn } from '../validation-rules/assignments.ts';
import { createRuleIn, definitionOf } from '../validation-rules/validation-rules.ts';

// Campaign templates (vendor /v1/templates/campaigns…): a discount or gift campaign's configuration — or a
// promotion tier's, as a discount campaign — kept without the campaign's name, category and code count,
// with the definitions of the validation rules assigned to it. A campaign or a promotion tier made from a
// template is created in one transaction with copies of those rules, which the answer lists as
// `created_resources`; the members the request sends replace the template's. The management API lists a
// project's templates and copies one into another project (its rules are made there when it is used).

type TemplateCampaignType = 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS';
type ManagementActor = Omit<Actor, 'projectId'>;

/** What a template keeps: the create-campaign members it gives a new campaign, and its rules' definitions. */
interface TemplateDefinition {
  campaign: Omit<CreateCampaignInput, 'name' | 'category' | 'category_id' | 'vouchers_count' | 'validation_rules' | 'promotion'> & { voucher: VoucherTemplateInput };
  validation_rules: CreateValidationRuleInput[];
}

const unsupported = (details: string) => businessError('campaign_type_is_not_supported_by_campaign_template', 'Campaign type is not supported by campaign template', { details });

function toTemplate(row: store.CampaignTemplateRow): CampaignTemplateOut {
  return {
    id: row.id,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    campaign_type: row.campaign_type,
    created_at: row.created_at,
    ...(row.updated_at !== null ? { updated_at: row.updated_at } : {}),
    object: 'campaign_template',
  };
}

function definitionOfRow(row: store.CampaignTemplateRow): TemplateDefinition {
  return fromJson<TemplateDefinition>(row.definition, { campaign: { voucher: { type: 'DISCOUNT_VOUCHER' } }, validation_rules: [] });
}

async function requireTemplate(db: Executor, projectId: string, id: string): Promise<store.CampaignTemplateRow> {
  const row = await store.findCampaignTemplate(db, projectId, id);
  if (!row) throw errors.notFound('campaign_template', id);
  return row;
}

async function requireProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

/** The definitions of the rules assigned to an object, as create bodies (names are made unique on use). */
async function ruleDefinitions(db: Executor, projectId: string, object: { type: string; id: string }): Promise<CreateValidationRuleInput[]> {
  return (await assignedRules(db, projectId, [object])).map(({ rule }) => {
    const definition = definitionOf(rule);
    return {
      name: rule.name,
      rules: definition.rules as CreateValidationRuleInput['rules'],
      error: definition.error,
      applicable_to: definition.applicable_to as CreateValidationRuleInput['applicable_to'],
      type: rule.type as CreateValidationRuleInput['type'],
      context_type: rule.context_type as CreateValidationRuleInput['context_type'],
    };
  });
}

const json = <T>(text: string | null): T | null => fromJson<T | null>(text, null);

function fromCampaign(campaign: CampaignRow): TemplateDefinition['campaign'] {
  const voucher = templateOf(campaign);
  if (campaign.campaign_type !== 'DISCOUNT_COUPONS' && campaign.campaign_type !== 'GIFT_VOUCHERS') {
    throw unsupported(`Templates are made from DISCOUNT_COUPONS and GIFT_VOUCHERS campaigns or promotion tiers, not ${campaign.campaign_type} campaigns`);
  }
  if (!voucher) throw unsupported(`Campaign ${campaign.id} has no voucher configuration`);
  const { is_referral_code: _referral, ...voucherInput } = voucher;
  return {
    campaign_type: campaign.campaign_type,
    type: campaign.type,
    description: campaign.description,
    join_once: Boolean(campaign.join_once),
    auto_join: Boolean(campaign.auto_join),
    use_voucher_metadata_schema: Boolean(campaign.use_voucher_metadata_schema),
    start_date: campaign.start_date,
    expiration_date: campaign.expiration_date,
    validity_timeframe: json(campaign.validity_timeframe),
    validity_day_of_week: json(campaign.validity_day_of_week),
    validity_hours: json(campaign.validity_hours),
    activity_duration_after_publishing: campaign.activity_duration_after_publishing,
    metadata: fromJson<Record<string, unknown>>(campaign.metadata, {}),
    voucher: voucherInput as VoucherTemplateInput,
  };
}

/** A promotion tier as a discount campaign: its discount, validity and metadata. */
async function fromTier(db: Executor, projectId: string, tierId: string): Promise<{ campaign: TemplateDefinition['campaign']; ruleOwner: { type: string; id: string } }> {
  const found = await findTierWithCampaign(db, projectId, tierId);
  if (!found) throw errors.notFound('promotion_tier', tierId);
  const { tier } = found;
  const discount = fromJson<{ discount?: Record<string, unknown> | null }>(tier.action, {}).discount;
  if (!discount) throw unsupported(`Promotion tier ${tier.id} has no discount to make a template from`);
  return {
    campaign: {
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      description: tier.banner,
      start_date: tier.start_date,
      expiration_date: tier.expiration_date,
      validity_timeframe: json(tier.validity_timeframe),
      validity_day_of_week: json(tier.validity_day_of_week),
      validity_hours: json(tier.validity_hours),
      metadata: fromJson<Record<string, unknown>>(tier.metadata, {}),
      voucher: { type: 'DISCOUNT_VOUCHER', discount: discount as VoucherTemplateInput['discount'] },
    },
    ruleOwner: { type: 'promotion_tier', id: tier.id },
  };
}

/** A template name another template of the project holds is 409, whichever request came first. */
async function guardName<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('campaign_template', 'name', name);
    throw error;
  }
}

function templateEvent(deps: Deps, actor: Actor, type: string, template: CampaignTemplateOut) {
  return makeEvent(deps, actor, { type, entityId: template.id, data: { campaign_template: template } });
}

async function insertTemplate(tx: Tx, deps: Deps, actor: Actor, fields: { name: string; description: string | null; definition: TemplateDefinition }): Promise<CampaignTemplateOut> {
  const id = deps.ids.next('camp_tpl');
  await store.insertCampaignTemplate(tx, {
    id,
    project_id: actor.projectId,
    name: fields.name,
    description: fields.description,
    campaign_type: fields.definition.campaign.campaign_type as TemplateCampaignType,
    definition: toJson(fields.definition),
    created_at: deps.clock.now().toISOString(),
    updated_at: null,
  });
  const template = toTemplate(await requireTemplate(tx, actor.projectId, id));
  await appendEvents(tx, [templateEvent(deps, actor, 'campaign_template.created', template)]);
  return template;
}

/** `POST /v1/templates/campaigns`: from a campaign (`campaign_id`) or a promotion tier (`promotion_tier_id`). */
export async function createTemplate(deps: Deps, actor: Actor, input: CreateCampaignTemplateInput): Promise<CampaignTemplateOut> {
  const campaignRef = input.campaign_id ?? null;
  const tierRef = input.promotion_tier_id ?? null;
  if ((campaignRef === null) === (tierRef === null)) throw errors.invalidPayload('Property .campaign_id or .promotion_tier_id is required, not both');
  return guardName(input.name, () =>
    inTransaction(deps, async (tx) => {
      let definition: TemplateDefinition;
      if (campaignRef !== null) {
        const campaign = await findLiveCampaign(tx, actor.projectId, campaignRef);
        if (!campaign) throw errors.notFound('campaign', campaignRef);
        definition = { campaign: fromCampaign(campaign), validation_rules: await ruleDefinitions(tx, actor.projectId, { type: 'campaign', id: campaign.id }) };
      } else {
        const { campaign, ruleOwner } = await fromTier(tx, actor.projectId, tierRef as string);
        definition = { campaign, validation_rules: await ruleDefinitions(tx, actor.projectId, ruleOwner) };
      }
      return insertTemplate(tx, deps, actor, { name: input.name, description: input.description ?? null, definition });
    }),
  );
}

export async function getTemplate(deps: Deps, actor: Actor, id: string): Promise<CampaignTemplateOut> {
  return toTemplate(await requireTemplate(deps.db, actor.projectId, id));
}

/** `PUT /v1/templates/campaigns/{id}`: the name and the description only. */
export async function updateTemplate(deps: Deps, actor: Actor, id: string, input: UpdateCampaignTemplateInput): Promise<CampaignTemplateOut> {
  return guardName(input.name ?? '', () =>
    inTransaction(deps, async (tx) => {
      await requireTemplate(tx, actor.projectId, id);
      await store.updateCampaignTemplate(tx, actor.projectId, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        updated_at: deps.clock.now().toISOString(),
      });
      const template = toTemplate(await requireTemplate(tx, actor.projectId, id));
      await appendEvents(tx, [templateEvent(deps, actor, 'campaign_template.updated', template)]);
      return template;
    }),
  );
}

/** `DELETE /v1/templates/campaigns/{id}`: for good; what was made from it stays. */
export async function deleteTemplate(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const template = toTemplate(await requireTemplate(tx, actor.projectId, id));
    if (!(await store.deleteCampaignTemplate(tx, actor.projectId, id))) throw errors.notFound('campaign_template', id);
    await appendEvents(tx, [templateEvent(deps, actor, 'campaign_template.deleted', template)]);
  });
}

/** `GET /v1/templates/campaigns` and the management list of a project's templates. */
export async function listTemplates(deps: Deps, projectId: string, query: ListCampaignTemplatesInput): Promise<CampaignTemplateListOut> {
  let filter;
  try {
    filter = query.filters ? parseFilter(query.filters, store.campaignTemplateFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  const { rows, hasMore, total } = await store.listCampaignTemplates(deps.db, {
    projectId,
    limit: query.limit ?? 10,
    descending: query.order === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
    ...(filter ? { filter } : {}),
    withTotal: query.include_total === true,
    dialect: deps.dialect,
    now: deps.clock.now(),
  });
  const data = rows.map(toTemplate);
  const last = data.at(-1);
  return {
    object: 'list',
    data_ref: 'data',
    data,
    ...(total !== null ? { total } : {}),
    has_more: hasMore,
    ...(hasMore && last ? { more_starting_after: last.id } : {}),
  };
}

export async function listProjectTemplates(deps: Deps, projectId: string, query: ListCampaignTemplatesInput): Promise<CampaignTemplateListOut> {
  await requireProject(deps.db, projectId);
  return listTemplates(deps, projectId, query);
}

/** Management: a copy of a project's template in another project, under a new name. */
export async function copyTemplate(deps: Deps, actor: ManagementActor, projectId: string, id: string, input: CopyCampaignTemplateInput): Promise<CampaignTemplateOut> {
  return guardName(input.name, () =>
    inTransaction(deps, async (tx) => {
      await requireProject(tx, projectId);
      const source = await requireTemplate(tx, projectId, id);
      await requireProject(tx, input.destination_project_id);
      return insertTemplate(tx, deps, { ...actor, projectId: input.destination_project_id }, {
        name: input.name,
        description: input.description !== undefined ? input.description : source.description,
        definition: definitionOfRow(source),
      });
    }),
  );
}

/**
 * Copies of the template's rules, assigned to the new campaign or tier. A copy is named after its rule and
 * the object it is made for, which keeps rule names unique.
 */
async function copyRules(tx: Tx, deps: Deps, actor: Actor, definitions: readonly CreateValidationRuleInput[], target: { type: 'campaign' | 'promotion_tier'; id: string }) {
  const created: { id: string; object: 'validation_rules' }[] = [];
  for (const definition of definitions) {
    const rule = await createRuleIn(tx, deps, actor, { ...definition, name: `${definition.name.slice(0, 170)} (${target.id})` });
    await assignRuleIn(tx, deps, actor, rule.id, { related_object_type: target.type, related_object_id: target.id }, false);
    created.push({ id: rule.id, object: 'validation_rules' });
  }
  return created;
}

const sent = <T extends Record<string, unknown>>(input: T): Partial<T> => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;

/** `POST /v1/templates/campaigns/{id}/campaign-setup`: a campaign made from the template (409 for a taken name). */
export async function setUpCampaign(deps: Deps, actor: Actor, id: string, input: CampaignSetupInput): Promise<CampaignSetupOut> {
  const { voucher: voucherOverrides, ...overrides } = input;
  try {
    return await inTransaction(deps, async (tx) => {
      const definition = definitionOfRow(await requireTemplate(tx, actor.projectId, id));
      const voucher: VoucherTemplateInput = {
        ...definition.campaign.voucher,
        ...(voucherOverrides?.code_config ? { code_config: voucherOverrides.code_config } : {}),
        ...(voucherOverrides?.redemption ? { redemption: voucherOverrides.redemption } : {}),
      };
      const created = await createCampaignIn(tx, deps, actor, { ...definition.campaign, ...sent(overrides), name: input.name, voucher });
      const resources = await copyRules(tx, deps, actor, definition.validation_rules, { type: 'campaign', id: created.id });
      const row = await findLiveCampaign(tx, actor.projectId, created.id);
      if (!row) throw new Error('campaign vanished inside its own transaction');
      return { created_resources: resources, campaign: await renderCampaign(tx, actor.projectId, row), object: 'campaign_setup' };
    });
  } catch (error) {
    // Rule copies are named after the new campaign's id, so only the campaign name can be taken.
    if (isUniqueViolation(error)) throw errors.duplicate('campaign', 'name', input.name);
    throw error;
  }
}

/** `POST /v1/templates/campaigns/{id}/tier-setup`: a promotion tier with the template's discount, added to a PROMOTION campaign. */
export async function setUpTier(deps: Deps, actor: Actor, id: string, input: TierSetupInput): Promise<TierSetupOut> {
  const { campaign_id: campaignRef, ...overrides } = input;
  return inTransaction(deps, async (tx) => {
    const template = await requireTemplate(tx, actor.projectId, id);
    const definition = definitionOfRow(template);
    const discount = definition.campaign.voucher.discount;
    if (template.campaign_type !== 'DISCOUNT_COUPONS' || !discount) {
      throw unsupported(`A promotion tier is made from a DISCOUNT_COUPONS template, not ${template.campaign_type}`);
    }
    const campaign = await promotionCampaign(tx, actor.projectId, campaignRef);
    // Tiers of one campaign are numbered one request at a time.
    await lockCampaignRow(tx, actor.projectId, campaign.id);
    const { start_date, expiration_date, validity_timeframe, validity_day_of_week, validity_hours, metadata } = definition.campaign;
    const { tiers, events } = await createTiersInTransaction(
      tx,
      deps,
      actor,
      campaign,
      [{ start_date, expiration_date, validity_timeframe, validity_day_of_week, validity_hours, metadata, ...sent(overrides), name: input.name, action: { discount } }],
      () => '',
    );
    await appendEvents(tx, events);
    const [tier] = tiers;
    if (!tier) throw new Error('creating one tier gave none');
    const resources = await copyRules(tx, deps, actor, definition.validation_rules, { type: 'promotion_tier', id: tier.id });
    const found = await findTierWithCampaign(tx, actor.projectId, tier.id);
    if (!found) throw new Error('tier vanished inside its own transaction');
    return { created_resources: resources, promotion_tier: await renderTier(tx, actor.projectId, found), object: 'promotion_tier_setup' };
  });
}
