import { errors } from '../../domain/errors.ts';
import { DEFAULT_TTL, DEFAULT_TTL_UNIT } from '../../domain/redemptions/session.ts';
import type { CustomerInput } from '../../api/customers.ts';
import type { CreateOrderInput } from '../../api/orders.ts';
import type { StackableInput } from '../../api/redemptions.ts';
import { findLiveCustomerWithDefinitions, lockedCustomerOf, lockedCustomerQuery, toCustomerObject, type CustomerRow } from '../../store/customers.ts';
import { readTogether } from '../../store/combined-reads.ts';
import { catalogOfProducts, catalogProductsQuery, type CatalogFacts } from '../../store/orders.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import type { Executor, Tx } from '../../store/db.ts';
import type { Actor, Deps } from '../context.ts';
import { resolveCustomerRow } from '../customers/customers.ts';
import { catalogLookupOf } from '../orders/order-lines.ts';
import { NO_CUSTOMER, type CustomerFacts, type EngineRequest, type SessionRequest } from './facts.ts';
import { simpleCustomer } from './records.ts';

// A stackable request in the engine's terms, and the customer it names: looked up only (validation,
// failures), or created when unknown (redemption, inside its transaction).

export interface SessionSpec extends SessionRequest {
  /** `type: LOCK` was sent: a validation reserves. */
  lock: boolean;
}

export type NormalisedRequest = EngineRequest & { session: SessionSpec | null; customerInput: CustomerInput | null };

export function engineRequest(deps: Pick<Deps, 'ids'>, input: StackableInput): NormalisedRequest {
  // `tracking_id` stands for the customer's source_id when no customer is sent (reference 6.2).
  const customerInput: CustomerInput | null = input.customer ?? (input.tracking_id ? { source_id: input.tracking_id } : null);
  const sent = input.session ?? null;
  const lock = sent?.type === 'LOCK';
  const session: SessionSpec | null =
    sent && (lock || sent.key)
      ? { key: sent.key ?? deps.ids.next('ssn'), ttl: sent.ttl ?? DEFAULT_TTL, ttlUnit: sent.ttl_unit ?? DEFAULT_TTL_UNIT, lock }
      : null;
  return {
    redeemables: input.redeemables.map((r) => ({ object: r.object ?? 'voucher', id: r.id, ...(r.gift ? { gift: r.gift } : {}), ...(r.reward ? { reward: r.reward } : {}) })),
    order: input.order ?? null,
    customer: customerInput,
    customerInput,
    trackingId: input.tracking_id ?? customerInput?.source_id ?? null,
    metadata: input.metadata ?? {},
    session,
    expand: new Set(input.options?.expand ?? []),
  };
}

function factsOf(row: CustomerRow): CustomerFacts {
  const object = toCustomerObject(row);
  return { id: row.id, row, simple: simpleCustomer(object), metadata: object.metadata, present: true };
}

/**
 * The customer a request names, without creating anything: a stored one, or (an unknown source_id)
 * one that exists only for this evaluation. An unknown `id` is a 404: ids are ours. A stored customer
 * comes with the definitions view, whose version the same statement read (undefined otherwise).
 */
export async function readCustomer(db: Executor, projectId: string, ref: CustomerInput | null): Promise<{ customer: CustomerFacts; definitions: DefinitionsView | undefined }> {
  if (!ref) return { customer: NO_CUSTOMER, definitions: undefined };
  if (ref.id) {
    const found = await findLiveCustomerWithDefinitions(db, projectId, { id: ref.id });
    if (!found) throw errors.notFound('customer', ref.id);
    return { customer: factsOf(found.row), definitions: found.definitions };
  }
  const found = ref.source_id ? await findLiveCustomerWithDefinitions(db, projectId, { sourceId: ref.source_id }) : undefined;
  if (found) return { customer: factsOf(found.row), definitions: found.definitions };
  return { customer: { id: null, row: null, simple: null, metadata: ref.metadata ?? {}, present: true }, definitions: undefined };
}

/**
 * The customer a redemption names, created from the data sent when its source_id is unknown. A customer
 * found is locked as it is read: the redemption locks it before it writes anyway.
 */
export async function ensureCustomer(tx: Tx, deps: Deps, actor: Actor, ref: CustomerInput | null, early?: EarlyReads): Promise<CustomerFacts> {
  if (!ref) return { id: null, row: null, simple: null, metadata: {}, present: false };
  const { row } = await resolveCustomerRow(tx, deps, actor, ref, { createIfMissing: true, lock: true, ...(early ? { locked: early.customer } : {}) });
  return factsOf(row);
}

/** The order's catalog and the customer's locked row, read in one statement by readCatalogAndCustomer. */
export interface EarlyReads {
  catalog: CatalogFacts;
  customer: { row: CustomerRow | undefined };
}

/**
 * A redemption's first two reads in one round trip on PostgreSQL (src/store/combined-reads.ts): the
 * products its order's items name, and its customer, locked (the statement ensureCustomer would send:
 * by id when the request gives one, else by source_id). The products were read before the customer's
 * lock and need nothing from it, so one snapshot serves both. Null when either read is not needed or
 * takes more than one statement (items naming SKUs), and for an order the request names by id or
 * source_id: that order is locked first (reference 6.10), before the customer. SQLite sends the same
 * two statements one after the other, as before.
 */
export async function readCatalogAndCustomer(tx: Tx, projectId: string, order: CreateOrderInput | null, ref: CustomerInput | null): Promise<EarlyReads | null> {
  if (!order?.items || order.id || order.source_id || !ref) return null;
  const by = ref.id ? { id: ref.id } : ref.source_id ? { sourceId: ref.source_id } : null;
  const products = by ? catalogProductsQuery(tx, projectId, catalogLookupOf(order.items)) : null;
  if (!by || !products) return null;
  const [productRows = [], customerRows = []] = await readTogether(tx, [products, lockedCustomerQuery(tx, projectId, by)]);
  return { catalog: catalogOfProducts(productRows), customer: { row: await lockedCustomerOf(tx, projectId, customerRows) } };
}
