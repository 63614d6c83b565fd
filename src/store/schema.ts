import type { ColumnType, Generated } from 'kysely';

// Row types of every table. Conventions (see ARCHITECTURE "Storage"):
// - timestamps are ISO-8601 UTC strings with milliseconds (`2026-01-01T00:00:00.000Z`), so they sort and
//   compare as text identically on SQLite and PostgreSQL;
// - JSON members are stored as text and parsed in the store layer;
// - money and points are integers (minor units);
// - every tenant table carries `project_id`.

type Json = string;
type Timestamp = string;
/** SQLite hands booleans back as 0/1, PostgreSQL as true/false; store mappers normalise with Boolean(). */
type Bool = ColumnType<boolean | number, boolean, boolean>;

export interface SettingsTable {
  key: string;
  value: string;
}

export interface ManagementKeysTable {
  id: string;
  key_id: string;
  secret_hash: string;
  name: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface ProjectsTable {
  id: string;
  name: string;
  description: string;
  timezone: string;
  /** A Punchcard extension: see migration 2026-12-07-0043-project-locale. */
  locale: string | null;
  currency: string;
  dial_code: string | null;
  webhook_version: string;
  api_version: string;
  cluster_id: string;
  case_sensitive_codes: Bool;
  is_sandbox: Bool;
  is_default: Bool;
  client_trusted_domains: Json;
  client_redeem_enabled: Bool;
  client_publish_enabled: Bool;
  client_list_vouchers_enabled: Bool;
  client_create_customer_enabled: Bool;
  client_loyalty_events_enabled: Bool;
  client_set_voucher_expiration_date_enabled: Bool;
  webhooks_callout_notifications: Json;
  api_usage_notifications: Json;
  default_code_config: Json | null;
  limits: Json | null;
  webhook_token: string;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  deleted_at: Timestamp | null;
  /** Moved by triggers on every change of the project's definitions (migration 0037, src/store/definitions.ts). */
  definitions_version: Counter;
}

export type ApiKeyKind = 'server' | 'client';

export interface ApiKeysTable {
  id: string;
  project_id: string;
  kind: ApiKeyKind;
  app_id: string;
  secret_hash: string;
  name: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface OauthTokensTable {
  id: string;
  project_id: string;
  api_key_id: string;
  token_hash: string;
  scope: string;
  client_id: string;
  expires_at: Timestamp;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface IdempotencyKeysTable {
  /** Project id, or `management` for organisation-wide calls. */
  scope: string;
  key: string;
  request_hash: string;
  /** `withheld`: carried out, but the answer held secrets and is not kept (no replay). */
  state: 'done' | 'withheld';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: Timestamp;
}

export interface EventsTable {
  /** Commit order within the log; the worker reads in this order. */
  seq: Generated<number>;
  id: string;
  project_id: string;
  type: string;
  /** The customer-activity type when the event belongs in a customer's activity list. */
  activity_type: string | null;
  /** ACTION (the customer or merchant did something) or EFFECT (the engine did something as a result). */
  activity_category: 'ACTION' | 'EFFECT' | null;
  customer_id: string | null;
  campaign_id: string | null;
  campaign_type: string | null;
  campaign_name: string | null;
  voucher_code: string | null;
  category_name: string | null;
  /** `|prod_a|prod_b|` so one product can be matched with LIKE within a customer's events. */
  product_ids: string | null;
  entity_id: string | null;
  data: Json;
  source: Json;
  group_id: string;
  created_at: Timestamp;
}

export type JobStatus = 'ENQUEUED' | 'IN_PROGRESS' | 'DONE' | 'FAILED';

export interface JobsTable {
  id: string;
  project_id: string;
  kind: string;
  status: JobStatus;
  payload: Json;
  result: Json | null;
  progress: number;
  attempts: number;
  run_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  error: string | null;
  request_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

/** A running total: starts at 0 (column default) and moves only through conditional SQL increments. */
type Counter = ColumnType<number, number | undefined, number>;

export interface CustomersTable {
  id: string;
  project_id: string;
  source_id: string | null;
  name: string | null;
  description: string | null;
  email: string | null;
  phone: string | null;
  birthday: string | null;
  birthdate: string | null;
  address: Json | null;
  /** Copy of `address.city`, kept for the indexed city filter of the list. */
  address_city: string | null;
  /** `email` as the prefix search compares it (src/store/customer-search.ts emailKey). */
  email_key: string | null;
  /** `phone` as the prefix search compares it (phoneKey). */
  phone_key: string | null;
  metadata: Json;
  system_metadata: Json;
  // Running totals fed by redemptions, orders and loyalty (updated with conditional increments).
  redemptions_total_redeemed: Counter;
  redemptions_total_failed: Counter;
  redemptions_total_succeeded: Counter;
  redemptions_total_rolled_back: Counter;
  redemptions_total_rollback_failed: Counter;
  redemptions_total_rollback_succeeded: Counter;
  orders_total_amount: Counter;
  orders_total_count: Counter;
  orders_last_order_amount: number | null;
  orders_last_order_date: Timestamp | null;
  // Gift and loyalty summaries and loyalty points are derived from the vouchers the customer holds
  // (store/customers.ts customerHoldings), never stored here.
  loyalty_referred_customers: Counter;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  /** Set by DELETE: the row is invisible to every read until a permanent deletion erases it. */
  deleted_at: Timestamp | null;
}

export interface CustomerDeletionsTable {
  id: string;
  project_id: string;
  customer_id: string;
  status: string;
  data_json: Json;
  created_at: Timestamp;
}

export interface CategoriesTable {
  id: string;
  project_id: string;
  name: string;
  hierarchy: number;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface ProductsTable {
  id: string;
  project_id: string;
  source_id: string | null;
  name: string | null;
  price: number | null;
  attributes: Json;
  metadata: Json;
  image_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  /** Set when the product was moved to the bin; binned rows are invisible to every read but the bin's. */
  binned_at: Timestamp | null;
}

export interface SkusTable {
  id: string;
  project_id: string;
  product_id: string;
  source_id: string | null;
  sku: string | null;
  price: number | null;
  currency: string | null;
  attributes: Json;
  metadata: Json;
  image_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  binned_at: Timestamp | null;
}

export interface BinEntriesTable {
  id: string;
  project_id: string;
  resource_id: string;
  resource_type: 'campaign' | 'product' | 'sku' | 'voucher';
  resource_name: string | null;
  resource_parent_id: string | null;
  deleted_by_user_id: string | null;
  created_at: Timestamp;
}

export type CampaignType = 'DISCOUNT_COUPONS' | 'PROMOTION' | 'GIFT_VOUCHERS' | 'REFERRAL_PROGRAM' | 'LOYALTY_PROGRAM';
export type CampaignStatus = 'DONE' | 'IN_PROGRESS' | 'FAILED' | 'DRAFT' | 'MODIFYING';

export interface CampaignsTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  campaign_type: CampaignType;
  type: 'AUTO_UPDATE' | 'STATIC' | 'STANDALONE';
  auto_join: Bool;
  join_once: Bool;
  use_voucher_metadata_schema: Bool;
  vouchers_count: Counter;
  start_date: Timestamp | null;
  expiration_date: Timestamp | null;
  validity_timeframe: Json | null;
  validity_day_of_week: Json | null;
  validity_hours: Json | null;
  activity_duration_after_publishing: string | null;
  active: Bool;
  metadata: Json;
  category_id: string | null;
  creation_status: CampaignStatus;
  vouchers_generation_status: CampaignStatus;
  protected: Bool;
  /** The `voucher` template new vouchers of the campaign are made from. */
  voucher_template: Json | null;
  referral_program: Json | null;
  loyalty_tiers_expiration: Json | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  binned_at: Timestamp | null;
}

export type VoucherType = 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD';

export interface VouchersTable {
  id: string;
  project_id: string;
  code: string;
  code_key: string;
  campaign_id: string | null;
  category_id: string | null;
  type: VoucherType;
  discount: Json | null;
  gift_amount: number | null;
  gift_subtracted_amount: Counter;
  gift_balance: Counter;
  gift_effect: string | null;
  loyalty_points: Counter;
  loyalty_balance: Counter;
  loyalty_expired_points: Counter;
  loyalty_subtracted_points: Counter;
  loyalty_pending_points: Counter;
  start_date: Timestamp | null;
  expiration_date: Timestamp | null;
  validity_timeframe: Json | null;
  validity_day_of_week: Json | null;
  validity_hours: Json | null;
  active: Bool;
  additional_info: string | null;
  metadata: Json;
  is_referral_code: Bool;
  holder_id: string | null;
  referrer_id: string | null;
  redemption_quantity: number | null;
  redeemed_quantity: Counter;
  redeemed_amount: Counter;
  redeemed_points: Counter;
  publish_count: Counter;
  published_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  binned_at: Timestamp | null;
}

export interface VoucherTransactionsTable {
  id: string;
  project_id: string;
  voucher_id: string;
  campaign_id: string | null;
  type: string;
  source_id: string | null;
  source: string | null;
  reason: string | null;
  /** Signed change: points for loyalty cards, minor units for gift cards. */
  amount: number;
  balance_after: number;
  total_after: number;
  operation_type: 'MANUAL' | 'AUTOMATIC';
  details: Json;
  bucket_moves: Json | null;
  related_transaction_id: string | null;
  created_at: Timestamp;
}

export interface LoyaltyBucketsTable {
  id: string;
  project_id: string;
  voucher_id: string;
  campaign_id: string | null;
  points: number;
  initial_points: number;
  expires_at: string | null;
  status: 'ACTIVE' | 'EXPIRED';
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface PublicationsTable {
  id: string;
  project_id: string;
  voucher_id: string;
  campaign_id: string | null;
  customer_id: string;
  channel: string | null;
  source_id: string | null;
  tracking_id: string | null;
  metadata: Json;
  result: 'SUCCESS' | 'FAILURE';
  created_at: Timestamp;
}

export interface RedemptionsTable {
  id: string;
  project_id: string;
  object: 'redemption' | 'redemption_rollback';
  result: 'SUCCESS' | 'FAILURE';
  status: 'SUCCEEDED' | 'FAILED' | 'ROLLED_BACK';
  failure_code: string | null;
  failure_message: string | null;
  reason: string | null;
  customer_id: string | null;
  tracking_id: string | null;
  metadata: Json;
  amount: number | null;
  parent_id: string | null;
  related_object_type: string;
  related_object_id: string;
  related_object_parent_id: string | null;
  voucher_id: string | null;
  voucher_code: string | null;
  promotion_tier_id: string | null;
  campaign_id: string | null;
  campaign_name: string | null;
  order_id: string | null;
  session_key: string | null;
  rollback_of: string | null;
  rolled_back_by: string | null;
  channel: Json;
  gift: Json | null;
  loyalty_card: Json | null;
  effects: Json | null;
  created_at: Timestamp;
  /** The order snapshot's amounts, as columns for totals and rule facts (migration 0023). */
  order_amount: number | null;
  order_total_discount_amount: number | null;
  order_total_applied_discount_amount: number | null;
}

/** What a redemption record saw, as JSON snapshots; read only when a record is shown whole (migration 0023). */
export interface RedemptionSnapshotsTable {
  redemption_id: string;
  project_id: string;
  order_snapshot: Json | null;
  customer_snapshot: Json | null;
  voucher_snapshot: Json | null;
  promotion_tier_snapshot: Json | null;
  reward_snapshot: Json | null;
}

/**
 * How many records a project holds per campaign name ('' for none) and result, kept with every record
 * insert and spread over shards; the redemption list's `total` adds them up (migration 0025).
 */
export interface RedemptionCountsTable {
  project_id: string;
  campaign_name: string;
  result: string;
  shard: number;
  n: number;
}

/**
 * Live vouchers per project and campaign ('' for vouchers without one), and live customers per project,
 * kept by triggers in the transaction of every change and spread over shards; the voucher and customer
 * lists' `total` adds them up (migration 0038, src/store/list-counts.ts).
 */
export interface VoucherCountsTable {
  project_id: string;
  campaign_id: string;
  shard: number;
  n: number;
}

export interface CustomerCountsTable {
  project_id: string;
  shard: number;
  n: number;
}

/** Orders (promotions reference 7). Amounts are integer minor units as calculated by src/domain/orders. */
export interface OrdersTable {
  id: string;
  project_id: string;
  source_id: string | null;
  status: 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED';
  amount: number;
  initial_amount: number;
  discount_amount: number;
  items_discount_amount: number;
  total_discount_amount: number;
  total_amount: number;
  /** The order lines (src/domain/orders/order-math.ts OrderLine[]). */
  items: Json;
  metadata: Json;
  customer_id: string | null;
  referrer_id: string | null;
  /** Redemption id → entry, written by the redemption engine; `{}` until then. */
  redemptions: Json;
  /** When the order first became PAID; order-paid effects run only for the update that sets it. */
  paid_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

// ---- validation rules, segments, product collections (migration 0003) ----

export interface ValidationRulesTable {
  id: string;
  project_id: string;
  name: string;
  /** The normalised rule set (src/domain/rules/definition.ts RuleSet). */
  rules: Json;
  error: Json | null;
  applicable_to: Json;
  type: string;
  context_type: string;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** An object a rule refers to (`products_collection`, `segment`), for in-use checks by index. */
export interface ValidationRuleReferencesTable {
  project_id: string;
  rule_id: string;
  object_type: string;
  object_id: string;
}

export interface ValidationRuleAssignmentsTable {
  id: string;
  project_id: string;
  rule_id: string;
  related_object_type: string;
  related_object_id: string;
  created_at: Timestamp;
}

export interface SegmentsTable {
  id: string;
  project_id: string;
  name: string;
  type: 'static' | 'auto-update';
  /** The normalised customer filter of an auto-update segment. */
  filter: Json | null;
  initial_sync_status: 'IN_PROGRESS' | 'DONE';
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface SegmentMembersTable {
  project_id: string;
  segment_id: string;
  customer_id: string;
  created_at: Timestamp;
}

export interface ProductCollectionsTable {
  id: string;
  project_id: string;
  name: string;
  type: 'STATIC' | 'AUTO_UPDATE';
  filter: Json | null;
  products: Json | null;
  created_at: Timestamp;
}

export interface ProductCollectionItemsTable {
  project_id: string;
  collection_id: string;
  item_type: 'product' | 'sku';
  item_id: string;
  /** The product itself, or the parent product of a SKU. */
  product_id: string;
  item_created_at: Timestamp;
}

// ---- vouchers, publications, referral programs (migration 0006) ----

export type HolderRole = 'OWNER' | 'REFERRER' | 'REFEREE';

export interface RedeemableHoldersTable {
  id: string;
  project_id: string;
  voucher_id: string;
  campaign_id: string | null;
  customer_id: string;
  holder_role: HolderRole;
  metadata: Json;
  created_at: Timestamp;
}

/** A marketing permission a project asks its customers for (vendor Consent). */
export interface ConsentsTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  category: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** Consents shown together (vendor ConsentGroup); `consents` is a JSON array of consent ids. */
export interface ConsentGroupsTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  consents: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** A customer's answer to one consent: granted (opt-in) or withdrawn (opt-out). */
/** A customer's name from the start of each word, for the prefix search (src/store/customer-search.ts nameParts). */
export interface CustomerNamePartsTable {
  project_id: string;
  name_part: string;
  customer_id: string;
}

export interface CustomerConsentsTable {
  project_id: string;
  customer_id: string;
  consent_id: string;
  granted: Bool;
  updated_at: Timestamp;
}

/** A campaign's configuration kept to make campaigns and promotion tiers from (vendor CampaignTemplate). */
export interface CampaignTemplatesTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  campaign_type: 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS';
  definition: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** A referred customer: the conversion (redemption or custom event) that made them a referee of a program. */
export interface ReferralsTable {
  id: string;
  project_id: string;
  campaign_id: string;
  voucher_id: string;
  referrer_id: string;
  customer_id: string;
  related_object_type: string;
  related_object_id: string;
  created_at: Timestamp;
}

/** A loyalty card's points earned but not yet usable (loyalty reference 2.9). */
export interface LoyaltyPendingPointsTable {
  id: string;
  project_id: string;
  voucher_id: string;
  campaign_id: string | null;
  customer_id: string | null;
  order_id: string | null;
  points: number;
  activates_at: string;
  status: 'PENDING' | 'ACTIVATED' | 'CANCELED';
  details: Json;
  expiration_rules: Json | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

// ---- earning rules, loyalty tiers, rewards (migration 0007) ----

export interface EarningRulesTable {
  id: string;
  project_id: string;
  campaign_id: string;
  event: string;
  custom_event_schema_id: string | null;
  segment_id: string | null;
  /** A tier id, or `__ANY__` for any tier of the rule's campaign. */
  loyalty_tier_id: string | null;
  /** The normalised `loyalty` member (src/domain/loyalty/earning.ts EarningLoyalty). */
  loyalty: Json;
  pending_points: Json | null;
  source_banner: string | null;
  automation_id: string;
  start_date: Timestamp | null;
  expiration_date: Timestamp | null;
  validity_timeframe: Json | null;
  validity_day_of_week: Json | null;
  validity_hours: Json | null;
  metadata: Json;
  expiration_rules: Json | null;
  validation_rule_id: string | null;
  active: Bool;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface LoyaltyTiersTable {
  id: string;
  project_id: string;
  campaign_id: string;
  name: string;
  points_from: number;
  points_to: number | null;
  /** Earning rule id → points mapping. */
  earning_rules: Json;
  /** Reward assignment id → points mapping. */
  rewards: Json;
  metadata: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** The tier one loyalty card holds (and the one it will hold from a later day). Dates are YYYY-MM-DD. */
export interface LoyaltyTierMembersTable {
  project_id: string;
  voucher_id: string;
  campaign_id: string;
  customer_id: string | null;
  tier_id: string | null;
  start_date: string | null;
  expiration_date: string | null;
  pending_tier_id: string | null;
  pending_start_date: string | null;
  pending_expiration_date: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface RewardsTable {
  id: string;
  project_id: string;
  name: string;
  type: 'CAMPAIGN' | 'COIN' | 'MATERIAL';
  parameters: Json;
  /** null = unlimited; taken by a conditional decrement only. */
  stock: number | null;
  redeemed: Counter;
  attributes: Json;
  metadata: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface RewardAssignmentsTable {
  id: string;
  project_id: string;
  reward_id: string;
  campaign_id: string;
  /** Price in points; null for pay-with-points assignments. */
  points: number | null;
  auto_redeem: Bool | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

// ---- webhooks, custom event schemas, metadata schemas (migration 0008) ----

export interface WebhooksTable {
  id: string;
  project_id: string;
  target_url: string;
  /** The event kinds as given (JSON array); the `aded` spellings are kept as sent. */
  events: Json;
  active: Bool;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  deleted_at: Timestamp | null;
}

export type WebhookDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';

export interface WebhookDeliveriesTable {
  id: string;
  project_id: string;
  webhook_id: string;
  event_id: string;
  event_seq: number;
  /** The delivered type (corrected `added` spelling). */
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** Set only on the oldest PENDING delivery of a webhook; later ones wait with NULL (per-webhook order). */
  next_attempt_at: Timestamp | null;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_response_status: number | null;
  last_error: string | null;
  /** JSON array of attempts: {attempt, at, response_status, error, duration_ms}. */
  attempt_log: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface WebhookDispatchCursorTable {
  name: string;
  last_seq: number;
  gap_max_seq: number | null;
  /** JSON array of PostgreSQL virtual transaction ids that may still commit an event inside the gap. */
  gap_holders: Json | null;
  updated_at: Timestamp;
}

export interface CustomEventSchemasTable {
  id: string;
  project_id: string;
  name: string;
  /** name → {type, optional, deleted?} */
  properties: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface MetadataSchemasTable {
  id: string;
  project_id: string;
  related_object: string;
  /** name → metadata property definition (src/domain/metadata-schemas/metadata-problems.ts). */
  properties: Json;
  allow_defined_only: ColumnType<boolean | number | null, boolean | null, boolean | null>;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

// ---- exports (migration 0009) ----

export type ExportStatus = 'SCHEDULED' | 'IN_PROGRESS' | 'DONE' | 'ERROR';

/** An export (platform reference 7.5) and the progress of the job writing its file. */
export interface ExportsTable {
  id: string;
  project_id: string;
  exported_object: string;
  status: ExportStatus;
  channel: string;
  user_id: string | null;
  /** The parameters as echoed, defaults filled in (src/services/exports/exports.ts). */
  parameters: Json;
  job_id: string;
  row_count: Counter;
  byte_count: Counter;
  chunk_count: Counter;
  /** Keyset position (sort key and id) of the last row written. */
  cursor: Json | null;
  error: string | null;
  /** Keyed hash of the download token; the token itself is never stored. */
  token_hash: string | null;
  token_expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** One piece of an export's CSV file; the file is the chunks in `seq` order. */
export interface ExportChunksTable {
  project_id: string;
  export_id: string;
  seq: number;
  data: string;
}

// ---- CSV imports (migration 0031) ----

/** An upload still being received; its staged rows belong to no job yet. */
export interface CsvUploadsTable {
  id: string;
  project_id: string;
  kind: string;
  created_at: Timestamp;
}

/** One record of an uploaded CSV file, waiting for its import job. */
export interface CsvImportRowsTable {
  project_id: string;
  import_id: string;
  row_no: number;
  line: number;
  /** JSON array of the record's cells. */
  cells: string;
}

/** A row an import rejected, with why. */
export interface CsvImportFailuresTable {
  project_id: string;
  import_id: string;
  row_no: number;
  line: number;
  reference: string | null;
  reason: string;
}

// ---- promotion tiers and stacks (migration 0010) ----

export interface PromotionTiersTable {
  id: string;
  project_id: string;
  campaign_id: string;
  name: string;
  banner: string | null;
  /** `{discount?}` with the discount normalised by src/domain/discounts/discount.ts. */
  action: Json;
  metadata: Json;
  hierarchy: number;
  active: Bool;
  start_date: Timestamp | null;
  expiration_date: Timestamp | null;
  validity_timeframe: Json | null;
  validity_day_of_week: Json | null;
  validity_hours: Json | null;
  /** Whether a recurring limit (timeframe, days, hours) is set. */
  recurring: Bool;
  category_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** A tier's summary, spread over shards (migration 0030); the summary is the sum of its rows. */
export interface PromotionTierCountsTable {
  project_id: string;
  tier_id: string;
  shard: number;
  redeemed: Counter;
  orders_amount: Counter;
  discount_amount: Counter;
}

export interface PromotionStacksTable {
  id: string;
  project_id: string;
  campaign_id: string;
  name: string;
  hierarchy_mode: 'MANUAL';
  category_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** One tier of a stack; `position` 0, 1, … is the order the stack applies its tiers in. */
export interface PromotionStackTiersTable {
  project_id: string;
  stack_id: string;
  position: number;
  tier_id: string;
}

// ---- redemption engine (migration 0020) ----

export type LockKind = 'quantity' | 'credits' | 'points';

/** What one validation session reserved on one voucher until `expires_at` (promotions reference 6.10). */
export interface RedemptionLocksTable {
  project_id: string;
  session_key: string;
  voucher_id: string;
  kind: LockKind;
  /** 1 for a use of the voucher, minor units of gift credits, or loyalty points. */
  amount: number;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** A project's stacking rules (promotions reference 6.6); the rules JSON holds every member. */
export interface StackingRulesTable {
  id: string;
  project_id: string;
  rules: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

// ---- referral tiers (migration 0021) ----

/** A referral tier's reward as stored: the reward campaign resolved to its id. */
export type StoredReferralTierReward =
  /** Points, or gift credits in minor units. */
  | { type: 'LOYALTY_CARD' | 'GIFT_VOUCHER'; campaign_id: string; amount: number }
  /** One coupon of a DISCOUNT_COUPONS campaign. */
  | { type: 'DISCOUNT_VOUCHER'; campaign_id: string; amount: null };

/** A referrer reward of a referral program (Punchcard extension), earned at `conversions` referees. */
export interface ReferralTiersTable {
  id: string;
  project_id: string;
  campaign_id: string;
  banner: string | null;
  conversions: number;
  /** StoredReferralTierReward as JSON. */
  reward: Json;
  metadata: Json;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** How many referees one referrer converted in one program. */
export interface ReferrerConversionsTable {
  project_id: string;
  campaign_id: string;
  referrer_id: string;
  conversions: number;
  updated_at: Timestamp;
}

/** A referral tier paid to a referrer (at most one per tier and referrer). */
export interface ReferralTierRewardsTable {
  id: string;
  project_id: string;
  campaign_id: string;
  tier_id: string;
  referrer_id: string;
  /** The conversion (referrals.id) that reached the tier. */
  referral_id: string;
  conversions: number;
  reward_type: StoredReferralTierReward['type'];
  voucher_id: string | null;
  transaction_id: string | null;
  created_at: Timestamp;
}

// ---- console users and sessions (migrations 0035, 0036) ----

/** A person who signs in to the console; organisation-wide, with a role per project (project_users). */
export interface UsersTable {
  id: string;
  /** The lower-cased e-mail address: unique. */
  login: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  /** src/lib/passwords.ts format; null until the user sets a password (an open invitation). */
  password_hash: string | null;
  is_owner: Bool;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface ProjectUsersTable {
  project_id: string;
  user_id: string;
  role: string;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  /** When the person took up the place (signed in or accepted a link); null while it is an open invitation (migration 0042). */
  joined_at: Timestamp | null;
}

/**
 * A one-time link's secret, hashed: the first admin's setup link, or an invitation — one that sets the
 * password of an account that has none ('invitation'), or one that signs an account in on the password it
 * has ('invitation-join', src/services/users/project-users.ts `invitationLink`) — or a password reset
 * link for an account that has a password ('password-reset', issued in `project_id`).
 */
export interface UserTokensTable {
  id: string;
  token_hash: string;
  purpose: 'setup' | 'invitation' | 'invitation-join' | 'password-reset';
  user_id: string | null;
  project_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface UserSessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  project_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  ip: string | null;
  user_agent: string | null;
}

/** A project's branding (vendor management `…/branding`, one per project); JSON members as given. */
export interface BrandingsTable {
  id: string;
  project_id: string;
  brand: Json | null;
  address: Json | null;
  contact: Json | null;
  /** Punchcard extension: the cockpit's logo and colours. */
  cockpit: Json | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** The per-project secret under which customers' cockpit links are signed. */
export interface CockpitKeysTable {
  project_id: string;
  secret: string;
  created_at: Timestamp;
}

/** A customer's cockpit link generation (no row = 0); each rotation counts it up. */
export interface CockpitLinksTable {
  project_id: string;
  customer_id: string;
  generation: number;
  rotated_at: Timestamp;
}

/** Recent failed sign-ins of one account (`account:<login>`) or one address (`ip:<address>`). */
export interface LoginThrottleTable {
  key: string;
  failures: number;
  last_failure_at: Timestamp;
}

export interface Database {
  settings: SettingsTable;
  management_keys: ManagementKeysTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  oauth_tokens: OauthTokensTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  jobs: JobsTable;
  customers: CustomersTable;
  customer_deletions: CustomerDeletionsTable;
  categories: CategoriesTable;
  products: ProductsTable;
  skus: SkusTable;
  bin_entries: BinEntriesTable;
  orders: OrdersTable;
  campaigns: CampaignsTable;
  vouchers: VouchersTable;
  voucher_transactions: VoucherTransactionsTable;
  loyalty_buckets: LoyaltyBucketsTable;
  loyalty_pending_points: LoyaltyPendingPointsTable;
  publications: PublicationsTable;
  redemptions: RedemptionsTable;
  redemption_snapshots: RedemptionSnapshotsTable;
  redemption_counts: RedemptionCountsTable;
  voucher_counts: VoucherCountsTable;
  customer_counts: CustomerCountsTable;
  validation_rules: ValidationRulesTable;
  validation_rule_references: ValidationRuleReferencesTable;
  validation_rule_assignments: ValidationRuleAssignmentsTable;
  segments: SegmentsTable;
  segment_members: SegmentMembersTable;
  product_collections: ProductCollectionsTable;
  product_collection_items: ProductCollectionItemsTable;
  redeemable_holders: RedeemableHoldersTable;
  consents: ConsentsTable;
  consent_groups: ConsentGroupsTable;
  customer_consents: CustomerConsentsTable;
  customer_name_parts: CustomerNamePartsTable;
  campaign_templates: CampaignTemplatesTable;
  referrals: ReferralsTable;
  earning_rules: EarningRulesTable;
  loyalty_tiers: LoyaltyTiersTable;
  loyalty_tier_members: LoyaltyTierMembersTable;
  rewards: RewardsTable;
  reward_assignments: RewardAssignmentsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_dispatch_cursor: WebhookDispatchCursorTable;
  custom_event_schemas: CustomEventSchemasTable;
  metadata_schemas: MetadataSchemasTable;
  exports: ExportsTable;
  export_chunks: ExportChunksTable;
  csv_uploads: CsvUploadsTable;
  csv_import_rows: CsvImportRowsTable;
  csv_import_failures: CsvImportFailuresTable;
  promotion_tiers: PromotionTiersTable;
  promotion_tier_counts: PromotionTierCountsTable;
  promotion_stacks: PromotionStacksTable;
  promotion_stack_tiers: PromotionStackTiersTable;
  redemption_locks: RedemptionLocksTable;
  stacking_rules: StackingRulesTable;
  referral_tiers: ReferralTiersTable;
  referrer_conversions: ReferrerConversionsTable;
  referral_tier_rewards: ReferralTierRewardsTable;
  users: UsersTable;
  project_users: ProjectUsersTable;
  user_tokens: UserTokensTable;
  user_sessions: UserSessionsTable;
  login_throttle: LoginThrottleTable;
  brandings: BrandingsTable;
  cockpit_keys: CockpitKeysTable;
  cockpit_links: CockpitLinksTable;
}
