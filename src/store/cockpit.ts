import { detachMember } from '../lib/objects.ts';
import { couldBeCustomerId, type CustomerRow } from './customers.ts';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';

// Cockpit link material (migration 0040): each project's link secret, and each customer's link
// generation (no row = 0). No link itself is stored: links are derived (src/services/cockpit/links.ts).

// Both reads run for every customer object answered (its cockpit links): prepared (./prepared.ts).
const cockpitKey = prepared((db, p: { projectId: string }) => db.selectFrom('cockpit_keys').select('secret').where('project_id', '=', p.projectId));

const generationsOf = prepared((db, p: { projectId: string; customerIds: string[] }) =>
  db.selectFrom('cockpit_links').select(['customer_id', 'generation']).where('project_id', '=', p.projectId).where('customer_id', 'in', p.customerIds),
);

// A live customer with its link generation in one statement, for the answers that read one customer and
// show its links (GET /v1/customers/{customerId}).
const liveCustomerWithGeneration = (column: 'customers.id' | 'customers.source_id') =>
  prepared((db, p: { projectId: string; key: string }) =>
    db
      .selectFrom('customers')
      .leftJoin('cockpit_links as l', (join) => join.onRef('l.project_id', '=', 'customers.project_id').onRef('l.customer_id', '=', 'customers.id'))
      .selectAll('customers')
      .select('l.generation as cockpit_generation')
      .where(column, '=', p.key)
      .where('customers.project_id', '=', p.projectId)
      .where('customers.deleted_at', 'is', null),
  );
const liveCustomerByIdWithGeneration = liveCustomerWithGeneration('customers.id');
const liveCustomerBySourceIdWithGeneration = liveCustomerWithGeneration('customers.source_id');

/** A live customer by id or source_id (an id wins, as in findLiveCustomer) and its link generation. */
export async function findLiveCustomerAndGeneration(
  db: Executor,
  projectId: string,
  idOrSourceId: string,
): Promise<{ row: CustomerRow; generation: number } | undefined> {
  const found =
    (couldBeCustomerId(idOrSourceId) ? await liveCustomerByIdWithGeneration.first(db, { projectId, key: idOrSourceId }) : undefined) ??
    (await liveCustomerBySourceIdWithGeneration.first(db, { projectId, key: idOrSourceId }));
  if (!found) return undefined;
  // The generation is selected after the customer's columns, so detaching it copies nothing.
  const { row, value: generation } = detachMember(found, 'cockpit_generation');
  return { row, generation: Number(generation ?? 0) };
}

export async function findCockpitKey(db: Executor, projectId: string): Promise<string | undefined> {
  const row = await cockpitKey.first(db, { projectId });
  return row?.secret;
}

// Checking a link: the key of a project that is not deleted. Read from the database on every check, so a
// project deleted by any process closes its cockpits at once everywhere.
const liveProjectCockpitKey = prepared((db, p: { projectId: string }) =>
  db
    .selectFrom('cockpit_keys')
    .innerJoin('projects', 'projects.id', 'cockpit_keys.project_id')
    .select('cockpit_keys.secret')
    .where('cockpit_keys.project_id', '=', p.projectId)
    .where('projects.deleted_at', 'is', null),
);

/** The cockpit key of a live project; undefined for an unknown or deleted project (or one that never had links). */
export async function findLiveProjectCockpitKey(db: Executor, projectId: string): Promise<string | undefined> {
  const row = await liveProjectCockpitKey.first(db, { projectId });
  return row?.secret;
}

/** Stores the project's secret unless one exists (two processes may race to create it: the first wins). */
export async function insertCockpitKeyIfAbsent(db: Executor, projectId: string, secret: string, at: string): Promise<void> {
  await db
    .insertInto('cockpit_keys')
    .values({ project_id: projectId, secret, created_at: at })
    .onConflict((oc) => oc.column('project_id').doNothing())
    .execute();
}

/** Link generations of some customers of the project; customers without a row are at generation 0. */
export async function cockpitGenerations(db: Executor, projectId: string, customerIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (customerIds.length === 0) return out;
  const rows = await generationsOf.all(db, { projectId, customerIds: [...customerIds] });
  for (const row of rows) out.set(row.customer_id, Number(row.generation));
  return out;
}

/** Counts the customer's generation up by one (from 0 when there is no row yet). */
export async function bumpCockpitGeneration(db: Executor, projectId: string, customerId: string, at: string): Promise<void> {
  await db
    .insertInto('cockpit_links')
    .values({ project_id: projectId, customer_id: customerId, generation: 1, rotated_at: at })
    .onConflict((oc) =>
      oc.columns(['project_id', 'customer_id']).doUpdateSet((eb) => ({ generation: eb(eb.ref('cockpit_links.generation'), '+', 1), rotated_at: at })),
    )
    .execute();
}

export async function deleteCockpitLink(db: Executor, projectId: string, customerId: string): Promise<void> {
  await db.deleteFrom('cockpit_links').where('project_id', '=', projectId).where('customer_id', '=', customerId).execute();
}
