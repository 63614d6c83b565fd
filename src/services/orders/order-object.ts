import { calculatedAmounts, type CalculatedAmounts, type OrderLine } from '../../domain/orders/order-math.ts';
import type { OrderStatus } from '../../domain/orders/order-status.ts';
import { fromJson } from '../../store/json.ts';
import type { OrderRow } from '../../store/orders.ts';

/** One entry of `order.redemptions` (promotions reference 7.3), written by the redemption engine. */
export interface OrderRedemptionEntry {
  date: string;
  related_object_type: string;
  related_object_id: string;
  related_object_parent_id?: string | null;
  stacked?: string[];
  rollback_id?: string;
  rollback_date?: string;
  rollback_stacked?: string[];
}

/** The order object (seed 2.8, promotions reference 7.2). */
export type OrderObject = {
  id: string;
  source_id: string | null;
  created_at: string;
  updated_at: string | null;
  status: OrderStatus;
} & CalculatedAmounts & {
    metadata: Record<string, unknown>;
    /** Undefined (left out of the answer) for an order of nobody: the vendor's schema has no null here. */
    customer?: { id: string; object: 'customer' } | undefined;
    customer_id: string | null;
    /** As `customer`. */
    referrer?: { id: string; object: 'customer' } | undefined;
    referrer_id: string | null;
    object: 'order';
    redemptions: Record<string, OrderRedemptionEntry>;
  };

export function orderLinesOf(row: OrderRow): OrderLine[] {
  return fromJson<OrderLine[]>(row.items, []);
}

/**
 * A stored order as the API shows it. Nothing is applied by reading or by the order endpoints, so the
 * request-scoped `applied_*` amounts are 0; the redemption engine answers its own calculation instead.
 * `lines`: the lines the row's `items` were just serialised from, when the caller holds them (the order
 * a redemption writes): they need not be parsed back.
 */
export function toOrderObject(row: OrderRow, lines: readonly OrderLine[] = orderLinesOf(row)): OrderObject {
  const totals = {
    amount: Number(row.amount),
    initial_amount: Number(row.initial_amount),
    discount_amount: Number(row.discount_amount),
    items_discount_amount: Number(row.items_discount_amount),
    total_discount_amount: Number(row.total_discount_amount),
    total_amount: Number(row.total_amount),
  };
  return orderWithAmounts(
    {
      id: row.id,
      source_id: row.source_id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      status: row.status,
      metadata: fromJson<Record<string, unknown>>(row.metadata, {}),
      customer: row.customer_id === null ? undefined : { id: row.customer_id, object: 'customer' },
      customer_id: row.customer_id,
      referrer: row.referrer_id === null ? undefined : { id: row.referrer_id, object: 'customer' },
      referrer_id: row.referrer_id,
      object: 'order',
      redemptions: fromJson<OrderObject['redemptions']>(row.redemptions, {}),
    },
    calculatedAmounts(totals, lines),
  );
}

/**
 * The order with the given amounts (and `order.redemptions`, when given), as one literal naming every
 * member in wire order: an order copied member by member (Object.assign onto `{}`) has more members than
 * V8 keeps in fast mode, and every later copy and serialisation of it is slower (src/lib/objects.ts).
 * `customer` and `referrer` stay in the literal when undefined (the same shape): every serialiser of an
 * answer, a stored snapshot or an event leaves an undefined member out.
 */
export function orderWithAmounts(
  order: Omit<OrderObject, keyof CalculatedAmounts>,
  amounts: CalculatedAmounts,
  redemptions: OrderObject['redemptions'] = order.redemptions,
): OrderObject {
  return {
    id: order.id,
    source_id: order.source_id,
    created_at: order.created_at,
    updated_at: order.updated_at,
    status: order.status,
    amount: amounts.amount,
    initial_amount: amounts.initial_amount,
    discount_amount: amounts.discount_amount,
    items_discount_amount: amounts.items_discount_amount,
    total_discount_amount: amounts.total_discount_amount,
    total_amount: amounts.total_amount,
    applied_discount_amount: amounts.applied_discount_amount,
    items_applied_discount_amount: amounts.items_applied_discount_amount,
    total_applied_discount_amount: amounts.total_applied_discount_amount,
    items: amounts.items,
    metadata: order.metadata,
    customer: order.customer,
    customer_id: order.customer_id,
    referrer: order.referrer,
    referrer_id: order.referrer_id,
    object: 'order',
    redemptions,
  };
}
