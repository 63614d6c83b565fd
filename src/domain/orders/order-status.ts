// Order statuses (promotions reference 7.4) and what a change of status or customer means for the
// customer summary (platform reference 3.2: `summary.orders` counts PAID and FULFILLED orders only).

export const ORDER_STATUSES = ['CREATED', 'PAID', 'CANCELED', 'FULFILLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses whose orders the customer summary counts. */
export const COUNTED_STATUSES: readonly OrderStatus[] = ['PAID', 'FULFILLED'];

export function countsTowardSummary(status: OrderStatus): boolean {
  return COUNTED_STATUSES.includes(status);
}

/** The members of an order that the customer summary depends on. */
export interface SummaryFacts {
  customer_id: string | null;
  status: OrderStatus;
  total_amount: number;
}

/** How one customer's order counters move; the latest counted order must be recomputed for them too. */
export interface SummaryChange {
  customerId: string;
  countDelta: number;
  amountDelta: number;
}

/**
 * The counter moves one order change causes, per customer: its old contribution is taken away from the
 * old customer and its new contribution given to the new one. A customer appears whenever the order
 * counted for them before or after, even with zero deltas, because their latest order may still change
 * (a new amount or date on a counted order). Customers are listed in id order, the order callers lock them in.
 */
export function summaryChanges(before: SummaryFacts | null, after: SummaryFacts): SummaryChange[] {
  const changes = new Map<string, SummaryChange>();
  const touch = (customerId: string) => {
    let change = changes.get(customerId);
    if (!change) {
      change = { customerId, countDelta: 0, amountDelta: 0 };
      changes.set(customerId, change);
    }
    return change;
  };
  if (before?.customer_id && countsTowardSummary(before.status)) {
    const change = touch(before.customer_id);
    change.countDelta -= 1;
    change.amountDelta -= before.total_amount;
  }
  if (after.customer_id && countsTowardSummary(after.status)) {
    const change = touch(after.customer_id);
    change.countDelta += 1;
    change.amountDelta += after.total_amount;
  }
  return [...changes.values()].sort((a, b) => (a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : 0));
}

export type OrderEventKind = 'created' | 'updated' | 'paid' | 'canceled' | 'fulfilled';

/**
 * The status events one write causes besides `created`/`updated`. `paid` is only a candidate: it fires
 * when the order has never been paid before, which the store decides with a conditional update.
 */
export function statusEvents(before: OrderStatus | null, after: OrderStatus): { paidCandidate: boolean; others: OrderEventKind[] } {
  const others: OrderEventKind[] = [];
  if (after === 'CANCELED' && before !== 'CANCELED') others.push('canceled');
  if (after === 'FULFILLED' && before !== 'FULFILLED') others.push('fulfilled');
  return { paidCandidate: after === 'PAID', others };
}
