import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from './db.ts';
import type { CustomEventSchemasTable } from './schema.ts';

// Custom event schemas: one per project and event name (unique index).

export type CustomEventSchemaRow = Selectable<CustomEventSchemasTable>;

export async function insertCustomEventSchema(db: Executor, row: Insertable<CustomEventSchemasTable>): Promise<void> {
  await db.insertInto('custom_event_schemas').values(row).execute();
}

export async function findCustomEventSchemaById(db: Executor, projectId: string, id: string): Promise<CustomEventSchemaRow | undefined> {
  return db.selectFrom('custom_event_schemas').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function findCustomEventSchemaByName(db: Executor, projectId: string, name: string): Promise<CustomEventSchemaRow | undefined> {
  return db.selectFrom('custom_event_schemas').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
}

/** Oldest first, at most `limit` rows. */
export async function listCustomEventSchemas(db: Executor, projectId: string, limit: number): Promise<CustomEventSchemaRow[]> {
  return db
    .selectFrom('custom_event_schemas')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

export async function countCustomEventSchemas(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('custom_event_schemas')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateCustomEventSchema(
  db: Executor,
  projectId: string,
  id: string,
  patch: Updateable<CustomEventSchemasTable>,
): Promise<boolean> {
  const result = await db.updateTable('custom_event_schemas').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteCustomEventSchema(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('custom_event_schemas').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
