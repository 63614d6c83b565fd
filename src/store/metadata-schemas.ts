import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DefinitionsView } from './definitions.ts';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { MetadataSchemasTable } from './schema.ts';

// Metadata schemas: at most one per project and related object (unique index).

export type MetadataSchemaRow = Selectable<MetadataSchemasTable>;

export async function insertMetadataSchema(db: Executor, row: Insertable<MetadataSchemasTable>): Promise<void> {
  await db.insertInto('metadata_schemas').values(row).execute();
}

export async function findMetadataSchemaById(db: Executor, projectId: string, id: string): Promise<MetadataSchemaRow | undefined> {
  return db.selectFrom('metadata_schemas').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

const schemaFor = prepared((db, p: { projectId: string; relatedObject: string }) =>
  db.selectFrom('metadata_schemas').selectAll().where('project_id', '=', p.projectId).where('related_object', '=', p.relatedObject),
);

/** The schema of one related object; with `defs`, from the definitions cache (src/store/definitions.ts). */
export async function findMetadataSchemaFor(db: Executor, projectId: string, relatedObject: string, defs?: DefinitionsView): Promise<MetadataSchemaRow | undefined> {
  if (defs) return (await defs.get(`metadata-schema\u0000${relatedObject}`, async (db) => (await schemaFor.first(db, { projectId, relatedObject })) ?? null)) ?? undefined;
  return schemaFor.first(db, { projectId, relatedObject });
}

/** The schemas of several related objects at once (nested object types of one schema). */
export async function findMetadataSchemasFor(db: Executor, projectId: string, relatedObjects: readonly string[]): Promise<MetadataSchemaRow[]> {
  if (relatedObjects.length === 0) return [];
  return db
    .selectFrom('metadata_schemas')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('related_object', 'in', relatedObjects)
    .execute();
}

/** A project's schemas, oldest first; `limit` bounds the read (projects have a handful). */
export async function listMetadataSchemas(db: Executor, projectId: string, limit: number): Promise<MetadataSchemaRow[]> {
  return db
    .selectFrom('metadata_schemas')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

export async function countMetadataSchemas(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('metadata_schemas')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateMetadataSchema(db: Executor, projectId: string, id: string, patch: Updateable<MetadataSchemasTable>): Promise<boolean> {
  const result = await db.updateTable('metadata_schemas').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteMetadataSchema(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('metadata_schemas').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
