import { errors } from '../../domain/errors.ts';
import { evaluateRedeemables, type AppliedOutcome } from '../../domain/redemptions/engine.ts';
import { qualificationFilterProblem, qualifies, type QualificationSubject } from '../../domain/redemptions/qualification-filters.ts';
import type { ExamineInput, ExamineResponseOut, QualificationsInput, QualificationsResponseOut } from '../../api/redemptions.ts';
import { findCampaignsByIds } from '../../store/campaigns.ts';
import { findLiveVoucherByCode, type VoucherRow } from '../../store/vouchers.ts';
import { renderCampaigns } from '../campaigns/render.ts';
import { renderVoucherRows } from '../vouchers/vouchers.ts';
import { listStacks } from '../../store/promotion-stacks.ts';
import { listTiers } from '../../store/promotion-tiers.ts';
import { unheldVouchers, walletVouchers } from '../../store/redemption-facts.ts';
import type { Actor, Deps } from '../context.ts';
import { availabilityAt } from '../promotions/availability.ts';
import { loadFacts, loadOrder, type CustomerFacts, type Facts, type OrderFacts, type Resolved, type SentRedeemable } from './facts.ts';
import { engineRequest, readCustomer, type NormalisedRequest } from './request.ts';
import { calculatedOrder, entryOf, stackingRulesEcho, type Json } from './responses.ts';
import { effectiveStackingRules } from './stacking-rules.ts';

// Qualifications (promotions reference 8): which redeemables a customer and order qualify for. The
// candidates of the scenario (the customer's wallet, the vouchers nobody holds that anyone may use —
// standalone vouchers and unassigned campaign codes —, the promotion tiers available now, the promotion
// stacks) are loaded in batches and each is evaluated on its own with the validation engine against the
// original order; nothing is stored. At most CANDIDATE_LIMIT candidates of each kind are examined.

export const CANDIDATE_LIMIT = 200;
const STACK_LIMIT = 50;

type Scenario = NonNullable<QualificationsInput['scenario']>;

interface Qualified {
  subject: QualificationSubject;
  entry: Json;
  /** What the redeemable takes off the order (BEST_DEAL / LEAST_DEAL sort on it). */
  discount: number;
}

/** One candidate evaluated alone against the original order. */
function evaluateAlone(facts: Facts, index: number): AppliedOutcome | null {
  const candidate = facts.candidates[index];
  if (!candidate) return null;
  const evaluation = evaluateRedeemables([candidate], facts.order.start, facts.context);
  return evaluation.applied[0] ?? null;
}

function subjectOf(r: Resolved): QualificationSubject | null {
  if (r.kind === 'voucher') {
    const v = r.voucher;
    return {
      id: v.code,
      object: 'voucher',
      createdAt: v.created_at,
      campaignId: v.campaign_id,
      campaignType: r.campaign?.campaign_type ?? null,
      categoryIds: r.categories.map((c) => c.id),
      resourceId: v.id,
      resourceType: 'voucher',
      voucherType: v.type,
      code: v.code,
      // Only the customer's own vouchers are candidates with a holder; the others nobody holds.
      holderRole: v.holder_id ? 'OWNER' : null,
    };
  }
  if (r.kind === 'promotion_tier') {
    const t = r.tier;
    return {
      id: t.tier.id,
      object: 'promotion_tier',
      createdAt: t.tier.created_at,
      campaignId: t.campaign.id,
      campaignType: t.campaign.campaign_type,
      categoryIds: r.categories.map((c) => c.id),
      resourceId: t.tier.id,
      resourceType: 'promotion_tier',
      voucherType: null,
      code: null,
      holderRole: null,
    };
  }
  return null;
}

function discountOf(outcome: AppliedOutcome): number {
  return outcome.consumption.discount;
}

function entryFor(facts: Facts, outcome: AppliedOutcome, r: Resolved, requestId: string, expand: ReadonlySet<string>): Json {
  const base = entryOf(outcome, facts, requestId, new Set(['redeemable', ...expand])) as Json;
  // The entry without its status, copied member by member: object rest and spreads that add members
  // (`{ ...rest, ...extra }`) are slow on Node 20, and a qualification answers many entries.
  const entry: Json = {};
  for (const [key, value] of Object.entries(base)) if (key !== 'status') entry[key] = value;
  const extra: Json = {};
  if (r.kind === 'voucher') {
    extra.id = r.voucher.code;
    extra.created_at = r.voucher.created_at;
    extra.validation_rules_assignments = { object: 'list', data_ref: 'data', data: r.assignments, total: r.assignments.length };
  }
  if (r.kind === 'promotion_tier') {
    extra.created_at = r.tier.tier.created_at;
    extra.banner = r.tier.tier.banner;
    extra.name = r.tier.tier.name;
    extra.validation_rules_assignments = { object: 'list', data_ref: 'data', data: r.assignments, total: r.assignments.length };
  }
  Object.assign(entry, extra);
  const ruleId = r.assignments[0]?.rule_id;
  if (ruleId) entry.validation_rule_id = ruleId;
  return entry;
}

interface CandidateSet {
  customer: CustomerFacts;
  order: OrderFacts;
}

async function examineCandidates(deps: Deps, actor: Actor, request: NormalisedRequest, sent: SentRedeemable[], base: CandidateSet, audienceOnly: boolean): Promise<{ facts: Facts; items: Array<{ outcome: AppliedOutcome; resolved: Resolved }> }> {
  const facts = await loadFacts(deps.db, deps.dialect, actor.projectId, deps.clock.now(), { ...request, redeemables: sent }, base.customer, {
    lock: false,
    independent: true,
    order: base.order,
    ...(audienceOnly ? { audienceOnly: true } : {}),
  });
  const items: Array<{ outcome: AppliedOutcome; resolved: Resolved }> = [];
  facts.candidates.forEach((_, index) => {
    const outcome = evaluateAlone(facts, index);
    const resolved = facts.resolved[index];
    if (outcome && resolved) items.push({ outcome, resolved });
  });
  return { facts, items };
}

/** The promotion tiers available now that apply to the request's order, each on its own. */
export async function qualifyingTiers(deps: Deps, actor: Actor, request: NormalisedRequest, options: { audienceOnly: boolean }): Promise<Array<{ outcome: AppliedOutcome; resolved: Extract<Resolved, { kind: 'promotion_tier' }>; facts: Facts }>> {
  const { customer } = await readCustomer(deps.db, actor.projectId, request.customerInput);
  const order = await loadOrder(deps.db, actor.projectId, request.order);
  const available = await availabilityAt(deps.db, actor.projectId, deps.clock.now());
  const { items: tiers } = await listTiers(deps.db, { projectId: actor.projectId, limit: CANDIDATE_LIMIT, offset: 0, order: 'hierarchy', available });
  const sent = tiers.map((t) => ({ object: 'promotion_tier' as const, id: t.tier.id }));
  if (sent.length === 0) return [];
  const { facts, items } = await examineCandidates(deps, actor, request, sent, { customer, order }, options.audienceOnly);
  return items.flatMap((i) => (i.resolved.kind === 'promotion_tier' ? [{ outcome: i.outcome, resolved: i.resolved, facts }] : []));
}

const WALLET_SCENARIOS: readonly Scenario[] = ['ALL', 'CUSTOMER_WALLET', 'AUDIENCE_ONLY', 'PRODUCTS', 'PRODUCTS_DISCOUNT', 'PRODUCTS_BY_CUSTOMER', 'PRODUCTS_DISCOUNT_BY_CUSTOMER'];
// Every scenario but the wallet and stacks ones looks at all that is available to the customer (vendor
// scenario descriptions): the vouchers nobody holds and the promotion tiers, besides the wallet.
const OPEN_SCENARIOS: readonly Scenario[] = ['ALL', 'AUDIENCE_ONLY', 'PRODUCTS', 'PRODUCTS_DISCOUNT', 'PRODUCTS_BY_CUSTOMER', 'PRODUCTS_DISCOUNT_BY_CUSTOMER'];

export async function checkEligibility(deps: Deps, actor: Actor, input: QualificationsInput): Promise<QualificationsResponseOut> {
  const scenario: Scenario = input.scenario ?? 'ALL';
  const options = input.options ?? {};
  const limit = options.limit ?? 5;
  const expand = new Set<string>(options.expand ?? []);
  const filterProblem = qualificationFilterProblem(options.filters ?? null);
  if (filterProblem) throw errors.invalidPayload(filterProblem);
  const request = engineRequest(deps, {
    redeemables: [{ object: 'voucher', id: 'unused' }],
    ...(input.order ? { order: input.order } : {}),
    ...(input.customer ? { customer: input.customer } : {}),
    ...(input.tracking_id ? { tracking_id: input.tracking_id } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
  });
  const { customer } = await readCustomer(deps.db, actor.projectId, request.customerInput);
  const order = await loadOrder(deps.db, actor.projectId, request.order);
  const audienceOnly = scenario === 'AUDIENCE_ONLY';
  const qualified: Qualified[] = [];
  let rulesFacts: Facts | null = null;

  const sent: SentRedeemable[] = [];
  if (WALLET_SCENARIOS.includes(scenario) && customer.id !== null) {
    for (const v of await walletVouchers(deps.db, actor.projectId, customer.id, CANDIDATE_LIMIT)) sent.push({ object: 'voucher', id: v.id });
  }
  if (OPEN_SCENARIOS.includes(scenario)) {
    for (const v of await unheldVouchers(deps.db, actor.projectId, deps.clock.now().toISOString(), CANDIDATE_LIMIT)) sent.push({ object: 'voucher', id: v.id });
    const available = await availabilityAt(deps.db, actor.projectId, deps.clock.now());
    const { items } = await listTiers(deps.db, { projectId: actor.projectId, limit: CANDIDATE_LIMIT, offset: 0, order: '-created_at', available });
    for (const t of items) sent.push({ object: 'promotion_tier', id: t.tier.id });
  }
  if (sent.length > 0) {
    const { facts, items } = await examineCandidates(deps, actor, request, sent, { customer, order }, audienceOnly);
    rulesFacts = facts;
    const productScenario = scenario.startsWith('PRODUCTS');
    for (const { outcome, resolved } of items) {
      // Product scenarios: only redeemables whose discount reaches particular products of the order.
      if (productScenario && outcome.applicableTo.total === 0) continue;
      const subject = subjectOf(resolved);
      if (!subject) continue;
      qualified.push({ subject, entry: entryFor(facts, outcome, resolved, actor.requestId, expand), discount: discountOf(outcome) });
    }
  }
  if (scenario === 'PROMOTION_STACKS') {
    const { rows } = await listStacks(deps.db, { projectId: actor.projectId, limit: STACK_LIMIT, offset: 0, order: '-created_at' });
    for (const stack of rows) {
      let facts: Facts;
      try {
        facts = await loadFacts(deps.db, deps.dialect, actor.projectId, deps.clock.now(), { ...request, redeemables: [{ object: 'promotion_stack', id: stack.id }] }, customer, { lock: false, order });
      } catch {
        // A stack whose tiers are gone cannot qualify.
        continue;
      }
      rulesFacts ??= facts;
      const evaluation = evaluateRedeemables(facts.candidates, facts.order.start, facts.context);
      if (!evaluation.valid) continue;
      const subject: QualificationSubject = {
        id: stack.id,
        object: 'promotion_stack',
        createdAt: stack.created_at,
        campaignId: stack.campaign_id,
        campaignType: 'PROMOTION',
        categoryIds: stack.category_id ? [stack.category_id] : [],
        resourceId: stack.id,
        resourceType: 'promotion_stack',
        voucherType: null,
        code: null,
        holderRole: null,
      };
      const discount = evaluation.applied.reduce((s, o) => s + o.consumption.discount, 0);
      qualified.push({
        subject,
        discount,
        entry: {
          id: stack.id,
          object: 'promotion_stack',
          created_at: stack.created_at,
          name: stack.name,
          campaign_id: stack.campaign_id,
          result: {},
          order: calculatedOrder(facts, evaluation.final, evaluation.final.applied),
          categories: [],
          redeemables: evaluation.applied.map((o) => entryFor(facts, o, facts.resolved[o.candidate.index] as Resolved, actor.requestId, expand)),
        },
      });
    }
  }

  const filtered = qualified.filter((q) => qualifies(q.subject, options.filters ?? null));
  const sorting = options.sorting_rule ?? 'DEFAULT';
  const sorted = [...filtered].sort((a, b) => {
    if (sorting === 'BEST_DEAL' && a.discount !== b.discount) return b.discount - a.discount;
    if (sorting === 'LEAST_DEAL' && a.discount !== b.discount) return a.discount - b.discount;
    return a.subject.createdAt < b.subject.createdAt ? 1 : a.subject.createdAt > b.subject.createdAt ? -1 : 0;
  });
  // Paging by creation time (reference 8): the next page starts after the last item's created_at.
  const cursor = options.starting_after ? new Date(options.starting_after) : null;
  if (cursor && Number.isNaN(cursor.getTime())) throw errors.invalidPayload('Property .options.starting_after should name an instant (leap seconds excluded)');
  const after = cursor ? cursor.toISOString() : null;
  const remaining = after === null ? sorted : sorted.filter((q) => q.subject.createdAt < after);
  const page = remaining.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = remaining.length > page.length;
  const rules = rulesFacts?.rules ?? (await effectiveStackingRules(deps.db, actor.projectId));
  return {
    redeemables: {
      object: 'list',
      data_ref: 'data',
      data: page.map((q) => q.entry),
      total: filtered.length,
      has_more: hasMore,
      ...(hasMore && last ? { more_starting_after: last.subject.createdAt } : {}),
    },
    tracking_id: request.trackingId,
    order: order.present ? calculatedOrder({ order, customer }, order.start, { order: 0, items: [] }) : null,
    stacking_rules: stackingRulesEcho(rules),
  };
}

/**
 * The SDK's legacy `vouchers.qualifications.examine` (`POST /v1/vouchers/qualification`): the vouchers of
 * the customer's wallet that apply to the order; and `campaigns.qualifications.examine`
 * (`POST /v1/campaigns/qualification`): the campaigns of every redeemable that qualifies (scenario ALL).
 */
export async function examine(deps: Deps, actor: Actor, kind: 'vouchers' | 'campaigns', input: ExamineInput, query: { limit?: number | undefined; audienceRulesOnly?: boolean | undefined }): Promise<ExamineResponseOut> {
  const limit = query.limit ?? 5;
  const scenario = kind === 'vouchers' ? 'CUSTOMER_WALLET' : query.audienceRulesOnly ? 'AUDIENCE_ONLY' : 'ALL';
  const qualified = await checkEligibility(deps, actor, {
    ...(input.customer ? { customer: input.customer } : {}),
    ...(input.order ? { order: input.order } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
    scenario,
    options: { limit: 50 },
  });
  const entries = qualified.redeemables.data;
  if (kind === 'vouchers') {
    const codes = entries.filter((e) => e.object === 'voucher').map((e) => String(e.id));
    const rows = await Promise.all(codes.slice(0, limit).map((code) => findLiveVoucherByCode(deps.db, actor.projectId, code)));
    const data = await renderVoucherRows(deps.db, deps, actor.projectId, rows.filter((r): r is VoucherRow => r !== undefined));
    return { object: 'list', data_ref: 'data', data, total: codes.length };
  }
  const campaignIds = [...new Set(entries.map((e) => e.campaign_id).filter((id): id is string => typeof id === 'string'))];
  const rows = await findCampaignsByIds(deps.db, actor.projectId, campaignIds);
  const data = await renderCampaigns(deps.db, actor.projectId, campaignIds.slice(0, limit).flatMap((id) => rows.get(id) ?? []));
  return { object: 'list', data_ref: 'data', data, total: campaignIds.length };
}
