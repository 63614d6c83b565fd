import type { Updateable } from 'kysely';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { errors, type DomainError } from '../../domain/errors.ts';
import type {
  CatalogListInput,
  CreateProductInput,
  CreateSkuInput,
  ProductListInput,
  UpdateProductInput,
  UpdateSkuInput,
} from '../../api/products.ts';
import * as binStore from '../../store/bin.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { toJson } from '../../store/json.ts';
import * as store from '../../store/products.ts';
import type { CatalogPage, ProductObject, ProductRow, ProductWithSkus, SkuObject, SkuRow } from '../../store/products.ts';
import type { ProductsTable, SkusTable } from '../../store/schema.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

/** How many SKUs a product shows inline (GET product, product list); the SKU list pages through all. */
export const EMBEDDED_SKUS = 100;

/**
 * Upserts race on the source_id index: two requests that both found no row both insert, and the loser's
 * insert fails. Running the loser again finds the winner's row and updates it. A violation that persists
 * is a real conflict (e.g. renaming to a source_id another product holds) and becomes `onConflict`.
 */
async function retryOnUniqueViolation<T>(run: () => Promise<T>, onConflict: () => DomainError): Promise<T> {
  const attempts = 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (attempt >= attempts) throw onConflict();
    }
  }
}

/** An ISO date or date-time from a query as a stored timestamp; zone-less times are UTC. */

export function catalogPage(projectId: string, input: CatalogListInput): CatalogPage {
  const order = input.order ?? 'created_at';
  const descending = order.startsWith('-');
  const key = descending ? order.slice(1) : order;
  return {
    projectId,
    limit: input.limit ?? 10,
    page: input.page ?? 1,
    sort: key === 'updated_at' ? 'modified' : 'created_at',
    descending,
    ...(input.start_date !== undefined ? { createdFrom: queryInstant(input.start_date) } : {}),
    ...(input.end_date !== undefined ? { createdTo: queryInstant(input.end_date, { wholeDay: true }) } : {}),
  };
}

function productPatch(input: UpdateProductInput): Updateable<ProductsTable> {
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.price !== undefined ? { price: input.price } : {}),
    ...(input.attributes !== undefined ? { attributes: toJson(input.attributes ?? []) } : {}),
    ...(input.metadata !== undefined ? { metadata: toJson(input.metadata ?? {}) } : {}),
    ...(input.image_url !== undefined ? { image_url: input.image_url } : {}),
  };
}

/** The members an update body sets, as sent (what a `product.updated` event records). */
function productChanges(input: UpdateProductInput): ProductChangeRecord['changes'] {
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.price !== undefined ? { price: input.price } : {}),
    ...(input.attributes !== undefined ? { attributes: input.attributes } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    ...(input.image_url !== undefined ? { image_url: input.image_url } : {}),
  };
}

function skuPatch(input: UpdateSkuInput): Updateable<SkusTable> {
  return {
    ...(input.sku !== undefined ? { sku: input.sku } : {}),
    ...(input.price !== undefined ? { price: input.price } : {}),
    ...(input.currency !== undefined ? { currency: input.currency } : {}),
    ...(input.attributes !== undefined ? { attributes: toJson(input.attributes ?? {}) } : {}),
    ...(input.image_url !== undefined ? { image_url: input.image_url } : {}),
    ...(input.metadata !== undefined ? { metadata: toJson(input.metadata ?? {}) } : {}),
  };
}

// ---- products ----

/** POST /v1/products: creates a product, or updates the live one named by `id` or `source_id`. */
export async function upsertProduct(deps: Deps, actor: Actor, input: CreateProductInput): Promise<ProductObject> {
  return retryOnUniqueViolation(
    () => inTransaction(deps, (tx) => upsertProductIn(tx, deps, actor, input)),
    () => errors.duplicate('product', 'source_id', input.source_id ?? ''),
  );
}

/**
 * `upsertProduct` inside the caller's transaction (a CSV import applies many rows in one). A concurrent
 * create of the same source_id surfaces as a unique violation; the caller decides whether to run again.
 */
export async function upsertProductIn(tx: Tx, deps: Deps, actor: Actor, input: CreateProductInput): Promise<ProductObject> {
  const id = input.id ?? null;
  const sourceId = input.source_id ?? null;
  let existing: ProductRow | undefined;
  if (id !== null) {
    // Ids are assigned by us; an unknown one cannot name a product to create.
    existing = await store.findLiveProductById(tx, actor.projectId, id);
    if (!existing) throw errors.notFound('product', id);
  } else if (sourceId !== null) {
    existing = await store.findLiveProductBySourceId(tx, actor.projectId, sourceId);
  }
  const now = deps.clock.now().toISOString();
  if (existing) {
    if (input.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'product', input.metadata);
    const renames = id !== null && input.source_id !== undefined && input.source_id !== existing.source_id;
    const patch = { ...productPatch(input), ...(renames ? { source_id: sourceId } : {}), updated_at: now };
    if (!(await store.updateLiveProduct(tx, actor.projectId, existing.id, patch))) {
      throw errors.notFound('product', id ?? existing.id);
    }
    return recordProductUpdated(deps, actor, tx, {
      product_id: existing.id,
      changes: { ...productChanges(input), ...(renames ? { source_id: sourceId } : {}) },
    });
  }
  await assertMetadata(tx, actor.projectId, 'product', input.metadata);
  const newId = deps.ids.next('prod');
  await store.insertProduct(tx, {
    id: newId,
    project_id: actor.projectId,
    source_id: sourceId,
    name: input.name ?? null,
    price: input.price ?? null,
    attributes: toJson(input.attributes ?? []),
    metadata: toJson(input.metadata ?? {}),
    image_url: input.image_url ?? null,
    created_at: now,
    updated_at: null,
    binned_at: null,
  });
  return recordProductCreated(deps, actor, tx, newId);
}

/**
 * What a `product.updated` event stores: the product's id and the members the update set, as sent. Not a
 * copy of the product, whose metadata can be large: a bulk job updates many products, and a copy per
 * update multiplied the log. Events written before this change hold the copy as `product`.
 */
export interface ProductChangeRecord {
  product_id: string;
  changes: UpdateProductInput & { source_id?: string | null };
  /** `changes.metadata` holds only the members merged into the stored metadata (a metadata bulk job). */
  metadata_merged?: true;
}

async function liveProductObject(tx: Tx, projectId: string, id: string): Promise<ProductObject> {
  const row = await store.findLiveProductById(tx, projectId, id);
  if (!row) throw new Error(`product ${id} vanished inside its own transaction`);
  return store.toProductObject(row);
}

/** Appends `product.created` with a copy of the new product and answers the product. */
export async function recordProductCreated(deps: Deps, actor: Actor, tx: Tx, id: string): Promise<ProductObject> {
  const product = await liveProductObject(tx, actor.projectId, id);
  await appendEvents(tx, [makeEvent(deps, actor, { type: 'product.created', entityId: id, data: { product } })]);
  return product;
}

/** Appends `product.updated` recording what changed and answers the product as it is now. */
export async function recordProductUpdated(deps: Deps, actor: Actor, tx: Tx, record: ProductChangeRecord): Promise<ProductObject> {
  await appendEvents(tx, [makeEvent(deps, actor, { type: 'product.updated', entityId: record.product_id, data: { ...record } })]);
  return liveProductObject(tx, actor.projectId, record.product_id);
}

export async function getProduct(deps: Deps, projectId: string, idOrSourceId: string): Promise<ProductWithSkus> {
  const row = await store.findLiveProduct(deps.db, projectId, idOrSourceId);
  if (!row) throw errors.notFound('product', idOrSourceId);
  const skus = await store.firstLiveSkusOf(deps.db, projectId, [row.id], EMBEDDED_SKUS);
  return store.toProductWithSkus(row, skus.get(row.id));
}

export async function listProducts(
  deps: Deps,
  projectId: string,
  input: ProductListInput,
): Promise<{ products: ProductWithSkus[]; total: number }> {
  const page = { ...catalogPage(projectId, input), ...(input.name !== undefined ? { nameContains: input.name } : {}) };
  const { rows, total } = await store.listLiveProducts(deps.db, page);
  const skus = await store.firstLiveSkusOf(
    deps.db,
    projectId,
    rows.map((r) => r.id),
    EMBEDDED_SKUS,
  );
  const products = await readableRows(listing(deps, { projectId }, 'product'), rows, (some) => some.map((row) => store.toProductWithSkus(row, skus.get(row.id))));
  return { products, total };
}

/** PUT /v1/products/{id}: only the members sent change. */
export async function updateProduct(deps: Deps, actor: Actor, idOrSourceId: string, input: UpdateProductInput): Promise<ProductObject> {
  return inTransaction(deps, async (tx) => {
    const row = await store.findLiveProduct(tx, actor.projectId, idOrSourceId);
    if (!row) throw errors.notFound('product', idOrSourceId);
    if (input.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'product', input.metadata);
    const patch = { ...productPatch(input), updated_at: deps.clock.now().toISOString() };
    if (!(await store.updateLiveProduct(tx, actor.projectId, row.id, patch))) throw errors.notFound('product', idOrSourceId);
    return recordProductUpdated(deps, actor, tx, { product_id: row.id, changes: productChanges(input) });
  });
}

/**
 * Removes a product for good with all its SKUs, live or binned, and any bin entries of them. Used by
 * `DELETE ?force=true` (live products only) and by deleting the product's bin entry. Returns whether the
 * product row went and how many SKUs went with it.
 */
export async function purgeProduct(
  tx: Tx,
  projectId: string,
  productId: string,
  liveOnly: boolean,
): Promise<{ deleted: boolean; skusDeleted: number }> {
  await binStore.deleteBinEntriesOf(tx, projectId, productId);
  const { deleted, skuIds } = await store.deleteProductWithSkus(tx, projectId, productId, liveOnly);
  return { deleted, skusDeleted: skuIds.length };
}

/** DELETE /v1/products/{id}: to the bin with its SKUs (source_id free at once), or for good with `force`. */
export async function deleteProduct(deps: Deps, actor: Actor, idOrSourceId: string, force: boolean): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await store.findLiveProduct(tx, actor.projectId, idOrSourceId);
    if (!row) throw errors.notFound('product', idOrSourceId);
    const product = store.toProductObject(row);
    if (force) {
      const { deleted, skusDeleted } = await purgeProduct(tx, actor.projectId, row.id, true);
      // Binned by a concurrent request after we read it: that request won, and this one rolls back.
      if (!deleted) throw errors.notFound('product', idOrSourceId);
      await appendEvents(tx, [
        makeEvent(deps, actor, {
          type: 'product.deleted',
          entityId: row.id,
          data: { product, permanent: true, skus_deleted: skusDeleted },
        }),
      ]);
      return;
    }
    const now = deps.clock.now().toISOString();
    if (!(await store.binProduct(tx, actor.projectId, row.id, now))) throw errors.notFound('product', idOrSourceId);
    const entryId = deps.ids.next('tbe');
    await binStore.insertBinEntry(tx, {
      id: entryId,
      project_id: actor.projectId,
      resource_id: row.id,
      resource_type: 'product',
      resource_name: row.name,
      resource_parent_id: null,
      deleted_by_user_id: null,
      created_at: now,
    });
    await appendEvents(tx, [
      makeEvent(deps, actor, { type: 'product.deleted', entityId: row.id, data: { product, permanent: false, bin_entry_id: entryId } }),
    ]);
  });
}

// ---- SKUs ----

async function recordSkuChange(deps: Deps, actor: Actor, tx: Tx, id: string, type: string): Promise<SkuObject> {
  const row = await store.findLiveSkuById(tx, actor.projectId, id);
  if (!row) throw new Error(`sku ${id} vanished inside its own transaction`);
  const sku = store.toSkuObject(row);
  await appendEvents(tx, [makeEvent(deps, actor, { type, entityId: id, data: { sku } })]);
  return sku;
}

/** A live SKU that belongs to the given product; anything else is "no such SKU" for that path. */
async function findSkuOfProduct(tx: Tx, projectId: string, product: ProductRow, skuIdOrSourceId: string): Promise<SkuRow> {
  const sku = await store.findLiveSku(tx, projectId, skuIdOrSourceId);
  if (!sku || sku.product_id !== product.id) throw errors.notFound('sku', skuIdOrSourceId);
  return sku;
}

/** POST /v1/products/{id}/skus: creates a SKU, or updates the product's live SKU named by `id` or `source_id`. */
export async function upsertSku(deps: Deps, actor: Actor, productIdOrSourceId: string, input: CreateSkuInput): Promise<SkuObject> {
  return retryOnUniqueViolation(
    () => inTransaction(deps, (tx) => upsertSkuIn(tx, deps, actor, productIdOrSourceId, input)),
    () => errors.duplicate('sku', 'source_id', input.source_id ?? ''),
  );
}

/** `upsertSku` inside the caller's transaction; a unique violation is the caller's to handle, as above. */
export async function upsertSkuIn(tx: Tx, deps: Deps, actor: Actor, productIdOrSourceId: string, input: CreateSkuInput): Promise<SkuObject> {
  const id = input.id ?? null;
  const sourceId = input.source_id ?? null;
  const product = await store.lockLiveProduct(tx, actor.projectId, productIdOrSourceId);
  if (!product) throw errors.notFound('product', productIdOrSourceId);
  let existing: SkuRow | undefined;
  if (id !== null) {
    existing = await store.findLiveSkuById(tx, actor.projectId, id);
    if (!existing || existing.product_id !== product.id) throw errors.notFound('sku', id);
  } else if (sourceId !== null) {
    existing = await store.findLiveSkuBySourceId(tx, actor.projectId, sourceId);
    // SKU source ids are unique across the project; one held by another product's SKU is a conflict.
    if (existing && existing.product_id !== product.id) throw errors.duplicate('sku', 'source_id', sourceId);
  }
  const now = deps.clock.now().toISOString();
  if (existing) {
    const renames = id !== null && input.source_id !== undefined && input.source_id !== existing.source_id;
    const patch = { ...skuPatch(input), ...(renames ? { source_id: sourceId } : {}), updated_at: now };
    if (!(await store.updateLiveSku(tx, actor.projectId, existing.id, patch))) throw errors.notFound('sku', id ?? existing.id);
    return recordSkuChange(deps, actor, tx, existing.id, 'sku.updated');
  }
  const newId = deps.ids.next('sku');
  await store.insertSku(tx, {
    id: newId,
    project_id: actor.projectId,
    product_id: product.id,
    source_id: sourceId,
    sku: input.sku ?? null,
    price: input.price ?? null,
    currency: input.currency ?? null,
    attributes: toJson(input.attributes ?? {}),
    metadata: toJson(input.metadata ?? {}),
    image_url: input.image_url ?? null,
    created_at: now,
    updated_at: null,
    binned_at: null,
  });
  return recordSkuChange(deps, actor, tx, newId, 'sku.created');
}

export async function getSku(deps: Deps, projectId: string, idOrSourceId: string): Promise<SkuObject> {
  const row = await store.findLiveSku(deps.db, projectId, idOrSourceId);
  if (!row) throw errors.notFound('sku', idOrSourceId);
  return store.toSkuObject(row);
}

export async function listSkus(
  deps: Deps,
  projectId: string,
  productIdOrSourceId: string,
  input: CatalogListInput,
): Promise<{ skus: SkuObject[]; total: number }> {
  const product = await store.findLiveProduct(deps.db, projectId, productIdOrSourceId);
  if (!product) throw errors.notFound('product', productIdOrSourceId);
  const { rows, total } = await store.listLiveSkus(deps.db, product.id, catalogPage(projectId, input));
  return { skus: await readableRows(listing(deps, { projectId }, 'sku'), rows, (some) => some.map(store.toSkuObject)), total };
}

/** PUT /v1/products/{id}/skus/{skuId}: only the members sent change. */
export async function updateSku(
  deps: Deps,
  actor: Actor,
  productIdOrSourceId: string,
  skuIdOrSourceId: string,
  input: UpdateSkuInput,
): Promise<SkuObject> {
  return inTransaction(deps, async (tx) => {
    const product = await store.findLiveProduct(tx, actor.projectId, productIdOrSourceId);
    if (!product) throw errors.notFound('product', productIdOrSourceId);
    const sku = await findSkuOfProduct(tx, actor.projectId, product, skuIdOrSourceId);
    const patch = { ...skuPatch(input), updated_at: deps.clock.now().toISOString() };
    if (!(await store.updateLiveSku(tx, actor.projectId, sku.id, patch))) throw errors.notFound('sku', skuIdOrSourceId);
    return recordSkuChange(deps, actor, tx, sku.id, 'sku.updated');
  });
}

/** Removes a SKU for good with its bin entry, if any; with `liveOnly`, only while it is live. */
export async function purgeSku(tx: Tx, projectId: string, skuId: string, liveOnly: boolean): Promise<boolean> {
  await binStore.deleteBinEntriesOf(tx, projectId, skuId);
  return store.deleteSku(tx, projectId, skuId, liveOnly);
}

/** DELETE /v1/products/{id}/skus/{skuId}: to the bin (source_id free at once), or for good with `force`. */
export async function deleteSku(
  deps: Deps,
  actor: Actor,
  productIdOrSourceId: string,
  skuIdOrSourceId: string,
  force: boolean,
): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const product = await store.findLiveProduct(tx, actor.projectId, productIdOrSourceId);
    if (!product) throw errors.notFound('product', productIdOrSourceId);
    const row = await findSkuOfProduct(tx, actor.projectId, product, skuIdOrSourceId);
    const sku = store.toSkuObject(row);
    if (force) {
      if (!(await purgeSku(tx, actor.projectId, row.id, true))) throw errors.notFound('sku', skuIdOrSourceId);
      await appendEvents(tx, [makeEvent(deps, actor, { type: 'sku.deleted', entityId: row.id, data: { sku, permanent: true } })]);
      return;
    }
    const now = deps.clock.now().toISOString();
    if (!(await store.binSku(tx, actor.projectId, row.id, now))) throw errors.notFound('sku', skuIdOrSourceId);
    const entryId = deps.ids.next('tbe');
    await binStore.insertBinEntry(tx, {
      id: entryId,
      project_id: actor.projectId,
      resource_id: row.id,
      resource_type: 'sku',
      resource_name: row.sku,
      resource_parent_id: product.id,
      deleted_by_user_id: null,
      created_at: now,
    });
    await appendEvents(tx, [
      makeEvent(deps, actor, { type: 'sku.deleted', entityId: row.id, data: { sku, permanent: false, bin_entry_id: entryId } }),
    ]);
  });
}
