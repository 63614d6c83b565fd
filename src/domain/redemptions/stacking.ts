// Stacking rules (promotions reference 6.6): how many redeemables one request may carry and apply, how
// categories limit and exclude each other, and in which order redeemables apply. Pure.

export interface StackingRules {
  redeemables_limit: number;
  applicable_redeemables_limit: number;
  applicable_redeemables_per_category_limit: number;
  applicable_redeemables_category_limits: Record<string, number>;
  applicable_exclusive_redeemables_limit: number;
  applicable_exclusive_redeemables_per_category_limit: number;
  exclusive_categories: string[];
  joint_categories: string[];
  redeemables_application_mode: 'ALL' | 'PARTIAL';
  redeemables_sorting_rule: 'CATEGORY_HIERARCHY' | 'REQUESTED_ORDER';
  redeemables_products_application_mode: 'STACK' | 'ONCE';
  redeemables_no_effect_rule: 'REDEEM_ANYWAY' | 'SKIP';
  no_effect_skip_categories: string[];
  no_effect_redeem_anyway_categories: string[];
  redeemables_rollback_order_mode: 'WITH_ORDER' | 'WITHOUT_ORDER';
  discount_calculation_mode: 'DISCOUNTED_AMOUNT' | 'INITIAL_AMOUNT';
  /** Per-category overrides of `discount_calculation_mode` (management API). */
  initial_amount_mode_categories: string[];
  discounted_amount_mode_categories: string[];
}

/** Defaults for a project that set none: the vendor schema's limits, ALL mode (DECISIONS 11). */
export const DEFAULT_STACKING_RULES: StackingRules = {
  redeemables_limit: 30,
  applicable_redeemables_limit: 5,
  applicable_redeemables_per_category_limit: 1,
  applicable_redeemables_category_limits: {},
  applicable_exclusive_redeemables_limit: 1,
  applicable_exclusive_redeemables_per_category_limit: 1,
  exclusive_categories: [],
  joint_categories: [],
  redeemables_application_mode: 'ALL',
  redeemables_sorting_rule: 'REQUESTED_ORDER',
  redeemables_products_application_mode: 'STACK',
  redeemables_no_effect_rule: 'REDEEM_ANYWAY',
  no_effect_skip_categories: [],
  no_effect_redeem_anyway_categories: [],
  redeemables_rollback_order_mode: 'WITH_ORDER',
  discount_calculation_mode: 'DISCOUNTED_AMOUNT',
  initial_amount_mode_categories: [],
  discounted_amount_mode_categories: [],
};

export interface StackCategory {
  id: string;
  hierarchy: number;
}

export interface Stackable {
  /** Position in the request. */
  index: number;
  categories: readonly StackCategory[];
}

export type Stackability = 'JOINT' | 'EXCLUSIVE' | 'COMMON';

/** "Always stackable" wins over "never stackable" when a redeemable is in both kinds of category. */
export function stackability(item: Stackable, rules: StackingRules): Stackability {
  if (item.categories.some((c) => rules.joint_categories.includes(c.id))) return 'JOINT';
  if (item.categories.some((c) => rules.exclusive_categories.includes(c.id))) return 'EXCLUSIVE';
  return 'COMMON';
}

/**
 * The order redeemables apply in: as requested, or by category hierarchy (lower first; uncategorised
 * last; ties keep the requested order).
 */
export function applicationOrder<T extends Stackable>(items: readonly T[], rules: StackingRules): T[] {
  if (rules.redeemables_sorting_rule === 'REQUESTED_ORDER') return [...items];
  const rank = (item: T) => (item.categories.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...item.categories.map((c) => c.hierarchy)));
  return [...items].sort((a, b) => rank(a) - rank(b) || a.index - b.index);
}

export type SkipKey =
  | 'applicable_redeemables_limit_exceeded'
  | 'applicable_redeemables_per_category_limit_exceeded'
  | 'applicable_exclusive_redeemables_limit_exceeded'
  | 'applicable_exclusive_redeemables_per_category_limit_exceeded'
  | 'exclusion_rules_not_met';

export const SKIP_MESSAGES: Record<SkipKey | 'preceding_validation_failed' | 'no_effect', string> = {
  applicable_redeemables_limit_exceeded: 'Applicable redeemables limit exceeded',
  applicable_redeemables_per_category_limit_exceeded: 'Applicable redeemables limit per category exceeded',
  applicable_exclusive_redeemables_limit_exceeded: 'Applicable exclusive redeemables limit exceeded',
  applicable_exclusive_redeemables_per_category_limit_exceeded: 'Applicable exclusive redeemables limit per category exceeded',
  exclusion_rules_not_met: 'Redeemable cannot be applied due to exclusion rules',
  preceding_validation_failed: 'Redeemable cannot be applied due to preceding validation failure',
  no_effect: 'Redeemable has no effect',
};

/** Tracks what has applied so far and answers whether the next redeemable may, or why it is skipped. */
export class StackingTracker {
  readonly #rules: StackingRules;
  #applied = 0;
  #exclusive = 0;
  #common = 0;
  readonly #perCategory = new Map<string, number>();
  readonly #perExclusiveCategory = new Map<string, number>();

  constructor(rules: StackingRules) {
    this.#rules = rules;
  }

  /** Why `item` may not apply next, or null when it may. Does not record anything. */
  check(item: Stackable): SkipKey | null {
    const rules = this.#rules;
    if (this.#applied >= rules.applicable_redeemables_limit) return 'applicable_redeemables_limit_exceeded';
    const kind = stackability(item, rules);
    if (kind === 'EXCLUSIVE') {
      if (this.#common > 0) return 'exclusion_rules_not_met';
      if (this.#exclusive >= rules.applicable_exclusive_redeemables_limit) return 'applicable_exclusive_redeemables_limit_exceeded';
      for (const c of item.categories) {
        if (!rules.exclusive_categories.includes(c.id)) continue;
        if ((this.#perExclusiveCategory.get(c.id) ?? 0) >= rules.applicable_exclusive_redeemables_per_category_limit) {
          return 'applicable_exclusive_redeemables_per_category_limit_exceeded';
        }
      }
    }
    if (kind === 'COMMON' && this.#exclusive > 0) return 'exclusion_rules_not_met';
    for (const c of item.categories) {
      const limit = rules.applicable_redeemables_category_limits[c.id] ?? rules.applicable_redeemables_per_category_limit;
      if ((this.#perCategory.get(c.id) ?? 0) >= limit) return 'applicable_redeemables_per_category_limit_exceeded';
    }
    return null;
  }

  record(item: Stackable): void {
    const kind = stackability(item, this.#rules);
    this.#applied += 1;
    if (kind === 'EXCLUSIVE') this.#exclusive += 1;
    if (kind === 'COMMON') this.#common += 1;
    for (const c of item.categories) {
      this.#perCategory.set(c.id, (this.#perCategory.get(c.id) ?? 0) + 1);
      if (this.#rules.exclusive_categories.includes(c.id)) this.#perExclusiveCategory.set(c.id, (this.#perExclusiveCategory.get(c.id) ?? 0) + 1);
    }
  }
}

/** Whether a redeemable whose discount came out 0 is skipped (`no_effect`) or applied anyway. */
export function skipsWithoutEffect(item: Stackable, rules: StackingRules): boolean {
  if (item.categories.some((c) => rules.no_effect_skip_categories.includes(c.id))) return true;
  if (item.categories.some((c) => rules.no_effect_redeem_anyway_categories.includes(c.id))) return false;
  return rules.redeemables_no_effect_rule === 'SKIP';
}

/** The base a redeemable's percentages and fixed prices are computed on: its categories override the rule. */
export function calculationModeOf(item: Stackable, rules: StackingRules): 'DISCOUNTED_AMOUNT' | 'INITIAL_AMOUNT' {
  if (item.categories.some((c) => rules.initial_amount_mode_categories.includes(c.id))) return 'INITIAL_AMOUNT';
  if (item.categories.some((c) => rules.discounted_amount_mode_categories.includes(c.id))) return 'DISCOUNTED_AMOUNT';
  return rules.discount_calculation_mode;
}
