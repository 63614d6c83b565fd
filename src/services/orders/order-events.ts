import { lineProductIds } from '../../domain/orders/order-math.ts';
import type { OrderEventKind } from '../../domain/orders/order-status.ts';
import type { CustomerObject } from '../../store/customers.ts';
import type { NewEvent } from '../../store/events.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import type { OrderObject } from './order-object.ts';

/**
 * `order.<kind>`, which is also the customer's `customer.order.<kind>` activity. The product ids let the
 * activity list filter by product; the customer is the one after this change (summary included).
 */
export function orderEvent(deps: Deps, actor: Actor, kind: OrderEventKind, order: OrderObject, customer: CustomerObject | null): NewEvent {
  return makeEvent(deps, actor, {
    type: `order.${kind}`,
    activityType: `customer.order.${kind}`,
    activityCategory: 'ACTION',
    customerId: order.customer_id,
    productIds: lineProductIds(order.items),
    entityId: order.id,
    data: { customer, order },
  });
}
