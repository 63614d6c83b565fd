import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DefinitionsView } from './definitions.ts';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { CategoriesTable } from './schema.ts';

export type CategoryRow = Selectable<CategoriesTable>;

/** The category object (platform reference 4.5); `updated_at` appears once the category was updated. */
export interface CategoryObject {
  id: string;
  name: string;
  hierarchy: number;
  created_at: string;
  updated_at?: string;
  object: 'category';
}

export function toCategoryObject(row: CategoryRow): CategoryObject {
  return {
    id: row.id,
    name: row.name,
    hierarchy: Number(row.hierarchy),
    created_at: row.created_at,
    ...(row.updated_at !== null ? { updated_at: row.updated_at } : {}),
    object: 'category',
  };
}

export async function insertCategory(db: Executor, row: Insertable<CategoriesTable>): Promise<void> {
  await db.insertInto('categories').values(row).execute();
}

/**
 * Inserts the category unless the project already has one with its name (the unique index
 * `categories_name` decides, so two transactions racing for one name never both insert and neither
 * fails: on PostgreSQL the second waits for the first and then skips). True when this call inserted it.
 */
export async function insertCategoryUnlessNamed(db: Executor, row: Insertable<CategoriesTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('categories')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findCategory(db: Executor, projectId: string, id: string): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function findCategoryByName(db: Executor, projectId: string, name: string): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
}

const categoriesByIds = prepared((db, p: { projectId: string; ids: string[] }) =>
  db.selectFrom('categories').selectAll().where('project_id', '=', p.projectId).where('id', 'in', p.ids),
);

/** Categories by id; with `defs`, from the definitions cache (src/store/definitions.ts). */
export async function findCategoriesByIds(db: Executor, projectId: string, ids: readonly string[], defs?: DefinitionsView): Promise<Map<string, CategoryRow>> {
  if (ids.length === 0) return new Map();
  const load = async (db: Executor, wanted: readonly string[]) => {
    const rows = await categoriesByIds.all(db, { projectId, ids: [...new Set(wanted)] });
    return new Map(rows.map((r) => [r.id, r]));
  };
  return defs ? defs.many('category', ids, load) : load(db, ids);
}

export async function updateCategory(db: Executor, projectId: string, id: string, patch: Updateable<CategoriesTable>): Promise<boolean> {
  const result = await db
    .updateTable('categories')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteCategory(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('categories').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export interface CategoryPage {
  projectId: string;
  limit: number;
  /** Keyset cursor: the category after which the page starts (newest first). */
  after?: Pick<CategoryRow, 'id' | 'created_at'>;
}

/** Newest first, as the vendor lists them; served by `categories_created`. */
export async function listCategories(db: Executor, q: CategoryPage): Promise<{ rows: CategoryRow[]; hasMore: boolean; total: number }> {
  let page = db.selectFrom('categories').selectAll().where('project_id', '=', q.projectId);
  const after = q.after;
  if (after) {
    page = page.where((eb) =>
      eb.or([
        eb('created_at', '<', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await page
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  const count = await db
    .selectFrom('categories')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', q.projectId)
    .executeTakeFirstOrThrow();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit, total: Number(count.n) };
}
