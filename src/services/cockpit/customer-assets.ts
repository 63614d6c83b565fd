import { withMembers } from '../../lib/objects.ts';
import { errors } from '../../domain/errors.ts';
import { findLiveCustomerAndGeneration } from '../../store/cockpit.ts';
import { findLiveCustomer, renderCustomer, type CustomerObject } from '../../store/customers.ts';
import { getCustomer } from '../customers/customers.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { cockpitAssets, cockpitAssetsAt, rotateCockpitLinks, type CockpitAssets } from './links.ts';

// `assets` of the customer objects the customer endpoints answer. They are added to the answer only,
// never to the customer objects that events and webhooks record: a cockpit link is a credential, and
// nothing that opens a cockpit is stored.
//
// A link can spend the customer's points and change their consents, so a caller that may do neither
// itself (a VIEWER's console session, an OAuth token without those scopes) gets the members as null
// (the vendor's schema lets them be): reading customers must not open a way around one's own rights.

type Links = CockpitAssets | { cockpit_url: null; cockpit_preference_center_url: null };
export type CustomerWithAssets = CustomerObject & { assets: Links };

const HIDDEN = { cockpit_url: null, cockpit_preference_center_url: null } as const;

export async function withCockpitAssets(deps: Deps, projectId: string, customers: readonly CustomerObject[], reveal: boolean): Promise<CustomerWithAssets[]> {
  if (!reveal) return customers.map((customer) => withMembers(customer, { assets: HIDDEN }));
  const assets = await cockpitAssets(deps, deps.db, projectId, customers.map((c) => c.id));
  return customers.map((customer) => {
    const links = assets.get(customer.id);
    if (!links) throw new Error('a customer without cockpit links');
    return withMembers(customer, { assets: links });
  });
}

export async function withCockpitAsset(deps: Deps, projectId: string, customer: CustomerObject, reveal: boolean): Promise<CustomerWithAssets> {
  const [out] = await withCockpitAssets(deps, projectId, [customer], reveal);
  if (!out) throw new Error('a customer went missing');
  return out;
}

/**
 * `GET /v1/customers/{customerId}`: the customer with its links. The row and its link generation are read
 * in one statement (the answer every shop's customer page asks for).
 */
export async function getCustomerWithAssets(deps: Deps, actor: Actor, customerId: string, reveal: boolean): Promise<CustomerWithAssets> {
  const found = await findLiveCustomerAndGeneration(deps.db, actor.projectId, customerId);
  if (!found) throw errors.notFound('customer', customerId);
  const customer = await renderCustomer(deps.db, actor.projectId, found.row);
  if (!reveal) return withMembers(customer, { assets: HIDDEN });
  return withMembers(customer, { assets: await cockpitAssetsAt(deps, deps.db, { projectId: actor.projectId, customerId: customer.id }, found.generation) });
}

/**
 * `POST /v1/customers/{customerId}/cockpit/rotate`: every earlier cockpit link of the customer stops
 * working; the answer is the customer with the new links.
 */
export async function rotateCustomerCockpit(deps: Deps, actor: Actor, customerId: string): Promise<CustomerWithAssets> {
  await inTransaction(deps, async (tx) => {
    const row = await findLiveCustomer(tx, actor.projectId, customerId);
    if (!row) throw errors.notFound('customer', customerId);
    await rotateCockpitLinks(deps, tx, { projectId: actor.projectId, customerId: row.id });
  });
  // Whoever may rotate (USER, ADMIN, server keys; src/domain/auth/roles.ts) may also see the new links.
  return withCockpitAsset(deps, actor.projectId, await getCustomer(deps, actor, customerId), true);
}
