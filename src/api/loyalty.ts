import Type, { type Static } from 'typebox';
import { DateOnly, DateOrDateTime, Limit, Metadata, Nullable } from './common.ts';
import { ValidityHours, ValidityTimeframe } from './campaigns.ts';
import { CustomerBody } from './customers.ts';

// Loyalty members and points (loyalty reference 2, 3; seed 2.5, 4.7).

export const CampaignMemberParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'Loyalty campaign id (camp_…) or name' }),
  memberId: Type.String({ minLength: 1, description: 'Loyalty card code (the SDK does not URL-encode it)' }),
});
export const MemberParams = Type.Object({ memberId: Type.String({ minLength: 1, description: 'Loyalty card code' }) });
export const PendingParams = Type.Object({
  memberId: Type.String({ minLength: 1, description: 'Loyalty card code' }),
  pendingPointsId: Type.String({ minLength: 1, description: 'Pending points entry id (lopp_…)' }),
});

// ---- members ----

export const AddMemberBody = Type.Object({
  voucher: Type.Optional(Type.String({ minLength: 1, description: 'Code of the card to publish; absent: the program picks (or, AUTO_UPDATE, makes) one' })),
  customer: Type.Union([
    CustomerBody,
    Type.String({ minLength: 1, maxLength: 255, description: "The customer's id or source_id, as the vendor's examples send it (unknown: created with it as source_id)" }),
  ]),
  source_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Your id of this publication; repeating it answers the same card' })),
  channel: Type.Optional(Type.String({ maxLength: 255 })),
  metadata: Type.Optional(Metadata),
});
export type AddMemberInput = Static<typeof AddMemberBody>;

const DateRange = (description: string) => Type.Object({ before: Type.Optional(DateOrDateTime), after: Type.Optional(DateOrDateTime) }, { description });

export const ListMembersQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
  customer: Type.Optional(Type.String({ minLength: 1, description: 'Holder id or source_id' })),
  created_at: Type.Optional(DateRange('Exclusive bounds on the card creation time')),
  updated_at: Type.Optional(DateRange('Exclusive bounds on the last change (creation when never changed)')),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at', 'code', '-code'], { description: 'Default -created_at' })),
  code: Type.Optional(Type.String({ minLength: 1, description: 'Exact card code' })),
  ids: Type.Optional(Type.Union([Type.Array(Type.String(), { maxItems: 100 }), Type.String()], { description: 'Card ids' })),
});
export type ListMembersInput = Static<typeof ListMembersQuery>;

export const LoyaltyCardMembers = Type.Object({
  points: Type.Integer({ description: 'Points ever added (starting points, additions, accruals, activations, transfers in)' }),
  balance: Type.Integer({ description: 'Spendable now' }),
  next_expiration_date: Type.Optional(Type.String({ format: 'date', description: 'Last usable day of the soonest-expiring points' })),
  next_expiration_points: Type.Optional(Type.Integer()),
  pending_points: Type.Integer(),
  expired_points: Type.Integer(),
  subtracted_points: Type.Integer(),
});

const CategoryOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hierarchy: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('category'),
});

export const Asset = Type.Object({ id: Type.String(), url: Type.String({ description: 'Absolute URL of the image; accepts ?size=1..100&format=png|svg' }) });

/** A loyalty card in the voucher form of seed 2.5. */
export const LoyaltyCardObject = Type.Object(
  {
    id: Type.String({ description: 'v_…' }),
    code: Type.String(),
    campaign: Nullable(Type.String({ description: 'Program name' })),
    campaign_id: Nullable(Type.String()),
    category: Nullable(Type.String()),
    category_id: Nullable(Type.String()),
    categories: Type.Array(CategoryOut),
    type: Type.Literal('LOYALTY_CARD'),
    discount: Type.Null(),
    gift: Type.Null(),
    loyalty_card: LoyaltyCardMembers,
    start_date: Nullable(Type.String()),
    expiration_date: Nullable(Type.String()),
    validity_timeframe: Nullable(ValidityTimeframe),
    validity_day_of_week: Nullable(Type.Array(Type.Integer({ minimum: 0, maximum: 6 }))),
    validity_hours: Nullable(ValidityHours),
    active: Type.Boolean(),
    additional_info: Nullable(Type.String()),
    metadata: Metadata,
    is_referral_code: Type.Boolean(),
    assets: Type.Object({ qr: Asset, barcode: Asset }),
    holder_id: Nullable(Type.String({ description: 'Customer id of the member' })),
    referrer_id: Nullable(Type.String()),
    created_at: Type.String(),
    updated_at: Nullable(Type.String()),
    publish: Type.Object({ object: Type.Literal('list'), count: Type.Integer(), url: Type.String() }),
    redemption: Type.Object({
      quantity: Nullable(Type.Integer()),
      redeemed_quantity: Type.Integer(),
      redeemed_points: Type.Integer(),
      object: Type.Literal('list'),
      url: Type.String(),
    }),
    object: Type.Literal('voucher'),
  },
  { description: 'Loyalty card: its points balance and holder' },
);

export const MemberList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('vouchers'),
  vouchers: Type.Array(LoyaltyCardObject),
  total: Type.Integer(),
});

// ---- balance ----

const MAX_POINTS = 1_000_000_000_000;

export const MemberBalanceBody = Type.Object({
  points: Type.Integer({ minimum: -MAX_POINTS, maximum: MAX_POINTS, description: 'Positive adds, negative removes; 0 is refused' }),
  expiration_type: Type.Optional(Type.Enum(['PROGRAM_RULES', 'CUSTOM_DATE', 'NON_EXPIRING'], { description: 'For added points; default PROGRAM_RULES' })),
  expiration_date: Type.Optional(Type.String({ format: 'date', description: 'Last usable day (YYYY-MM-DD) with CUSTOM_DATE; today or later' })),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  source_id: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
});
export type MemberBalanceInput = Static<typeof MemberBalanceBody>;

export const PointsBalance = Type.Object({
  points: Type.Integer({ description: 'The signed change' }),
  total: Type.Integer({ description: 'Points ever added minus points removed by hand or transferred out' }),
  balance: Type.Integer({ minimum: 0 }),
  type: Type.Literal('loyalty_card'),
  object: Type.Literal('balance'),
  operation_type: Type.Enum(['MANUAL', 'AUTOMATIC']),
  related_object: Type.Object({ type: Type.Literal('voucher'), id: Type.String() }),
});

// ---- transfers ----

export const TransferItem = Type.Object({
  code: Type.String({ minLength: 1, description: 'Donor card code' }),
  points: Type.Integer({ minimum: 1, maximum: MAX_POINTS, description: 'Points to move; at most the donor balance' }),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  source_id: Type.Optional(Nullable(Type.String({ maxLength: 255, description: "Your transaction id (the vendor's schema marks it required; its own example omits it)" }))),
});
export const TransferBody = Type.Array(TransferItem, { minItems: 1, maxItems: 100 });
export type TransferInput = Static<typeof TransferBody>;

// ---- points expiration ----

export const PageQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
});
export type PageInput = Static<typeof PageQuery>;

export const PointsBucket = Type.Object({
  id: Type.String({ description: 'lopb_…' }),
  voucher_id: Type.String(),
  campaign_id: Nullable(Type.String()),
  bucket: Type.Object({ total_points: Type.Integer({ description: 'Points left in the bucket' }) }),
  status: Type.Literal('ACTIVE'),
  expires_at: Type.Optional(DateOnly),
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
  object: Type.Literal('loyalty_points_bucket'),
});

export const PointsBucketList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(PointsBucket),
  total: Type.Integer(),
});

// ---- member activity ----

export const MemberActivityQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['created_at', '-created_at'], { description: 'Default -created_at' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Event id: the activities after it in list order' })),
});
export type MemberActivityInput = Static<typeof MemberActivityQuery>;

export const MemberActivity = Type.Object({
  id: Type.String(),
  type: Type.String({ description: 'Customer activity type, e.g. customer.voucher.loyalty_card.points_added' }),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'The event payload plus event_source' }),
  created_at: Type.String(),
  group_id: Type.String(),
});

export const MemberActivityList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(MemberActivity),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String()),
});

export const MemberActivitiesQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
});
export type MemberActivitiesInput = Static<typeof MemberActivitiesQuery>;

export const MemberActivitiesList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('activities'),
  activities: Type.Array(Type.Object({ ...MemberActivity.properties, object: Type.Literal('event') })),
  total: Type.Integer(),
});


// ---- pending points ----

export const PendingListQuery = Type.Object({
  limit: Type.Optional(Limit),
  order: Type.Optional(Type.Enum(['id', '-id'], { description: 'Default -id: newest first' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1 })),
});
export type PendingListInput = Static<typeof PendingListQuery>;

export const PendingPointsObject = Type.Object({
  id: Type.String({ description: 'lopp_…' }),
  voucher_id: Type.String(),
  campaign_id: Nullable(Type.String()),
  customer_id: Nullable(Type.String()),
  order_id: Nullable(Type.String()),
  points: Type.Integer(),
  activates_at: DateOnly,
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'order, event, earning_rule, loyalty_tier, holder_loyalty_tier' }),
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
});

export const PendingPointsList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(PendingPointsObject),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String()),
});

export const PendingAdjustBody = Type.Object({
  points: Type.Integer({ minimum: -MAX_POINTS, maximum: MAX_POINTS, description: 'Signed change of the entry; the result must stay above 0' }),
});
export type PendingAdjustInput = Static<typeof PendingAdjustBody>;

export const PendingBalance = Type.Object({
  points: Type.Integer({ description: 'The signed change' }),
  total: Type.Integer({ description: 'Pending points on the card after the change' }),
  object: Type.Literal('balance'),
  related_object: Type.Object({ type: Type.Literal('voucher'), id: Type.String() }),
  operation_type: Type.Literal('MANUAL'),
});

// ---- assets ----

export const AssetParams = Type.Object({ assetId: Type.String({ minLength: 1, description: 'The id from a card object\'s assets' }) });
export const AssetQuery = Type.Object({
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Pixels per module (default 6 for QR codes, 2 for barcodes); reduced so the image stays within 2000 pixels across' })),
  format: Type.Optional(Type.Enum(['png', 'svg'], { description: 'Default png' })),
});
export type AssetQueryInput = Static<typeof AssetQuery>;
/** A card image as the asset links answer it: PNG by default, SVG with `format=svg`. */
export const AssetPng = Type.String({ contentEncoding: 'binary', description: 'The PNG image (black modules on white)' });
export const AssetSvg = Type.String({ description: 'The SVG image, with `format=svg`: one rectangle per run of dark modules' });
