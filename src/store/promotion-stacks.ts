import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import type { DefinitionsView } from './definitions.ts';
import type { PromotionStacksTable } from './schema.ts';

// Promotion stacks (promotions reference 4.3): a named, ordered selection of one campaign's tiers. The
// tiers are rows of promotion_stack_tiers, so "which stacks use this tier?" is an index lookup. A stack is
// visible only while its campaign is live. Every query names its project.

export type StackRow = Selectable<PromotionStacksTable>;

function liveStacks(db: Executor, projectId: string) {
  return db
    .selectFrom('promotion_stacks as s')
    .innerJoin('campaigns as c', (join) => join.onRef('c.project_id', '=', 's.project_id').onRef('c.id', '=', 's.campaign_id'))
    .where('s.project_id', '=', projectId)
    .where('c.binned_at', 'is', null);
}

export async function insertStack(db: Executor, row: Insertable<PromotionStacksTable>): Promise<void> {
  await db.insertInto('promotion_stacks').values(row).execute();
}

export async function findStack(db: Executor, projectId: string, campaignId: string, id: string): Promise<StackRow | undefined> {
  return liveStacks(db, projectId).selectAll('s').where('s.campaign_id', '=', campaignId).where('s.id', '=', id).executeTakeFirst();
}

/** Stacks by id, whatever their campaign (the redemption engine resolves `{object: promotion_stack, id}`). */
/** Live stacks by id; with `defs`, from the definitions cache (src/store/definitions.ts). */
export async function findStacksByIds(db: Executor, projectId: string, ids: readonly string[], defs?: DefinitionsView): Promise<StackRow[]> {
  if (ids.length === 0) return [];
  const load = async (db: Executor, wanted: readonly string[]) => {
    const rows = await liveStacks(db, projectId).selectAll('s').where('s.id', 'in', [...new Set(wanted)]).execute();
    return new Map(rows.map((r) => [r.id, r]));
  };
  const found = defs ? await defs.many('stack', ids, load) : await load(db, ids);
  return [...found.values()];
}

export async function updateStack(db: Executor, projectId: string, id: string, patch: Updateable<PromotionStacksTable>): Promise<boolean> {
  const result = await db.updateTable('promotion_stacks').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteStackRow(db: Executor, projectId: string, id: string): Promise<boolean> {
  await db.deleteFrom('promotion_stack_tiers').where('project_id', '=', projectId).where('stack_id', '=', id).execute();
  const result = await db.deleteFrom('promotion_stacks').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Replaces a stack's tiers with `tierIds`, in that order. */
export async function replaceStackTiers(db: Executor, projectId: string, stackId: string, tierIds: readonly string[]): Promise<void> {
  await db.deleteFrom('promotion_stack_tiers').where('project_id', '=', projectId).where('stack_id', '=', stackId).execute();
  if (tierIds.length === 0) return;
  await db
    .insertInto('promotion_stack_tiers')
    .values(tierIds.map((tierId, position) => ({ project_id: projectId, stack_id: stackId, position, tier_id: tierId })))
    .execute();
}

/** The tier ids of several stacks, each in application order (one query for a page of stacks). */
export async function tierIdsOfStacks(db: Executor, projectId: string, stackIds: readonly string[], defs?: DefinitionsView): Promise<Map<string, string[]>> {
  if (defs) return defs.many('stack-tiers', stackIds, (db, wanted) => tierIdsOfStacks(db, projectId, wanted));
  const out = new Map<string, string[]>();
  if (stackIds.length === 0) return out;
  const rows = await db
    .selectFrom('promotion_stack_tiers')
    .select(['stack_id', 'tier_id'])
    .where('project_id', '=', projectId)
    .where('stack_id', 'in', [...new Set(stackIds)])
    .orderBy('stack_id')
    .orderBy('position')
    .execute();
  for (const row of rows) {
    const list = out.get(row.stack_id) ?? [];
    list.push(row.tier_id);
    out.set(row.stack_id, list);
  }
  return out;
}

/** Up to `limit` ids of the stacks that use a tier, and how many there are. */
export async function stacksUsingTier(db: Executor, projectId: string, tierId: string, limit: number): Promise<{ ids: string[]; total: number }> {
  const base = db.selectFrom('promotion_stack_tiers').where('project_id', '=', projectId).where('tier_id', '=', tierId);
  const rows = await base.select('stack_id').orderBy('stack_id').limit(limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { ids: rows.map((r) => r.stack_id), total: Number(total.n) };
}

export type StackOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'name' | '-name';

export interface StackListQuery {
  projectId: string;
  limit: number;
  offset: number;
  order: StackOrder;
  campaignId?: string;
  /** Exclusive bounds, as stored-timestamp strings. */
  createdBefore?: string;
  createdAfter?: string;
  updatedBefore?: string;
  updatedAfter?: string;
}

// Each sort key is the exact expression an index of migration 0010 holds.
function sortKey(order: StackOrder, postgres: boolean) {
  if (order.endsWith('updated_at')) return sql<string>`coalesce(s.updated_at, s.created_at)`;
  if (order.endsWith('name')) return postgres ? sql<string>`s.name collate "C"` : sql<string>`s.name`;
  return sql<string>`s.created_at`;
}

export async function listStacks(db: Executor, q: StackListQuery): Promise<{ rows: StackRow[]; total: number }> {
  let base = liveStacks(db, q.projectId);
  if (q.campaignId !== undefined) base = base.where('s.campaign_id', '=', q.campaignId);
  if (q.createdBefore !== undefined) base = base.where('s.created_at', '<', q.createdBefore);
  if (q.createdAfter !== undefined) base = base.where('s.created_at', '>', q.createdAfter);
  // A stack never updated counts as updated when it was created.
  const lastChange = sql<string>`coalesce(s.updated_at, s.created_at)`;
  if (q.updatedBefore !== undefined) base = base.where(lastChange, '<', q.updatedBefore);
  if (q.updatedAfter !== undefined) base = base.where(lastChange, '>', q.updatedAfter);
  const direction = q.order.startsWith('-') ? 'desc' : 'asc';
  const rows = await base
    .selectAll('s')
    .orderBy(sortKey(q.order, isPostgres(db)), direction)
    .orderBy('s.id', direction)
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}
