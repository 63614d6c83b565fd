import type { Insertable, Selectable } from 'kysely';
import type { Executor } from './db.ts';
import type { StackingRulesTable } from './schema.ts';

// A project's stacking rules (promotions reference 6.6): at most one row per project, guarded by the
// unique index on project_id. Every query names its project.

export type StackingRulesRow = Selectable<StackingRulesTable>;

export async function findProjectStackingRules(db: Executor, projectId: string): Promise<StackingRulesRow | undefined> {
  return db.selectFrom('stacking_rules').selectAll().where('project_id', '=', projectId).executeTakeFirst();
}

/** Inserts the project's rules unless it has some already (the unique index decides); answers whether it did. */
export async function insertStackingRulesIfAbsent(db: Executor, row: Insertable<StackingRulesTable>): Promise<boolean> {
  const result = await db
    .insertInto('stacking_rules')
    .values(row)
    .onConflict((oc) => oc.column('project_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function updateStackingRules(db: Executor, projectId: string, id: string, rules: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('stacking_rules')
    .set({ rules, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteStackingRules(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('stacking_rules').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
