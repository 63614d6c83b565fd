import Type, { type Static } from 'typebox';
import { CALCULATION_TYPES } from '../domain/loyalty/earning.ts';
import { ValidityFields } from './campaigns.ts';
import { Limit, Metadata, Nullable } from './common.ts';
import { ExpirationRules } from './discounts.ts';

// Earning rules of loyalty programs (loyalty reference 4). Shapes are checked here; which members an
// event needs and what a calculation requires is checked in src/domain/loyalty/earning.ts.

/** A count the vendor examples sometimes send as a numeric string ("5"). */
export const Count = Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 }), Type.String({ pattern: '^\\s*[0-9]{1,13}\\s*$' })], {
  description: 'Whole number, or a string of digits',
});
const Formula = Type.String({ minLength: 1, maxLength: 1000, description: 'Dynamic formula; its result, rounded, replaces the points figure' });
const ItemObject = Type.Enum(['product', 'sku', 'products_collection']);

export const IncrementInput = Type.Object({
  every: Type.Optional(Nullable(Count)),
  points: Type.Optional(Nullable(Count)),
  points_formula: Type.Optional(Nullable(Formula)),
  property: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 300, description: 'Metadata key holding a number' }))),
  object: Type.Optional(Nullable(ItemObject)),
  id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  applicable_to: Type.Optional(
    Nullable(Type.Array(Type.Object({ object: ItemObject, id: Type.String({ minLength: 1, maxLength: 255 }) }), { maxItems: 100 })),
  ),
});

export const LoyaltyInput = Type.Object(
  {
    type: Type.Enum(['FIXED', 'PROPORTIONAL']),
    points: Type.Optional(Nullable(Count)),
    points_formula: Type.Optional(Nullable(Formula)),
    calculation_type: Type.Optional(Nullable(Type.Enum(CALCULATION_TYPES))),
    order: Type.Optional(
      Nullable(
        Type.Object({
          amount: Type.Optional(Nullable(IncrementInput)),
          total_amount: Type.Optional(Nullable(IncrementInput)),
          metadata: Type.Optional(Nullable(IncrementInput)),
        }),
      ),
    ),
    order_items: Type.Optional(
      Nullable(
        Type.Object({
          quantity: Type.Optional(Nullable(IncrementInput)),
          amount: Type.Optional(Nullable(IncrementInput)),
          subtotal_amount: Type.Optional(Nullable(IncrementInput)),
        }),
      ),
    ),
    customer: Type.Optional(Nullable(Type.Object({ metadata: Type.Optional(Nullable(IncrementInput)) }))),
    custom_event: Type.Optional(Nullable(Type.Object({ metadata: Type.Optional(Nullable(IncrementInput)) }))),
  },
  { description: 'FIXED points, or PROPORTIONAL points for every `every` of a metric (order amount, items, metadata)' },
);

export const PendingPointsInput = Type.Object({
  period_type: Type.Optional(Nullable(Type.Enum(['DAY']))),
  period_value: Type.Integer({ minimum: 1, maximum: 90, description: 'Days until the points become usable' }),
});

const RuleFields = {
  validation_rule_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'val_…: checked before points are added' }))),
  source: Type.Optional(Nullable(Type.Object({ banner: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'The rule name' }))) }))),
  active: Type.Optional(Nullable(Type.Boolean())),
  pending_points: Type.Optional(Nullable(PendingPointsInput)),
  expiration_rules: Type.Optional(Nullable(ExpirationRules)),
  metadata: Type.Optional(Nullable(Metadata)),
  ...ValidityFields,
};

const EventFields = {
  event: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 300, description: 'order.paid (default), customer.segment.entered, customer.loyalty.tier.*, or a custom event name' })),
  ),
  custom_event: Type.Optional(Nullable(Type.Object({ schema_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))) }))),
  segment: Type.Optional(Nullable(Type.Object({ id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))) }))),
  loyalty_tier: Type.Optional(Nullable(Type.Object({ id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'ltr_… or __ANY__' }))) }))),
};

export const CreateEarningRuleItem = Type.Object({ ...EventFields, loyalty: LoyaltyInput, ...RuleFields });
export type CreateEarningRuleInput = Static<typeof CreateEarningRuleItem>;

export const CreateEarningRulesBody = Type.Array(CreateEarningRuleItem, { minItems: 1, maxItems: 100, description: 'Rules to create, all or none' });

export const UpdateEarningRuleBody = Type.Object(
  { ...EventFields, loyalty: Type.Optional(LoyaltyInput), ...RuleFields },
  { description: 'Only the members sent change; event, segment, custom_event and loyalty_tier cannot change' },
);
export type UpdateEarningRuleInput = Static<typeof UpdateEarningRuleBody>;

export const EarningRuleParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'Loyalty campaign id or name' }),
  earningRuleId: Type.String({ minLength: 1, description: 'ern_…' }),
});

export const ListEarningRulesQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at'], { description: 'Default created_at' })),
});
export type ListEarningRulesInput = Static<typeof ListEarningRulesQuery>;

export const IdRef = Nullable(Type.Object({ id: Type.String() }));

export const EarningRuleObject = Type.Object({
  id: Type.String({ description: 'ern_…' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  validation_rule_id: Nullable(Type.String()),
  loyalty: Type.Record(Type.String(), Type.Unknown(), { description: 'As stored: FIXED or PROPORTIONAL with its calculation' }),
  event: Type.String(),
  custom_event: Nullable(Type.Object({ schema_id: Type.String() })),
  segment: IdRef,
  loyalty_tier: IdRef,
  pending_points: Nullable(Type.Object({ period_type: Type.Literal('DAY'), period_value: Type.Integer() })),
  source: Type.Object({ banner: Nullable(Type.String()), object_id: Type.String(), object_type: Type.Literal('campaign') }),
  active: Type.Boolean(),
  start_date: Nullable(Type.String()),
  expiration_date: Nullable(Type.String()),
  validity_timeframe: Nullable(Type.Record(Type.String(), Type.Unknown())),
  validity_day_of_week: Nullable(Type.Array(Type.Integer())),
  validity_hours: Nullable(Type.Record(Type.String(), Type.Unknown())),
  metadata: Metadata,
  // Left out when the rule has none (the vendor's schema allows no null).
  expiration_rules: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  automation_id: Type.String({ description: 'auto_…' }),
  object: Type.Literal('earning_rule'),
});

export const EarningRuleArray = Type.Array(EarningRuleObject);

export const EarningRuleList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(EarningRuleObject),
  total: Type.Integer(),
});
