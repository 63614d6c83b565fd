import { domainError, errors } from '../../domain/errors.ts';
import { productFilterFields } from '../../domain/collections/product-filter.ts';
import { FilterError, filterToJson, parseFilter, type ParsedFilter } from '../../domain/filters/filter.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import type {
  CollectionProductListOut,
  CreateProductCollectionInput,
  ListCollectionProductsInput,
  ListProductCollectionsInput,
  ProductCollectionObjectOut,
} from '../../api/product-collections.ts';
import type { Dialect, Executor } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import * as store from '../../store/product-collections.ts';
import type { CollectionMember, CollectionRow } from '../../store/product-collections.ts';
import { toProductObject, toSkuObject } from '../../store/products.ts';
import { rulesReferencing } from '../../store/validation-rules.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Product collections: STATIC (listed products and SKUs) and AUTO_UPDATE (live products matching a
// filter, evaluated when asked). Validation rules and `applicable_to` entries ask "which of these
// products/SKUs belong to collection X" through `collectionMembership`.

export type ProductCollectionObject = ProductCollectionObjectOut;
type StaticItem = NonNullable<ProductCollectionObject['products']>[number];

function parseProductFilter(raw: unknown): ParsedFilter {
  return parseFilter(raw, productFilterFields, { path: '.filter', allowRelativeTime: true });
}

export function toCollectionObject(row: CollectionRow): ProductCollectionObject {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    ...(row.type === 'AUTO_UPDATE' ? { filter: fromJson<Record<string, unknown>>(row.filter, {}) } : {}),
    ...(row.type === 'STATIC' ? { products: fromJson<StaticItem[]>(row.products, []) } : {}),
    created_at: row.created_at,
    object: 'products_collection',
  };
}

export async function createCollection(deps: Deps, actor: Actor, input: CreateProductCollectionInput): Promise<ProductCollectionObject> {
  const type = input.type ?? 'STATIC';
  let filter: ParsedFilter | null = null;
  if (type === 'AUTO_UPDATE') {
    if (input.filter === undefined) throw errors.invalidPayload("Payload should have required property 'filter'");
    if (input.products !== undefined) throw errors.invalidPayload('Property .products is only for STATIC collections');
    try {
      filter = parseProductFilter(input.filter);
    } catch (error) {
      if (error instanceof FilterError) throw errors.invalidPayload(error.details);
      throw error;
    }
  } else if (input.filter !== undefined) {
    throw errors.invalidPayload('Property .filter is only for AUTO_UPDATE collections');
  }

  return inTransaction(deps, async (tx) => {
    const id = deps.ids.next('pc');
    const now = deps.clock.now().toISOString();
    let items: StaticItem[] | null = null;
    if (type === 'STATIC') {
      const wanted = input.products ?? [];
      const { products, skus } = await store.findLiveItems(
        tx,
        actor.projectId,
        wanted.filter((p) => p.object === 'product').map((p) => p.id),
        wanted.filter((p) => p.object === 'sku').map((p) => p.id),
      );
      items = [];
      const rows: Parameters<typeof store.insertCollectionItems>[1] = [];
      const seen = new Set<string>();
      for (const ref of wanted) {
        // An id match wins over a source_id match.
        if (ref.object === 'product') {
          const product = products.find((p) => p.id === ref.id) ?? products.find((p) => p.source_id === ref.id);
          if (!product) throw errors.notFound('product', ref.id);
          if (seen.has(product.id)) continue;
          seen.add(product.id);
          items.push({ id: product.id, object: 'product' });
          rows.push({ project_id: actor.projectId, collection_id: id, item_type: 'product', item_id: product.id, product_id: product.id, item_created_at: product.created_at });
        } else {
          const sku = skus.find((s) => s.id === ref.id) ?? skus.find((s) => s.source_id === ref.id);
          if (!sku) throw errors.notFound('sku', ref.id);
          if (seen.has(sku.id)) continue;
          seen.add(sku.id);
          items.push({ id: sku.id, product_id: sku.product_id, object: 'sku' });
          rows.push({ project_id: actor.projectId, collection_id: id, item_type: 'sku', item_id: sku.id, product_id: sku.product_id, item_created_at: sku.created_at });
        }
      }
      await store.insertCollectionItems(tx, rows);
    }
    const row: CollectionRow = {
      id,
      project_id: actor.projectId,
      name: input.name,
      type,
      filter: filter === null ? null : toJson(filterToJson(filter)),
      products: items === null ? null : toJson(items),
      created_at: now,
    };
    await store.insertCollection(tx, row);
    const collection = toCollectionObject(row);
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'products_collection.created', entityId: id, data: { products_collection: collection } })]);
    return collection;
  });
}

export async function getCollection(deps: Deps, actor: Actor, id: string): Promise<ProductCollectionObject> {
  const row = await store.findCollection(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('products_collection', id);
  return toCollectionObject(row);
}

/** A collection a validation rule names cannot be deleted (platform reference 2.1, 2.4). */
export async function deleteCollection(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await store.findCollection(tx, actor.projectId, id, { forUpdate: true });
    if (!row) throw errors.notFound('products_collection', id);
    const users = await rulesReferencing(tx, actor.projectId, 'products_collection', id, 100);
    if (users.total > 0) {
      throw domainError('resource_in_use', {
        details: `Resource products_collection with id ${id} is in use by validation_rules with ids [${users.ids.join(', ')}]`,
        resourceId: id,
        resourceType: 'products_collection',
        extra: { related_object_ids: users.ids, related_object_type: 'validation_rules', related_object_total: users.total },
      });
    }
    if (!(await store.deleteCollection(tx, actor.projectId, id))) throw errors.notFound('products_collection', id);
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'products_collection.deleted',
        entityId: id,
        data: { products_collection: toCollectionObject(row), deleted_at: deps.clock.now().toISOString() },
      }),
    ]);
  });
}

export async function listCollections(
  deps: Deps,
  actor: Actor,
  query: ListProductCollectionsInput,
): Promise<{ object: 'list'; data_ref: 'data'; data: ProductCollectionObject[]; total: number }> {
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listCollections(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    descending: query.order === '-created_at',
  });
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'products_collection'), rows, (some) => some.map(toCollectionObject)), total };
}

function memberObject(member: CollectionMember): CollectionProductListOut['data'][number] {
  if (member.object === 'product') return toProductObject(member.product);
  const product = toProductObject(member.product);
  return {
    ...toSkuObject(member.sku),
    product: {
      id: product.id,
      source_id: product.source_id,
      name: product.name,
      price: product.price,
      attributes: product.attributes,
      metadata: product.metadata,
      object: 'product',
    },
  };
}

/** `GET /v1/product-collections/{id}/products`: the live members, by their creation time. */
export async function listCollectionProducts(
  deps: Deps,
  actor: Actor,
  id: string,
  query: ListCollectionProductsInput,
): Promise<CollectionProductListOut> {
  const row = await store.findCollection(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('products_collection', id);
  const limit = query.limit ?? 10;
  const page: store.MemberPage = {
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    descending: query.order === '-created_at',
    ...(query.starting_after !== undefined ? { startingAfter: queryInstant(query.starting_after) } : {}),
  };
  const { members, total } =
    row.type === 'STATIC'
      ? await store.listStaticMembers(deps.db, actor.projectId, row.id, page)
      : await store.listFilteredProducts(deps.db, deps.dialect, actor.projectId, parseProductFilter(fromJson(row.filter, {})), page, deps.clock.now());
  const data = await readableRows(listing(deps, actor, 'product'), members, (some) => some.map(memberObject), (m) => (m.object === 'product' ? m.product.id : m.sku.id));
  return { object: 'list', data_ref: 'data', data, total };
}

/**
 * Which of the given products and SKUs belong to each named collection, for rule evaluation and
 * `applicable_to` selection: collection id → the product and SKU ids (among those asked about) that are
 * members. Unknown collections answer an empty set. `now` dates time-relative filters.
 */
export async function collectionMembership(
  db: Executor,
  dialect: Dialect,
  projectId: string,
  collectionIds: readonly string[],
  items: ReadonlyArray<{ productId: string | null; skuId: string | null }>,
  now: Date,
): Promise<Map<string, Set<string>>> {
  const rows = await store.findCollections(db, projectId, [...new Set(collectionIds)]);
  const collections = rows.map((row) => ({ row, filter: row.type === 'AUTO_UPDATE' ? parseProductFilter(fromJson(row.filter, {})) : null }));
  const productIds = [...new Set(items.flatMap((i) => (i.productId === null ? [] : [i.productId])))];
  const skuIds = [...new Set(items.flatMap((i) => (i.skuId === null ? [] : [i.skuId])))];
  const members = await store.membersAmong(db, dialect, projectId, collections, productIds, skuIds, now);
  for (const id of collectionIds) if (!members.has(id)) members.set(id, new Set());
  return members;
}

/** The collections (of those in `membership`) an order line belongs to: its SKU's or its product's. */
export function collectionsOfLine(membership: ReadonlyMap<string, ReadonlySet<string>>, productId: string | null, skuId: string | null): string[] {
  const out: string[] = [];
  for (const [collectionId, members] of membership) {
    if ((skuId !== null && members.has(skuId)) || (productId !== null && members.has(productId))) out.push(collectionId);
  }
  return out;
}
