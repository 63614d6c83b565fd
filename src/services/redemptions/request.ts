import { errors } from '../../domain/errors.ts';
import { DEFAULT_TTL, DEFAULT_TTL_UNIT } from '../../domain/redemptions/session.ts';
import type { CustomerInput } from '../../api/customers.ts';
import type { StackableInput } from '../../api/redemptions.ts';
import { findLiveCustomerWithDefinitions, toCustomerObject, type CustomerRow } from '../../store/customers.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import type { Executor, Tx } from '../../store/db.ts';
import type { Actor, Deps } from '../context.ts';
import { resolveCustomerRow } from '../customers/customers.ts';
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
export async function ensureCustomer(tx: Tx, deps: Deps, actor: Actor, ref: CustomerInput | null): Promise<CustomerFacts> {
  if (!ref) return { id: null, row: null, simple: null, metadata: {}, present: false };
  const { row } = await resolveCustomerRow(tx, deps, actor, ref, { createIfMissing: true, lock: true });
  return factsOf(row);
}
