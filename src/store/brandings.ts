import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from './db.ts';
import type { BrandingsTable } from './schema.ts';

// A project's branding (migration 0040): at most one row per project (unique project_id).

export type BrandingRow = Selectable<BrandingsTable>;

export async function insertBranding(db: Executor, row: Insertable<BrandingsTable>): Promise<void> {
  await db.insertInto('brandings').values(row).execute();
}

export async function findProjectBranding(db: Executor, projectId: string): Promise<BrandingRow | undefined> {
  return db.selectFrom('brandings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
}

export async function findBranding(db: Executor, projectId: string, id: string): Promise<BrandingRow | undefined> {
  return db.selectFrom('brandings').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function updateBranding(db: Executor, projectId: string, id: string, patch: Updateable<BrandingsTable>): Promise<boolean> {
  const result = await db.updateTable('brandings').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteBranding(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('brandings').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
