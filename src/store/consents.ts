import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from './db.ts';
import { fromJson } from './json.ts';
import type { ConsentGroupsTable, ConsentsTable, CustomerConsentsTable } from './schema.ts';

// Consents, consent groups and customers' answers (migration 0033). Every query names the project. A
// project holds few definitions (src/services/consents caps them), so their lists are read whole, in
// creation order, from (project_id, created_at, id).

export type ConsentRow = Selectable<ConsentsTable>;
export type ConsentGroupRow = Selectable<ConsentGroupsTable>;
export type CustomerConsentRow = Selectable<CustomerConsentsTable>;

export async function insertConsent(db: Executor, row: Insertable<ConsentsTable>): Promise<void> {
  await db.insertInto('consents').values(row).execute();
}

export async function findConsent(db: Executor, projectId: string, id: string): Promise<ConsentRow | undefined> {
  return db.selectFrom('consents').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function listConsents(db: Executor, projectId: string, limit: number): Promise<ConsentRow[]> {
  return db.selectFrom('consents').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function countConsents(db: Executor, projectId: string): Promise<number> {
  const row = await db.selectFrom('consents').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The ids among `ids` that name consents of the project. */
export async function existingConsentIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('consents').select('id').where('project_id', '=', projectId).where('id', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.id));
}

export async function updateConsent(db: Executor, projectId: string, id: string, patch: Updateable<ConsentsTable>): Promise<boolean> {
  const result = await db.updateTable('consents').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes a consent and every customer's answer to it. */
export async function deleteConsent(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('consents').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) return false;
  await db.deleteFrom('customer_consents').where('project_id', '=', projectId).where('consent_id', '=', id).execute();
  return true;
}

export async function insertConsentGroup(db: Executor, row: Insertable<ConsentGroupsTable>): Promise<void> {
  await db.insertInto('consent_groups').values(row).execute();
}

export async function findConsentGroup(db: Executor, projectId: string, id: string): Promise<ConsentGroupRow | undefined> {
  return db.selectFrom('consent_groups').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function listConsentGroups(db: Executor, projectId: string, limit: number): Promise<ConsentGroupRow[]> {
  return db.selectFrom('consent_groups').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function countConsentGroups(db: Executor, projectId: string): Promise<number> {
  const row = await db.selectFrom('consent_groups').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateConsentGroup(db: Executor, projectId: string, id: string, patch: Updateable<ConsentGroupsTable>): Promise<boolean> {
  const result = await db.updateTable('consent_groups').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteConsentGroup(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('consent_groups').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

// ---- customers' answers ----

/** Records the customer's answer to each consent (insert or replace), all at one instant. */
export async function upsertCustomerConsents(db: Executor, projectId: string, customerId: string, answers: ReadonlyMap<string, boolean>, at: string): Promise<void> {
  if (answers.size === 0) return;
  await db
    .insertInto('customer_consents')
    .values([...answers].map(([consentId, granted]) => ({ project_id: projectId, customer_id: customerId, consent_id: consentId, granted, updated_at: at })))
    .onConflict((oc) => oc.columns(['project_id', 'customer_id', 'consent_id']).doUpdateSet({ granted: sql`excluded.granted`, updated_at: sql`excluded.updated_at` }))
    .execute();
}

/** Withdraws every consent the customer granted; answers the ids withdrawn. */
export async function withdrawCustomerConsents(db: Executor, projectId: string, customerId: string, at: string): Promise<string[]> {
  const rows = await db
    .updateTable('customer_consents')
    .set({ granted: false, updated_at: at })
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .where('granted', '=', true)
    .returning('consent_id')
    .execute();
  return rows.map((r) => r.consent_id);
}

/** The customer's answers to the project's consents (answers to deleted consents are gone with them). */
export async function listCustomerConsents(db: Executor, projectId: string, customerId: string): Promise<CustomerConsentRow[]> {
  return db
    .selectFrom('customer_consents')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('customer_id', '=', customerId)
    .orderBy('consent_id')
    .execute();
}

/** A customer's answers go with the customer (permanent deletion). */
export async function deleteCustomerConsents(db: Executor, projectId: string, customerId: string): Promise<void> {
  await db.deleteFrom('customer_consents').where('project_id', '=', projectId).where('customer_id', '=', customerId).execute();
}

/** Removes a deleted consent from the groups of the project that list it. */
export async function dropConsentFromGroups(db: Executor, projectId: string, consentId: string, at: string, groups: readonly ConsentGroupRow[]): Promise<void> {
  for (const group of groups) {
    const ids = fromJson<string[]>(group.consents, []);
    if (!ids.includes(consentId)) continue;
    await updateConsentGroup(db, projectId, group.id, { consents: JSON.stringify(ids.filter((id) => id !== consentId)), updated_at: at });
  }
}
