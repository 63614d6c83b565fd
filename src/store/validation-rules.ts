import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Db, type Executor } from './db.ts';
import type { DefinitionsView } from './definitions.ts';
import { prepared } from './prepared.ts';
import type { ValidationRuleAssignmentsTable, ValidationRulesTable } from './schema.ts';

// Validation rules, the objects they refer to, and their assignments. Every query names its project.

export type ValidationRuleRow = Selectable<ValidationRulesTable>;
export type AssignmentRow = Selectable<ValidationRuleAssignmentsTable>;

export async function insertRule(db: Executor, row: Insertable<ValidationRulesTable>): Promise<void> {
  await db.insertInto('validation_rules').values(row).execute();
}

/**
 * A rule by id, optionally locked on PostgreSQL: assignment writes take `share`, rule updates and
 * deletes `update`. A deletion therefore never misses an assignment written concurrently: either the
 * assignment commits first and the deletion removes it, or it waits and finds the rule gone.
 */
export async function findRule(db: Executor, projectId: string, id: string, lock?: 'share' | 'update'): Promise<ValidationRuleRow | undefined> {
  const query = db.selectFrom('validation_rules').selectAll().where('project_id', '=', projectId).where('id', '=', id);
  if (lock === undefined || !isPostgres(db)) return query.executeTakeFirst();
  return (lock === 'share' ? query.forShare() : query.forUpdate()).executeTakeFirst();
}

export async function updateRule(db: Executor, projectId: string, id: string, patch: Updateable<ValidationRulesTable>): Promise<boolean> {
  const result = await db.updateTable('validation_rules').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteRuleRow(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('validation_rules').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export type RuleSort = 'created_at' | 'updated_at' | 'name';

export interface RuleListQuery {
  projectId: string;
  limit: number;
  offset: number;
  sort: RuleSort;
  descending: boolean;
  /** Inclusive bounds on created_at. */
  createdFrom?: string;
  createdTo?: string;
}

// Each sort key is the exact expression an index of migration 0003 holds; names order by their bytes
// on both dialects.
function sortExpression(sort: RuleSort, postgres: boolean) {
  switch (sort) {
    case 'created_at':
      return sql<string>`created_at`;
    case 'updated_at':
      return sql<string>`coalesce(updated_at, created_at)`;
    case 'name':
      return postgres ? sql<string>`name collate "C"` : sql<string>`name`;
  }
}

export async function listRules(db: Executor, q: RuleListQuery): Promise<{ rows: ValidationRuleRow[]; total: number }> {
  let base = db.selectFrom('validation_rules').where('project_id', '=', q.projectId);
  if (q.createdFrom !== undefined) base = base.where('created_at', '>=', q.createdFrom);
  if (q.createdTo !== undefined) base = base.where('created_at', '<=', q.createdTo);
  const direction = q.descending ? 'desc' : 'asc';
  const rows = await base
    .selectAll()
    .orderBy(sortExpression(q.sort, isPostgres(db)), direction)
    .orderBy('id', direction)
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** How many assignments each of the given rules has (one grouped query for a whole page). */
export async function assignmentCounts(db: Executor, projectId: string, ruleIds: readonly string[]): Promise<Map<string, number>> {
  if (ruleIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('validation_rule_assignments')
    .select(['rule_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('project_id', '=', projectId)
    .where('rule_id', 'in', ruleIds)
    .groupBy('rule_id')
    .execute();
  return new Map(rows.map((r) => [r.rule_id, Number(r.n)]));
}

// ---- references ----

export type ReferencedType = 'products_collection' | 'segment';

/** Replaces the set of objects a rule refers to. */
export async function replaceReferences(
  db: Executor,
  projectId: string,
  ruleId: string,
  references: ReadonlyArray<{ type: ReferencedType; id: string }>,
): Promise<void> {
  await db.deleteFrom('validation_rule_references').where('project_id', '=', projectId).where('rule_id', '=', ruleId).execute();
  if (references.length === 0) return;
  await db
    .insertInto('validation_rule_references')
    .values(references.map((r) => ({ project_id: projectId, rule_id: ruleId, object_type: r.type, object_id: r.id })))
    .execute();
}

/**
 * Which of the given collections or segments exist, share-locking them on PostgreSQL until the
 * transaction ends: a concurrent delete (which locks the row for update first) then either waits and
 * sees the new reference, or has removed the row and the caller refuses the reference.
 */
export async function lockExistingObjects(
  db: Executor,
  projectId: string,
  table: 'product_collections' | 'segments',
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const query = db.selectFrom(table).select('id').where('project_id', '=', projectId).where('id', 'in', ids);
  const rows = await (isPostgres(db) ? query.forShare() : query).execute();
  return new Set(rows.map((r) => r.id));
}

/** Rules that refer to an object: up to `limit` of their ids (oldest rule id first) and how many there are. */
export async function rulesReferencing(
  db: Executor,
  projectId: string,
  type: ReferencedType,
  objectId: string,
  limit: number,
): Promise<{ ids: string[]; total: number }> {
  const base = db
    .selectFrom('validation_rule_references')
    .where('project_id', '=', projectId)
    .where('object_type', '=', type)
    .where('object_id', '=', objectId);
  const rows = await base.select('rule_id').orderBy('rule_id').limit(limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { ids: rows.map((r) => r.rule_id), total: Number(total.n) };
}

// ---- assignments ----

/**
 * Inserts an assignment unless the same rule is already assigned to the same object (the unique index
 * decides; a conflict leaves the transaction usable). Returns whether it was inserted.
 */
export async function insertAssignmentIfAbsent(db: Executor, row: Insertable<ValidationRuleAssignmentsTable>): Promise<boolean> {
  const result = await db
    .insertInto('validation_rule_assignments')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'rule_id', 'related_object_type', 'related_object_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findAssignmentFor(
  db: Executor,
  projectId: string,
  ruleId: string,
  relatedObjectType: string,
  relatedObjectId: string,
): Promise<AssignmentRow | undefined> {
  return db
    .selectFrom('validation_rule_assignments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('rule_id', '=', ruleId)
    .where('related_object_type', '=', relatedObjectType)
    .where('related_object_id', '=', relatedObjectId)
    .executeTakeFirst();
}

/** Deletes one assignment of a rule; answers the row removed. */
export async function deleteAssignment(db: Executor, projectId: string, ruleId: string, id: string): Promise<AssignmentRow | undefined> {
  return db
    .deleteFrom('validation_rule_assignments')
    .where('project_id', '=', projectId)
    .where('rule_id', '=', ruleId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes every assignment of a rule (the rule is being deleted); answers the rows removed. */
/** Removes every assignment that names an object being deleted for good (a campaign, its vouchers). */
export async function deleteAssignmentsOf(db: Executor, projectId: string, relatedObjectType: string, ids: string | readonly string[]): Promise<number> {
  const list = typeof ids === 'string' ? [ids] : [...ids];
  if (list.length === 0) return 0;
  const result = await db
    .deleteFrom('validation_rule_assignments')
    .where('project_id', '=', projectId)
    .where('related_object_type', '=', relatedObjectType)
    .where('related_object_id', 'in', list)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteAssignmentsOfRule(db: Executor, projectId: string, ruleId: string): Promise<AssignmentRow[]> {
  const rows = await db
    .deleteFrom('validation_rule_assignments')
    .where('project_id', '=', projectId)
    .where('rule_id', '=', ruleId)
    .returningAll()
    .execute();
  return rows.sort((a, b) => (a.created_at === b.created_at ? a.id.localeCompare(b.id) : a.created_at.localeCompare(b.created_at)));
}

export interface AssignmentListQuery {
  projectId: string;
  limit: number;
  offset: number;
  descending: boolean;
  ruleId?: string;
  relatedObjectId?: string;
}

// Assignment lists are read with every voucher, tier and campaign, so they are prepared: a rule and an
// object filter each apply when given.
type AssignmentFilter = { projectId: string; ruleId: string | undefined; relatedObjectId: string | undefined };

function filteredAssignments(db: Db, p: AssignmentFilter) {
  let query = db.selectFrom('validation_rule_assignments').where('project_id', '=', p.projectId);
  if (p.ruleId !== undefined) query = query.where('rule_id', '=', p.ruleId);
  if (p.relatedObjectId !== undefined) query = query.where('related_object_id', '=', p.relatedObjectId);
  return query;
}

function assignmentPageQuery(direction: 'asc' | 'desc') {
  return prepared((db, p: AssignmentFilter & { offset: number; limit: number }) =>
    filteredAssignments(db, p).selectAll().orderBy('created_at', direction).orderBy('id', direction).offset(p.offset).limit(p.limit),
  );
}

const assignmentPage = { asc: assignmentPageQuery('asc'), desc: assignmentPageQuery('desc') };
const assignmentCount = prepared((db, p: AssignmentFilter) => filteredAssignments(db, p).select((eb) => eb.fn.countAll<number>().as('n')));

export async function listAssignments(db: Executor, q: AssignmentListQuery): Promise<{ rows: AssignmentRow[]; total: number }> {
  const filter = { projectId: q.projectId, ruleId: q.ruleId, relatedObjectId: q.relatedObjectId };
  const rows = await assignmentPage[q.descending ? 'desc' : 'asc'].all(db, { ...filter, offset: q.offset, limit: q.limit });
  // A page that is not full and starts at the beginning holds every assignment: no count needed.
  const total = q.offset === 0 && rows.length < q.limit ? rows.length : Number((await assignmentCount.first(db, filter))?.n ?? 0);
  return { rows, total };
}

// Ordered here, not by the statement: asked to order the rows of several objects by created_at, SQLite
// walked all of the project's assignments in that order (validation_rule_assignments_created) rather
// than looking each object up (validation_rule_assignments_object) and sorting the few rows found.
const assignmentsWithRules = prepared((db, p: { projectId: string; objectIds: string[] }) =>
  db
    .selectFrom('validation_rule_assignments as a')
    .innerJoin('validation_rules as r', (join) => join.onRef('r.id', '=', 'a.rule_id').onRef('r.project_id', '=', 'a.project_id'))
    .select([
      'a.id as a_id',
      'a.project_id as a_project_id',
      'a.rule_id as a_rule_id',
      'a.related_object_type as a_related_object_type',
      'a.related_object_id as a_related_object_id',
      'a.created_at as a_created_at',
    ])
    .selectAll('r')
    .where('a.project_id', '=', p.projectId)
    .where('a.related_object_id', 'in', p.objectIds),
);

/** The assignments of the given objects with their rules, oldest assignment first. */
export type AssignedRuleRow = { assignment: AssignmentRow; rule: ValidationRuleRow };

function oldestAssignmentFirst(a: AssignedRuleRow, b: AssignedRuleRow): number {
  if (a.assignment.created_at !== b.assignment.created_at) return a.assignment.created_at < b.assignment.created_at ? -1 : 1;
  return a.assignment.id < b.assignment.id ? -1 : a.assignment.id > b.assignment.id ? 1 : 0;
}

const voucherRuleProbe = prepared((db, p: { projectId: string }) =>
  db.selectFrom('validation_rule_assignments').select('id').where('project_id', '=', p.projectId).where('related_object_type', '=', 'voucher').limit(1),
);

async function voucherRulesExist(db: Executor, projectId: string): Promise<boolean> {
  return (await voucherRuleProbe.first(db, { projectId })) !== undefined;
}

/** Each object's assigned rules from the definitions cache, the missing ones loaded together. */
async function cachedAssignedRules(projectId: string, objects: ReadonlyArray<{ type: string; id: string }>, defs: DefinitionsView): Promise<AssignedRuleRow[]> {
  if (objects.length === 0) return [];
  const keyOf = (o: { type: string; id: string }) => `${o.type}\u0000${o.id}`;
  const byObject = await defs.many('assigned-rules', objects.map(keyOf), async (db, keys) => {
    const wanted = objects.filter((o) => keys.includes(keyOf(o)));
    const out = new Map<string, AssignedRuleRow[]>(keys.map((k) => [k, []]));
    for (const row of await assignedRules(db, projectId, wanted)) out.get(keyOf({ type: row.assignment.related_object_type, id: row.assignment.related_object_id }))?.push(row);
    return out;
  });
  return [...new Set(objects.map(keyOf))].flatMap((k) => byObject.get(k) ?? []);
}

/**
 * The rules assigned to the given objects, oldest assignment first. With `defs`, each object's list comes
 * from the definitions cache (src/store/definitions.ts).
 */
export async function assignedRules(
  db: Executor,
  projectId: string,
  objects: ReadonlyArray<{ type: string; id: string }>,
  defs?: DefinitionsView,
): Promise<AssignedRuleRow[]> {
  if (objects.length === 0) return [];
  if (defs) {
    // Rules hang on campaigns, tiers and reward assignments — a few objects, cached — and seldom on single
    // vouchers, of which there may be millions: those are read only when the project has any at all.
    const vouchers = objects.filter((o) => o.type === 'voucher');
    const others = objects.filter((o) => o.type !== 'voucher');
    const voucherRules = vouchers.length > 0 && (await defs.get('voucher-rules-exist', (db) => voucherRulesExist(db, projectId))) ? await assignedRules(db, projectId, vouchers) : [];
    const otherRules = await cachedAssignedRules(projectId, others, defs);
    return [...voucherRules, ...otherRules].sort(oldestAssignmentFirst);
  }
  const rows = await assignmentsWithRules.all(db, { projectId, objectIds: objects.map((o) => o.id) });
  const wanted = new Set(objects.map((o) => `${o.type}\u0000${o.id}`));
  return rows
    .filter((row) => wanted.has(`${row.a_related_object_type}\u0000${row.a_related_object_id}`))
    .map(({ a_id, a_project_id, a_rule_id, a_related_object_type, a_related_object_id, a_created_at, ...rule }) => ({
      assignment: {
        id: a_id,
        project_id: a_project_id,
        rule_id: a_rule_id,
        related_object_type: a_related_object_type,
        related_object_id: a_related_object_id,
        created_at: a_created_at,
      },
      rule,
    }))
    .sort(oldestAssignmentFirst);
}
