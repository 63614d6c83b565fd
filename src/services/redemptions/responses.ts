import { totalsOf, type DiscountState } from '../../domain/discounts/apply.ts';
import { calculatedAmounts, type AppliedDiscounts } from '../../domain/orders/order-math.ts';
import type { Evaluation, Outcome } from '../../domain/redemptions/engine.ts';
import { failureCode } from '../../domain/redemptions/failures.ts';
import type { StackingRules } from '../../domain/redemptions/stacking.ts';
import type { ValidationEntryOut } from '../../api/redemptions.ts';
import { fromJson } from '../../store/json.ts';
import type { CategoryOut, Facts, Resolved } from './facts.ts';

// How evaluated redeemables and calculated orders appear on the wire (promotions reference 6.3): one
// entry per redeemable with its status, the order snapshot after it, its result or the reason it did
// not apply; the calculated order; the stacking rules in effect.

export type Json = Record<string, unknown>;

/** The stacking rules as responses echo them. */
export function stackingRulesEcho(rules: StackingRules): StackingRules {
  return { ...rules };
}

/**
 * A calculated order: the stored order's identity (when the request named one) and the amounts of the
 * given state, `applied_*` being the given contributions.
 */
export function calculatedOrder(facts: Pick<Facts, 'order' | 'customer'>, state: DiscountState, applied: AppliedDiscounts): Json {
  const existing = facts.order.existing;
  // Built member by member rather than from spreads: on Node 20, members added to an object that starts
  // as a spread cost microseconds each, and a validation lays out an order per applied redeemable.
  const order: Json = existing ? { id: existing.id, status: existing.status, created_at: existing.created_at } : {};
  if (facts.order.sourceId !== null) order.source_id = facts.order.sourceId;
  Object.assign(order, calculatedAmounts(totalsOf(state), state.lines, applied));
  order.metadata = facts.order.metadata;
  order.customer_id = existing?.customer_id ?? facts.customer.id;
  order.object = 'order';
  return order;
}

interface RedeemableDetails {
  categories: CategoryOut[];
  metadata?: Json;
  campaign_name?: string | null;
  campaign_id?: string | null;
  name?: string | null;
}

function redeemableDetails(r: Resolved, expand: ReadonlySet<string>): RedeemableDetails {
  const details: RedeemableDetails = { categories: r.categories };
  if (r.kind === 'voucher') {
    details.metadata = fromJson<Json>(r.voucher.metadata, {});
    if (expand.has('redeemable')) {
      details.campaign_name = r.campaign?.name ?? null;
      details.campaign_id = r.campaign?.id ?? null;
    }
  }
  if (r.kind === 'promotion_tier') {
    details.metadata = fromJson<Json>(r.tier.tier.metadata, {});
    if (expand.has('redeemable')) {
      details.campaign_name = r.tier.campaign.name;
      details.campaign_id = r.tier.campaign.id;
      details.name = r.tier.tier.name;
    }
  }
  return details;
}

/** One redeemable's entry in `redeemables`, `inapplicable_redeemables` or `skipped_redeemables`. */
export function entryOf(outcome: Outcome, facts: Facts, requestId: string, expand: ReadonlySet<string>): ValidationEntryOut {
  const r = facts.resolved[outcome.candidate.index] as Resolved;
  const { id, object } = outcome.candidate;
  // Each entry starts with named members, not with a spread: see calculatedOrder.
  switch (outcome.status) {
    case 'APPLICABLE':
      return {
        status: outcome.status,
        id,
        object,
        order: calculatedOrder(facts, outcome.state, { order: outcome.effect.order, items: outcome.effect.items }),
        applicable_to: outcome.applicableTo,
        inapplicable_to: outcome.inapplicableTo,
        result: outcome.result as Json,
        ...redeemableDetails(r, expand),
      };
    case 'INAPPLICABLE': {
      const f = outcome.failure;
      return {
        status: outcome.status,
        id,
        object,
        result: {
          error: {
            code: failureCode(f.key),
            key: f.key,
            message: f.message,
            details: f.details,
            request_id: requestId,
            resource_id: id,
            resource_type: object,
            ...(f.ruleMessage !== null ? { error: { message: f.ruleMessage } } : {}),
          },
          details: { key: f.key, message: f.ruleMessage ?? f.message },
        },
        ...(r.kind === 'missing' ? {} : redeemableDetails(r, expand)),
      };
    }
    case 'SKIPPED':
      return {
        status: outcome.status,
        id,
        object,
        result: { details: { key: outcome.key, message: outcome.message } },
        ...(r.kind === 'missing' ? {} : redeemableDetails(r, expand)),
      };
  }
}

export interface EntryLists {
  redeemables: ValidationEntryOut[];
  inapplicable: ValidationEntryOut[];
  skipped: ValidationEntryOut[];
}

export function entryLists(evaluation: Evaluation, facts: Facts, requestId: string, expand: ReadonlySet<string>): EntryLists {
  const redeemables = evaluation.outcomes.map((o) => entryOf(o, facts, requestId, expand));
  return {
    redeemables,
    inapplicable: redeemables.filter((e) => e.status === 'INAPPLICABLE'),
    skipped: redeemables.filter((e) => e.status === 'SKIPPED'),
  };
}

/**
 * The optional lists of an answer with the empty ones left out: the vendor's response schemas make
 * `inapplicable_redeemables` and `skipped_redeemables` optional and its answers omit them when empty.
 */
export function nonEmptyLists<T extends Record<string, readonly unknown[]>>(lists: T): Partial<T> {
  return Object.fromEntries(Object.entries(lists).filter(([, list]) => list.length > 0)) as Partial<T>;
}
