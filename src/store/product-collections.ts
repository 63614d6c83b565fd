import type { Insertable, Selectable } from 'kysely';
import type { ParsedFilter } from '../domain/filters/filter.ts';
import { isPostgres, type Dialect, type Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import type { ProductRow, SkuRow } from './products.ts';
import type { ProductCollectionItemsTable, ProductCollectionsTable } from './schema.ts';
import { distinctById, projectCheck } from './id-lookups.ts';

// Product collections. A STATIC collection lists products and SKUs (`product_collection_items`); an
// AUTO_UPDATE collection is the set of live products its filter matches, evaluated when asked. Binned
// products and SKUs never count as members. A SKU belongs to a collection that lists it or its product.

export type CollectionRow = Selectable<ProductCollectionsTable>;

export async function insertCollection(db: Executor, row: Insertable<ProductCollectionsTable>): Promise<void> {
  await db.insertInto('product_collections').values(row).execute();
}

export async function insertCollectionItems(db: Executor, rows: Insertable<ProductCollectionItemsTable>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    await db.insertInto('product_collection_items').values(rows.slice(start, start + 500)).execute();
  }
}

/** A collection by id; `forUpdate` (deletion) locks the row on PostgreSQL, see findSegment. */
export async function findCollection(db: Executor, projectId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<CollectionRow | undefined> {
  const query = db.selectFrom('product_collections').selectAll().where('project_id', '=', projectId).where('id', '=', id);
  return (options.forUpdate && isPostgres(db) ? query.forUpdate() : query).executeTakeFirst();
}

export async function findCollections(db: Executor, projectId: string, ids: readonly string[]): Promise<CollectionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('product_collections').selectAll().where('project_id', '=', projectId).where('id', 'in', ids).execute();
}

/** Deletes a collection and its items; false when it was gone already. */
export async function deleteCollection(db: Executor, projectId: string, id: string): Promise<boolean> {
  await db.deleteFrom('product_collection_items').where('project_id', '=', projectId).where('collection_id', '=', id).execute();
  const result = await db.deleteFrom('product_collections').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export interface CollectionListQuery {
  projectId: string;
  limit: number;
  offset: number;
  descending: boolean;
}

export async function listCollections(db: Executor, q: CollectionListQuery): Promise<{ rows: CollectionRow[]; total: number }> {
  const base = db.selectFrom('product_collections').where('project_id', '=', q.projectId);
  const direction = q.descending ? 'desc' : 'asc';
  const rows = await base.selectAll().orderBy('created_at', direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

export interface MemberPage {
  limit: number;
  offset: number;
  descending: boolean;
  /** created_at cursor: only members created beyond it in walking direction. */
  startingAfter?: string;
}

export type CollectionMember = { object: 'product'; product: ProductRow } | { object: 'sku'; sku: SkuRow; product: ProductRow };

/** One page of the live members of a STATIC collection, by the members' creation time. */
export async function listStaticMembers(db: Executor, projectId: string, collectionId: string, page: MemberPage): Promise<{ members: CollectionMember[]; total: number }> {
  const base = db
    .selectFrom('product_collection_items as i')
    .leftJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'i.item_id').onRef('p.project_id', '=', 'i.project_id').on('i.item_type', '=', 'product').on('p.binned_at', 'is', null),
    )
    .leftJoin('skus as s', (join) =>
      join.onRef('s.id', '=', 'i.item_id').onRef('s.project_id', '=', 'i.project_id').on('i.item_type', '=', 'sku').on('s.binned_at', 'is', null),
    )
    .where('i.project_id', '=', projectId)
    .where('i.collection_id', '=', collectionId)
    .where((eb) => eb.or([eb('p.id', 'is not', null), eb('s.id', 'is not', null)]));
  const direction = page.descending ? 'desc' : 'asc';
  let rows = base.select(['i.item_type', 'i.item_id', 'i.product_id']);
  if (page.startingAfter !== undefined) rows = rows.where('i.item_created_at', page.descending ? '<' : '>', page.startingAfter);
  const items = await rows.orderBy('i.item_created_at', direction).orderBy('i.item_id', direction).offset(page.offset).limit(page.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();

  const skuIds = items.filter((i) => i.item_type === 'sku').map((i) => i.item_id);
  const productIds = [...new Set(items.map((i) => i.product_id))];
  const skus = skuIds.length === 0 ? [] : await db.selectFrom('skus').selectAll().where(projectCheck(), '=', projectId).where('id', 'in', skuIds).execute();
  const products =
    productIds.length === 0 ? [] : await db.selectFrom('products').selectAll().where(projectCheck(), '=', projectId).where('id', 'in', productIds).execute();
  const skuById = new Map(skus.map((s) => [s.id, s]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const members: CollectionMember[] = [];
  for (const item of items) {
    const product = productById.get(item.product_id);
    if (!product) continue;
    if (item.item_type === 'product') members.push({ object: 'product', product });
    else {
      const sku = skuById.get(item.item_id);
      if (sku) members.push({ object: 'sku', sku, product });
    }
  }
  return { members, total: Number(total.n) };
}

/** One page of the live products an AUTO_UPDATE collection's filter matches now. */
export async function listFilteredProducts(
  db: Executor,
  dialect: Dialect,
  projectId: string,
  filter: ParsedFilter,
  page: MemberPage,
  now: Date,
): Promise<{ members: CollectionMember[]; total: number }> {
  const base = db.selectFrom('products').where('project_id', '=', projectId).where('binned_at', 'is', null).where(filterCondition(filter, dialect, now));
  const direction = page.descending ? 'desc' : 'asc';
  let rows = base.selectAll();
  if (page.startingAfter !== undefined) rows = rows.where('created_at', page.descending ? '<' : '>', page.startingAfter);
  const products = await rows.orderBy('created_at', direction).orderBy('id', direction).offset(page.offset).limit(page.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { members: products.map((product) => ({ object: 'product' as const, product })), total: Number(total.n) };
}

/**
 * Which of the given products and SKUs belong to each of the given collections: for every collection id,
 * the product ids and SKU ids (of those asked about) that are members. Filters of AUTO_UPDATE collections
 * come parsed from the caller.
 */
export async function membersAmong(
  db: Executor,
  dialect: Dialect,
  projectId: string,
  collections: ReadonlyArray<{ row: CollectionRow; filter: ParsedFilter | null }>,
  productIds: readonly string[],
  skuIds: readonly string[],
  now: Date,
): Promise<Map<string, Set<string>>> {
  const result = new Map<string, Set<string>>(collections.map((c) => [c.row.id, new Set<string>()]));
  if (collections.length === 0 || (productIds.length === 0 && skuIds.length === 0)) return result;
  // A SKU is a member through its product too, so the parents of the SKUs asked about are needed.
  const skus =
    skuIds.length === 0
      ? []
      : await db.selectFrom('skus').select(['id', 'product_id']).where(projectCheck(), '=', projectId).where('id', 'in', skuIds).where('binned_at', 'is', null).execute();
  const candidateProducts = [...new Set([...productIds, ...skus.map((s) => s.product_id)])];
  const liveProducts =
    candidateProducts.length === 0
      ? []
      : await db.selectFrom('products').select('id').where(projectCheck(), '=', projectId).where('id', 'in', candidateProducts).where('binned_at', 'is', null).execute();
  const live = new Set(liveProducts.map((p) => p.id));

  const statics = collections.filter((c) => c.row.type === 'STATIC').map((c) => c.row.id);
  const listed = new Map<string, Set<string>>();
  if (statics.length > 0) {
    const ids = [...new Set([...candidateProducts, ...skus.map((s) => s.id)])];
    const rows = await db
      .selectFrom('product_collection_items')
      .select(['collection_id', 'item_id'])
      .where('project_id', '=', projectId)
      .where('collection_id', 'in', statics)
      .where('item_id', 'in', ids)
      .execute();
    for (const row of rows) {
      const set = listed.get(row.collection_id) ?? new Set<string>();
      set.add(row.item_id);
      listed.set(row.collection_id, set);
    }
  }
  for (const { row, filter } of collections) {
    let members: Set<string>;
    if (row.type === 'STATIC') members = listed.get(row.id) ?? new Set();
    else if (filter && live.size > 0) {
      const matched = await db
        .selectFrom('products')
        .select('id')
        .where(projectCheck(), '=', projectId)
        .where('id', 'in', [...live])
        .where(filterCondition(filter, dialect, now))
        .execute();
      members = new Set(matched.map((m) => m.id));
    } else members = new Set();
    const out = result.get(row.id) as Set<string>;
    for (const id of productIds) if (live.has(id) && members.has(id)) out.add(id);
    for (const sku of skus) if (live.has(sku.product_id) && (members.has(sku.id) || members.has(sku.product_id))) out.add(sku.id);
  }
  return result;
}

/** Items of a static collection as the caller named them, resolved to live products and SKUs. */
export async function findLiveItems(
  db: Executor,
  projectId: string,
  productRefs: readonly string[],
  skuRefs: readonly string[],
): Promise<{ products: ProductRow[]; skus: SkuRow[] }> {
  const liveProducts = db.selectFrom('products').selectAll().where('binned_at', 'is', null);
  const products =
    productRefs.length === 0
      ? []
      : distinctById(
          await liveProducts
            .where(projectCheck(), '=', projectId)
            .where('id', 'in', productRefs)
            .unionAll(liveProducts.where('project_id', '=', projectId).where('source_id', 'in', productRefs))
            .execute(),
        );
  const liveSkus = db.selectFrom('skus').selectAll().where('binned_at', 'is', null);
  const skus =
    skuRefs.length === 0
      ? []
      : distinctById(
          await liveSkus
            .where(projectCheck(), '=', projectId)
            .where('id', 'in', skuRefs)
            .unionAll(liveSkus.where('project_id', '=', projectId).where('source_id', 'in', skuRefs))
            .execute(),
        );
  return { products, skus };
}
