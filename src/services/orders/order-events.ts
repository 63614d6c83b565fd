import { lineProductIds } from '../../domain/orders/order-math.ts';
import type { OrderEventKind } from '../../domain/orders/order-status.ts';
import type { NewEvent } from '../../store/events.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import type { OrderObject } from './order-object.ts';

/**
 * `order.<kind>`, which is also the customer's `customer.order.<kind>` activity. The product ids let the
 * activity list filter by product. The order is copied as it is now — once per write: the further events
 * of the same write (a new order's `order.paid`) name the event that holds the copy (`order_of`). The
 * customer is only named. Readers expand both as they are read (src/services/events/expand.ts).
 */
export function orderEvent(deps: Deps, actor: Actor, kind: OrderEventKind, order: OrderObject, copyIn?: NewEvent): NewEvent {
  return makeEvent(deps, actor, {
    type: `order.${kind}`,
    activityType: `customer.order.${kind}`,
    activityCategory: 'ACTION',
    customerId: order.customer_id,
    productIds: lineProductIds(order.items),
    entityId: order.id,
    data: copyIn ? { order_of: copyIn.id, customer_id: order.customer_id } : { order, customer_id: order.customer_id },
  });
}
