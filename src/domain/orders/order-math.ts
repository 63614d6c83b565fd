import { errors } from '../errors.ts';

// Order arithmetic (promotions reference 3.2): lines from what the client sent plus what the catalog
// knows, and the order totals from the lines. Pure: the caller looks the catalog up and persists.
//
// Discounts are inputs here, never decisions: `discount_amount` values are the cumulative discounts the
// order already carries (sent by the client, or accumulated by the redemption engine), and the `applied`
// amounts are what the current request adds. The redemption engine decides the discounts and then uses
// these same functions to lay out the order.

/** At most this many lines per order (vendor limit). */
export const MAX_ORDER_ITEMS = 500;

/**
 * The largest value one money amount (a price, a line amount, an order amount sent without lines) may
 * take: 10^13 minor units. 500 lines at this size still add up exactly in a double (< 2^53).
 */
export const MAX_MONEY = 10_000_000_000_000;

type Metadata = Record<string, unknown>;

/** What the catalog knows about a product the line names (already filtered to the caller's project). */
export interface CatalogProduct {
  id: string;
  source_id: string | null;
  name: string | null;
  price: number | null;
  metadata: Metadata;
}

export interface CatalogSku {
  id: string;
  source_id: string | null;
  product_id: string;
  sku: string | null;
  price: number | null;
  metadata: Metadata;
}

/** The catalog facts of one line: its SKU (if it names one that exists) and the product (the SKU's parent when a SKU was found). */
export interface LineCatalog {
  product: CatalogProduct | null;
  sku: CatalogSku | null;
}

export interface SentProduct {
  id?: string | null;
  source_id?: string | null;
  name?: string | null;
  price?: number | null;
  metadata?: Metadata | null;
}

export interface SentSku {
  id?: string | null;
  source_id?: string | null;
  sku?: string | null;
  price?: number | null;
  metadata?: Metadata | null;
}

/** One item as a client sends it (reference 3.2); every member is optional. */
export interface OrderLineInput {
  product_id?: string | null;
  sku_id?: string | null;
  related_object?: 'product' | 'sku' | null;
  source_id?: string | null;
  /** Vendor guides send numeric strings (`"1"`); they are read as integers. */
  quantity?: number | string | null;
  price?: number | null;
  amount?: number | null;
  discount_amount?: number | null;
  discount_quantity?: number | null;
  initial_quantity?: number | string | null;
  initial_amount?: number | null;
  product?: SentProduct | null;
  sku?: SentSku | null;
  metadata?: Metadata | null;
}

export interface EmbeddedProduct {
  id: string | null;
  source_id: string | null;
  name: string | null;
  price: number | null;
  metadata: Metadata;
}

export interface EmbeddedSku {
  id: string | null;
  source_id: string | null;
  sku: string | null;
  price: number | null;
  metadata: Metadata;
}

/** A line as stored with the order. Request-scoped amounts (`applied_*`) are not part of it. */
export interface OrderLine {
  product_id: string | null;
  sku_id: string | null;
  related_object: 'product' | 'sku' | null;
  source_id: string | null;
  quantity: number;
  discount_quantity: number;
  initial_quantity: number;
  /** Unit price; null when neither the item nor the catalog gives one. */
  price: number | null;
  /** null when there is neither a sent amount nor a price to multiply. */
  amount: number | null;
  initial_amount: number | null;
  /** Cumulative item-level discount on the line. */
  discount_amount: number;
  product: EmbeddedProduct | null;
  sku: EmbeddedSku | null;
  metadata: Metadata;
}

/** The order item on the wire (seed 2.8, reference 3.2). */
export interface CalculatedOrderLine {
  object: 'order_item';
  product_id: string | null;
  sku_id: string | null;
  related_object: 'product' | 'sku' | null;
  source_id: string | null;
  quantity: number;
  discount_quantity: number;
  initial_quantity: number;
  amount: number | null;
  discount_amount: number;
  initial_amount: number | null;
  applied_discount_amount: number;
  price: number | null;
  subtotal_amount: number | null;
  product?: EmbeddedProduct;
  sku?: EmbeddedSku;
  metadata: Metadata;
}

export interface CatalogRef {
  by: 'id' | 'source_id';
  value: string;
}

/** Which catalog entries an item names, in the order of precedence the vendor's fields imply. */
export interface LineRefs {
  product: CatalogRef | null;
  sku: CatalogRef | null;
}

function text(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}

/**
 * `product_id`/`sku_id` and `product.id`/`sku.id` name entries by our id; `source_id` (with
 * `related_object`, `product` when absent) and `product.source_id`/`sku.source_id` by the merchant's id.
 */
export function lineReferences(input: OrderLineInput): LineRefs {
  const relatedSku = input.related_object === 'sku';
  const skuId = text(input.sku_id) ?? text(input.sku?.id);
  const skuSource = (relatedSku ? text(input.source_id) : null) ?? text(input.sku?.source_id);
  const productId = text(input.product_id) ?? text(input.product?.id);
  const productSource = (relatedSku ? null : text(input.source_id)) ?? text(input.product?.source_id);
  return {
    sku: skuId !== null ? { by: 'id', value: skuId } : skuSource !== null ? { by: 'source_id', value: skuSource } : null,
    product:
      productId !== null ? { by: 'id', value: productId } : productSource !== null ? { by: 'source_id', value: productSource } : null,
  };
}

function integer(value: number | string | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'number' ? value : Number.parseInt(value, 10);
}

/** Money given as a JSON number (the vendor types catalog prices as `number`): whole minor units, half up. */
function money(value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  return Math.floor(value + 0.5);
}

function embedProduct(sent: SentProduct | null | undefined, ref: CatalogRef | null, known: CatalogProduct | null): EmbeddedProduct | null {
  // The catalog is the truth about a known product; what the client sent only fills what the catalog
  // lacks. Replacing catalog data is the vendor's `override`, which writes the catalog.
  if (known) {
    return {
      id: known.id,
      source_id: known.source_id ?? text(sent?.source_id),
      name: known.name ?? text(sent?.name),
      price: known.price ?? money(sent?.price),
      metadata: Object.keys(known.metadata).length > 0 ? known.metadata : (sent?.metadata ?? {}),
    };
  }
  if (!sent) return null;
  return {
    id: text(sent.id) ?? (ref?.by === 'id' ? ref.value : null),
    source_id: text(sent.source_id) ?? (ref?.by === 'source_id' ? ref.value : null),
    name: text(sent.name),
    price: money(sent.price),
    metadata: sent.metadata ?? {},
  };
}

function embedSku(sent: SentSku | null | undefined, ref: CatalogRef | null, known: CatalogSku | null): EmbeddedSku | null {
  if (known) {
    return {
      id: known.id,
      source_id: known.source_id ?? text(sent?.source_id),
      sku: known.sku ?? text(sent?.sku),
      price: known.price ?? money(sent?.price),
      metadata: Object.keys(known.metadata).length > 0 ? known.metadata : (sent?.metadata ?? {}),
    };
  }
  if (!sent) return null;
  return {
    id: text(sent.id) ?? (ref?.by === 'id' ? ref.value : null),
    source_id: text(sent.source_id) ?? (ref?.by === 'source_id' ? ref.value : null),
    sku: text(sent.sku),
    price: money(sent.price),
    metadata: sent.metadata ?? {},
  };
}

function checkMoney(value: number | null, path: string): void {
  if (value !== null && (!Number.isSafeInteger(value) || value > MAX_MONEY)) {
    throw errors.invalidPayload(`Property ${path} must be <= ${MAX_MONEY}`);
  }
}

/**
 * One stored line from a sent item and its catalog facts. The unit price is the item's `price`, else the
 * SKU's, else the product's; `amount` is price × quantity unless the client sent one (kept as sent, as
 * the vendor does even when inconsistent). `index` names the item in error details.
 */
export function buildOrderLine(input: OrderLineInput, catalog: LineCatalog, index: number): OrderLine {
  const at = `.items[${index}]`;
  const refs = lineReferences(input);
  const { product: knownProduct, sku: knownSku } = catalog;
  if (knownSku && refs.product) {
    const sameProduct =
      refs.product.by === 'id' ? refs.product.value === knownSku.product_id : knownProduct?.source_id === refs.product.value;
    if (!sameProduct) {
      throw errors.invalidPayload(`Property ${at} names SKU ${knownSku.id}, which does not belong to product ${refs.product.value}`);
    }
  }
  const product = embedProduct(input.product, refs.product, knownProduct);
  const sku = embedSku(input.sku, refs.sku, knownSku);
  const quantity = integer(input.quantity) ?? 1;
  const price = input.price ?? sku?.price ?? product?.price ?? null;
  checkMoney(price, `${at}.price`);
  const amount = input.amount ?? (price === null ? null : price * quantity);
  checkMoney(amount, `${at}.amount`);
  const initialAmount = input.initial_amount ?? amount;
  checkMoney(initialAmount, `${at}.initial_amount`);
  const discountAmount = input.discount_amount ?? 0;
  if (amount !== null && discountAmount > amount) {
    throw errors.invalidPayload(`Property ${at}.discount_amount must not exceed the item amount ${amount}`);
  }
  checkMoney(discountAmount, `${at}.discount_amount`);
  return {
    product_id: knownProduct?.id ?? (refs.product?.by === 'id' ? refs.product.value : null),
    sku_id: knownSku?.id ?? (refs.sku?.by === 'id' ? refs.sku.value : null),
    related_object: input.related_object ?? null,
    source_id: text(input.source_id),
    quantity,
    discount_quantity: input.discount_quantity ?? 0,
    initial_quantity: integer(input.initial_quantity) ?? quantity,
    price,
    amount,
    initial_amount: initialAmount,
    discount_amount: discountAmount,
    product,
    sku,
    metadata: input.metadata ?? {},
  };
}

export function buildOrderLines(inputs: readonly OrderLineInput[], catalogs: readonly LineCatalog[]): OrderLine[] {
  if (inputs.length > MAX_ORDER_ITEMS) throw errors.invalidPayload(`Property .items must NOT have more than ${MAX_ORDER_ITEMS} items`);
  return inputs.map((input, i) => buildOrderLine(input, catalogs[i] ?? { product: null, sku: null }, i));
}

/** The order-level values a client (or the stored order) gives besides its lines. */
export interface OrderAmountsInput {
  /** Used when there are no lines, or when a line's amount is unknown. */
  amount?: number | null;
  initial_amount?: number | null;
  /** Cumulative order-level discount. */
  discount_amount?: number | null;
}

export interface OrderTotals {
  amount: number;
  initial_amount: number;
  discount_amount: number;
  items_discount_amount: number;
  total_discount_amount: number;
  total_amount: number;
}

function sumKnown(values: readonly (number | null)[]): { sum: number; complete: boolean } {
  let sum = 0;
  let complete = true;
  for (const v of values) {
    if (v === null) complete = false;
    else sum += v;
  }
  return { sum, complete };
}

/**
 * Totals of an order (reference 3.2). `amount` is the sum of the line amounts; when a line's amount is
 * unknown (no price anywhere) the sum would understate the order, so the amount sent wins then, and the
 * known part is the fallback. Without lines it is the amount sent (0 when none). `total_amount` never
 * goes below 0.
 */
export function orderTotals(lines: readonly OrderLine[], sent: OrderAmountsInput): OrderTotals {
  const amounts = sumKnown(lines.map((l) => l.amount));
  const initials = sumKnown(lines.map((l) => l.initial_amount));
  let amount: number;
  let initialAmount: number;
  if (lines.length === 0) {
    amount = sent.amount ?? 0;
    initialAmount = sent.initial_amount ?? amount;
  } else {
    amount = amounts.complete ? amounts.sum : (sent.amount ?? amounts.sum);
    initialAmount = initials.complete ? initials.sum : (sent.initial_amount ?? amount);
  }
  const discountAmount = sent.discount_amount ?? 0;
  const itemsDiscountAmount = lines.reduce((s, l) => s + l.discount_amount, 0);
  const totalDiscountAmount = discountAmount + itemsDiscountAmount;
  return {
    amount,
    initial_amount: initialAmount,
    discount_amount: discountAmount,
    items_discount_amount: itemsDiscountAmount,
    total_discount_amount: totalDiscountAmount,
    total_amount: Math.max(0, amount - totalDiscountAmount),
  };
}

/** What the current request adds: the order-level discount and each line's (parallel to the lines). */
export interface AppliedDiscounts {
  order: number;
  items: readonly number[];
}

export const NOTHING_APPLIED: AppliedDiscounts = { order: 0, items: [] };

/** A line on the wire: `subtotal_amount` = amount − discount_amount (the vendor examples' formula). */
export function calculatedLine(line: OrderLine, applied = 0): CalculatedOrderLine {
  return {
    object: 'order_item',
    product_id: line.product_id,
    sku_id: line.sku_id,
    related_object: line.related_object,
    source_id: line.source_id,
    quantity: line.quantity,
    discount_quantity: line.discount_quantity,
    initial_quantity: line.initial_quantity,
    amount: line.amount,
    discount_amount: line.discount_amount,
    initial_amount: line.initial_amount,
    applied_discount_amount: applied,
    price: line.price,
    subtotal_amount: line.amount === null ? null : Math.max(0, line.amount - line.discount_amount),
    ...(line.product ? { product: line.product } : {}),
    ...(line.sku ? { sku: line.sku } : {}),
    metadata: line.metadata,
  };
}

export interface CalculatedAmounts extends OrderTotals {
  applied_discount_amount: number;
  items_applied_discount_amount: number;
  total_applied_discount_amount: number;
  items: CalculatedOrderLine[];
}

/** The calculated part of an order object: totals, request-scoped `applied_*` amounts and the lines. */
export function calculatedAmounts(totals: OrderTotals, lines: readonly OrderLine[], applied: AppliedDiscounts = NOTHING_APPLIED): CalculatedAmounts {
  const items = lines.map((line, i) => calculatedLine(line, applied.items[i] ?? 0));
  const itemsApplied = items.reduce((s, l) => s + l.applied_discount_amount, 0);
  // Members named one by one: on Node 20, members added after a leading spread (`{ ...totals, more }`)
  // cost microseconds each, and a validation lays out several orders.
  return {
    amount: totals.amount,
    initial_amount: totals.initial_amount,
    discount_amount: totals.discount_amount,
    items_discount_amount: totals.items_discount_amount,
    total_discount_amount: totals.total_discount_amount,
    total_amount: totals.total_amount,
    applied_discount_amount: applied.order,
    items_applied_discount_amount: itemsApplied,
    total_applied_discount_amount: applied.order + itemsApplied,
    items,
  };
}

/** Distinct product ids of the lines, in line order (activity lists filter on them). */
export function lineProductIds(lines: readonly { product_id: string | null }[]): string[] {
  return [...new Set(lines.map((l) => l.product_id).filter((id): id is string => id !== null))];
}
