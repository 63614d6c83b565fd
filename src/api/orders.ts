import Type, { type Static } from 'typebox';
import { MAX_MONEY, MAX_ORDER_ITEMS } from '../domain/orders/order-math.ts';
import { ORDER_STATUSES } from '../domain/orders/order-status.ts';
import { Limit, Metadata, Nullable } from './common.ts';
import { CustomerBody } from './customers.ts';

// Orders (seed 2.8, promotions reference 3.2 and 7). Members a client may echo back from a calculated
// order (`object`, `subtotal_amount`, `total_amount`, …) are not declared and therefore ignored: the
// service calculates them.

const Money = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_MONEY, description: `${description}; minor units` });
const Quantity = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), Type.String({ pattern: '^[0-9]{1,9}$' })], {
    description: `${description}; an integer, or a string of digits as vendor guides send it`,
  });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const CatalogPrice = Type.Number({
  minimum: 0,
  maximum: MAX_MONEY,
  description: 'Minor units; the vendor types it as a number, so a fraction is rounded half up',
});
const Status = Type.Enum([...ORDER_STATUSES]);

export const SentProduct = Type.Object(
  {
    id: Type.Optional(Nullable(Id('prod_…'))),
    source_id: Type.Optional(Nullable(Id("The merchant's product id"))),
    name: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    price: Type.Optional(Nullable(CatalogPrice)),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { description: 'Names a catalog product, or describes one the catalog does not hold (catalog data wins for a known product)' },
);

export const SentSku = Type.Object(
  {
    id: Type.Optional(Nullable(Id('sku_…'))),
    source_id: Type.Optional(Nullable(Id("The merchant's SKU id"))),
    sku: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    price: Type.Optional(Nullable(CatalogPrice)),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { description: 'Names a catalog SKU, or describes one the catalog does not hold (catalog data wins for a known SKU)' },
);

export const OrderItemInput = Type.Object({
  product_id: Type.Optional(Nullable(Id('Catalog product id (prod_…)'))),
  sku_id: Type.Optional(Nullable(Id('Catalog SKU id (sku_…); its product becomes the line product'))),
  related_object: Type.Optional(Nullable(Type.Enum(['product', 'sku'], { description: 'What `source_id` names; product when absent' }))),
  source_id: Type.Optional(Nullable(Id("The merchant's id of the product or SKU named by related_object"))),
  quantity: Type.Optional(Nullable(Quantity('Units; 1 when absent'))),
  price: Type.Optional(Nullable(Money('Unit price; wins over the catalog price'))),
  amount: Type.Optional(Nullable(Money('Line amount; price × quantity when absent, kept as sent otherwise'))),
  discount_amount: Type.Optional(Nullable(Money('Cumulative item-level discount already on the line'))),
  discount_quantity: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
  initial_quantity: Type.Optional(Nullable(Quantity('Units before effects; quantity when absent'))),
  initial_amount: Type.Optional(Nullable(Money('Line amount before effects; amount when absent'))),
  product: Type.Optional(Nullable(SentProduct)),
  sku: Type.Optional(Nullable(SentSku)),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type OrderItemInputType = Static<typeof OrderItemInput>;

const OrderFields = {
  source_id: Type.Optional(Nullable(Id("The merchant's order id, unique among the project's orders"))),
  status: Type.Optional(Nullable(Status)),
  amount: Type.Optional(Nullable(Money('Order amount when there are no items (or an item has no known price)'))),
  initial_amount: Type.Optional(Nullable(Money('Amount before effects when there are no items'))),
  discount_amount: Type.Optional(Nullable(Money('Cumulative order-level discount already on the order'))),
  items: Type.Optional(Nullable(Type.Array(OrderItemInput, { maxItems: MAX_ORDER_ITEMS, description: `At most ${MAX_ORDER_ITEMS}` }))),
  metadata: Type.Optional(Nullable(Metadata)),
  // By id, or by source_id: an unknown source_id creates the customer with the data given.
  customer: Type.Optional(Nullable(CustomerBody)),
  customer_id: Type.Optional(Nullable(Id('Id of an existing customer (cust_…)'))),
  referrer: Type.Optional(Nullable(CustomerBody)),
  referrer_id: Type.Optional(Nullable(Id('Id of an existing customer (cust_…)'))),
  created_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'The creation time to record; now when absent' }))),
};

export const CreateOrderBody = Type.Object({
  id: Type.Optional(Nullable(Id('Id of an existing order to update (ord_…); ids are assigned by the service'))),
  ...OrderFields,
});
export type CreateOrderInput = Static<typeof CreateOrderBody>;

export const UpdateOrderBody = Type.Object(OrderFields, {
  description: 'Only the members sent change; items sent replace the lines',
});
export type UpdateOrderInput = Static<typeof UpdateOrderBody>;

const Embedded = {
  id: Nullable(Type.String()),
  source_id: Nullable(Type.String()),
  price: Nullable(Type.Integer()),
  metadata: Metadata,
};

export const OrderItemObject = Type.Object({
  object: Type.Literal('order_item'),
  product_id: Nullable(Type.String()),
  sku_id: Nullable(Type.String()),
  related_object: Nullable(Type.Enum(['product', 'sku'])),
  source_id: Nullable(Type.String()),
  quantity: Type.Integer(),
  discount_quantity: Type.Integer(),
  initial_quantity: Type.Integer(),
  amount: Nullable(Type.Integer({ description: 'Null when neither the item nor the catalog gives a price' })),
  discount_amount: Type.Integer(),
  initial_amount: Nullable(Type.Integer()),
  applied_discount_amount: Type.Integer({ description: 'Item-level discount added by this request' }),
  price: Nullable(Type.Integer()),
  subtotal_amount: Nullable(Type.Integer({ description: 'amount − discount_amount' })),
  product: Type.Optional(Type.Object({ ...Embedded, name: Nullable(Type.String()) }, { description: 'Present when the product is known' })),
  sku: Type.Optional(Type.Object({ ...Embedded, sku: Nullable(Type.String()) }, { description: 'Present when the SKU is known' })),
  metadata: Metadata,
});

export const CustomerIdObject = Type.Object({ id: Type.String(), object: Type.Literal('customer') });

export const OrderObject = Type.Object({
  id: Type.String({ description: 'ord_…' }),
  source_id: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  status: Status,
  amount: Type.Integer({ description: 'Σ item amounts, or the amount sent when there are no items' }),
  initial_amount: Type.Integer(),
  discount_amount: Type.Integer({ description: 'Cumulative order-level discounts' }),
  items_discount_amount: Type.Integer(),
  total_discount_amount: Type.Integer(),
  total_amount: Type.Integer({ description: 'amount − total_discount_amount, never below 0' }),
  applied_discount_amount: Type.Integer({ description: 'Order-level discount added by this request' }),
  items_applied_discount_amount: Type.Integer(),
  total_applied_discount_amount: Type.Integer(),
  items: Type.Array(OrderItemObject),
  metadata: Metadata,
  // Left out for an order of nobody (the vendor's schema allows no null); the ids are null then.
  customer: Type.Optional(CustomerIdObject),
  customer_id: Nullable(Type.String()),
  referrer: Type.Optional(CustomerIdObject),
  referrer_id: Nullable(Type.String()),
  object: Type.Literal('order'),
  redemptions: Type.Record(
    Type.String(),
    Type.Object(
      {
        date: Type.String({ format: 'date-time' }),
        related_object_type: Type.String(),
        related_object_id: Type.String(),
        related_object_parent_id: Type.Optional(Nullable(Type.String())),
        stacked: Type.Optional(Type.Array(Type.String())),
        rollback_id: Type.Optional(Type.String()),
        rollback_date: Type.Optional(Type.String({ format: 'date-time' })),
        rollback_stacked: Type.Optional(Type.Array(Type.String())),
      },
      { additionalProperties: true },
    ),
    { description: 'Redemptions made with this order, keyed by redemption id; empty until one is made' },
  ),
});

export const ListOrdersQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
  order: Type.Optional(
    Type.Enum(['created_at', '-created_at', 'updated_at', '-updated_at'], {
      description: 'Default created_at (oldest first, as the vendor lists orders); updated_at is the last change',
    }),
  ),
  // Not in the vendor's list query; the console's order list filters with them.
  status: Type.Optional(Type.Union([Status, Type.Array(Status, { maxItems: ORDER_STATUSES.length })], { description: 'Only orders in this status; repeat for several' })),
  customer: Type.Optional(Id('Only orders of this customer (id or source_id); an unknown one gives an empty list')),
  start_date: Type.Optional(Type.String({ format: 'date-or-date-time', description: 'Only orders created at or after this time (ISO 8601 date or date-time)' })),
  end_date: Type.Optional(
    Type.String({ format: 'date-or-date-time', description: 'Only orders created at or before this time (ISO 8601); a bare date means the end of that day (UTC)' }),
  ),
});
export type ListOrdersInput = Static<typeof ListOrdersQuery>;

export const OrderList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('orders'),
  orders: Type.Array(OrderObject),
  total: Type.Integer({ description: 'Orders of the project that match the filters' }),
});
