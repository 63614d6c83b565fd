import Type, { type Static } from 'typebox';
import { DateTime, Limit, Nullable, StoredInteger } from './common.ts';
import { FREE_FORM_MARK, FreeFormObject } from './free-form.ts';

// Validation rules and their assignments (promotions reference 5; seed 2.10, 4.9). The rule language
// itself (`rules`, and the meaning of `applicable_to`) is checked by src/domain/rules, which answers
// 400 invalid_validation_rules with details; these schemas check the JSON shape around it.

const CONTEXT_TYPES = [
  'earning_rule.order.paid',
  'earning_rule.custom_event',
  'earning_rule.customer.segment.entered',
  'earning_rule.customer.tier.joined',
  'earning_rule.customer.tier.left',
  'earning_rule.customer.tier.upgraded',
  'earning_rule.customer.tier.downgraded',
  'earning_rule.customer.tier.prolonged',
  ...['campaign.discount_coupons', 'campaign.referral_program', 'campaign.promotion', 'voucher.discount_voucher'].flatMap((base) => [
    base,
    `${base}.discount.apply_to_order`,
    `${base}.discount.apply_to_items`,
    `${base}.discount.apply_to_items_proportionally`,
    `${base}.discount.apply_to_items_proportionally_by_quantity`,
    `${base}.discount.apply_to_items_by_quantity`,
    `${base}.discount.fixed.apply_to_items`,
    `${base}.discount.percent.apply_to_items`,
  ]),
  ...['campaign.gift_vouchers', 'voucher.gift_voucher'].flatMap((base) => [base, `${base}.gift.apply_to_order`, `${base}.gift.apply_to_items`]),
  'campaign.loyalty_program',
  'voucher.loyalty_card',
  'distribution.custom_event',
  'distribution.order.paid',
  'distribution.order.created',
  'distribution.order.canceled',
  'distribution.order.updated',
  'reward_assignment.pay_with_points',
  'global',
];

const RuleType = Type.Enum(['expression', 'basic', 'advanced', 'complex'], { description: 'Default expression' });
const ContextType = Type.Enum(CONTEXT_TYPES, { description: 'Default global' });

const Count = (description: string) => Type.Optional(Nullable(StoredInteger('bigint', { minimum: 0, description })));

/** One entry of `applicable_to.included` / `excluded` (promotions reference 3.6). */
export const ApplicableToEntry = Type.Object(
  {
    object: Type.Optional(Nullable(Type.Enum(['product', 'sku', 'products_collection'], { description: 'Inferred from the id prefix when absent' }))),
    id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    source_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    product_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    product_source_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    effect: Type.Optional(
      Type.Enum(['APPLY_TO_EVERY', 'APPLY_TO_CHEAPEST', 'APPLY_FROM_CHEAPEST', 'APPLY_TO_MOST_EXPENSIVE', 'APPLY_FROM_MOST_EXPENSIVE'], {
        description: 'Default APPLY_TO_EVERY',
      }),
    ),
    target: Type.Optional(Nullable(Type.Enum(['ITEM', 'UNIT'], { description: 'ITEM (order lines, default) or UNIT (single units)' }))),
    skip_initially: Count('Lines or units skipped before the first one discounted'),
    repeat: Type.Optional(Nullable(StoredInteger('bigint', { minimum: 1, description: 'After the skip, every n-th line or unit is discounted' }))),
    price: Type.Optional(Nullable(Type.Number({ description: 'New unit price for FIXED discounts, minor units' }))),
    price_formula: Type.Optional(Nullable(Type.Unknown())),
    quantity_limit: Count('Units discounted per line at most'),
    aggregated_quantity_limit: Count('Units discounted across the matched lines at most'),
    amount_limit: Count('Discount per line at most, minor units'),
    aggregated_amount_limit: Count('Discount across the matched lines at most, minor units'),
    strict: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: true, ...FREE_FORM_MARK, description: 'Further vendor limit members (product_*_quantity_limit …) are kept and echoed' },
);

export const ApplicableToInput = Type.Object({
  included: Type.Optional(Nullable(Type.Array(ApplicableToEntry, { maxItems: 100 }))),
  excluded: Type.Optional(Nullable(Type.Array(ApplicableToEntry, { maxItems: 100 }))),
  included_all: Type.Optional(Nullable(Type.Boolean())),
});

export const ErrorMessage = Type.Object({ message: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))) });

const RulesMember = FreeFormObject({
  description:
    'Numbered rules ("1", "2", …) and `logic` ("1 and (2 or 3)"). Each rule: name, property (metadata rules), conditions ({ "$operator": [values] }), rules (nested, same shape), error.message',
});

const DefinitionFields = {
  rules: Type.Optional(Nullable(RulesMember)),
  bundle_rules: Type.Optional(Nullable(FreeFormObject({ description: 'Not supported: must be empty or null' }))),
  error: Type.Optional(Nullable(ErrorMessage)),
  applicable_to: Type.Optional(Nullable(ApplicableToInput)),
  type: Type.Optional(RuleType),
  context_type: Type.Optional(ContextType),
};

const Name = Type.String({ minLength: 1, maxLength: 200, description: 'Unique within the project' });

export const CreateValidationRuleBody = Type.Object({ name: Name, ...DefinitionFields });
export type CreateValidationRuleInput = Static<typeof CreateValidationRuleBody>;

export const UpdateValidationRuleBody = Type.Object(
  { name: Type.Optional(Name), ...DefinitionFields, id: Type.Optional(Type.String({ description: 'Ignored: the path names the rule' })) },
  { description: 'Members sent replace the stored ones; members not sent stay as they are' },
);
export type UpdateValidationRuleInput = Static<typeof UpdateValidationRuleBody>;

export const ApplicableToOut = Type.Object({
  included: Type.Array(ApplicableToEntry),
  excluded: Type.Array(ApplicableToEntry),
  included_all: Type.Boolean(),
});

export const ValidationRuleObject = Type.Object({
  id: Type.String({ description: 'val_…' }),
  name: Type.String(),
  rules: RulesMember,
  error: Type.Optional(Type.Object({ message: Type.String() }, { description: 'Present when a message is configured' })),
  applicable_to: ApplicableToOut,
  type: RuleType,
  context_type: ContextType,
  created_at: DateTime,
  updated_at: Nullable(DateTime),
  assignments_count: Type.Integer({ minimum: 0 }),
  object: Type.Literal('validation_rules'),
});
export type ValidationRuleObjectOut = Static<typeof ValidationRuleObject>;

export const ValidationRuleParams = Type.Object({ validationRuleId: Type.String({ minLength: 1, description: 'val_…' }) });

const Page = Type.Integer({ minimum: 1, maximum: 100, default: 1 });
const DateBound = (description: string) => Type.String({ format: 'date-or-date-time', description });

export const ListValidationRulesQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Page),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at', 'name', '-name'], { description: 'Default -created_at' })),
  start_date: Type.Optional(DateBound('Only rules created at or after it')),
  end_date: Type.Optional(DateBound('Only rules created at or before it (a date includes that whole day)')),
});
export type ListValidationRulesInput = Static<typeof ListValidationRulesQuery>;

export const ValidationRuleList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(ValidationRuleObject),
  total: Type.Integer(),
});

// ---- assignments ----

export const ASSIGNMENT_OBJECT_TYPES = ['voucher', 'campaign', 'promotion_tier', 'earning_rule', 'distribution', 'reward_assignment'] as const;

export const CreateAssignmentBody = Type.Object({
  related_object_type: Type.Optional(Type.Enum([...ASSIGNMENT_OBJECT_TYPES], { description: 'Default voucher' })),
  related_object_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'v_… or a voucher code, camp_… or a campaign name, …' })),
  voucher: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Shorthand (older clients, the SDK): voucher code or id' })),
  campaign: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Shorthand: campaign id or name' })),
  promotion_tier: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Shorthand: promotion tier id' })),
});
export type CreateAssignmentInput = Static<typeof CreateAssignmentBody>;

export const CreateAssignmentQuery = Type.Object({
  force: Type.Optional(Type.Boolean({ description: 'Replace an identical existing assignment instead of answering 409' })),
});

export const AssignmentObject = Type.Object({
  id: Type.String({ description: 'asgm_…' }),
  rule_id: Type.String(),
  related_object_id: Type.String(),
  related_object_type: Type.String(),
  created_at: DateTime,
  object: Type.Literal('validation_rules_assignment'),
});
export type AssignmentObjectOut = Static<typeof AssignmentObject>;

export const AssignmentParams = Type.Object({
  validationRuleId: Type.String({ minLength: 1 }),
  assignmentId: Type.String({ minLength: 1, description: 'asgm_…' }),
});

const AssignmentOrder = Type.Enum(['created_at', '-created_at'], { description: 'Default -created_at (newest first)' });

export const ListRuleAssignmentsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Page),
  order: Type.Optional(AssignmentOrder),
});
export type ListRuleAssignmentsInput = Static<typeof ListRuleAssignmentsQuery>;

export const ListAllAssignmentsQuery = Type.Object({
  related_object_id: Type.Optional(Type.String({ minLength: 1, description: 'Only assignments to this object (as stored: v_…, camp_…)' })),
  rule: Type.Optional(Type.String({ minLength: 1, description: 'Only assignments of this rule (val_…)' })),
  limit: Type.Optional(Limit),
  page: Type.Optional(Page),
  order: Type.Optional(AssignmentOrder),
});
export type ListAllAssignmentsInput = Static<typeof ListAllAssignmentsQuery>;

export const AssignmentList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(AssignmentObject),
  total: Type.Integer(),
});
