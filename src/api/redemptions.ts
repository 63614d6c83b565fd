import Type, { type Static } from 'typebox';
import { MAX_MONEY } from '../domain/orders/order-math.ts';
import { TTL_UNITS } from '../domain/redemptions/session.ts';
import { DateOrDateTime, DateTime, Limit, Metadata, Nullable, StoredInteger } from './common.ts';
import { FREE_FORM_MARK, FreeFormObject } from './free-form.ts';
import { CustomerBody } from './customers.ts';
import { CreateOrderBody, OrderItemInput, OrderObject } from './orders.ts';

// Stackable validation and redemption (promotions reference 6), redemption records, lists and
// rollbacks, qualifications (8), the legacy single-object endpoints (6.11) and the stacking rules of
// the management API (6.6). Request shapes are declared once here; the engine's business checks
// (duplicates, stacks, failure keys) happen in src/domain/redemptions.

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

// ---- stacking rules ----

const CategoryIds = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100, description });

const StackingRulesFields = {
  redeemables_limit: Type.Integer({ minimum: 1, maximum: 30, description: 'Most redeemables one request may carry' }),
  applicable_redeemables_limit: Type.Integer({ minimum: 1, maximum: 30, description: 'Most redeemables applied; extras are SKIPPED' }),
  applicable_redeemables_per_category_limit: Type.Integer({ minimum: 1, maximum: 30 }),
  applicable_redeemables_category_limits: Type.Record(Type.String(), Type.Integer({ minimum: 1, maximum: 10 }), {
    description: 'Category id → most applied from that category',
  }),
  applicable_exclusive_redeemables_limit: Type.Integer({ minimum: 1, maximum: 5 }),
  applicable_exclusive_redeemables_per_category_limit: Type.Integer({ minimum: 1, maximum: 5 }),
  exclusive_categories: CategoryIds('"Never stackable" categories'),
  joint_categories: CategoryIds('"Always stackable" categories'),
  redeemables_application_mode: Type.Enum(['ALL', 'PARTIAL'], { description: 'ALL: every redeemable must apply or nothing is redeemed' }),
  redeemables_sorting_rule: Type.Enum(['CATEGORY_HIERARCHY', 'REQUESTED_ORDER']),
  redeemables_products_application_mode: Type.Enum(['STACK', 'ONCE']),
  redeemables_no_effect_rule: Type.Enum(['REDEEM_ANYWAY', 'SKIP']),
  no_effect_skip_categories: CategoryIds('Categories whose redeemables are skipped when they have no effect'),
  no_effect_redeem_anyway_categories: CategoryIds('Categories whose redeemables apply even without effect'),
  redeemables_rollback_order_mode: Type.Enum(['WITH_ORDER', 'WITHOUT_ORDER']),
  discount_calculation_mode: Type.Enum(['INITIAL_AMOUNT', 'DISCOUNTED_AMOUNT']),
  initial_amount_mode_categories: CategoryIds('Categories computed on the initial amount'),
  discounted_amount_mode_categories: CategoryIds('Categories computed on the discounted amount'),
};

type FieldMap = typeof StackingRulesFields;
const optionalNullable = Object.fromEntries(
  Object.entries(StackingRulesFields).map(([k, v]) => [k, Type.Optional(Nullable(v))]),
) as { [K in keyof FieldMap]: ReturnType<typeof Type.Optional<ReturnType<typeof Nullable<FieldMap[K]>>>> };

export const StackingRulesBody = Type.Object(optionalNullable, { description: 'Members not sent keep their defaults (create) or stored values (update)' });
export type StackingRulesInput = Static<typeof StackingRulesBody>;

/** The rules in effect, as every validation, redemption and qualification echoes them. */
export const StackingRulesEcho = Type.Object(StackingRulesFields);

export const StackingRulesObject = Type.Object({
  id: Type.String({ description: 'str_…' }),
  ...StackingRulesFields,
  created_at: DateTime,
  updated_at: Nullable(DateTime),
});

export const StackingRulesList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(StackingRulesObject),
  total: Type.Integer(),
});

// ---- validation and redemption requests ----

export const REDEEMABLE_OBJECTS = ['voucher', 'promotion_tier', 'promotion_stack'] as const;

export const RedeemableInput = Type.Object({
  object: Type.Optional(Type.Enum(REDEEMABLE_OBJECTS, { default: 'voucher' })),
  id: Id('Voucher code (or v_ id), promotion tier id (promo_…) or promotion stack id (stack_…)'),
  gift: Type.Optional(
    Nullable(
      Type.Object({
        credits: Type.Optional(
          Nullable(StoredInteger('bigint', { minimum: 0, description: 'Gift credits to use (minor units); as much as covers the order when absent' })),
        ),
      }),
    ),
  ),
  reward: Type.Optional(
    Nullable(
      Type.Object({
        id: Type.Optional(Nullable(Id('Reward id (rew_…) or reward assignment id'))),
        points: Type.Optional(Nullable(StoredInteger('bigint', { minimum: 1, description: 'Points to pay with; as many as cover the order when absent' }))),
      }),
    ),
  ),
});
export type RedeemableInputType = Static<typeof RedeemableInput>;

export const SessionInput = Type.Object({
  key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Own session key; one (ssn_…) is generated when absent' }))),
  type: Type.Optional(Nullable(Type.Enum(['LOCK']))),
  ttl: Type.Optional(Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1e15 }))),
  ttl_unit: Type.Optional(Nullable(Type.Enum(TTL_UNITS))),
});
export type SessionInputType = Static<typeof SessionInput>;

export const EXPAND_OPTIONS = ['order', 'redeemable', 'redemption', 'category'] as const;

export const Options = Type.Object({
  expand: Type.Optional(Nullable(Type.Array(Type.Enum(EXPAND_OPTIONS), { maxItems: 10 }))),
});

export const StackableBody = Type.Object({
  redeemables: Type.Array(RedeemableInput, { minItems: 1, maxItems: 30 }),
  order: Type.Optional(Nullable(CreateOrderBody)),
  customer: Type.Optional(Nullable(CustomerBody)),
  tracking_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  session: Type.Optional(Nullable(SessionInput)),
  metadata: Type.Optional(Nullable(Metadata)),
  options: Type.Optional(Nullable(Options)),
});
export type StackableInput = Static<typeof StackableBody>;

// ---- responses ----

const Loose = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

const CategoryOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hierarchy: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('category'),
  stacking_rules_type: Type.Optional(Type.Enum(['JOINT', 'EXCLUSIVE'])),
});

export const SimpleCustomerOut = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  source_id: Nullable(Type.String()),
  metadata: Metadata,
  object: Type.Literal('customer'),
});
export const ResultList = Type.Object({ data: Type.Array(Loose('applicable_to entry with order_item_indices')), total: Type.Integer(), object: Type.Literal('list'), data_ref: Type.Literal('data') });

export const ValidationEntry = Type.Object(
  {
    status: Type.Enum(['APPLICABLE', 'INAPPLICABLE', 'SKIPPED']),
    id: Type.String({ description: 'As sent (a code, a promo_ id)' }),
    object: Type.Enum(['voucher', 'promotion_tier']),
    order: Type.Optional(Loose('Order snapshot after this redeemable; applied_* amounts are its own (APPLICABLE only)')),
    applicable_to: Type.Optional(ResultList),
    inapplicable_to: Type.Optional(ResultList),
    result: Loose('APPLICABLE: {discount} | {gift:{balance,credits}} | {loyalty_card:{points}}; INAPPLICABLE: {error, details}; SKIPPED: {details}'),
    metadata: Type.Optional(Metadata),
    categories: Type.Optional(Type.Array(CategoryOut)),
    campaign_name: Type.Optional(Nullable(Type.String())),
    campaign_id: Type.Optional(Nullable(Type.String())),
    name: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);

export type ValidationEntryOut = Static<typeof ValidationEntry>;

const CalculatedOrder = Loose('Calculated order with its discounts; id only when an existing order was named');

export const SessionEcho = Type.Object({ key: Type.String(), type: Type.Literal('LOCK'), ttl: Type.Number(), ttl_unit: Type.Enum(TTL_UNITS) });

export const ValidationResponse = Type.Object({
  id: Type.String({ description: 'valid_…' }),
  valid: Type.Boolean(),
  redeemables: Type.Array(ValidationEntry),
  // Left out when empty, as the vendor does (src/services/redemptions/responses.ts nonEmptyLists).
  skipped_redeemables: Type.Optional(Type.Array(ValidationEntry)),
  inapplicable_redeemables: Type.Optional(Type.Array(ValidationEntry)),
  order: Type.Optional(CalculatedOrder),
  tracking_id: Nullable(Type.String()),
  session: Type.Optional(SessionEcho),
  stacking_rules: StackingRulesEcho,
});

export type ValidationResponseOut = Static<typeof ValidationResponse>;

export const RedemptionRecordObject = Type.Object(
  {
    id: Type.String({ description: 'r_… / rf_… (redemption) or rr_… / rrf_… (rollback)' }),
    object: Type.Enum(['redemption', 'redemption_rollback']),
    date: DateTime,
    customer_id: Nullable(Type.String()),
    tracking_id: Nullable(Type.String()),
    metadata: Metadata,
    amount: Type.Optional(Type.Integer({ description: 'Gift credits or loyalty points (negative on rollbacks)' })),
    redemption: Nullable(Type.String({ description: 'Parent redemption id (children), or the redemption a rollback undid' })),
    result: Type.Enum(['SUCCESS', 'FAILURE']),
    status: Type.Enum(['SUCCEEDED', 'FAILED', 'ROLLED_BACK']),
    failure_code: Type.Optional(Type.String()),
    failure_message: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    session: Type.Optional(Type.Object({ key: Type.String() })),
    related_redemptions: Type.Optional(Loose('rollbacks[{id, date, rollback_order_mode}] and redemptions[{id, date}]')),
    order: Nullable(OrderObject),
    channel: Type.Object({ channel_id: Nullable(Type.String()), channel_type: Type.String() }),
    customer: Nullable(SimpleCustomerOut),
    related_object_type: Type.String(),
    related_object_id: Type.String(),
    voucher: Type.Optional(Nullable(Loose('Voucher after the operation, with holder'))),
    promotion_tier: Type.Optional(Loose('Promotion tier with its campaign')),
    reward: Type.Optional(Loose('Reward with customer and assignment_id')),
    gift: Type.Optional(Type.Object({ amount: Type.Integer() })),
    loyalty_card: Type.Optional(Type.Object({ points: Type.Integer() })),
  },
  { additionalProperties: true },
);

export type RedemptionRecordOut = Static<typeof RedemptionRecordObject>;

export const RedemptionResponse = Type.Object({
  redemptions: Type.Array(RedemptionRecordObject),
  parent_redemption: Type.Optional(RedemptionRecordObject),
  order: Type.Optional(OrderObject),
  inapplicable_redeemables: Type.Optional(Type.Array(ValidationEntry)),
  skipped_redeemables: Type.Optional(Type.Array(ValidationEntry)),
});

export type RedemptionResponseOut = Static<typeof RedemptionResponse>;

// ---- records and lists ----

export const REDEMPTION_ORDERS = ['created_at', '-created_at', 'id', '-id', 'voucher_code', '-voucher_code', 'tracking_id', '-tracking_id', 'customer_id', '-customer_id'] as const;
const ResultEnum = Type.Enum(['SUCCESS', 'FAILURE']);

export const ListRedemptionsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, default: 1 })),
  result: Type.Optional(Type.Union([ResultEnum, Type.Array(ResultEnum, { maxItems: 2 })], { description: 'Repeat for several values' })),
  campaign: Type.Optional(Type.String({ minLength: 1, description: 'Campaign name' })),
  customer: Type.Optional(Type.String({ minLength: 1, description: 'Customer id or source_id; an unknown one gives an empty list' })),
  order: Type.Optional(Type.Enum(REDEMPTION_ORDERS, { description: 'Default -created_at (newest first)' })),
  created_at: Type.Optional(
    Type.Object({ before: Type.Optional(DateOrDateTime), after: Type.Optional(DateOrDateTime) }, { description: 'created_at[before] / created_at[after], exclusive' }),
  ),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'filters[<field>][conditions][<$op>]=…; fields voucher_code, related_object_id, related_object_parent_id, parent_redemption_id, failure_code, result, object, customer_id, campaign_name, user_login, status, metadata.<key>; filters[junction]=and|or',
    }),
  ),
});
export type ListRedemptionsInput = Static<typeof ListRedemptionsQuery>;

export const RedemptionList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('redemptions'),
  redemptions: Type.Array(RedemptionRecordObject),
  total: Type.Integer(),
});

export const VoucherRedemptionsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, default: 1 })),
});
export type VoucherRedemptionsInput = Static<typeof VoucherRedemptionsQuery>;

export const VoucherRedemptions = Type.Object({
  quantity: Nullable(Type.Integer()),
  redeemed_quantity: Type.Integer(),
  object: Type.Literal('list'),
  url: Type.String(),
  data_ref: Type.Literal('redemption_entries'),
  total: Type.Integer(),
  redemption_entries: Type.Array(RedemptionRecordObject),
});

export const RedemptionParams = Type.Object({ redemptionId: Type.String({ minLength: 1, maxLength: 255 }) });

// ---- rollbacks ----

export const RollbackQuery = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 2000 })),
  tracking_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

export const RollbackBody = Type.Object({
  reason: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  tracking_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  customer: Type.Optional(Nullable(CustomerBody)),
  order: Type.Optional(Nullable(Type.Object({ id: Type.Optional(Nullable(Id('ord_…'))), source_id: Type.Optional(Nullable(Id('Merchant order id'))) }, { additionalProperties: true, ...FREE_FORM_MARK }))),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type RollbackInput = Static<typeof RollbackBody>;

export const RollbacksResponse = Type.Object({
  rollbacks: Type.Array(RedemptionRecordObject),
  parent_rollback: RedemptionRecordObject,
  order: Nullable(OrderObject),
});

// ---- sessions ----

export const SessionParams = Type.Object({ code: Type.String({ minLength: 1 }), sessionKey: Type.String({ minLength: 1, maxLength: 200 }) });

// ---- qualifications ----

export const QUALIFICATION_SCENARIOS = ['ALL', 'CUSTOMER_WALLET', 'AUDIENCE_ONLY', 'PRODUCTS', 'PRODUCTS_DISCOUNT', 'PROMOTION_STACKS', 'PRODUCTS_BY_CUSTOMER', 'PRODUCTS_DISCOUNT_BY_CUSTOMER'] as const;

export const QualificationsBody = Type.Object({
  customer: Type.Optional(Nullable(CustomerBody)),
  order: Type.Optional(Nullable(CreateOrderBody)),
  tracking_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  scenario: Type.Optional(Nullable(Type.Enum(QUALIFICATION_SCENARIOS))),
  options: Type.Optional(
    Nullable(
      Type.Object({
        limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 50 }))),
        starting_after: Type.Optional(Nullable(DateTime)),
        filters: Type.Optional(Nullable(FreeFormObject())),
        expand: Type.Optional(Nullable(Type.Array(Type.Enum(['redeemable', 'category', 'validation_rules']), { maxItems: 3 }))),
        sorting_rule: Type.Optional(Nullable(Type.Enum(['DEFAULT', 'BEST_DEAL', 'LEAST_DEAL']))),
      }),
    ),
  ),
  session: Type.Optional(Nullable(Type.Object({ type: Type.Optional(Nullable(Type.Enum(['LOCK']))) }))),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type QualificationsInput = Static<typeof QualificationsBody>;

export const QualificationsResponse = Type.Object({
  redeemables: Type.Object({
    object: Type.Literal('list'),
    data_ref: Type.Literal('data'),
    data: Type.Array(Loose('Qualified redeemable: id, object, created_at, result, order, applicable_to, …')),
    total: Type.Integer(),
    has_more: Type.Boolean(),
    more_starting_after: Type.Optional(DateTime),
  }),
  tracking_id: Nullable(Type.String()),
  order: Nullable(CalculatedOrder),
  stacking_rules: StackingRulesEcho,
});

export type QualificationsResponseOut = Static<typeof QualificationsResponse>;

/** `POST /v1/vouchers/qualification`, `POST /v1/campaigns/qualification` (legacy examine calls). */
export const ExamineQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  audienceRulesOnly: Type.Optional(Type.Boolean()),
});

export const ExamineBody = Type.Object({
  customer: Type.Optional(Nullable(CustomerBody)),
  order: Type.Optional(Nullable(CreateOrderBody)),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type ExamineInput = Static<typeof ExamineBody>;

export const ExamineResponse = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(Loose('Voucher (vouchers) or campaign (campaigns)')),
  total: Type.Integer(),
});
export type ExamineResponseOut = Static<typeof ExamineResponse>;

// ---- legacy single-object endpoints ----

export const LegacyBody = Type.Object({
  customer: Type.Optional(Nullable(CustomerBody)),
  order: Type.Optional(Nullable(CreateOrderBody)),
  gift: Type.Optional(Nullable(Type.Object({ credits: Type.Optional(Nullable(StoredInteger('bigint', { minimum: 0 }))) }))),
  reward: Type.Optional(
    Nullable(Type.Object({ id: Type.Optional(Nullable(Id('Reward id'))), points: Type.Optional(Nullable(StoredInteger('bigint', { minimum: 1 }))) })),
  ),
  session: Type.Optional(Nullable(SessionInput)),
  metadata: Type.Optional(Nullable(Metadata)),
  tracking_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  options: Type.Optional(Nullable(Options)),
});
export type LegacyInput = Static<typeof LegacyBody>;

export const TrackingQuery = Type.Object({ tracking_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });

export const LegacyValidation = Type.Object(
  {
    valid: Type.Boolean(),
    code: Type.Optional(Type.String()),
    id: Type.Optional(Type.String({ description: 'Promotion tier validations: the tier id' })),
    reason: Type.Optional(Type.String()),
    error: Type.Optional(Loose('Error object of an invalid voucher')),
    tracking_id: Nullable(Type.String()),
    metadata: Type.Optional(Metadata),
    discount: Type.Optional(Loose('The discount applied, formulas evaluated')),
    gift: Type.Optional(Type.Object({ amount: Type.Integer({ description: 'Credits the order would take' }), balance: Type.Integer(), effect: Type.String() })),
    loyalty_card: Type.Optional(Type.Object({ points: Type.Integer() })),
    reward: Type.Optional(Loose('The pay-with-points reward')),
    applicable_to: Type.Optional(ResultList),
    inapplicable_to: Type.Optional(ResultList),
    order: Type.Optional(CalculatedOrder),
    session: Type.Optional(SessionEcho),
    campaign: Type.Optional(Nullable(Type.String({ description: 'Campaign name' }))),
    campaign_id: Type.Optional(Nullable(Type.String())),
    start_date: Type.Optional(Nullable(Type.String())),
    expiration_date: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);

export type LegacyValidationOut = Static<typeof LegacyValidation>;

export const PromotionsValidationQuery = Type.Object({ audienceRulesOnly: Type.Optional(Type.Boolean()) });

export const PromotionsValidationBody = Type.Object({
  customer: Type.Optional(Nullable(CustomerBody)),
  order: Type.Optional(Nullable(CreateOrderBody)),
  metadata: Type.Optional(Nullable(Metadata)),
  tracking_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
});
export type PromotionsValidationInput = Static<typeof PromotionsValidationBody>;

export const PromotionsValidation = Type.Object({
  valid: Type.Boolean(),
  promotions: Type.Array(Loose('Applicable promotion tier with its discount and order')),
  tracking_id: Nullable(Type.String()),
});

export type PromotionsValidationOut = Static<typeof PromotionsValidation>;

export const TierParams = Type.Object({ promotionTierId: Type.String({ minLength: 1 }) });

export const QueryCustomer = Type.Object(
  { id: Type.Optional(Type.String({ minLength: 1 })), source_id: Type.Optional(Type.String({ minLength: 1 })), metadata: Type.Optional(Metadata) },
  { additionalProperties: true, ...FREE_FORM_MARK },
);

/** An order amount in a query string: minor units, as bounded as in a JSON order. */
const QueryMoney = StoredInteger('bigint', { minimum: 0, maximum: MAX_MONEY });

/** `GET /client/v1/validate` as the client SDK sends it (qs-encoded, every value text). */
export const ClientValidateQuery = Type.Object({
  code: Type.Optional(Type.String({ minLength: 1 })),
  amount: Type.Optional(QueryMoney),
  item: Type.Optional(Type.Array(OrderItemInput, { maxItems: 500 })),
  metadata: Type.Optional(Metadata),
  order: Type.Optional(Type.Object({ metadata: Type.Optional(Metadata), amount: Type.Optional(QueryMoney), items: Type.Optional(Type.Array(OrderItemInput, { maxItems: 500 })) })),
  customer: Type.Optional(QueryCustomer),
  tracking_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  gift: Type.Optional(Type.Object({ credits: Type.Optional(StoredInteger('bigint', { minimum: 0 })) })),
  reward: Type.Optional(Type.Object({ id: Type.Optional(Type.String({ minLength: 1 })), points: Type.Optional(StoredInteger('bigint', { minimum: 1 })) })),
  orderMetadata: Type.Optional(Metadata),
  session_type: Type.Optional(Type.Enum(['LOCK'])),
  session_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  session_ttl: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e15 })),
  session_ttl_unit: Type.Optional(Type.Enum(TTL_UNITS)),
});
export type ClientValidateInput = Static<typeof ClientValidateQuery>;

export const ClientRedeemQuery = Type.Object({ code: Type.String({ minLength: 1 }), tracking_id: Type.Optional(Type.String({ minLength: 1 })) });
