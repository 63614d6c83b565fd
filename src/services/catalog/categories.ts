import { errors } from '../../domain/errors.ts';
import type { CategoryListInput, CreateCategoryInput, UpdateCategoryInput } from '../../api/categories.ts';
import * as store from '../../store/categories.ts';
import type { CategoryObject } from '../../store/categories.ts';
import { appendEvents } from '../../store/events.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';

// Category names are unique per project. The unique index decides: a duplicate insert or rename fails
// in the database, even when two requests race, and is answered 409.

async function guardName<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('category', 'name', name);
    throw error;
  }
}

export async function createCategory(deps: Deps, actor: Actor, input: CreateCategoryInput): Promise<CategoryObject> {
  return guardName(input.name, () =>
    inTransaction(deps, async (tx) => {
      const id = deps.ids.next('cat');
      await store.insertCategory(tx, {
        id,
        project_id: actor.projectId,
        name: input.name,
        hierarchy: input.hierarchy,
        created_at: deps.clock.now().toISOString(),
        updated_at: null,
      });
      const row = await store.findCategory(tx, actor.projectId, id);
      if (!row) throw new Error(`category ${id} vanished inside its own transaction`);
      const category = store.toCategoryObject(row);
      await appendEvents(tx, [makeEvent(deps, actor, { type: 'category.created', entityId: id, categoryName: row.name, data: { category } })]);
      return category;
    }),
  );
}

export async function getCategory(deps: Deps, projectId: string, id: string): Promise<CategoryObject> {
  const row = await store.findCategory(deps.db, projectId, id);
  if (!row) throw errors.notFound('category', id);
  return store.toCategoryObject(row);
}

export interface CategoryPage {
  data: CategoryObject[];
  total: number;
  hasMore: boolean;
}

export async function listCategories(deps: Deps, projectId: string, input: CategoryListInput): Promise<CategoryPage> {
  let after: store.CategoryRow | undefined;
  if (input.starting_after_id !== undefined) {
    after = await store.findCategory(deps.db, projectId, input.starting_after_id);
    if (!after) throw errors.invalidQuery(`Property .starting_after_id names no category: ${input.starting_after_id}`);
  }
  const { rows, hasMore, total } = await store.listCategories(deps.db, {
    projectId,
    limit: input.limit ?? 100,
    ...(after ? { after } : {}),
  });
  return { data: rows.map(store.toCategoryObject), total, hasMore };
}

/** PUT /v1/categories/{id}: the vendor requires both name and hierarchy; updated_at is set. */
export async function updateCategory(deps: Deps, actor: Actor, id: string, input: UpdateCategoryInput): Promise<CategoryObject> {
  return guardName(input.name, () =>
    inTransaction(deps, async (tx) => {
      const patch = { name: input.name, hierarchy: input.hierarchy, updated_at: deps.clock.now().toISOString() };
      if (!(await store.updateCategory(tx, actor.projectId, id, patch))) throw errors.notFound('category', id);
      const row = await store.findCategory(tx, actor.projectId, id);
      if (!row) throw errors.notFound('category', id);
      const category = store.toCategoryObject(row);
      await appendEvents(tx, [makeEvent(deps, actor, { type: 'category.updated', entityId: id, categoryName: row.name, data: { category } })]);
      return category;
    }),
  );
}

export async function deleteCategory(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await store.findCategory(tx, actor.projectId, id);
    if (!row) throw errors.notFound('category', id);
    await store.deleteCategory(tx, actor.projectId, id);
    const category = store.toCategoryObject(row);
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'category.deleted', entityId: id, categoryName: row.name, data: { category } })]);
  });
}
