import { findLiveCustomersByIds, renderCustomers, type CustomerObject } from '../../store/customers.ts';
import type { Executor } from '../../store/db.ts';
import { findEventData } from '../../store/events.ts';
import { findRedemptionsByIds } from '../../store/redemption-records.ts';
import { isCustomerChangeRecord } from '../customers/customers.ts';
import type { JsonText } from '../../lib/json-text.ts';
import { renderRedemption, type RedemptionRecord } from '../redemptions/records.ts';

// Compact event payloads. An event used to carry full copies of objects that are stored anyway — a
// redemption record with its order, customer and voucher snapshots (about 8 KB each, three per stacked
// redemption), the whole customer of an order event — and wrote them to disk once more with every
// change. These events now store references, and every reader of the log (activity lists, member
// activity, webhook deliveries) expands them here into the same payload as before:
//
// - `redemption.succeeded`: `{redemption_id, campaign?, redemptions?}` → `{redemption, customer, order,
//   voucher?, promotion_tier?, campaign}` (a child) or `{redemption, customer, order, redemptions}` (a
//   stacked parent), from the record as it was written: its snapshots are taken at that moment, and the
//   record's later status (a rollback) is not shown, as it was not in the event.
// - `order.*`: `{order, customer_id}` → `{customer, order}`, the customer as they are now. The further
//   events of one write of an order (a new order's `order.paid`) store `{order_of, customer_id}` instead:
//   the id of the event of that write that holds the order.
// - `customer.updated`: `{customer_id, changes}` (src/services/customers/customers.ts) → `{customer}`,
//   the customer as they are now.
// Events stored in the old full form are returned as they are. A record's snapshots stay their stored
// text (JsonText): whoever serialises a payload does so with stringifyAnswer (src/lib/json-text.ts).

/** A `redemption.succeeded` payload as stored. */
export interface RedemptionEventRef {
  redemption_id: string;
  /** A child's campaign as the event names it (id, name, type). */
  campaign?: Record<string, unknown> | null;
  /** A stacked parent's children. */
  redemptions?: string[];
}

/** An `order.*` payload as stored: the order, or the event of the same write that holds it. */
export interface OrderEventRef {
  order?: Record<string, unknown>;
  order_of?: string;
  customer_id: string | null;
}

function isRedemptionRef(type: string, data: Record<string, unknown>): data is Record<string, unknown> & RedemptionEventRef {
  return type === 'redemption.succeeded' && typeof data.redemption_id === 'string' && !('redemption' in data);
}

function isOrderRef(type: string, data: Record<string, unknown>): data is Record<string, unknown> & OrderEventRef {
  return type.startsWith('order.') && 'customer_id' in data && !('customer' in data);
}

function isCustomerChange(type: string, data: Record<string, unknown>): data is Record<string, unknown> & { customer_id: string } {
  return type === 'customer.updated' && isCustomerChangeRecord(data);
}

export interface ExpandableEvent {
  type: string;
  data: Record<string, unknown>;
}

function childPayload(record: RedemptionRecord<JsonText>, campaign: Record<string, unknown> | null): Record<string, unknown> {
  return {
    redemption: record,
    customer: record.customer,
    order: record.order,
    ...(record.voucher ? { voucher: record.voucher } : {}),
    ...(record.promotion_tier ? { promotion_tier: record.promotion_tier } : {}),
    campaign,
  };
}

/** The events' payloads with references expanded, in the same order; loads what they name in one query per kind. */
export async function expandEventData(db: Executor, projectId: string, events: readonly ExpandableEvent[]): Promise<Record<string, unknown>[]> {
  const redemptionIds = new Set<string>();
  const customerIds = new Set<string>();
  for (const { type, data } of events) {
    if (isRedemptionRef(type, data)) redemptionIds.add(data.redemption_id);
    else if (isOrderRef(type, data) && data.customer_id !== null) customerIds.add(data.customer_id);
    else if (isCustomerChange(type, data)) customerIds.add(data.customer_id);
  }
  const records = redemptionIds.size === 0 ? new Map() : await findRedemptionsByIds(db, projectId, [...redemptionIds]);
  const orderHolders = new Set<string>();
  for (const { type, data } of events) if (isOrderRef(type, data) && typeof data.order_of === 'string') orderHolders.add(data.order_of);
  const heldOrders = await findEventData(db, projectId, [...orderHolders]);
  const customers = new Map<string, CustomerObject>();
  if (customerIds.size > 0) {
    const rows = await findLiveCustomersByIds(db, projectId, [...customerIds]);
    for (const customer of await renderCustomers(db, projectId, rows)) customers.set(customer.id, customer);
  }
  return events.map(({ type, data }) => {
    if (isRedemptionRef(type, data)) {
      const row = records.get(data.redemption_id);
      // Erased with its customer (GDPR) or never there: the reference is all that is left.
      if (!row) return { ...data };
      // As it was when the event happened: succeeded, no rollbacks yet.
      const record = { ...renderRedemption(row), status: 'SUCCEEDED' as const };
      if (data.redemptions) return { redemption: record, customer: record.customer, order: record.order, redemptions: data.redemptions };
      return childPayload(record, data.campaign ?? null);
    }
    if (isOrderRef(type, data)) {
      // A holder erased with its customer (GDPR) took the order with it.
      const order = data.order ?? (data.order_of !== undefined ? (heldOrders.get(data.order_of)?.order ?? null) : null);
      return { customer: data.customer_id === null ? null : (customers.get(data.customer_id) ?? null), order };
    }
    if (isCustomerChange(type, data)) return { customer: customers.get(data.customer_id) ?? null };
    return data;
  });
}
