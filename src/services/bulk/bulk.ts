import { DomainError, domainError } from '../../domain/errors.ts';
import type {
  CustomersBulkInput,
  MetadataBulkInput,
  OrdersImportInput,
  ProductsBulkInput,
  ProductsMetadataBulkInput,
  VouchersBulkInput,
  VouchersMetadataBulkInput,
} from '../../api/bulk.ts';
import { Slice, transactionSliceMs, yieldToRequests } from '../../lib/slices.ts';
import { lockLiveCustomerById, lockLiveCustomerBySourceId } from '../../store/bulk.ts';
import type { CustomerFields } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import type { EventSource } from '../../store/events.ts';
import { enqueueJob } from '../../store/jobs.ts';
import { fromJson, toJson } from '../../store/json.ts';
import * as productStore from '../../store/products.ts';
import { inSavepoint } from '../../store/savepoints.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { recordProductCreated, recordProductUpdated } from '../catalog/products.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { applyCustomerUpdate, resolveCustomer } from '../customers/customers.ts';
import { upsertOrderIn } from '../orders/orders.ts';
import { mergeVoucherMetadata } from '../vouchers/vouchers.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';

// Bulk and metadata updates of customers, products and vouchers, and order imports (platform reference
// 3.1, 4.1, 8; vendor import-orders). The request
// only validates and enqueues a job (answered 202 with the async action id); the worker applies the
// items in slices (src/lib/slices.ts): a slice is one transaction holding up to SLICE_ITEMS items, or
// what fits in a few milliseconds, together with the job's progress, and between slices the job gives
// the event loop and the database to requests. A job resumed after a crash, or taken over by another
// worker, continues after the last committed slice, so no item is applied twice or skipped. An item that
// breaks a business rule (e.g. its metadata schema) is undone alone (a savepoint), reported in `errors`,
// and the others go on. Each update records what it changed, not a copy of the object (customers.ts).

export const CUSTOMERS_BULK_UPDATE = 'CUSTOMERS.BULK_UPDATE';
export const CUSTOMERS_METADATA_UPDATE = 'CUSTOMERS.METADATA_UPDATE';
export const PRODUCTS_BULK_UPDATE = 'PRODUCTS.BULK_UPDATE';
export const PRODUCTS_METADATA_UPDATE = 'PRODUCTS.METADATA_UPDATE';
export const VOUCHERS_BULK_UPDATE = 'VOUCHERS.BULK_UPDATE';
export const VOUCHERS_METADATA_UPDATE = 'VOUCHERS.METADATA_UPDATE';
export const ORDERS_IMPORT = 'ORDERS.IMPORT';

export const BULK_KINDS = [
  CUSTOMERS_BULK_UPDATE,
  CUSTOMERS_METADATA_UPDATE,
  PRODUCTS_BULK_UPDATE,
  PRODUCTS_METADATA_UPDATE,
  VOUCHERS_BULK_UPDATE,
  VOUCHERS_METADATA_UPDATE,
  ORDERS_IMPORT,
] as const;
export type BulkKind = (typeof BULK_KINDS)[number];

type CustomerItem = CustomersBulkInput[number];
type ProductItem = ProductsBulkInput[number];
type VoucherItem = VouchersBulkInput[number];

export type BulkPayload =
  | { kind: typeof CUSTOMERS_BULK_UPDATE; source: EventSource; items: CustomerItem[] }
  | { kind: typeof PRODUCTS_BULK_UPDATE; source: EventSource; items: ProductItem[] }
  | { kind: typeof CUSTOMERS_METADATA_UPDATE; source: EventSource; source_ids: string[]; metadata: Record<string, unknown> }
  // `product_ids` is absent from jobs queued before products could be named by id.
  | { kind: typeof PRODUCTS_METADATA_UPDATE; source: EventSource; source_ids: string[]; product_ids?: string[]; metadata: Record<string, unknown> }
  | { kind: typeof VOUCHERS_BULK_UPDATE; source: EventSource; items: VoucherItem[] }
  | { kind: typeof VOUCHERS_METADATA_UPDATE; source: EventSource; codes: string[]; metadata: Record<string, unknown> }
  | { kind: typeof ORDERS_IMPORT; source: EventSource; items: OrdersImportInput };

/**
 * What names the item an error is about: customers and products by source_id, vouchers by code (the
 * vendor's result schemas); an imported order by its source_id, or by its position in the array (`row`, from 0).
 */
type ItemRef = { source_id: string } | { id: string } | { code: string } | { row: number };

export type BulkError = { key: string; message: string; details: string } & ItemRef;

/** The async action result (platform reference 8.2 `*.BULK_UPDATE`, `*.METADATA_UPDATE`). */
export interface BulkResult {
  done_count: number;
  failed_count: number;
  reports: string[];
  reports_available_till: string | null;
  errors: BulkError[];
  operation_status: 'SUCCESS' | 'FAILED' | 'UNKNOWN';
  /** Where a resumed job continues. */
  next_index: number;
}

/** Bounds the result that is rewritten with every slice; `failed_count` keeps the true number. */
const MAX_ERRORS_LISTED = 100;

async function enqueue(deps: Deps, actor: Actor, kind: BulkKind, payload: BulkPayload): Promise<{ async_action_id: string }> {
  const id = deps.ids.next('aa');
  await inTransaction(deps, (tx) =>
    enqueueJob(tx, { id, projectId: actor.projectId, kind, payload, requestId: actor.requestId, now: deps.clock.now().toISOString() }),
  );
  return { async_action_id: id };
}

export const enqueueCustomersBulkUpdate = (deps: Deps, actor: Actor, items: CustomersBulkInput) =>
  enqueue(deps, actor, CUSTOMERS_BULK_UPDATE, { kind: CUSTOMERS_BULK_UPDATE, source: actor.source, items });

// Every member of a metadata update is optional, as in the vendor's schemas: nothing named updates nothing.
export const enqueueCustomersMetadataUpdate = (deps: Deps, actor: Actor, input: MetadataBulkInput) =>
  enqueue(deps, actor, CUSTOMERS_METADATA_UPDATE, {
    kind: CUSTOMERS_METADATA_UPDATE,
    source: actor.source,
    source_ids: input.source_ids ?? [],
    metadata: input.metadata ?? {},
  });

export const enqueueProductsBulkUpdate = (deps: Deps, actor: Actor, items: ProductsBulkInput) =>
  enqueue(deps, actor, PRODUCTS_BULK_UPDATE, { kind: PRODUCTS_BULK_UPDATE, source: actor.source, items });

export const enqueueProductsMetadataUpdate = (deps: Deps, actor: Actor, input: ProductsMetadataBulkInput) =>
  enqueue(deps, actor, PRODUCTS_METADATA_UPDATE, {
    kind: PRODUCTS_METADATA_UPDATE,
    source: actor.source,
    source_ids: input.source_ids ?? [],
    product_ids: input.product_ids ?? [],
    metadata: input.metadata ?? {},
  });

export const enqueueVouchersBulkUpdate = (deps: Deps, actor: Actor, items: VouchersBulkInput) =>
  enqueue(deps, actor, VOUCHERS_BULK_UPDATE, { kind: VOUCHERS_BULK_UPDATE, source: actor.source, items });

/** `POST /v1/orders/import` (ORDERS.IMPORT): the orders are written by the worker, like a bulk update. */
export const enqueueOrdersImport = (deps: Deps, actor: Actor, items: OrdersImportInput) =>
  enqueue(deps, actor, ORDERS_IMPORT, { kind: ORDERS_IMPORT, source: actor.source, items });

export const enqueueVouchersMetadataUpdate = (deps: Deps, actor: Actor, input: VouchersMetadataBulkInput) =>
  enqueue(deps, actor, VOUCHERS_METADATA_UPDATE, { kind: VOUCHERS_METADATA_UPDATE, source: actor.source, codes: input.codes ?? [], metadata: input.metadata ?? {} });

// ---- customers ----

/** Upserts one customer by source_id: an unknown one is created (with `customer.created`). */
async function upsertCustomerItem(tx: Tx, deps: Deps, actor: Actor, item: CustomerItem): Promise<void> {
  const { source_id: sourceId, ...fields } = item;
  let row = await lockLiveCustomerBySourceId(tx, actor.projectId, sourceId);
  if (!row) {
    const { customer, created } = await resolveCustomer(tx, deps, actor, { ...fields, source_id: sourceId }, { createIfMissing: true });
    if (created) return;
    // Another writer created it a moment ago: update that one instead.
    row = await lockLiveCustomerById(tx, actor.projectId, customer.id);
    if (!row) throw new Error(`customer ${customer.id} vanished inside its own transaction`);
  }
  await applyCustomerUpdate(tx, deps, actor, row, fields satisfies CustomerFields);
}

/** Merges `metadata` into one customer's metadata (members not sent stay); an unknown source_id is created. */
async function mergeCustomerMetadata(tx: Tx, deps: Deps, actor: Actor, sourceId: string, metadata: Record<string, unknown>): Promise<void> {
  let row = await lockLiveCustomerBySourceId(tx, actor.projectId, sourceId);
  if (!row) {
    const { customer, created } = await resolveCustomer(tx, deps, actor, { source_id: sourceId, metadata }, { createIfMissing: true });
    if (created) return;
    row = await lockLiveCustomerById(tx, actor.projectId, customer.id);
    if (!row) throw new Error(`customer ${customer.id} vanished inside its own transaction`);
  }
  const merged = { ...fromJson<Record<string, unknown>>(row.metadata, {}), ...metadata };
  await applyCustomerUpdate(tx, deps, actor, row, { metadata: merged }, { metadata });
}

// ---- products ----

interface ProductFields {
  name?: string | null;
  price?: number | null;
  attributes?: string[] | null;
  metadata?: Record<string, unknown> | null;
  image_url?: string | null;
}

async function writeProduct(tx: Tx, deps: Deps, actor: Actor, sourceId: string, fields: ProductFields, mergeMetadata: boolean): Promise<void> {
  const now = deps.clock.now().toISOString();
  const found = await productStore.findLiveProductBySourceId(tx, actor.projectId, sourceId);
  const existing = found ? await productStore.lockLiveProduct(tx, actor.projectId, found.id) : undefined;
  if (!existing) {
    await assertMetadata(tx, actor.projectId, 'product', fields.metadata ?? {});
    const id = deps.ids.next('prod');
    await productStore.insertProduct(tx, {
      id,
      project_id: actor.projectId,
      source_id: sourceId,
      name: fields.name ?? null,
      price: fields.price ?? null,
      attributes: toJson(fields.attributes ?? []),
      metadata: toJson(fields.metadata ?? {}),
      image_url: fields.image_url ?? null,
      created_at: now,
      updated_at: null,
      binned_at: null,
    });
    await recordProductCreated(deps, actor, tx, id);
    return;
  }
  const metadata =
    fields.metadata === undefined ? undefined : mergeMetadata ? { ...fromJson<Record<string, unknown>>(existing.metadata, {}), ...fields.metadata } : (fields.metadata ?? {});
  if (metadata !== undefined) await assertMetadata(tx, actor.projectId, 'product', metadata);
  await productStore.updateLiveProduct(tx, actor.projectId, existing.id, {
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    ...(fields.price !== undefined ? { price: fields.price } : {}),
    ...(fields.attributes !== undefined ? { attributes: toJson(fields.attributes ?? []) } : {}),
    ...(metadata !== undefined ? { metadata: toJson(metadata) } : {}),
    ...(fields.image_url !== undefined ? { image_url: fields.image_url } : {}),
    updated_at: now,
  });
  await recordProductUpdated(deps, actor, tx, { product_id: existing.id, changes: fields, ...(mergeMetadata ? { metadata_merged: true } : {}) });
}

/** Merges metadata into an existing product named by id; an unknown id is the item's 404 (ids never create). */
async function mergeProductMetadataById(tx: Tx, deps: Deps, actor: Actor, id: string, metadata: Record<string, unknown>): Promise<void> {
  const existing = await productStore.lockLiveProduct(tx, actor.projectId, id);
  if (!existing || existing.id !== id) throw domainError('not_found', { details: `Cannot find product with id ${id}` });
  const merged = { ...fromJson<Record<string, unknown>>(existing.metadata, {}), ...metadata };
  await assertMetadata(tx, actor.projectId, 'product', merged);
  await productStore.updateLiveProduct(tx, actor.projectId, existing.id, { metadata: toJson(merged), updated_at: deps.clock.now().toISOString() });
  await recordProductUpdated(deps, actor, tx, { product_id: existing.id, changes: { metadata }, metadata_merged: true });
}

// ---- the job ----

/** Items per slice at most; a slice also ends once it has taken transactionSliceMs (src/lib/slices.ts). */
export const SLICE_ITEMS = 100;

/** Stores the job's partial result and progress in the slice's transaction (the worker's checkpoint). */
export type BulkCheckpoint = (tx: Tx, result: BulkResult, percent: number) => Promise<void>;

interface BulkItem {
  ref: ItemRef;
  apply: (tx: Tx) => Promise<unknown>;
}

function itemsOf(deps: Deps, actor: Actor, payload: BulkPayload): BulkItem[] {
  switch (payload.kind) {
    case CUSTOMERS_BULK_UPDATE:
      return payload.items.map((item) => ({ ref: { source_id: item.source_id }, apply: (tx) => upsertCustomerItem(tx, deps, actor, item) }));
    case PRODUCTS_BULK_UPDATE:
      return payload.items.map((item) => {
        const { source_id: sourceId, ...fields } = item;
        return { ref: { source_id: sourceId }, apply: (tx) => writeProduct(tx, deps, actor, sourceId, fields, false) };
      });
    case CUSTOMERS_METADATA_UPDATE:
      return payload.source_ids.map((sourceId) => ({ ref: { source_id: sourceId }, apply: (tx) => mergeCustomerMetadata(tx, deps, actor, sourceId, payload.metadata) }));
    case PRODUCTS_METADATA_UPDATE:
      return [
        ...payload.source_ids.map((sourceId) => ({ ref: { source_id: sourceId }, apply: (tx: Tx) => writeProduct(tx, deps, actor, sourceId, { metadata: payload.metadata }, true) })),
        ...(payload.product_ids ?? []).map((id) => ({ ref: { id }, apply: (tx: Tx) => mergeProductMetadataById(tx, deps, actor, id, payload.metadata) })),
      ];
    // Vouchers are never created here (the vendor: "upserts are not supported"): an unknown code is a 404 item error.
    case VOUCHERS_BULK_UPDATE:
      return payload.items.map((item) => ({ ref: { code: item.code }, apply: (tx) => mergeVoucherMetadata(tx, deps, actor, item.code, item.metadata) }));
    case VOUCHERS_METADATA_UPDATE:
      return payload.codes.map((code) => ({ ref: { code }, apply: (tx) => mergeVoucherMetadata(tx, deps, actor, code, payload.metadata) }));
    case ORDERS_IMPORT:
      return payload.items.map((order, row) => ({
        ref: order.source_id ? { source_id: order.source_id } : { row },
        apply: (tx) => upsertOrderIn(tx, deps, actor, order, { imported: true }),
      }));
  }
}

/**
 * Applies one item in a savepoint of the slice's transaction. An item that breaks a business rule is
 * undone alone and answered as its DomainError; a unique-index race (the same source_id created
 * concurrently) runs the item again. Any other error ends the slice (its transaction rolls back).
 */
async function applyItem(tx: Tx, item: BulkItem): Promise<DomainError | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      await inSavepoint(tx, () => item.apply(tx));
      return null;
    } catch (error) {
      if (error instanceof DomainError) return error;
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
}

function withFailure(result: BulkResult, item: BulkItem, failure: DomainError): BulkResult {
  const entry: BulkError = { key: failure.key, message: failure.message, details: failure.details ?? failure.message, ...item.ref };
  return {
    ...result,
    failed_count: result.failed_count + 1,
    errors: result.errors.length < MAX_ERRORS_LISTED ? [...result.errors, entry] : result.errors,
    next_index: result.next_index + 1,
  };
}

/**
 * Applies a bulk job's items from where an earlier attempt stopped, slice by slice; each slice commits
 * with the job's progress through `checkpoint`. Any error other than a business rule (database gone, the
 * claim lost) rolls the slice back and ends the attempt; the next one starts after the last committed slice.
 */
export async function runBulkJob(
  deps: Deps,
  job: { id: string; projectId: string; requestId: string | null; payload: BulkPayload; result: unknown },
  checkpoint: BulkCheckpoint,
): Promise<Omit<BulkResult, 'next_index'> | ImportResult> {
  const actor: Actor = { projectId: job.projectId, requestId: job.requestId ?? job.id, source: job.payload.source };
  const items = itemsOf(deps, actor, job.payload);
  const earlier = job.result as Partial<BulkResult> | null;
  let result: BulkResult = {
    done_count: earlier?.done_count ?? 0,
    failed_count: earlier?.failed_count ?? 0,
    reports: [],
    reports_available_till: null,
    errors: earlier?.errors ?? [],
    operation_status: 'UNKNOWN',
    next_index: earlier?.next_index ?? 0,
  };
  const percent = (next: number) => Math.floor((next / Math.max(1, items.length)) * 99);
  while (result.next_index < items.length) {
    const start = result;
    // A transaction that is run again (a conflict the database detected) starts over from `start`.
    result = await inTransaction(deps, async (tx) => {
      const slice = new Slice(SLICE_ITEMS, transactionSliceMs(deps.dialect));
      let at = start;
      for (let item = items[at.next_index]; item !== undefined; item = items[at.next_index]) {
        const failure = await applyItem(tx, item);
        at = failure ? withFailure(at, item, failure) : { ...at, done_count: at.done_count + 1, next_index: at.next_index + 1 };
        if (slice.add()) break;
      }
      await checkpoint(tx, at, percent(at.next_index));
      return at;
    });
    await yieldToRequests();
  }
  // `next_index` only serves a resumed attempt; the finished result is the vendor's shape.
  const { next_index: _next, ...finished } = result;
  if (job.payload.kind === ORDERS_IMPORT) return importResult(result);
  return { ...finished, operation_status: result.failed_count === 0 ? 'SUCCESS' : 'FAILED' };
}

/** The result of an import (platform reference 8.2): a message, the counts, and each failed item with its reason. */
export interface ImportResult {
  message: string;
  done_count: number;
  failed_count: number;
  failed: Array<Exclude<ItemRef, { code: string }> & { reason: string }>;
}

function importResult(result: BulkResult): ImportResult {
  return {
    message: `${result.done_count} order(s) imported successfully, ${result.failed_count} failed.`,
    done_count: result.done_count,
    failed_count: result.failed_count,
    failed: result.errors.flatMap(({ key: _key, message, details, ...ref }) => ('code' in ref ? [] : [{ ...ref, reason: details || message }])),
  };
}
