import { errors } from '../../domain/errors.ts';
import { findLiveCustomer, type CustomerObject } from '../../store/customers.ts';
import { getCustomer } from '../customers/customers.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { cockpitAssets, rotateCockpitLinks, type CockpitAssets } from './links.ts';

// `assets` of the customer objects the customer endpoints answer. They are added to the answer only,
// never to the customer objects that events and webhooks record: a cockpit link is a credential, and
// nothing that opens a cockpit is stored.

export type CustomerWithAssets = CustomerObject & { assets: CockpitAssets };

export async function withCockpitAssets(deps: Deps, projectId: string, customers: readonly CustomerObject[]): Promise<CustomerWithAssets[]> {
  const assets = await cockpitAssets(deps, deps.db, projectId, customers.map((c) => c.id));
  return customers.map((customer) => {
    const links = assets.get(customer.id);
    if (!links) throw new Error('a customer without cockpit links');
    return { ...customer, assets: links };
  });
}

export async function withCockpitAsset(deps: Deps, projectId: string, customer: CustomerObject): Promise<CustomerWithAssets> {
  const [out] = await withCockpitAssets(deps, projectId, [customer]);
  if (!out) throw new Error('a customer went missing');
  return out;
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
  return withCockpitAsset(deps, actor.projectId, await getCustomer(deps, actor, customerId));
}
