import type { CustomerRedeemableOut } from '../../api/customer-redeemables.ts';
import type { ItemRef } from '../../domain/rules/definition.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { fromJson } from '../../store/json.ts';
import { findCollections } from '../../store/product-collections.ts';
import { findLiveProduct, findLiveSku } from '../../store/products.ts';
import type { Actor, Deps } from '../context.ts';
import { rulesFor } from '../validation-rules/validation-rules.ts';

// What a customer may read of the terms of a coupon they hold: when it can be used, how many uses are
// left, and its validation rules' conditions on the order (amount, lines) and on their own redemptions,
// and the products it applies to, by name. Conditions about who the customer is (segments, customer or
// order metadata) are the shop's targeting: the customer is told only that further conditions apply,
// never what they are, nor ids of segments or products. The page puts each condition into words with the
// console's rule translation (web/src/rules/translate.ts), so the wire form of a condition is kept.

/** Conditions a customer can act on: what their order holds, and how often they have used the coupon. */
const SHOWN_NAMES = new Set(['order.amount', 'order.initial_amount', 'order.items.count', 'redemption.count.per_customer']);
const SHOWN_OPERATORS = new Set(['$is', '$is_not', '$in', '$more_than', '$more_than_or_equal', '$less_than', '$less_than_or_equal']);

interface WireRule {
  name: string;
  property: string | null;
  conditions: Record<string, unknown[]>;
  rules: Record<string, never>;
}

export interface CouponRule {
  /** The shown conditions in the validation rule's wire form, joined by one AND or OR; null when none can be shown. */
  rules: Record<string, WireRule | string> | null;
  /** Whether the rule has conditions not shown (about who the customer is, or nested): "further conditions apply". */
  more_conditions: boolean;
  /** Names of the products, SKUs and collections the discount applies to, or is never applied to. */
  applies_to: string[];
  excluded: string[];
}

export interface CouponTerms {
  validity_timeframe: { interval?: string; duration?: string } | null;
  validity_day_of_week: number[] | null;
  validity_hours: unknown;
  /** Uses left of the code (null: no limit). */
  uses_left: number | null;
  conditions: CouponRule[];
}

/** The shown part of one rule set: a flat logic of one join whose conditions are all about the order or the customer's own redemptions. */
function shownRules(stored: Record<string, unknown>): { rules: CouponRule['rules']; more: boolean } {
  const logic = typeof stored.logic === 'string' ? stored.logic.trim() : '';
  const tokens = logic === '' ? [] : logic.split(/\s+/);
  const ids = tokens.filter((_, i) => i % 2 === 0);
  const joins = new Set(tokens.filter((_, i) => i % 2 === 1).map((t) => t.toUpperCase()));
  const flat = joins.size <= 1 && [...joins].every((j) => j === 'AND' || j === 'OR') && ids.every((id) => /^\d+$/.test(id));
  if (!flat) return { rules: null, more: ids.length > 0 };
  const join = joins.has('OR') ? 'OR' : 'AND';
  const shown: WireRule[] = [];
  let more = false;
  for (const id of ids) {
    const rule = stored[id] as { name?: unknown; conditions?: Record<string, unknown>; rules?: Record<string, unknown> } | undefined;
    const entries = Object.entries(rule?.conditions ?? {});
    const [operator, values] = entries[0] ?? [];
    const visible =
      typeof rule?.name === 'string' &&
      SHOWN_NAMES.has(rule.name) &&
      Object.keys(rule.rules ?? {}).length === 0 &&
      entries.length === 1 &&
      operator !== undefined &&
      SHOWN_OPERATORS.has(operator) &&
      Array.isArray(values) &&
      values.every((v) => typeof v === 'number');
    if (visible) shown.push({ name: rule.name as string, property: null, conditions: { [operator]: values as number[] }, rules: {} });
    else more = true;
  }
  // Of "A OR B" with B hidden, showing A alone would promise too much: show nothing but "conditions apply".
  if (shown.length === 0 || (join === 'OR' && more)) return { rules: null, more: ids.length > 0 };
  const rules: Record<string, WireRule | string> = {};
  shown.forEach((rule, i) => (rules[String(i + 1)] = rule));
  rules.logic = shown.map((_, i) => String(i + 1)).join(` ${join} `);
  return { rules, more };
}

async function namesOf(deps: Deps, actor: Actor, refs: readonly ItemRef[]): Promise<string[]> {
  const names: string[] = [];
  const collectionIds = refs.flatMap((r) => (r.object === 'products_collection' && r.id ? [r.id] : []));
  const collections = new Map((await findCollections(deps.db, actor.projectId, collectionIds)).map((c) => [c.id, c.name]));
  for (const ref of refs) {
    const key = ref.id ?? ref.source_id ?? null;
    if (!key) continue;
    if (ref.object === 'product') {
      const product = await findLiveProduct(deps.db, actor.projectId, key);
      if (product?.name) names.push(product.name);
    } else if (ref.object === 'sku') {
      const sku = await findLiveSku(deps.db, actor.projectId, key);
      if (sku?.sku) names.push(sku.sku);
    } else {
      const name = collections.get(key);
      if (name) names.push(name);
    }
  }
  return names;
}

type CampaignValidity = Pick<CampaignRow, 'validity_timeframe' | 'validity_day_of_week' | 'validity_hours'>;

/** The terms of one coupon the customer holds (its own rules and validity, else its campaign's). */
export async function couponTerms(deps: Deps, actor: Actor, item: CustomerRedeemableOut, campaign: CampaignValidity | undefined): Promise<CouponTerms> {
  const voucher = item.redeemable.voucher;
  const objects = [{ type: 'voucher', id: voucher.id }, ...(item.campaign_id ? [{ type: 'campaign', id: item.campaign_id }] : [])];
  const assigned = await rulesFor(deps.db, actor.projectId, objects);
  const conditions: CouponRule[] = [];
  for (const { definition } of assigned) {
    const { rules, more } = shownRules(definition.rules);
    const [applies, excluded] = await Promise.all([namesOf(deps, actor, definition.applicable_to.included), namesOf(deps, actor, definition.applicable_to.excluded)]);
    if (rules === null && !more && applies.length === 0 && excluded.length === 0) continue;
    conditions.push({ rules, more_conditions: more, applies_to: applies, excluded });
  }
  const quantity = voucher.redemption?.quantity ?? null;
  return {
    validity_timeframe: voucher.validity_timeframe ?? fromJson<CouponTerms['validity_timeframe']>(campaign?.validity_timeframe ?? null, null),
    validity_day_of_week: voucher.validity_day_of_week ?? fromJson<number[] | null>(campaign?.validity_day_of_week ?? null, null),
    validity_hours: voucher.validity_hours ?? fromJson<unknown>(campaign?.validity_hours ?? null, null),
    uses_left: quantity === null ? null : Math.max(0, quantity - (voucher.redemption?.redeemed_quantity ?? 0)),
    conditions,
  };
}
