import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from './db.ts';
import type { DefinitionsView } from './definitions.ts';
import type { EarningRulesTable } from './schema.ts';

// Earning rules of loyalty programs. Every query is limited to one project.

export type EarningRuleRow = Selectable<EarningRulesTable>;

export async function insertEarningRules(db: Executor, rows: Insertable<EarningRulesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('earning_rules').values(rows).execute();
}

export async function findEarningRule(db: Executor, projectId: string, campaignId: string, id: string): Promise<EarningRuleRow | undefined> {
  return db
    .selectFrom('earning_rules')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findEarningRulesByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<EarningRuleRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('earning_rules').selectAll().where('project_id', '=', projectId).where('id', 'in', [...new Set(ids)]).execute();
}

export async function updateEarningRule(db: Executor, projectId: string, id: string, patch: Updateable<EarningRulesTable>): Promise<boolean> {
  const result = await db.updateTable('earning_rules').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteEarningRule(db: Executor, projectId: string, campaignId: string, id: string): Promise<EarningRuleRow | undefined> {
  return db
    .deleteFrom('earning_rules')
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export type EarningRuleOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

/** A page of a campaign's rules (the campaign index), and how many the campaign has. */
export async function listEarningRules(
  db: Executor,
  q: { projectId: string; campaignId: string; limit: number; offset: number; order: EarningRuleOrder },
): Promise<{ rows: EarningRuleRow[]; total: number }> {
  const base = db.selectFrom('earning_rules').where('project_id', '=', q.projectId).where('campaign_id', '=', q.campaignId);
  const direction = q.order.startsWith('-') ? 'desc' : 'asc';
  const column = q.order.endsWith('updated_at') ? sql<string>`coalesce(updated_at, created_at)` : sql<string>`created_at`;
  const rows = await base.selectAll().orderBy(column, direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/**
 * The active rules reacting to `event` in the project (the event index), oldest first; with `defs`, from
 * the definitions cache (src/store/definitions.ts).
 */
export async function activeRulesFor(db: Executor, projectId: string, event: string, campaignId?: string, defs?: DefinitionsView): Promise<EarningRuleRow[]> {
  if (defs) return defs.get(`earning-rules\u0000${event}\u0000${campaignId ?? ''}`, (db) => activeRulesFor(db, projectId, event, campaignId));
  let query = db.selectFrom('earning_rules').selectAll().where('project_id', '=', projectId).where('event', '=', event).where('active', '=', true);
  if (campaignId !== undefined) query = query.where('campaign_id', '=', campaignId);
  return query.orderBy('created_at').orderBy('id').execute();
}
