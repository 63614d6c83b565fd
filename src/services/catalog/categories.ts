import { errors } from '../../domain/errors.ts';
import type { CategoryListInput, CreateCategoryInput, UpdateCategoryInput } from '../../api/categories.ts';
import { CATEGORY_NAME_MAX_LENGTH } from '../../domain/categories/limits.ts';
import * as store from '../../store/categories.ts';
import type { CategoryObject } from '../../store/categories.ts';
import { appendEvents } from '../../store/events.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import type { Tx } from '../../store/db.ts';
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

/** Appends `category.created` for a category this transaction inserted; answers its object. */
async function announceCreated(tx: Tx, deps: Pick<Deps, 'ids' | 'clock'>, actor: Actor, id: string): Promise<CategoryObject> {
  const row = await store.findCategory(tx, actor.projectId, id);
  if (!row) throw new Error(`category ${id} vanished inside its own transaction`);
  const category = store.toCategoryObject(row);
  await appendEvents(tx, [makeEvent(deps, actor, { type: 'category.created', entityId: id, categoryName: row.name, data: { category } })]);
  return category;
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
      return announceCreated(tx, deps, actor, id);
    }),
  );
}

// A category named by name (`category` in voucher, campaign, promotion tier and import bodies, the
// Category column of CSV imports) is free-form: naming one the project does not have yet creates it, in
// the transaction of the request that named it, so it exists exactly when that request's change does.

/** The hierarchy of a category created by naming it: the vendor's default for categories. */
export const NAMED_CATEGORY_HIERARCHY = 1;

/** A category deleted between our skipped insert and our read is raced for again, this many times. */
const NAMING_ATTEMPTS = 3;

/** The named category's id, inserting it (with its event) when no category of the project has the name. */
async function insertOrFindNamed(tx: Tx, deps: Pick<Deps, 'ids' | 'clock'>, actor: Actor, name: string): Promise<string> {
  // Bodies bound `category` by their schema; a name read from elsewhere (a CSV cell) is held to the same.
  if (name.length === 0 || name.length > CATEGORY_NAME_MAX_LENGTH) {
    throw errors.invalidPayload(`Category name must be 1 to ${CATEGORY_NAME_MAX_LENGTH} characters long`);
  }
  for (let attempt = 1; attempt <= NAMING_ATTEMPTS; attempt++) {
    const id = deps.ids.next('cat');
    const row = { id, project_id: actor.projectId, name, hierarchy: NAMED_CATEGORY_HIERARCHY, created_at: deps.clock.now().toISOString(), updated_at: null };
    if (await store.insertCategoryUnlessNamed(tx, row)) {
      await announceCreated(tx, deps, actor, id);
      return id;
    }
    // Another transaction holds the name, committed by now (the skipped insert waited for it).
    const existing = await store.findCategoryByName(tx, actor.projectId, name);
    if (existing) return existing.id;
  }
  throw new Error(`category ${JSON.stringify(name)} kept being created and deleted while being named`);
}

/**
 * The id of the project's category called `name`; when there is none, creates it (hierarchy
 * NAMED_CATEGORY_HIERARCHY) and appends `category.created`, both in `tx`: if the caller's transaction
 * rolls back, the category goes with it. Race-safe: any number of transactions naming one new category
 * end with one category, each of them holding its id. For importers that read category names (the
 * CSV import's Category column) as well as the request bodies below.
 */
export async function categoryIdForName(tx: Tx, deps: Pick<Deps, 'ids' | 'clock'>, actor: Actor, name: string): Promise<string> {
  const existing = await store.findCategoryByName(tx, actor.projectId, name);
  return existing ? existing.id : insertOrFindNamed(tx, deps, actor, name);
}

/**
 * The category a body's `category` member names: the category with that name, else the category with
 * that id (a client may put an existing category's id there), else a new category with that name (see
 * categoryIdForName).
 */
export async function categoryIdNamedBy(tx: Tx, deps: Pick<Deps, 'ids' | 'clock'>, actor: Actor, value: string): Promise<string> {
  const found = (await store.findCategoryByName(tx, actor.projectId, value)) ?? (await store.findCategory(tx, actor.projectId, value));
  return found ? found.id : insertOrFindNamed(tx, deps, actor, value);
}

/**
 * The category a request body names with `category_id` (an id: unknown is 404) or `category` (a name,
 * created when new: see categoryIdNamedBy). `category_id` wins when both are sent. Null when either is
 * sent as null and no category is named; undefined when neither is sent.
 */
export async function categoryIdOf(
  tx: Tx,
  deps: Pick<Deps, 'ids' | 'clock'>,
  actor: Actor,
  input: { category?: string | null | undefined; category_id?: string | null | undefined },
): Promise<string | null | undefined> {
  if (input.category_id !== undefined && input.category_id !== null) {
    const found = await store.findCategory(tx, actor.projectId, input.category_id);
    if (!found) throw errors.notFound('category', input.category_id);
    return found.id;
  }
  if (input.category !== undefined && input.category !== null) return categoryIdNamedBy(tx, deps, actor, input.category);
  if (input.category_id === null || input.category === null) return null;
  return undefined;
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
