import Type, { type Static } from 'typebox';
import { CodeConfig, RedemptionQuantity, ValidityFields, ValidityHours, ValidityTimeframe, VOUCHER_TYPES } from './campaigns.ts';
import { CategoryNameMember } from './categories.ts';
import { DateOrDateTime, Limit, Metadata, Nullable, StoredInteger } from './common.ts';
import { Discount, ExpirationRules, Gift } from './discounts.ts';

// Vouchers (promotions reference 2; seed 2.5): create, list, update, balance, transactions, imports, and
// the campaign summary. The voucher object is declared once here and used by every route that answers one.

const Code = Type.String({ minLength: 1, maxLength: 200, description: 'The voucher code (letters, digits and special characters)' });

/** A card's points when a loyalty card is created; the other members the vendor echoes are output only. */
export const LoyaltyCardInput = Type.Object({
  points: Type.Optional(Nullable(StoredInteger('bigint', { minimum: 0, description: 'Points the card starts with' }))),
  expiration_rules: Type.Optional(ExpirationRules),
});

const Redemption = Type.Object({
  quantity: Type.Optional(Nullable(RedemptionQuantity)),
});

/** Members shared by the create bodies and import items. */
const DefinitionFields = {
  type: Type.Optional(Type.Enum(VOUCHER_TYPES)),
  discount: Type.Optional(Discount),
  gift: Type.Optional(Gift),
  loyalty_card: Type.Optional(LoyaltyCardInput),
  category: Type.Optional(Nullable(CategoryNameMember())),
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  active: Type.Optional(Nullable(Type.Boolean())),
  additional_info: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  metadata: Type.Optional(Nullable(Metadata)),
  redemption: Type.Optional(Nullable(Redemption)),
  ...ValidityFields,
};

export const CreateVoucherBody = Type.Object({
  code: Type.Optional(Nullable(Code)),
  code_config: Type.Optional(CodeConfig),
  campaign: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Name or id of the campaign to add the voucher to' }))),
  campaign_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  validation_rules: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1 }), { maxItems: 10, description: 'Validation rule ids to assign' }))),
  ...DefinitionFields,
});
export type CreateVoucherInput = Static<typeof CreateVoucherBody>;

export const UpdateVoucherBody = Type.Object({
  type: Type.Optional(Type.Enum(VOUCHER_TYPES, { description: 'Must be the voucher’s own type; a voucher never changes type' })),
  discount: Type.Optional(Discount),
  category: Type.Optional(Nullable(CategoryNameMember())),
  category_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  active: Type.Optional(Nullable(Type.Boolean())),
  additional_info: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  metadata: Type.Optional(Nullable(Metadata)),
  redemption: Type.Optional(Nullable(Redemption)),
  ...ValidityFields,
});
export type UpdateVoucherInput = Static<typeof UpdateVoucherBody>;

const DateRange = (name: string) =>
  Type.Object(
    { before: Type.Optional(DateOrDateTime), after: Type.Optional(DateOrDateTime) },
    { description: `${name}[before] / ${name}[after], exclusive; a date means midnight UTC` },
  );

export const VOUCHER_ORDERS = ['created_at', '-created_at', 'updated_at', '-updated_at', 'code', '-code'] as const;

export const ListVouchersQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, default: 1 })),
  category: Type.Optional(Type.String({ minLength: 1, description: 'Category name or id' })),
  campaign_id: Type.Optional(Type.String({ minLength: 1 })),
  campaign: Type.Optional(Type.String({ minLength: 1, description: 'Campaign name (an id is accepted too)' })),
  customer: Type.Optional(Type.String({ minLength: 1, description: 'Holder: customer id or source_id' })),
  code: Type.Optional(Type.String({ minLength: 1 })),
  ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100, description: 'Voucher ids (v_…)' })),
  created_at: Type.Optional(DateRange('created_at')),
  updated_at: Type.Optional(DateRange('updated_at')),
  order: Type.Optional(Type.Enum(VOUCHER_ORDERS)),
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'filters[<field>][conditions][<$op>]=…, fields: id, code, holder_id (or customer_id, holder), campaign_id (or campaign_ids), category_id (or category_ids), type (or voucher_type), is_referral_code, active, created_at, updated_at, start_date, expiration_date, metadata.<key>; filters[junction]=and|or',
    }),
  ),
});
export type ListVouchersInput = Static<typeof ListVouchersQuery>;

export const CodeParams = Type.Object({ code: Code });

export const DeleteVoucherQuery = Type.Object({
  force: Type.Optional(Type.Boolean({ description: 'true: delete permanently; otherwise move to the bin. The code is free again either way' })),
});

const CategoryOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hierarchy: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('category'),
});

export const VoucherObject = Type.Object(
  {
    id: Type.String({ description: 'v_…' }),
    code: Type.String(),
    campaign: Nullable(Type.String({ description: 'Campaign name; null for standalone vouchers' })),
    campaign_id: Nullable(Type.String()),
    category: Nullable(Type.String()),
    category_id: Nullable(Type.String()),
    categories: Type.Array(CategoryOut),
    type: Type.Enum(VOUCHER_TYPES),
    discount: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Discount definition: its type (AMOUNT, PERCENT, UNIT or FIXED) and the members of that type' })),
    gift: Nullable(
      Type.Object({
        amount: Type.Integer({ description: 'Credits ever added (initial amount and top-ups), minor units' }),
        subtracted_amount: Type.Integer({ description: 'Credits ever removed by balance adjustments' }),
        balance: Type.Integer({ description: 'Credits left to spend' }),
        effect: Nullable(Type.String()),
      }),
    ),
    loyalty_card: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'points, balance, next_expiration_date, next_expiration_points, …' })),
    start_date: Nullable(Type.String()),
    expiration_date: Nullable(Type.String()),
    validity_timeframe: Nullable(ValidityTimeframe),
    validity_day_of_week: Nullable(Type.Array(Type.Integer())),
    validity_hours: Nullable(ValidityHours),
    active: Type.Boolean(),
    additional_info: Nullable(Type.String()),
    metadata: Metadata,
    is_referral_code: Type.Boolean(),
    assets: Type.Optional(
      Type.Object(
        {
          qr: Type.Object({ id: Type.String(), url: Type.String() }),
          barcode: Type.Object({ id: Type.String(), url: Type.String() }),
        },
        { description: 'Links that draw the code as a QR code and as a barcode' },
      ),
    ),
    holder_id: Nullable(Type.String()),
    referrer_id: Nullable(Type.String()),
    created_at: Type.String(),
    updated_at: Nullable(Type.String()),
    publish: Type.Object({ object: Type.Literal('list'), count: Type.Integer(), url: Type.String() }),
    redemption: Type.Object({
      quantity: Nullable(Type.Integer()),
      redeemed_quantity: Type.Integer(),
      redeemed_amount: Type.Optional(Type.Integer()),
      redeemed_points: Type.Optional(Type.Integer()),
      object: Type.Literal('list'),
      url: Type.String(),
    }),
    validation_rules_assignments: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'List of the validation rules assigned to the voucher (single-voucher reads)' }),
    ),
    object: Type.Literal('voucher'),
  },
  { description: 'Voucher: code, type, discount, gift or loyalty card, validity and usage' },
);

export type VoucherOut = Static<typeof VoucherObject>;

export const VoucherList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('vouchers'),
  vouchers: Type.Array(VoucherObject),
  total: Type.Integer({ description: 'Vouchers matching the filters, whatever the page' }),
});

export const BalanceBody = Type.Object({
  amount: StoredInteger('bigint', { description: 'Signed change: credits in minor units (gift cards) or points (loyalty cards); negative removes' }),
  source_id: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Your own id of this adjustment' }))),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
});
export type BalanceInput = Static<typeof BalanceBody>;

export const BalanceObject = Type.Object({
  amount: Type.Integer({ description: 'The signed change applied' }),
  total: Type.Integer({ description: 'Lifetime credits (or points) minus what balance adjustments removed' }),
  balance: Type.Integer({ description: 'Left to spend after the change' }),
  type: Type.Enum(['gift_voucher', 'loyalty_card']),
  operation_type: Type.Literal('MANUAL'),
  object: Type.Literal('balance'),
  related_object: Type.Object({ type: Type.Literal('voucher'), id: Type.String() }),
});

export const ListTransactionsQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['id', '-id'], { description: 'Default -id: newest first' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Cursor: transactions after this one in list order' })),
});
export type ListTransactionsInput = Static<typeof ListTransactionsQuery>;

/** Every card transaction of a campaign (`GET /v1/campaigns/{id}/transactions`, `GET /v1/loyalties/{id}/transactions`). */
export const CampaignTransactionsQuery = Type.Object({
  ...ListTransactionsQuery.properties,
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'filters[<field>][conditions][<$op>]=…, fields: id, voucher_id; filters[junction]=and|or' }),
  ),
});
export type CampaignTransactionsInput = Static<typeof CampaignTransactionsQuery>;

/** A loyalty card's transactions (`GET /v1/loyalties/members/{memberId}/transactions` and the form with the program). */
export const MemberTransactionsQuery = Type.Object({
  ...ListTransactionsQuery.properties,
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'filters[<field>][conditions][<$op>]=…, fields: id, created_at; filters[junction]=and|or' }),
  ),
});
export type MemberTransactionsInput = Static<typeof MemberTransactionsQuery>;

export const TransactionObject = Type.Object({
  id: Type.String({ description: 'vtx_…' }),
  source_id: Nullable(Type.String()),
  voucher_id: Type.String(),
  campaign_id: Nullable(Type.String()),
  source: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  type: Type.String({ description: 'CREDITS_ADDITION, CREDITS_REMOVAL, CREDITS_REDEMPTION, CREDITS_REFUND, or a POINTS_* type' }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'balance after the change, and what caused it (order, redemption, …)' }),
  related_transaction_id: Nullable(Type.String()),
  created_at: Type.String(),
});

export const TransactionList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(TransactionObject),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String({ description: 'Pass as starting_after_id for the next page' })),
});

/** One voucher of an import; `code` is required (an import brings codes that exist elsewhere already). */
export const ImportVoucherItem = Type.Object({
  code: Code,
  ...DefinitionFields,
});
export type ImportVoucherInput = Static<typeof ImportVoucherItem>;

export const MAX_IMPORT_ITEMS = 100_000;

export const ImportVouchersBody = Type.Array(ImportVoucherItem, { minItems: 1, maxItems: MAX_IMPORT_ITEMS });

export const CampaignSummaryQuery = Type.Object({
  start_date: Type.Optional(Type.String({ format: 'date', description: 'First day counted (UTC), inclusive' })),
  end_date: Type.Optional(Type.String({ format: 'date', description: 'Last day counted (UTC), inclusive' })),
});
export type CampaignSummaryInput = Static<typeof CampaignSummaryQuery>;

const Count = Type.Integer({ minimum: 0 });

export const CampaignSummary = Type.Object(
  {
    object: Type.Literal('campaign_summary'),
    campaign: Type.Record(Type.String(), Type.Unknown(), { description: 'The campaign object' }),
    redemptions: Count,
    redemptions_succeeded: Count,
    redemptions_failed: Count,
    rollbacks: Count,
    rollbacks_succeeded: Count,
    rollbacks_failed: Count,
    orders_amount: Type.Integer(),
    orders_rolledback_amount: Type.Integer(),
    vouchers_created: Type.Optional(Count),
    vouchers_deleted: Type.Optional(Count),
    publications: Type.Optional(Count),
    publications_succeeded: Type.Optional(Count),
    publications_failed: Type.Optional(Count),
    discounted_amount: Type.Optional(Type.Integer()),
    rolledback_discounted_amount: Type.Optional(Type.Integer()),
    created_vouchers_amount: Type.Optional(Type.Integer()),
    amount_added: Type.Optional(Type.Integer()),
    amount_deleted: Type.Optional(Type.Integer()),
    amount_redeemed: Type.Optional(Type.Integer()),
    amount_rolledback: Type.Optional(Type.Integer()),
    amount_subtracted: Type.Optional(Type.Integer()),
    created_vouchers_points: Type.Optional(Type.Integer()),
    points_added: Type.Optional(Type.Integer()),
    points_subtracted: Type.Optional(Type.Integer()),
    points_deleted: Type.Optional(Type.Integer()),
    points_redeemed: Type.Optional(Type.Integer()),
    points_rolledback: Type.Optional(Type.Integer()),
    points_expired: Type.Optional(Type.Integer()),
    points_transferred_in: Type.Optional(Type.Integer()),
    points_transferred_out: Type.Optional(Type.Integer()),
    referred_customers: Type.Optional(Count),
  },
  { description: 'Campaign summary, derived from stored records; members depend on the campaign type' },
);
