import { sql, type Insertable, type RawBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { fromJson } from './json.ts';
import type { ProductsTable, SkusTable } from './schema.ts';

// Products and their SKUs. A binned row (`binned_at` set) is invisible to every function here whose name
// says "live"; only the bin and permanent deletion reach it.

export type ProductRow = Selectable<ProductsTable>;
export type SkuRow = Selectable<SkusTable>;

/** The SKU object (platform reference 4.3). */
export interface SkuObject {
  id: string;
  source_id: string | null;
  product_id: string;
  sku: string | null;
  price: number | null;
  currency: string | null;
  attributes: Record<string, unknown>;
  image_url: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
  object: 'sku';
}

/** The SKU list embedded in a product (`data_ref` is `data` there, unlike the SKU list endpoint). */
export interface EmbeddedSkuList {
  object: 'list';
  data_ref: 'data';
  data: SkuObject[];
  total: number;
}

/** The product object (platform reference 4.2). */
export interface ProductObject {
  id: string;
  source_id: string | null;
  name: string | null;
  price: number | null;
  attributes: string[];
  metadata: Record<string, unknown>;
  image_url: string | null;
  created_at: string;
  updated_at: string | null;
  object: 'product';
}

export function toSkuObject(row: SkuRow): SkuObject {
  return {
    id: row.id,
    source_id: row.source_id,
    product_id: row.product_id,
    sku: row.sku,
    price: row.price === null ? null : Number(row.price),
    currency: row.currency,
    attributes: fromJson(row.attributes, {}),
    image_url: row.image_url,
    metadata: fromJson(row.metadata, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'sku',
  };
}

export type ProductWithSkus = ProductObject & { skus: EmbeddedSkuList };

export function toProductObject(row: ProductRow): ProductObject {
  return {
    id: row.id,
    source_id: row.source_id,
    name: row.name,
    price: row.price === null ? null : Number(row.price),
    attributes: fromJson(row.attributes, []),
    metadata: fromJson(row.metadata, {}),
    image_url: row.image_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'product',
  };
}

/** The product as GET and the list show it: with its first SKUs and their full count. */
export function toProductWithSkus(row: ProductRow, skus: { rows: SkuRow[]; total: number } | undefined): ProductWithSkus {
  return {
    ...toProductObject(row),
    skus: { object: 'list', data_ref: 'data', data: (skus?.rows ?? []).map(toSkuObject), total: skus?.total ?? 0 },
  };
}

/** Sort keys of the product and SKU lists; "modified" is updated_at, or created_at when never updated. */
export type CatalogSort = 'created_at' | 'modified';

export interface CatalogPage {
  projectId: string;
  limit: number;
  /** 1-based. */
  page: number;
  sort: CatalogSort;
  descending: boolean;
  /** Inclusive bounds on `created_at`, as ISO strings. */
  createdFrom?: string;
  createdTo?: string;
}

/** A product list page; `nameContains` matches names ignoring the case of A–Z. */
export interface ProductPage extends CatalogPage {
  nameContains?: string;
}

// The exact expression of the `*_modified` indexes, so both databases serve the order from them.
const MODIFIED = sql<string>`coalesce(updated_at, created_at)`;

function sortExpr(sort: CatalogSort): RawBuilder<string> {
  return sort === 'created_at' ? sql<string>`created_at` : MODIFIED;
}


// ---- products ----

export async function insertProduct(db: Executor, row: Insertable<ProductsTable>): Promise<void> {
  await db.insertInto('products').values(row).execute();
}

export async function findLiveProductById(db: Executor, projectId: string, id: string): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
}

export async function findLiveProductBySourceId(db: Executor, projectId: string, sourceId: string): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('source_id', '=', sourceId)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
}

/** Paths name a product by id or by source_id; an id match wins when both exist. */
export async function findLiveProduct(db: Executor, projectId: string, idOrSourceId: string): Promise<ProductRow | undefined> {
  return (await findLiveProductById(db, projectId, idOrSourceId)) ?? (await findLiveProductBySourceId(db, projectId, idOrSourceId));
}

/**
 * Finds a live product and, on PostgreSQL, holds a share lock on it until the transaction ends, so a
 * concurrent delete cannot bin the product between this check and the SKU written under it (the delete
 * waits, then bins that SKU too). SQLite write transactions are serialised already.
 */
export async function lockLiveProduct(db: Executor, projectId: string, idOrSourceId: string): Promise<ProductRow | undefined> {
  const found = await findLiveProduct(db, projectId, idOrSourceId);
  if (!found || !isPostgres(db)) return found;
  return db
    .selectFrom('products')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', found.id)
    .where('binned_at', 'is', null)
    .forShare()
    .executeTakeFirst();
}

/** Any product of the project, binned or not (for permanent deletion from the bin). */
export async function findProductInAnyState(db: Executor, projectId: string, id: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

/** Changes a live product; false when it is gone or binned meanwhile. */
export async function updateLiveProduct(
  db: Executor,
  projectId: string,
  id: string,
  patch: Updateable<ProductsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('products')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Moves a live product and its live SKUs to the bin. The product is marked first: on PostgreSQL that
 * row lock makes a concurrent SKU insert (which share-locks the product) finish before the SKUs are marked.
 * Returns false when the product was no longer live.
 */
export async function binProduct(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('products')
    .set({ binned_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db
    .updateTable('skus')
    .set({ binned_at: at })
    .where('project_id', '=', projectId)
    .where('product_id', '=', id)
    .where('binned_at', 'is', null)
    .execute();
  return true;
}

/**
 * Removes a product and every SKU of it, live or binned. With `liveOnly`, a product binned meanwhile is
 * left alone and `deleted` is false (the caller rolls back). Returns the ids of the SKUs removed.
 */
export async function deleteProductWithSkus(
  db: Executor,
  projectId: string,
  id: string,
  liveOnly: boolean,
): Promise<{ deleted: boolean; skuIds: string[] }> {
  const skus = await db
    .deleteFrom('skus')
    .where('project_id', '=', projectId)
    .where('product_id', '=', id)
    .returning('id')
    .execute();
  let product = db.deleteFrom('products').where('project_id', '=', projectId).where('id', '=', id);
  if (liveOnly) product = product.where('binned_at', 'is', null);
  const result = await product.executeTakeFirst();
  return { deleted: Number(result.numDeletedRows) === 1, skuIds: skus.map((s) => s.id) };
}

export async function listLiveProducts(db: Executor, q: ProductPage): Promise<{ rows: ProductRow[]; total: number }> {
  let base = db.selectFrom('products').where('project_id', '=', q.projectId).where('binned_at', 'is', null);
  if (q.nameContains !== undefined) {
    // strpos/instr rather than LIKE: the text typed may hold % and _, which LIKE would read as wildcards.
    // lower() folds A–Z alike on both databases (SQLite's folds nothing else).
    const needle = q.nameContains.toLowerCase();
    base = base.where(isPostgres(db) ? sql<SqlBool>`strpos(lower(name), ${needle}) > 0` : sql<SqlBool>`instr(lower(name), ${needle}) > 0`);
  }
  if (q.createdFrom !== undefined) base = base.where('created_at', '>=', q.createdFrom);
  if (q.createdTo !== undefined) base = base.where('created_at', '<=', q.createdTo);
  const direction = q.descending ? 'desc' : 'asc';
  const rows = await base
    .selectAll()
    .orderBy(sortExpr(q.sort), direction)
    .orderBy('id', direction)
    .limit(q.limit)
    .offset((q.page - 1) * q.limit)
    .execute();
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

// ---- SKUs ----

export async function insertSku(db: Executor, row: Insertable<SkusTable>): Promise<void> {
  await db.insertInto('skus').values(row).execute();
}

export async function findLiveSkuById(db: Executor, projectId: string, id: string): Promise<SkuRow | undefined> {
  return db
    .selectFrom('skus')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
}

export async function findLiveSkuBySourceId(db: Executor, projectId: string, sourceId: string): Promise<SkuRow | undefined> {
  return db
    .selectFrom('skus')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('source_id', '=', sourceId)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
}

/** A live SKU by id or source_id (an id match wins). */
export async function findLiveSku(db: Executor, projectId: string, idOrSourceId: string): Promise<SkuRow | undefined> {
  return (await findLiveSkuById(db, projectId, idOrSourceId)) ?? (await findLiveSkuBySourceId(db, projectId, idOrSourceId));
}

export async function findSkuInAnyState(db: Executor, projectId: string, id: string): Promise<SkuRow | undefined> {
  return db.selectFrom('skus').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function updateLiveSku(db: Executor, projectId: string, id: string, patch: Updateable<SkusTable>): Promise<boolean> {
  const result = await db
    .updateTable('skus')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function binSku(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('skus')
    .set({ binned_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Removes a SKU; with `liveOnly`, one binned meanwhile is left alone (false). */
export async function deleteSku(db: Executor, projectId: string, id: string, liveOnly: boolean): Promise<boolean> {
  let query = db.deleteFrom('skus').where('project_id', '=', projectId).where('id', '=', id);
  if (liveOnly) query = query.where('binned_at', 'is', null);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function listLiveSkus(db: Executor, productId: string, q: CatalogPage): Promise<{ rows: SkuRow[]; total: number }> {
  let base = db
    .selectFrom('skus')
    .where('project_id', '=', q.projectId)
    .where('product_id', '=', productId)
    .where('binned_at', 'is', null);
  if (q.createdFrom !== undefined) base = base.where('created_at', '>=', q.createdFrom);
  if (q.createdTo !== undefined) base = base.where('created_at', '<=', q.createdTo);
  const direction = q.descending ? 'desc' : 'asc';
  const rows = await base
    .selectAll()
    .orderBy(sortExpr(q.sort), direction)
    .orderBy('id', direction)
    .limit(q.limit)
    .offset((q.page - 1) * q.limit)
    .execute();
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

/**
 * The first `perProduct` live SKUs (oldest first) of each given product, with each product's full SKU
 * count, in one query: a window numbers the SKUs within their product so a product with very many SKUs
 * never sends them all.
 */
export async function firstLiveSkusOf(
  db: Executor,
  projectId: string,
  productIds: readonly string[],
  perProduct: number,
): Promise<Map<string, { rows: SkuRow[]; total: number }>> {
  const out = new Map<string, { rows: SkuRow[]; total: number }>();
  for (const id of productIds) out.set(id, { rows: [], total: 0 });
  if (productIds.length === 0) return out;
  const ranked = db
    .selectFrom('skus')
    .selectAll()
    .select((eb) => [
      eb.fn
        .agg<number>('row_number')
        .over((ob) => ob.partitionBy('product_id').orderBy('created_at').orderBy('id'))
        .as('position'),
      eb.fn.countAll<number>().over((ob) => ob.partitionBy('product_id')).as('sku_total'),
    ])
    .where('project_id', '=', projectId)
    .where('product_id', 'in', productIds)
    .where('binned_at', 'is', null);
  const rows = await db
    .selectFrom(ranked.as('ranked'))
    .selectAll()
    .where('position', '<=', perProduct)
    .orderBy('product_id')
    .orderBy('position')
    .execute();
  for (const { position: _position, sku_total, ...row } of rows) {
    const entry = out.get(row.product_id);
    if (!entry) continue;
    entry.rows.push(row);
    entry.total = Number(sku_total);
  }
  return out;
}
