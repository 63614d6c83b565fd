import { moneyCell, type Cell } from '../../domain/exports/csv.ts';
import { metadataMemberOf, type ExportedObject } from '../../domain/exports/objects.ts';
import { customerHoldings, customerObjectWith, NO_HOLDINGS } from '../../store/customers.ts';
import type { Executor } from '../../store/db.ts';
import {
  readBucketBatch,
  readCustomerBatch,
  readOrderBatch,
  readPublicationBatch,
  readRedemptionBatch,
  readTransactionBatch,
  readVoucherBatch,
  UNIQUE_SORT_KEYS,
  voucherRuleIds,
  type ExportBatchQuery,
  type ExportCursor,
} from '../../store/export-sources.ts';
import { fromJson } from '../../store/json.ts';
import { listing, type Deps } from '../context.ts';
import { assetLinker } from '../loyalty/card-assets.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// The CSV cells of each exported object (platform reference 7.3 and the vendor's field definitions),
// computed from one batch of rows at a time. Values come from the same columns the API's JSON objects
// show; rendering rules are in src/domain/exports/csv.ts.

type Getter<R> = (row: R) => Cell;

/**
 * One batch of an export: its rows as cells in the order of `fields`, and where the next batch starts.
 * A row whose stored JSON does not parse is left out of `cells` and reported (src/lib/unreadable-rows.ts).
 */
export interface ExportBatch {
  cells: Cell[][];
  /** Rows read, those left out included: fewer than the limit ends the export. */
  read: number;
  /** Keyset position of the batch's last row; null for an empty batch. */
  last: ExportCursor | null;
}

export interface ExportSource {
  /** The batch after `after` (from the start when null), at most `q.limit` rows. */
  batch(deps: Deps, db: Executor, q: Omit<ExportBatchQuery, 'bound' | 'fields'>, after: ExportCursor | null, fields: readonly string[]): Promise<ExportBatch>;
}

type CellsOf<R> = (deps: Deps, db: Executor, projectId: string, rows: R[], fields: readonly string[]) => Promise<Cell[][]>;

/** `uniqueKeys`: sort keys no two rows share (no ties to look for after a cursor). */
function source<R extends { id: string; sort_key: string }>(
  object: ExportedObject,
  read: (db: Executor, q: ExportBatchQuery) => Promise<R[]>,
  uniqueKeys: readonly string[],
  cells: CellsOf<R>,
): ExportSource {
  return {
    async batch(deps, db, q, after, fields) {
      let rows: R[] = [];
      if (after === null) {
        rows = await read(db, { ...q, fields, bound: null });
      } else {
        // First the rows sharing the cursor's key, then those beyond it (see KeysetBound).
        if (!uniqueKeys.includes(q.sortKey)) rows = await read(db, { ...q, fields, bound: { ties: after } });
        if (rows.length < q.limit) rows = rows.concat(await read(db, { ...q, fields, bound: { after: after.key }, limit: q.limit - rows.length }));
      }
      const last = rows[rows.length - 1];
      const shown = await readableRows(listing(deps, { projectId: q.projectId }, object), rows, (some) => cells(deps, db, q.projectId, [...some], fields));
      return { cells: shown, read: rows.length, last: last ? { key: last.sort_key, id: last.id } : null };
    },
  };
}

function num(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Cells for the rows: each field's getter, with `metadata.<key>` read from the row's metadata text. */
function tabulate<R>(rows: readonly R[], fields: readonly string[], getters: Record<string, Getter<R>>, metadataOf?: (row: R) => string): Cell[][] {
  return rows.map((row) => {
    let metadata: Record<string, unknown> | null = null;
    const meta = () => (metadata ??= fromJson<Record<string, unknown>>(metadataOf?.(row), {}));
    return fields.map((field) => {
      const getter = getters[field];
      if (getter) return getter(row);
      const member = metadataMemberOf(field);
      // Only allowed fields reach here (src/domain/exports/objects.ts); metadata members are the rest.
      if (member !== null && metadataOf) return meta()[member] as Cell;
      throw new Error(`export field ${field} has no column`);
    });
  });
}

const metadataCell = <R extends { metadata: string }>(row: R): Cell => fromJson<Record<string, unknown>>(row.metadata, {});
const metadataText = <R extends { metadata: string }>(row: R): string => row.metadata;

interface DiscountJson {
  type?: string;
  amount_off?: number;
  percent_off?: number;
  fixed_amount?: number;
  unit_off?: number;
  unit_type?: string;
  amount_limit?: number;
  effect?: string;
  amount_off_formula?: string;
  percent_off_formula?: string;
  fixed_amount_formula?: string;
  unit_off_formula?: string;
}

/**
 * The voucher `value` column, as the vendor's example file shows it: money with two decimals in major
 * units (gift cards: the balance left to spend; amount and fixed discounts), percent and units as numbers,
 * loyalty cards: the spendable points.
 */
function voucherValue(type: string, discount: DiscountJson | null, giftBalance: number, loyaltyBalance: number): Cell {
  if (type === 'GIFT_VOUCHER') return moneyCell(giftBalance);
  if (type === 'LOYALTY_CARD') return loyaltyBalance;
  switch (discount?.type) {
    case 'AMOUNT':
      return discount.amount_off === undefined ? null : moneyCell(discount.amount_off);
    case 'PERCENT':
      return discount.percent_off ?? null;
    case 'FIXED':
      return discount.fixed_amount === undefined ? null : moneyCell(discount.fixed_amount);
    case 'UNIT':
      return discount.unit_off ?? null;
    default:
      return null;
  }
}

const voucherSource = source('voucher', readVoucherBatch, UNIQUE_SORT_KEYS.voucher, async (deps, db, projectId, rows, fields) => {
    const rules = fields.includes('validation_rules_id') ? await voucherRuleIds(db, projectId, rows.map((r) => r.id)) : new Map<string, string[]>();
    const assets = assetLinker(deps);
    const parsed = new Map(rows.map((r) => [r.id, fromJson<DiscountJson | null>(r.discount, null)]));
    const discount = (id: string) => parsed.get(id) ?? null;
    const timeframe = (text: string | null) => fromJson<{ interval?: string; duration?: string } | null>(text, null);
    type Row = (typeof rows)[number];
    const getters: Record<string, Getter<Row>> = {
      code: (r) => r.code,
      voucher_type: (r) => r.type,
      value: (r) => voucherValue(r.type, discount(r.id), Number(r.gift_balance), Number(r.loyalty_balance)),
      formula: (r) => {
        const d = discount(r.id);
        return d?.amount_off_formula ?? d?.percent_off_formula ?? d?.fixed_amount_formula ?? d?.unit_off_formula ?? null;
      },
      discount_type: (r) => (r.type === 'DISCOUNT_VOUCHER' ? (discount(r.id)?.type ?? null) : null),
      campaign: (r) => r.campaign_name,
      category: (r) => r.category_name,
      start_date: (r) => r.start_date,
      expiration_date: (r) => r.expiration_date,
      gift_balance: (r) => (r.type === 'GIFT_VOUCHER' ? Number(r.gift_balance) : null),
      loyalty_balance: (r) => (r.type === 'LOYALTY_CARD' ? Number(r.loyalty_balance) : null),
      // Empty when unlimited.
      redemption_quantity: (r) => num(r.redemption_quantity),
      redemption_count: (r) => Number(r.redeemed_quantity),
      active: (r) => Boolean(r.active),
      qr_code: (r) => assets(r).qr.url,
      bar_code: (r) => assets(r).barcode.url,
      metadata: metadataCell,
      id: (r) => r.id,
      is_referral_code: (r) => Boolean(r.is_referral_code),
      created_at: (r) => r.created_at,
      updated_at: (r) => r.updated_at,
      validity_timeframe_interval: (r) => timeframe(r.validity_timeframe)?.interval ?? null,
      validity_timeframe_duration: (r) => timeframe(r.validity_timeframe)?.duration ?? null,
      validity_day_of_week: (r) => fromJson<number[] | null>(r.validity_day_of_week, null),
      discount_amount_limit: (r) => discount(r.id)?.amount_limit ?? null,
      campaign_id: (r) => r.campaign_id,
      additional_info: (r) => r.additional_info,
      customer_id: (r) => r.holder_id,
      discount_effect: (r) => (discount(r.id)?.type !== 'UNIT' ? (discount(r.id)?.effect ?? null) : null),
      discount_unit_type: (r) => discount(r.id)?.unit_type ?? null,
      discount_unit_effect: (r) => (discount(r.id)?.type === 'UNIT' ? (discount(r.id)?.effect ?? null) : null),
      validation_rules_id: (r) => rules.get(r.id) ?? null,
      customer_source_id: (r) => r.holder_source_id,
    };
    return tabulate(rows, fields, getters, metadataText);
});

const redemptionSource = source('redemption', readRedemptionBatch, UNIQUE_SORT_KEYS.redemption, async (_deps, _db, _projectId, rows, fields) => {
    type Row = (typeof rows)[number];
    const getters: Record<string, Getter<Row>> = {
      id: (r) => r.id,
      object: (r) => r.object,
      date: (r) => r.created_at,
      voucher_code: (r) => r.voucher_code,
      campaign: (r) => r.campaign_name,
      promotion_tier_id: (r) => r.promotion_tier_id,
      customer_id: (r) => r.customer_id,
      customer_source_id: (r) => r.customer_source_id,
      customer_name: (r) => r.customer_name,
      tracking_id: (r) => r.tracking_id,
      order_id: (r) => r.order_id,
      order_amount: (r) => num(r.order_amount),
      gift_amount: (r) => num(r.gift_amount),
      loyalty_points: (r) => num(r.loyalty_points),
      result: (r) => r.result,
      failure_code: (r) => r.failure_code,
      failure_message: (r) => r.failure_message,
      metadata: metadataCell,
    };
    return tabulate(rows, fields, getters, metadataText);
});

const customerSource = source('customer', readCustomerBatch, UNIQUE_SORT_KEYS.customer, async (_deps, db, projectId, rows, fields) => {
    // The same object GET /v1/customers/{id} answers, so the file can never disagree with the API.
    const holdings = fields.includes('loyalty_points') ? await customerHoldings(db, projectId, rows.map((r) => r.id)) : new Map();
    const objects = new Map(rows.map((r) => [r.id, customerObjectWith(r, holdings.get(r.id) ?? NO_HOLDINGS)]));
    const c = (id: string) => {
      const object = objects.get(id);
      if (!object) throw new Error('customer row without its object');
      return object;
    };
    type Row = (typeof rows)[number];
    const redemptions = (r: Row) => c(r.id).summary.redemptions;
    const orders = (r: Row) => c(r.id).summary.orders;
    const getters: Record<string, Getter<Row>> = {
      name: (r) => r.name,
      id: (r) => r.id,
      description: (r) => r.description,
      email: (r) => r.email,
      source_id: (r) => r.source_id,
      created_at: (r) => r.created_at,
      address_city: (r) => c(r.id).address?.city ?? null,
      address_state: (r) => c(r.id).address?.state ?? null,
      address_line_1: (r) => c(r.id).address?.line_1 ?? null,
      address_line_2: (r) => c(r.id).address?.line_2 ?? null,
      address_country: (r) => c(r.id).address?.country ?? null,
      address_postal_code: (r) => c(r.id).address?.postal_code ?? null,
      redemptions_total_redeemed: (r) => redemptions(r).total_redeemed,
      redemptions_total_failed: (r) => redemptions(r).total_failed,
      redemptions_total_succeeded: (r) => redemptions(r).total_succeeded,
      redemptions_total_rolled_back: (r) => redemptions(r).total_rolled_back,
      redemptions_total_rollback_failed: (r) => redemptions(r).total_rollback_failed,
      redemptions_total_rollback_succeeded: (r) => redemptions(r).total_rollback_succeeded,
      orders_total_amount: (r) => orders(r).total_amount,
      orders_total_count: (r) => orders(r).total_count,
      orders_average_amount: (r) => orders(r).average_amount,
      orders_last_order_amount: (r) => orders(r).last_order_amount,
      orders_last_order_date: (r) => orders(r).last_order_date,
      loyalty_points: (r) => c(r.id).loyalty.points,
      loyalty_referred_customers: (r) => c(r.id).loyalty.referred_customers,
      updated_at: (r) => r.updated_at,
      phone: (r) => r.phone,
      birthday: (r) => r.birthday,
      metadata: metadataCell,
      birthdate: (r) => r.birthdate,
    };
    return tabulate(rows, fields, getters, metadataText);
});

const publicationSource = source('publication', readPublicationBatch, UNIQUE_SORT_KEYS.publication, async (_deps, _db, _projectId, rows, fields) => {
    type Row = (typeof rows)[number];
    const getters: Record<string, Getter<Row>> = {
      code: (r) => r.voucher_code,
      voucher_code: (r) => r.voucher_code,
      customer_id: (r) => r.customer_id,
      customer_source_id: (r) => r.customer_source_id,
      date: (r) => r.created_at,
      channel: (r) => r.channel,
      campaign: (r) => r.campaign_name,
      // Prize draws (the vendor's "winner" publications) do not exist here: the cell stays empty.
      is_winner: () => null,
      metadata: metadataCell,
    };
    return tabulate(rows, fields, getters, metadataText);
});

const orderSource = source('order', readOrderBatch, UNIQUE_SORT_KEYS.order, async (_deps, _db, _projectId, rows, fields) => {
    type Row = (typeof rows)[number];
    const getters: Record<string, Getter<Row>> = {
      id: (r) => r.id,
      source_id: (r) => r.source_id,
      created_at: (r) => r.created_at,
      updated_at: (r) => r.updated_at,
      status: (r) => r.status,
      amount: (r) => Number(r.amount),
      discount_amount: (r) => Number(r.discount_amount),
      items_discount_amount: (r) => Number(r.items_discount_amount),
      total_discount_amount: (r) => Number(r.total_discount_amount),
      total_amount: (r) => Number(r.total_amount),
      customer_id: (r) => r.customer_id,
      referrer_id: (r) => r.referrer_id,
      metadata: metadataCell,
    };
    return tabulate(rows, fields, getters, metadataText);
});

const bucketSource = source('points_expiration', readBucketBatch, UNIQUE_SORT_KEYS.points_expiration, async (_deps, _db, _projectId, rows, fields) => {
    type Row = (typeof rows)[number];
    const getters: Record<string, Getter<Row>> = {
      id: (r) => r.id,
      campaign_id: (r) => r.campaign_id,
      voucher_id: (r) => r.voucher_id,
      points: (r) => Number(r.points),
      status: (r) => r.status,
      expires_at: (r) => r.expires_at,
    };
    return tabulate(rows, fields, getters);
});

const transactionSource = source('voucher_transactions', readTransactionBatch, UNIQUE_SORT_KEYS.voucher_transactions, async (_deps, _db, _projectId, rows, fields) => {
    type Row = (typeof rows)[number];
    const getters: Record<string, Getter<Row>> = {
      id: (r) => r.id,
      campaign_id: (r) => r.campaign_id,
      voucher_id: (r) => r.voucher_id,
      type: (r) => r.type,
      source_id: (r) => r.source_id,
      reason: (r) => r.reason,
      source: (r) => r.source,
      balance: (r) => Number(r.balance_after),
      amount: (r) => Number(r.amount),
      related_transaction_id: (r) => r.related_transaction_id,
      created_at: (r) => r.created_at,
      details: (r) => fromJson<Record<string, unknown>>(r.details, {}),
    };
    return tabulate(rows, fields, getters);
});

export const EXPORT_SOURCES: Record<ExportedObject, ExportSource> = {
  voucher: voucherSource,
  redemption: redemptionSource,
  customer: customerSource,
  publication: publicationSource,
  order: orderSource,
  points_expiration: bucketSource,
  voucher_transactions: transactionSource,
};
