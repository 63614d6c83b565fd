// The rule names and operators of the validation-rule language (promotions reference 5.3, 5.4) that
// Punchcard evaluates. Every name marked common (★) by the reference is here, together with the
// item sub-rules and counters those rules need; a name or operator outside this table is refused when
// the rule is saved, never silently ignored at redemption time.

/** Which failure key a failing rule maps to (reference 5.8). */
export type RuleFamily = 'customer' | 'order' | 'redemption';

/**
 * What a rule reads:
 * - `segment`: the customer's segment ids;
 * - `metadata`: one metadata member (`property`) of the customer, order, redemption or custom event;
 * - `number`: one number of the order;
 * - `items`: the order lines matching listed products, SKUs or collections (with line sub-rules);
 * - `line-number` / `line-metadata` / `line-flag`: a sub-rule about one matched line;
 * - `lines-number` / `lines-metadata`: the price or metadata of any / every line of the order;
 * - `counter`: a count or sum the caller looked up (redemptions so far, campaign budget);
 * - `holder`: whether the customer holds the redeemed code.
 */
export type RuleKind =
  | 'segment'
  | 'metadata'
  | 'number'
  | 'items'
  | 'line-number'
  | 'line-metadata'
  | 'line-flag'
  | 'lines-number'
  | 'lines-metadata'
  | 'counter'
  | 'holder';

export type MetadataSource = 'customer' | 'order' | 'redemption' | 'custom_event';
export type OrderNumber = 'amount' | 'initial_amount' | 'items_count';
export type LineNumber = 'quantity' | 'price' | 'aggregated_quantity' | 'aggregated_amount';
export type ItemsMode = 'any' | 'every' | 'none' | 'cheapest' | 'most_expensive';

export const COUNTER_NAMES = [
  'campaign.redemptions.count',
  'campaign.redemptions.count.daily',
  'campaign.redemptions.count.weekly',
  'campaign.redemptions.count.monthly',
  'campaign.orders.amount',
  'campaign.orders.amount_discounted',
  'redemption.count.daily',
  'redemption.count.weekly',
  'redemption.count.monthly',
  'redemption.count.per_customer',
  'redemption.count.per_customer.daily',
  'redemption.count.per_customer.weekly',
  'redemption.count.per_customer.monthly',
] as const;

/**
 * Counters the caller looks up before evaluating, each as it stands BEFORE the redemption being checked:
 * `campaign.redemptions.count*` = successful redemptions in the campaign (in the current calendar day,
 * week or month for the suffixed ones); `campaign.orders.amount` = Σ order amounts and
 * `campaign.orders.amount_discounted` = Σ discounts granted in the campaign; `redemption.count.*` =
 * redemptions of this incentive in the current period; `redemption.count.per_customer*` = redemptions
 * of this incentive by this customer (overall or in the period). So `$less_than: [3]` allows a third.
 */
export type CounterName = (typeof COUNTER_NAMES)[number];

export interface RuleNameSpec {
  family: RuleFamily;
  kind: RuleKind;
  /** `line` rules only make sense nested inside an `items` rule. */
  scope: 'any' | 'line';
  /** Metadata rules read the member named by `property`, which is then required. */
  needsProperty: boolean;
  /** The rule cannot be decided without a customer (failure key `missing_customer`). */
  needsCustomer: boolean;
  metadata?: MetadataSource;
  orderNumber?: OrderNumber;
  lineNumber?: LineNumber;
  itemsMode?: ItemsMode;
  /** Default `object` of item references that do not say (`product.id` lists products). */
  defaultObject?: 'product' | 'sku';
  /** For `lines-*` rules: whether one line or every line must satisfy the conditions. */
  quantifier?: 'any' | 'each';
  counter?: CounterName;
}

const spec = (family: RuleFamily, kind: RuleKind, extra: Partial<RuleNameSpec> = {}): RuleNameSpec => ({
  family,
  kind,
  scope: 'any',
  needsProperty: kind === 'metadata' || kind === 'line-metadata' || kind === 'lines-metadata',
  needsCustomer: false,
  ...extra,
});

const counters = Object.fromEntries(
  COUNTER_NAMES.map((name) => [
    name,
    spec('redemption', 'counter', { counter: name, needsCustomer: name.startsWith('redemption.count.per_customer') }),
  ]),
) as Record<CounterName, RuleNameSpec>;

export const RULE_NAMES: Readonly<Record<string, RuleNameSpec>> = {
  'customer.segment': spec('customer', 'segment', { needsCustomer: true }),
  'customer.metadata': spec('customer', 'metadata', { metadata: 'customer', needsCustomer: true }),

  'order.amount': spec('order', 'number', { orderNumber: 'amount' }),
  'order.initial_amount': spec('order', 'number', { orderNumber: 'initial_amount' }),
  'order.items.count': spec('order', 'number', { orderNumber: 'items_count' }),
  'order.metadata': spec('order', 'metadata', { metadata: 'order' }),
  'order.items.price_any': spec('order', 'lines-number', { lineNumber: 'price', quantifier: 'any' }),
  'order.items.price_each': spec('order', 'lines-number', { lineNumber: 'price', quantifier: 'each' }),
  'order.items.metadata_any': spec('order', 'lines-metadata', { quantifier: 'any' }),
  'order.items.metadata_each': spec('order', 'lines-metadata', { quantifier: 'each' }),

  'order.items.any': spec('order', 'items', { itemsMode: 'any' }),
  'order.items.every': spec('order', 'items', { itemsMode: 'every' }),
  'order.items.none': spec('order', 'items', { itemsMode: 'none' }),
  'order.items.cheapest': spec('order', 'items', { itemsMode: 'cheapest' }),
  'order.items.most_expensive': spec('order', 'items', { itemsMode: 'most_expensive' }),
  'order.items.quantity': spec('order', 'line-number', { scope: 'line', lineNumber: 'quantity' }),
  'order.items.aggregated_quantity': spec('order', 'line-number', { scope: 'line', lineNumber: 'aggregated_quantity' }),
  'order.items.price': spec('order', 'line-number', { scope: 'line', lineNumber: 'price' }),
  'order.items.aggregated_amount': spec('order', 'line-number', { scope: 'line', lineNumber: 'aggregated_amount' }),
  'order.items.metadata': spec('order', 'line-metadata', { scope: 'line' }),

  'product.id': spec('order', 'items', { itemsMode: 'any', defaultObject: 'product' }),
  'product.price': spec('order', 'line-number', { scope: 'line', lineNumber: 'price' }),
  'product.quantity': spec('order', 'line-number', { scope: 'line', lineNumber: 'quantity' }),
  'product.discount_applicable': spec('order', 'line-flag', { scope: 'line' }),
  'sku.id': spec('order', 'items', { itemsMode: 'any', defaultObject: 'sku' }),
  'sku.price': spec('order', 'line-number', { scope: 'line', lineNumber: 'price' }),
  'sku.quantity': spec('order', 'line-number', { scope: 'line', lineNumber: 'quantity' }),
  'sku.discount_applicable': spec('order', 'line-flag', { scope: 'line' }),

  ...counters,
  'redemption.metadata': spec('redemption', 'metadata', { metadata: 'redemption' }),
  'publication.redeemable_by_linked_customer': spec('redemption', 'holder', { needsCustomer: true }),
  'custom_event.metadata': spec('redemption', 'metadata', { metadata: 'custom_event' }),
};

/** Legacy snake_case names the vendor still accepts (reference 5.3), stored under their dotted names. */
export const LEGACY_NAMES: Readonly<Record<string, string>> = {
  customer_segment: 'customer.segment',
  customer_metadata: 'customer.metadata',
  custom_event_metadata: 'custom_event.metadata',
  order_items_metadata: 'order.items.metadata',
  order_metadata: 'order.metadata',
  product_metadata: 'product.metadata',
  redemption_metadata: 'redemption.metadata',
};

export const RULE_OPERATORS = [
  '$is',
  '$is_not',
  '$in',
  '$not_in',
  '$less_than',
  '$less_than_or_equal',
  '$more_than',
  '$more_than_or_equal',
  '$starts_with',
  '$ends_with',
  '$contains',
  '$count',
  '$count_more',
  '$count_less',
  '$not_differ',
  '$not_intersect',
  '$from',
  '$after',
  '$before',
  '$more_than_ago',
  '$less_than_ago',
  '$is_days_ago',
  '$more_than_future',
  '$less_than_future',
  '$is_days_in_future',
] as const;

export type RuleOperator = (typeof RULE_OPERATORS)[number];

/** The vendor's own create example uses `$greater_than_or_equal`, which is not in its schema (reference 5.4). */
export const OPERATOR_ALIASES: Readonly<Record<string, RuleOperator>> = {
  $greater_than_or_equal: '$more_than_or_equal',
};

const NUMERIC: RuleOperator[] = ['$is', '$is_not', '$in', '$not_in', '$less_than', '$less_than_or_equal', '$more_than', '$more_than_or_equal'];

/** Operators each kind of rule accepts. */
export const OPERATORS_BY_KIND: Record<RuleKind, ReadonlySet<RuleOperator>> = {
  segment: new Set(['$is', '$is_not', '$in', '$not_in']),
  metadata: new Set(RULE_OPERATORS.filter((op) => op !== '$from')),
  'line-metadata': new Set(RULE_OPERATORS.filter((op) => op !== '$from')),
  'lines-metadata': new Set(RULE_OPERATORS.filter((op) => op !== '$from')),
  number: new Set(NUMERIC),
  'line-number': new Set(NUMERIC),
  'lines-number': new Set(NUMERIC),
  counter: new Set(NUMERIC),
  items: new Set(['$is', '$in', '$from']),
  'line-flag': new Set(['$is']),
  holder: new Set(['$is']),
};

/** Operators the language defines that no rule kind evaluates (the vendor is silent on their formats). */
export const UNSUPPORTED_OPERATORS: ReadonlySet<string> = new Set(['$timeframe', '$timeframe_absolute', '$timeframe_daily_hours', '$dow']);
