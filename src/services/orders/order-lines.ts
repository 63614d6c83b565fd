import { buildOrderLines, lineReferences, type CatalogRef, type LineCatalog, type OrderLine, type OrderLineInput } from '../../domain/orders/order-math.ts';
import type { Executor } from '../../store/db.ts';
import { findCatalogFacts, type CatalogFacts, type CatalogLookup } from '../../store/orders.ts';

function values(refs: readonly (CatalogRef | null)[], by: CatalogRef['by']): string[] {
  return refs.flatMap((ref) => (ref?.by === by ? [ref.value] : []));
}

function lineCatalog(refs: ReturnType<typeof lineReferences>, facts: CatalogFacts): LineCatalog {
  const sku = refs.sku ? ((refs.sku.by === 'id' ? facts.skusById : facts.skusBySourceId).get(refs.sku.value) ?? null) : null;
  // A found SKU decides the product: its parent. Otherwise the product the item names, if it exists.
  const product = sku
    ? (facts.productsById.get(sku.product_id) ?? null)
    : refs.product
      ? ((refs.product.by === 'id' ? facts.productsById : facts.productsBySourceId).get(refs.product.value) ?? null)
      : null;
  return { product, sku };
}

/**
 * Lines from the items a client sent, with prices and product/SKU details from the project's live
 * catalog. Products or SKUs the catalog does not know are not an error: the line keeps what was sent
 * (vendor orders describe ad-hoc items such as shipping the same way).
 */
export async function resolveOrderLines(db: Executor, projectId: string, items: readonly OrderLineInput[], catalog?: CatalogFacts): Promise<OrderLine[]> {
  const refs = items.map(lineReferences);
  const facts = catalog ?? (await findCatalogFacts(db, projectId, lookupOf(refs)));
  return buildOrderLines(items, refs.map((r) => lineCatalog(r, facts)));
}

/** What the catalog must answer for these items: resolveOrderLines reads it, or takes it read already. */
export function catalogLookupOf(items: readonly OrderLineInput[]): CatalogLookup {
  return lookupOf(items.map(lineReferences));
}

function lookupOf(refs: ReadonlyArray<ReturnType<typeof lineReferences>>): CatalogLookup {
  return {
    productIds: values(refs.map((r) => r.product), 'id'),
    productSourceIds: values(refs.map((r) => r.product), 'source_id'),
    skuIds: values(refs.map((r) => r.sku), 'id'),
    skuSourceIds: values(refs.map((r) => r.sku), 'source_id'),
  };
}
