import { failureCode } from '../../domain/redemptions/failures.ts';
import { sessionEcho } from '../../domain/redemptions/session.ts';
import type { ClientValidateInput, LegacyInput, LegacyValidationOut, PromotionsValidationInput, PromotionsValidationOut, StackableInput } from '../../api/redemptions.ts';
import { fromJson } from '../../store/json.ts';
import type { Actor, Deps } from '../context.ts';
import { qualifyingTiers } from './qualifications.ts';
import type { RedemptionRecord } from './records.ts';
import { runRedemption } from './redeem.ts';
import { engineRequest, type NormalisedRequest } from './request.ts';
import { calculatedOrder, type Json } from './responses.ts';
import { runValidation } from './validate.ts';

// The legacy single-object endpoints (promotions reference 6.11), thin wrappers over the stackable
// engine with one redeemable: `POST /v1/vouchers/{code}/validate` (200 with valid:false, reason and
// error when it does not apply), `POST /v1/vouchers/{code}/redemption` and
// `POST /v1/promotions/tiers/{id}/redemption` (the single record; failures are 400s naming the stored
// FAILURE record), the promotion validations, and the client SDK's `validate` / `redeem`.

/** The client SDK sends `customer: {}` when it knows no tracking id: that names nobody. */
function namesCustomer(customer: LegacyInput['customer']): boolean {
  return !!customer && Object.values(customer).some((v) => v !== undefined && v !== null);
}

function stackableOf(object: 'voucher' | 'promotion_tier', id: string, input: LegacyInput, trackingId?: string): StackableInput {
  return {
    redeemables: [{ object, id, ...(input.gift ? { gift: input.gift } : {}), ...(input.reward ? { reward: input.reward } : {}) }],
    ...(input.order ? { order: input.order } : {}),
    ...(input.customer && namesCustomer(input.customer) ? { customer: input.customer } : {}),
    ...((input.tracking_id ?? trackingId) ? { tracking_id: input.tracking_id ?? trackingId } : {}),
    ...(input.session ? { session: input.session } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
    ...(input.options ? { options: input.options } : {}),
  };
}

/** A single-object validation answer: the redeemable's result and order, or why it does not apply. */
async function legacyValidation(deps: Deps, actor: Actor, request: NormalisedRequest, code: string | null): Promise<LegacyValidationOut> {
  const run = await runValidation(deps, actor, request);
  const { facts, evaluation } = run;
  const outcome = evaluation.outcomes[0];
  const r = facts.resolved[0];
  const head = { ...(code !== null ? { code } : {}), tracking_id: request.trackingId };
  if (!outcome || !r) return { valid: false, ...head };
  if (outcome.status !== 'APPLICABLE') {
    const f =
      outcome.status === 'INAPPLICABLE'
        ? outcome.failure
        : { key: outcome.key, message: outcome.message, details: outcome.message, ruleMessage: null };
    const status = outcome.status === 'INAPPLICABLE' ? failureCode(outcome.failure.key) : 400;
    return {
      valid: false,
      reason: f.ruleMessage ?? f.message,
      error: { code: status, key: f.key, message: f.message, details: f.details, request_id: actor.requestId, ...(f.ruleMessage ? { error: { message: f.ruleMessage } } : {}) },
      ...head,
      metadata: r.kind === 'voucher' ? fromJson<Json>(r.voucher.metadata, {}) : r.kind === 'promotion_tier' ? fromJson<Json>(r.tier.tier.metadata, {}) : {},
    };
  }
  const result = outcome.result as Json;
  const order = calculatedOrder(facts, outcome.state, { order: outcome.effect.order, items: outcome.effect.items });
  const common = {
    valid: true,
    ...head,
    applicable_to: outcome.applicableTo,
    inapplicable_to: outcome.inapplicableTo,
    order,
    ...(request.session ? { session: sessionEcho(request.session) } : {}),
  };
  if (r.kind === 'promotion_tier') {
    return { ...common, id: r.tier.tier.id, ...('discount' in result ? { discount: result.discount as Json } : {}), campaign: r.tier.campaign.name, campaign_id: r.tier.campaign.id, metadata: fromJson<Json>(r.tier.tier.metadata, {}) };
  }
  if (r.kind !== 'voucher') return common;
  const v = r.voucher;
  const gift = 'gift' in result ? (result.gift as { balance: number; credits: number }) : null;
  return {
    ...common,
    ...('discount' in result ? { discount: result.discount as Json } : {}),
    ...(gift ? { gift: { amount: gift.credits, balance: gift.balance, effect: v.gift_effect ?? 'APPLY_TO_ORDER' } } : {}),
    ...('loyalty_card' in result ? { loyalty_card: { points: outcome.consumption.points }, ...(r.reward ? { reward: { id: r.reward.row.id, assignment_id: r.reward.assignment.id, points: outcome.consumption.points } } : {}) } : {}),
    campaign: r.campaign?.name ?? null,
    campaign_id: v.campaign_id,
    metadata: fromJson<Json>(v.metadata, {}),
    start_date: v.start_date,
    expiration_date: v.expiration_date,
  };
}

/** `POST /v1/vouchers/{code}/validate`. */
export async function validateVoucher(deps: Deps, actor: Actor, code: string, input: LegacyInput): Promise<LegacyValidationOut> {
  return legacyValidation(deps, actor, engineRequest(deps, stackableOf('voucher', code, input)), code);
}

/** `POST /v1/promotions/tiers/{id}/validation`. */
export async function validateTier(deps: Deps, actor: Actor, tierId: string, input: LegacyInput): Promise<LegacyValidationOut> {
  return legacyValidation(deps, actor, engineRequest(deps, stackableOf('promotion_tier', tierId, input)), null);
}

async function redeemOne(deps: Deps, actor: Actor, object: 'voucher' | 'promotion_tier', id: string, input: LegacyInput, trackingId?: string): Promise<RedemptionRecord> {
  const request = engineRequest(deps, stackableOf(object, id, input, trackingId));
  const result = await runRedemption(deps, actor, request);
  const record = result.records[0];
  // A single redeemable that applied gives exactly one record without a parent.
  if (!record) throw new Error('a successful single redemption made no record');
  return record;
}

/** `POST /v1/vouchers/{code}/redemption` and `POST /client/v1/redeem?code=`. */
export async function redeemVoucher(deps: Deps, actor: Actor, code: string, input: LegacyInput, trackingId?: string): Promise<RedemptionRecord> {
  return redeemOne(deps, actor, 'voucher', code, input, trackingId);
}

/** `POST /v1/promotions/tiers/{id}/redemption`. */
export async function redeemTier(deps: Deps, actor: Actor, tierId: string, input: LegacyInput): Promise<RedemptionRecord> {
  return redeemOne(deps, actor, 'promotion_tier', tierId, input);
}

/** `GET /client/v1/validate`: the client SDK's query string as a legacy validation body. */
export function clientValidateBody(query: ClientValidateInput): LegacyInput {
  const items = query.order?.items ?? query.item;
  const amount = query.order?.amount ?? query.amount;
  const orderMetadata = query.order?.metadata ?? query.orderMetadata;
  const hasOrder = items !== undefined || amount !== undefined || orderMetadata !== undefined;
  return {
    ...(hasOrder ? { order: { ...(items ? { items } : {}), ...(amount !== undefined ? { amount } : {}), ...(orderMetadata ? { metadata: orderMetadata } : {}) } } : {}),
    ...(query.session_type || query.session_key
      ? {
          session: {
            ...(query.session_type ? { type: query.session_type } : {}),
            ...(query.session_key ? { key: query.session_key } : {}),
            ...(query.session_ttl !== undefined ? { ttl: query.session_ttl } : {}),
            ...(query.session_ttl_unit ? { ttl_unit: query.session_ttl_unit } : {}),
          },
        }
      : {}),
    ...(query.customer && (query.customer.id || query.customer.source_id)
      ? { customer: { ...(query.customer.id ? { id: query.customer.id } : {}), ...(query.customer.source_id ? { source_id: query.customer.source_id } : {}), ...(query.customer.metadata ? { metadata: query.customer.metadata } : {}) } }
      : {}),
    ...(query.metadata ? { metadata: query.metadata } : {}),
    ...(query.tracking_id ? { tracking_id: query.tracking_id } : {}),
    ...(query.gift ? { gift: query.gift } : {}),
    ...(query.reward ? { reward: query.reward } : {}),
  };
}

/**
 * `POST /v1/promotions/validation` (the SDK's `validations.validate(object)`) and
 * `GET /client/v1/promotions/validation`: the promotion tiers that apply to the order, each on its own,
 * in hierarchy order.
 */
export async function validatePromotions(deps: Deps, actor: Actor, input: PromotionsValidationInput, options: { audienceOnly: boolean }): Promise<PromotionsValidationOut> {
  const request: NormalisedRequest = {
    ...engineRequest(deps, {
      redeemables: [{ object: 'voucher', id: 'unused' }],
      ...(input.order ? { order: input.order } : {}),
      ...(input.customer ? { customer: input.customer } : {}),
      ...(input.tracking_id ? { tracking_id: input.tracking_id } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    }),
    redeemables: [],
  };
  const tiers = await qualifyingTiers(deps, actor, request, { audienceOnly: options.audienceOnly });
  const promotions = tiers.map(({ outcome, resolved, facts }) => {
    const tier = resolved.tier.tier;
    const result = outcome.result as Json;
    return {
      id: tier.id,
      object: 'promotion_tier',
      banner: tier.banner,
      name: tier.name,
      ...('discount' in result ? { discount: result.discount } : {}),
      discount_amount: outcome.effect.order + outcome.effect.items.reduce((s, d) => s + d, 0),
      applied_discount_amount: outcome.effect.order + outcome.effect.items.reduce((s, d) => s + d, 0),
      hierarchy: Number(tier.hierarchy),
      campaign_id: resolved.tier.campaign.id,
      campaign: { id: resolved.tier.campaign.id, name: resolved.tier.campaign.name, object: 'campaign' },
      metadata: fromJson<Json>(tier.metadata, {}),
      applicable_to: outcome.applicableTo,
      inapplicable_to: outcome.inapplicableTo,
      order: calculatedOrder(facts, outcome.state, { order: outcome.effect.order, items: outcome.effect.items }),
    };
  });
  promotions.sort((a, b) => a.hierarchy - b.hierarchy);
  return { valid: promotions.length > 0, promotions, tracking_id: request.trackingId };
}
