import type { Tx } from '../../store/db.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import type { Actor, Deps } from '../context.ts';
import { earnPointsForOrder } from '../loyalty/earning.ts';
import { orderEvent } from './order-events.ts';
import type { OrderObject } from './order-object.ts';

/**
 * Everything that happens once per order when it is paid for the first time (promotions reference 7.4,
 * loyalty reference 4.6). Callers run it only when their conditional update set `paid_at`, inside the
 * same transaction, so it runs exactly once per order however often and however concurrently the order
 * is marked PAID: an order paid, cancelled and paid again does not come back here.
 *
 * It records `order.paid` (the `customer.order.paid` activity), then the order-paid earning rules give
 * their points (joining the customer to auto-join programs), naming that event in their accruals.
 * `copyIn`: the event of the same write that holds the order (src/services/orders/order-events.ts).
 */
export async function onOrderPaid(tx: Tx, deps: Deps, actor: Actor, order: OrderObject, copyIn?: NewEvent): Promise<void> {
  const paid = orderEvent(deps, actor, 'paid', order, copyIn);
  await appendEvents(tx, [paid]);
  await earnPointsForOrder(tx, deps, actor, order, { id: paid.id, type: 'customer.order.paid' });
}
