import Type, { type Static } from 'typebox';
import { DateOnly, DateOrDateTime, Limit, Metadata, Nullable } from './common.ts';

// Customers (seed 2.6, 2.7, 4.6; platform reference 3). Every writable member is optional and nullable
// as in the vendor's CustomerBase; null clears a member, absence leaves it unchanged.

const Text = (description?: string) => Type.String({ maxLength: 1000, ...(description ? { description } : {}) });

export const AddressInput = Type.Object({
  city: Type.Optional(Nullable(Text())),
  state: Type.Optional(Nullable(Text())),
  line_1: Type.Optional(Nullable(Text())),
  line_2: Type.Optional(Nullable(Text())),
  country: Type.Optional(Nullable(Text())),
  postal_code: Type.Optional(Nullable(Text())),
});

const EditableFields = {
  name: Type.Optional(Nullable(Text())),
  description: Type.Optional(Nullable(Text())),
  email: Type.Optional(Nullable(Text('Stored as given; the list filter matches it exactly'))),
  phone: Type.Optional(Nullable(Text())),
  birthday: Type.Optional(Nullable(Type.String({ format: 'date', description: 'Deprecated by the vendor; YYYY-MM-DD' }))),
  birthdate: Type.Optional(Nullable(DateOnly)),
  address: Type.Optional(Nullable(AddressInput)),
  metadata: Type.Optional(Nullable(Metadata)),
};

const SourceId = Type.String({ minLength: 1, maxLength: 255, description: "The merchant's own identifier, unique among a project's live customers" });

export const CustomerBody = Type.Object({
  id: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Id of an existing customer to update (cust_…)' }))),
  source_id: Type.Optional(Nullable(SourceId)),
  ...EditableFields,
});
export type CustomerInput = Static<typeof CustomerBody>;

/** What a shop page may send with the client key: no `id` (ids are ours), only new customers. */
export const ClientCustomerBody = Type.Object({
  source_id: Type.Optional(Nullable(SourceId)),
  ...EditableFields,
});
export type ClientCustomerInput = Static<typeof ClientCustomerBody>;

export const UpdateCustomerBody = Type.Object({
  id: Type.Optional(Nullable(Type.String({ description: 'Ignored: the path names the customer' }))),
  source_id: Type.Optional(Nullable(Type.String({ description: 'Ignored: the path names the customer (the SDK sends it)' }))),
  ...EditableFields,
});
export type UpdateCustomerInput = Static<typeof UpdateCustomerBody>;

export const AddressOut = Type.Object({
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  line_1: Nullable(Type.String()),
  line_2: Nullable(Type.String()),
  country: Nullable(Type.String()),
  postal_code: Nullable(Type.String()),
});

export const CustomerObject = Type.Object({
  id: Type.String({ description: 'cust_…' }),
  source_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  birthday: Nullable(Type.String({ format: 'date' })),
  birthdate: Nullable(Type.String({ format: 'date' })),
  address: Nullable(AddressOut),
  metadata: Metadata,
  system_metadata: Type.Record(Type.String(), Type.Unknown()),
  summary: Type.Object({
    redemptions: Type.Object({
      total_redeemed: Type.Integer(),
      total_failed: Type.Integer(),
      total_succeeded: Type.Integer(),
      total_rolled_back: Type.Integer(),
      total_rollback_failed: Type.Integer(),
      total_rollback_succeeded: Type.Integer(),
      gift: Type.Object({ redeemed_amount: Type.Integer(), amount_to_go: Type.Integer() }, { description: 'Minor units' }),
      loyalty_card: Type.Object({ redeemed_points: Type.Integer(), points_to_go: Type.Integer() }),
    }),
    orders: Type.Object({
      total_amount: Type.Integer({ description: 'Minor units, paid and fulfilled orders' }),
      total_count: Type.Integer(),
      average_amount: Type.Integer(),
      last_order_amount: Type.Integer(),
      last_order_date: Nullable(Type.String({ format: 'date-time' })),
    }),
  }),
  loyalty: Type.Object({
    points: Type.Integer(),
    referred_customers: Type.Integer(),
    campaigns: Type.Record(Type.String(), Type.Unknown(), { description: 'Per loyalty campaign; empty until members exist' }),
  }),
  referrals: Type.Object({
    total: Type.Integer(),
    campaigns: Type.Array(
      Type.Object({
        campaign_id: Type.String(),
        referrer_id: Type.String(),
        related_object_id: Type.String(),
        related_object_type: Type.String(),
        date: Type.String({ format: 'date-time' }),
      }),
    ),
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time', description: 'Null until the first update' })),
  assets: Type.Object(
    {
      cockpit_url: Nullable(Type.String({ description: "The customer's cockpit: loyalty cards, rewards, vouchers, gift cards, referrals (README \"Customer cockpit\")" })),
      cockpit_preference_center_url: Nullable(Type.String({ description: "The customer's preference center: their consents" })),
    },
    {
      description:
        "Links that open this customer's cockpit without any other credential; POST /v1/customers/{customerId}/cockpit/rotate replaces them. Null for a caller that may not itself redeem loyalty rewards and record consents (a VIEWER's session, an OAuth token without those scopes)",
    },
  ),
  object: Type.Literal('customer'),
});

const DateRange = (description: string) =>
  Type.Object({ before: Type.Optional(DateOrDateTime), after: Type.Optional(DateOrDateTime) }, { description });

export const ListCustomersQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, default: 1 })),
  email: Type.Optional(Type.String({ description: 'Exact match' })),
  city: Type.Optional(Type.String({ description: 'Exact match on address.city' })),
  segment_id: Type.Optional(Type.String({ minLength: 1, description: 'Only members of this segment (seg_…)' })),
  name: Type.Optional(Type.String({ description: 'Exact match' })),
  q: Type.Optional(
    Type.String({
      maxLength: 255,
      description:
        'Punchcard extension: customers whose name (from the start of any word), e-mail, phone number or source_id starts with this text. Names and e-mails ignore case and accents; phone numbers compare by their digits (and a plus); source_ids match as written. Every character is literal (% _ \\ are no wildcards). Blank means no search',
    }),
  ),
  created_at: Type.Optional(DateRange('created_at[before] / created_at[after], exclusive; a date means midnight UTC')),
  updated_at: Type.Optional(
    DateRange('updated_at[before] / updated_at[after], exclusive; a customer never updated counts as updated when created'),
  ),
  order: Type.Optional(Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at', 'source_id', '-source_id'])),
  starting_after: Type.Optional(
    Type.String({
      format: 'date-or-date-time',
      description: 'Cursor on created_at: older customers for descending orders (the default), newer ones for ascending orders',
    }),
  ),
});
export type ListCustomersInput = Static<typeof ListCustomersQuery>;

export const CustomerList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('customers'),
  customers: Type.Array(CustomerObject),
  total: Type.Integer({ description: 'Customers matching the filters, whatever the page or cursor' }),
  has_more: Type.Boolean(),
});

export const PermanentDeletion = Type.Object({
  id: Type.String({ description: 'del_…' }),
  created_at: Type.String({ format: 'date-time' }),
  related_object_id: Type.String({ description: 'The erased customer id' }),
  related_object: Type.Literal('customer'),
  status: Type.Literal('DONE'),
  data_json: Type.Object({
    events: Type.Integer({ description: 'Event-log rows erased (activities and others)' }),
    customer_events: Type.Integer({ description: 'Of those, the customer activities' }),
    daily_events: Type.Integer(),
    segments: Type.Integer(),
    orders: Type.Integer(),
    order_events: Type.Integer(),
    customer: Type.Literal(1),
  }),
  object: Type.Literal('pernament_deletion', { description: "The vendor's spelling" }),
});

// Activity types as the vendor lists them (platform reference 3.8); `added` is spelled correctly here.
export const ACTIVITY_TYPES = [
  'customer.confirmed',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.referred',
  'customer.custom_event',
  'customer.segment.entered',
  'customer.segment.left',
  ...['sms', 'email', 'activecampaign', 'braze', 'mailchimp', 'intercom', 'shopify', 'klaviyo', 'batch'].flatMap((channel) => [
    `customer.${channel}.sent`,
    `customer.${channel}.recovered`,
    `customer.${channel}.failed`,
  ]),
  'customer.rewarded',
  'customer.rewarded.loyalty_points',
  'customer.voucher.gift.balance_added',
  'customer.voucher.loyalty_card.pending_points.activated',
  'customer.voucher.loyalty_card.pending_points.added',
  'customer.voucher.loyalty_card.pending_points.canceled',
  'customer.voucher.loyalty_card.pending_points.updated',
  'customer.voucher.loyalty_card.points_activated',
  'customer.voucher.loyalty_card.points_added',
  'customer.voucher.loyalty_card.points_transferred',
  'customer.voucher.loyalty_card.points_expired',
  'customer.voucher.deleted',
  'customer.publication.succeeded',
  'customer.publication.failed',
  'customer.validation.succeeded',
  'customer.validation.failed',
  'customer.redemption.failed',
  'customer.redemption.succeeded',
  'customer.redemption.rollback.failed',
  'customer.redemption.rollback.succeeded',
  'customer.order.canceled',
  'customer.order.created',
  'customer.order.fulfilled',
  'customer.order.paid',
  'customer.order.processing',
  'customer.order.updated',
  'customer.reward_redemptions.created',
  'customer.reward_redemptions.pending',
  'customer.reward_redemptions.completed',
  'customer.reward_redemptions.rolledback',
  'customer.loyalty.updated',
  'customer.loyalty.tier.upgraded',
  'customer.loyalty.tier.downgraded',
  'customer.loyalty.tier.prolonged',
  'customer.loyalty.tier.expiration.changed',
  'customer.loyalty.tier.joined',
  'customer.loyalty.tier.left',
  'customer.holder.assignment.created',
  'customer.holder.assignment.deleted',
];

const CampaignType = Type.Enum(['PROMOTION', 'GIFT_VOUCHERS', 'REFERRAL_PROGRAM', 'DISCOUNT_COUPONS', 'LOYALTY_PROGRAM']);
const ActivityDate = (description: string) => Type.String({ format: 'date-or-date-time', description });

const ActivityFilters = {
  limit: Type.Optional(Limit),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Event id: return the activities after it in list order' })),
  campaign_type: Type.Optional(CampaignType),
  campaign_id: Type.Optional(Type.String({ minLength: 1 })),
  start_date: Type.Optional(ActivityDate('Inclusive lower bound on created_at; a date means the start of that day (UTC)')),
  end_date: Type.Optional(ActivityDate('Inclusive upper bound on created_at; a date means the whole of that day (UTC)')),
};

export const ListActivitiesQuery = Type.Object({
  ...ActivityFilters,
  order: Type.Optional(
    Type.Enum(
      ['created_at', '-created_at', 'updated_at', '-updated_at', 'type', '-type', 'code', '-code', 'campaign', '-campaign', 'category', '-category'],
      { description: 'Default -created_at (newest first). Activities never change, so updated_at orders as created_at' },
    ),
  ),
  starting_after: Type.Optional(
    ActivityDate('created_at cursor: beyond it in walking direction for created_at orders; created after it for other orders'),
  ),
  product_id: Type.Optional(Type.String({ minLength: 1 })),
});
export type ListActivitiesInput = Static<typeof ListActivitiesQuery>;

export const ListActivityQuery = Type.Object({
  ...ActivityFilters,
  order: Type.Optional(Type.Enum(['created_at', '-created_at'], { description: 'Default -created_at (newest first)' })),
  category: Type.Optional(Type.Enum(['ACTION', 'EFFECT'])),
  type: Type.Optional(Type.Enum(ACTIVITY_TYPES)),
});
export type ListActivityInput = Static<typeof ListActivityQuery>;

export const EventSourceOut = Type.Object({
  channel: Type.Enum(['API', 'CLIENT_API', 'USER_PORTAL', 'CUSTOMER_COCKPIT', 'INTERNAL']),
  user: Type.Optional(Type.Object({ id: Type.String() })),
  api_key: Type.Optional(Type.Object({ name: Type.String(), app_id: Type.String() })),
});

export const CustomerActivity = Type.Object({
  id: Type.String({ description: 'evcus_… and other event ids' }),
  type: Type.String({ description: 'One of the activity types, e.g. customer.created or redemption.succeeded' }),
  data: Type.Object({
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Type-specific members, e.g. { customer } for customer.created' }),
    event_source: EventSourceOut,
  }),
  created_at: Type.String({ format: 'date-time' }),
  group_id: Type.String({ description: 'Id of the request that caused the activity' }),
});

export const ActivitiesList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(CustomerActivity),
  total: Type.Integer({ description: 'Activities matching the filters, whatever the cursor' }),
});

export const ActivityList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(CustomerActivity),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String({ description: 'Pass as starting_after_id for the next page; present when has_more' })),
});
