import type { CustomerObject } from '../../store/customers.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { JsonText } from '../../lib/json-text.ts';
import { UnreadableStoredJson } from '../../lib/unreadable-rows.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { countCustomerRedemption, findRedemptionsByIds, insertRedemptions, type RedemptionRow } from '../../store/redemption-records.ts';
import type { Actor } from '../context.ts';
import type { OrderObject } from '../orders/order-object.ts';

// The redemption record (seed 2.8, promotions reference 9.1): written by every redemption (reward
// redemptions here; the redemption engine's voucher and promotion redemptions too) and rendered the same
// way by the redemption lists. A record keeps snapshots of what it concerned as it was at that moment,
// and `effects`: exactly what was consumed, so a rollback can restore it.

export type ChannelType = 'API' | 'USER' | 'AUTO_REDEEM';

export interface RedemptionChannel {
  channel_id: string | null;
  channel_type: ChannelType;
}

/** Who redeemed: the API key's app id, the dashboard user, or (auto-redeem) the reward assignment. */
export function channelOf(actor: Actor, autoRedeemAssignmentId?: string): RedemptionChannel {
  if (autoRedeemAssignmentId) return { channel_id: autoRedeemAssignmentId, channel_type: 'AUTO_REDEEM' };
  if (actor.source.user) return { channel_id: actor.source.user.id, channel_type: 'USER' };
  return { channel_id: actor.source.api_key?.app_id ?? null, channel_type: 'API' };
}

export interface SimpleCustomer {
  id: string;
  name: string | null;
  email: string | null;
  source_id: string | null;
  metadata: Record<string, unknown>;
  object: 'customer';
}

export function simpleCustomer(customer: Pick<CustomerObject, 'id' | 'name' | 'email' | 'source_id' | 'metadata'>): SimpleCustomer {
  return { id: customer.id, name: customer.name, email: customer.email, source_id: customer.source_id, metadata: customer.metadata, object: 'customer' };
}

/**
 * The record as the API shows it (seed 2.8 plus the vendor's `status` and parent `redemption`). Rendered
 * for an answer (`RedemptionRecord<JsonText>`), its JSON members may be their stored text, which the
 * answer's serialiser writes unchanged (src/lib/json-text.ts).
 */
export interface RedemptionRecord<Stored = never> {
  id: string;
  object: 'redemption' | 'redemption_rollback';
  date: string;
  customer_id: string | null;
  tracking_id: string | null;
  metadata: Record<string, unknown> | Stored;
  amount?: number;
  redemption: string | null;
  result: 'SUCCESS' | 'FAILURE';
  status: 'SUCCEEDED' | 'FAILED' | 'ROLLED_BACK';
  failure_code?: string;
  failure_message?: string;
  reason?: string;
  session?: { key: string };
  related_redemptions?: { rollbacks: RollbackRef[]; redemptions: Array<{ id: string; date: string }> };
  order: OrderObject | null | Stored;
  channel: RedemptionChannel | Stored;
  customer: SimpleCustomer | null | Stored;
  related_object_type: string;
  related_object_id: string;
  voucher?: Record<string, unknown> | null | Stored;
  promotion_tier?: Record<string, unknown> | Stored;
  reward?: Record<string, unknown> | Stored;
  gift?: { amount: number } | Stored;
  loyalty_card?: { points: number } | Stored;
}

/** A rollback of a record, as `related_redemptions.rollbacks` lists it. */
export interface RollbackRef {
  id: string;
  date: string;
  rollback_order_mode: 'WITH_ORDER' | 'WITHOUT_ORDER';
}

/**
 * A stored record as the API shows it, without the rollbacks that undid it (answers use
 * renderRedemptions); its JSON members stay the stored text, for stringifyAnswer.
 */
export function renderRedemption(row: RedemptionRow): RedemptionRecord<JsonText> {
  return renderRecord(row, storedDocumentsOfRow(row), []);
}

/** The JSON columns of a record, as objects (or, `Stored = JsonText`, as their stored text). */
interface RecordDocuments<Stored = never> {
  metadata: Record<string, unknown> | Stored;
  order: OrderObject | null | Stored;
  channel: RedemptionChannel | Stored;
  customer: SimpleCustomer | null | Stored;
  voucher: Record<string, unknown> | null | Stored;
  tier: Record<string, unknown> | null | Stored;
  reward: Record<string, unknown> | null | Stored;
  gift: { amount: number } | null | Stored;
  loyaltyCard: { points: number } | null | Stored;
}

/**
 * The JSON columns of a record as their stored text, for an answer that shows them unchanged. A column
 * that fromJson would read as null or as its fallback is that here too, so renderRecord leaves out the
 * members a parsed record would.
 */
function storedDocumentsOfRow(row: RedemptionRow): RecordDocuments<JsonText> {
  if (row.documents_valid !== 1) assertParses(row);
  return {
    metadata: storedJson(row.metadata, {}),
    order: storedJson(row.order_snapshot, null),
    channel: storedJson(row.channel, { channel_id: null, channel_type: 'API' }),
    customer: storedJson(row.customer_snapshot, null),
    voucher: storedJson(row.voucher_snapshot, null),
    tier: storedJson(row.promotion_tier_snapshot, null),
    reward: storedJson(row.reward_snapshot, null),
    gift: storedJson(row.gift, null),
    loyaltyCard: storedJson(row.loyalty_card, null),
  };
}

/**
 * The answer copies the stored text unparsed, so a document that is not JSON would break the whole
 * answer: unless the database vouched for them (RedemptionRow.documents_valid), they are parsed here,
 * and one that does not parse throws as fromJson would (a list then leaves the record out).
 */
function assertParses(row: RedemptionRow): void {
  for (const text of [row.metadata, row.channel, row.gift, row.loyalty_card, row.order_snapshot, row.customer_snapshot, row.voucher_snapshot, row.promotion_tier_snapshot, row.reward_snapshot]) {
    if (!text) continue;
    try {
      JSON.parse(text);
    } catch {
      throw new UnreadableStoredJson(text);
    }
  }
}

/** As fromJson reads the column (typed as loosely), but a value other than null stays the stored text. */
function storedJson<T>(text: string | null | undefined, fallback: T): T | JsonText {
  if (text === null || text === undefined || text === '') return fallback;
  return text === 'null' ? (null as T) : new JsonText(text);
}

/** The objects a new record's columns are written from: the answer needs no parse of what was just serialised. */
function documentsOfRecord(record: RecordInput): RecordDocuments {
  return {
    metadata: record.metadata,
    order: record.order,
    channel: record.channel,
    customer: record.customer,
    voucher: record.voucher?.snapshot ?? null,
    tier: record.promotionTier?.snapshot ?? null,
    reward: record.reward,
    gift: record.gift,
    loyaltyCard: record.loyaltyCard,
  };
}

function renderRecord<Stored = never>(row: RedemptionRow, documents: RecordDocuments<Stored>, rollbacks: readonly RollbackRef[]): RedemptionRecord<Stored> {
  const { reward, tier, gift, loyaltyCard } = documents;
  const rollbackOf = row.object === 'redemption_rollback' ? row.rollback_of : null;
  return {
    id: row.id,
    object: row.object,
    date: row.created_at,
    customer_id: row.customer_id,
    tracking_id: row.tracking_id,
    metadata: documents.metadata,
    ...(row.amount !== null ? { amount: Number(row.amount) } : {}),
    // A rollback names the redemption it undid; a stacked child its parent.
    redemption: rollbackOf ?? row.parent_id,
    result: row.result,
    status: row.status,
    ...(row.failure_code !== null ? { failure_code: row.failure_code } : {}),
    ...(row.failure_message !== null ? { failure_message: row.failure_message } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.session_key !== null ? { session: { key: row.session_key } } : {}),
    ...(rollbacks.length > 0 ? { related_redemptions: { rollbacks: [...rollbacks], redemptions: [] } } : {}),
    ...(rollbackOf !== null ? { related_redemptions: { rollbacks: [], redemptions: [{ id: rollbackOf, date: row.created_at }] } } : {}),
    order: documents.order,
    channel: documents.channel,
    customer: documents.customer,
    related_object_type: row.related_object_type,
    related_object_id: row.related_object_id,
    ...(row.voucher_snapshot !== null || row.voucher_id !== null ? { voucher: documents.voucher } : {}),
    ...(tier ? { promotion_tier: tier } : {}),
    ...(reward ? { reward } : {}),
    ...(gift ? { gift } : {}),
    ...(loyaltyCard ? { loyalty_card: loyaltyCard } : {}),
  };
}

/**
 * Records of a page as an answer shows them, with the rollbacks that undid them looked up in one query;
 * their JSON members stay the stored text (see RedemptionRecord).
 */
export async function renderRedemptions(db: Executor, projectId: string, rows: readonly RedemptionRow[]): Promise<Array<RedemptionRecord<JsonText>>> {
  const rolledBack = rows.filter((r) => r.rolled_back_by !== null).map((r) => r.rolled_back_by as string);
  const rollbacks = await findRedemptionsByIds(db, projectId, rolledBack);
  return rows.map((row) => {
    const rollback = row.rolled_back_by ? rollbacks.get(row.rolled_back_by) : undefined;
    const mode = rollback ? fromJson<{ rollback_order_mode?: RollbackRef['rollback_order_mode'] }>(rollback.effects, {}).rollback_order_mode : undefined;
    return renderRecord(row, storedDocumentsOfRow(row), rollback ? [{ id: rollback.id, date: rollback.created_at, rollback_order_mode: mode ?? 'WITH_ORDER' }] : []);
  });
}

/**
 * What a reward redemption consumed and handed out, for its rollback: the card's use and points (the
 * transaction names the buckets drawn), the reward unit, the order discount, and what was issued.
 */
export interface RewardRedemptionEffects {
  kind: 'loyalty_reward';
  card: { voucher_id: string; redeemed_quantity: 1 };
  points: { voucher_id: string; points: number; transaction_id: string | null };
  reward: { reward_id: string; assignment_id: string; stock_taken: boolean; redeemed: 1 };
  order: { order_id: string; discount_amount: number } | null;
  issued:
    | { type: 'coupon'; voucher_id: string; publication_id: string }
    | { type: 'gift_credits'; voucher_id: string; amount: number; transaction_id: string; publication_id: string | null }
    | { type: 'loyalty_points'; voucher_id: string; points: number; transaction_id: string; publication_id: string | null }
    | { type: 'product'; product_id: string; sku_id: string | null }
    | null;
  customer_counters: { customer_id: string; total_redeemed: 1; total_succeeded: 1 } | null;
}

/** What a redemption of the stackable engine consumed and changed (one child or single record), so a rollback can restore it. */
export interface RedeemableEffects {
  kind: 'redeemable';
  voucher: { voucher_id: string; redeemed_quantity: 1 } | null;
  credits: { voucher_id: string; amount: number; transaction_id: string } | null;
  points: { voucher_id: string; points: number; transaction_id: string } | null;
  reward: { reward_id: string; assignment_id: string; stock_taken: boolean; redeemed: 1 } | null;
  tier: { tier_id: string; order_amount: number; discount_amount: number } | null;
  order: { order_id: string; discount_amount: number; items_discount: number[] } | null;
  customer_id: string | null;
}

export interface ParentEffects {
  kind: 'parent';
  children: string[];
  order_id: string | null;
}

/** What a rollback record notes about how it was made. */
export interface RollbackEffects {
  rollback_order_mode: 'WITH_ORDER' | 'WITHOUT_ORDER';
}

export type RecordEffects = RewardRedemptionEffects | RedeemableEffects | ParentEffects | RollbackEffects;

export interface NewRedemptionRecord {
  id: string;
  actor: Actor;
  channel: RedemptionChannel;
  customer: SimpleCustomer | null;
  trackingId: string | null;
  metadata: Record<string, unknown>;
  amount: number | null;
  relatedObject: { type: string; id: string; parentId: string | null };
  voucher: { id: string; code: string; snapshot: Record<string, unknown> } | null;
  campaign: { id: string; name: string } | null;
  order: OrderObject | null;
  reward: Record<string, unknown> | null;
  gift: { amount: number } | null;
  loyaltyCard: { points: number } | null;
  effects: RecordEffects | null;
  at: string;
}

/** Any record: a redemption (success or failure, single, parent or child) or a rollback. */
export interface RecordInput extends NewRedemptionRecord {
  object: 'redemption' | 'redemption_rollback';
  result: 'SUCCESS' | 'FAILURE';
  status: 'SUCCEEDED' | 'FAILED' | 'ROLLED_BACK';
  failure: { code: string; message: string } | null;
  reason: string | null;
  /** Stacked children: the parent redemption; child rollbacks: the parent rollback. */
  parentId: string | null;
  promotionTier: { id: string; snapshot: Record<string, unknown> } | null;
  /** The order the record concerns even when its snapshot is null (failures keep none). */
  orderId: string | null;
  sessionKey: string | null;
  /** Rollback records: the redemption they undo. */
  rollbackOf: string | null;
}

/** Stores one record as given (no counters) and answers it as the API shows it. */
export async function insertRecord(tx: Executor, record: RecordInput): Promise<RedemptionRecord> {
  const [stored] = await insertRecords(tx, [record]);
  return stored as RedemptionRecord;
}

/** Stores several records at once (a stacked request's children and parent; no counters), in order. */
export async function insertRecords(tx: Executor, records: readonly RecordInput[]): Promise<RedemptionRecord[]> {
  const documents = records.map(documentsOfRecord);
  const rows = records.map((record, i) => rowOf(record, documents[i] as RecordDocuments));
  await insertRedemptions(tx, rows);
  return rows.map((row, i) => renderRecord(row, documents[i] as RecordDocuments, []));
}

/** A new record's row: its own columns, and the JSON columns serialised from its documents (documentsOfRecord). */
function rowOf(record: RecordInput, documents: RecordDocuments): RedemptionRow {
  return {
    id: record.id,
    project_id: record.actor.projectId,
    object: record.object,
    result: record.result,
    status: record.status,
    failure_code: record.failure?.code ?? null,
    failure_message: record.failure?.message ?? null,
    reason: record.reason,
    customer_id: record.customer?.id ?? null,
    tracking_id: record.trackingId,
    metadata: toJson(documents.metadata),
    amount: record.amount,
    parent_id: record.parentId,
    related_object_type: record.relatedObject.type,
    related_object_id: record.relatedObject.id,
    related_object_parent_id: record.relatedObject.parentId,
    voucher_id: record.voucher?.id ?? null,
    voucher_code: record.voucher?.code ?? null,
    promotion_tier_id: record.promotionTier?.id ?? null,
    campaign_id: record.campaign?.id ?? null,
    campaign_name: record.campaign?.name ?? null,
    order_id: record.order?.id ?? record.orderId,
    session_key: record.sessionKey,
    rollback_of: record.rollbackOf,
    rolled_back_by: null,
    order_snapshot: documents.order ? toJson(documents.order) : null,
    channel: toJson(documents.channel),
    customer_snapshot: documents.customer ? toJson(documents.customer) : null,
    voucher_snapshot: documents.voucher ? toJson(documents.voucher) : null,
    promotion_tier_snapshot: documents.tier ? toJson(documents.tier) : null,
    reward_snapshot: documents.reward ? toJson(documents.reward) : null,
    gift: documents.gift ? toJson(documents.gift) : null,
    loyalty_card: documents.loyaltyCard ? toJson(documents.loyaltyCard) : null,
    effects: record.effects ? toJson(record.effects) : null,
    created_at: record.at,
    order_amount: record.order?.amount ?? null,
    order_total_discount_amount: record.order?.total_discount_amount ?? null,
    order_total_applied_discount_amount: record.order?.total_applied_discount_amount ?? null,
  };
}

/**
 * Stores a successful redemption record and moves the customer's counters (total_redeemed and
 * total_succeeded), inside the caller's transaction; answers the record as the API shows it.
 */
export async function recordSuccessfulRedemption(tx: Tx, record: NewRedemptionRecord): Promise<RedemptionRecord> {
  const stored = await insertRecord(tx, {
    ...record,
    object: 'redemption',
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    failure: null,
    reason: null,
    parentId: null,
    promotionTier: null,
    orderId: null,
    sessionKey: null,
    rollbackOf: null,
  });
  if (record.customer) await countCustomerRedemption(tx, record.actor.projectId, record.customer.id, 'SUCCESS');
  return stored;
}
