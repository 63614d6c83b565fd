import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { RewardAssignmentsTable, RewardsTable } from './schema.ts';

// Rewards and their assignments to loyalty programs. Every query is limited to one project. Stock and
// the redeemed count change only through the conditional statement in `takeReward`.

export type RewardRow = Selectable<RewardsTable>;
export type AssignmentRow = Selectable<RewardAssignmentsTable>;

export async function insertReward(db: Executor, row: Insertable<RewardsTable>): Promise<void> {
  await db.insertInto('rewards').values(row).execute();
}

export async function findReward(db: Executor, projectId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<RewardRow | undefined> {
  let query = db.selectFrom('rewards').selectAll().where('project_id', '=', projectId).where('id', '=', id);
  if (options.forUpdate && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findRewardsByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, RewardRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('rewards').selectAll().where('project_id', '=', projectId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

export async function updateReward(db: Executor, projectId: string, id: string, patch: Updateable<RewardsTable>): Promise<boolean> {
  const result = await db.updateTable('rewards').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteReward(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('rewards').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function listRewards(db: Executor, q: { projectId: string; limit: number; offset: number }): Promise<{ rows: RewardRow[]; total: number }> {
  const base = db.selectFrom('rewards').where('project_id', '=', q.projectId);
  const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/**
 * One unit of the reward for a redemption: stock (when limited) goes down by one and `redeemed` up by
 * one in a single conditional statement, so concurrent redemptions can never take more than the stock.
 * Answers false, changing nothing, when the stock is used up.
 */
export async function takeReward(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('rewards')
    .set({
      stock: sql<number | null>`case when stock is null then null else stock - 1 end`,
      redeemed: sql<number>`redeemed + 1`,
      updated_at: at,
    })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('stock', 'is', null), eb('stock', '>=', 1)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// ---- assignments ----

/** Inserts an assignment unless the reward is assigned to the campaign already (the unique index decides). */
export async function insertAssignmentIfAbsent(db: Executor, row: Insertable<RewardAssignmentsTable>): Promise<boolean> {
  const result = await db
    .insertInto('reward_assignments')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'reward_id', 'campaign_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findAssignment(db: Executor, projectId: string, id: string): Promise<AssignmentRow | undefined> {
  return db.selectFrom('reward_assignments').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function findAssignmentFor(db: Executor, projectId: string, rewardId: string, campaignId: string): Promise<AssignmentRow | undefined> {
  return db
    .selectFrom('reward_assignments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('reward_id', '=', rewardId)
    .where('campaign_id', '=', campaignId)
    .executeTakeFirst();
}

export async function findAssignmentsByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, AssignmentRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('reward_assignments').selectAll().where('project_id', '=', projectId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

export async function updateAssignment(db: Executor, projectId: string, id: string, patch: Updateable<RewardAssignmentsTable>): Promise<boolean> {
  const result = await db.updateTable('reward_assignments').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteAssignment(db: Executor, projectId: string, id: string): Promise<AssignmentRow | undefined> {
  return db.deleteFrom('reward_assignments').where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst();
}

export interface AssignmentListQuery {
  projectId: string;
  /** Assignments of one reward, or of one campaign. */
  rewardId?: string;
  campaignId?: string;
  assignmentId?: string;
  /** Only assignments priced at most this many points (COIN assignments, unpriced, pass unless `pricedOnly`). */
  maxPoints?: number;
  /** Leave out unpriced (COIN) assignments. */
  pricedOnly?: boolean;
  limit: number;
  offset: number;
}

export async function listAssignments(db: Executor, q: AssignmentListQuery): Promise<{ rows: AssignmentRow[]; total: number }> {
  let base = db.selectFrom('reward_assignments').where('project_id', '=', q.projectId);
  if (q.rewardId !== undefined) base = base.where('reward_id', '=', q.rewardId);
  if (q.campaignId !== undefined) base = base.where('campaign_id', '=', q.campaignId);
  if (q.assignmentId !== undefined) base = base.where('id', '=', q.assignmentId);
  if (q.maxPoints !== undefined) {
    const max = q.maxPoints;
    base = base.where((eb) => eb.or([eb('points', 'is', null), eb('points', '<=', max)]));
  }
  if (q.pricedOnly) base = base.where('points', 'is not', null);
  const rows = await base.selectAll().orderBy('created_at').orderBy('id').offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** Every assignment of a campaign (programs offer a bounded catalogue; the campaign index serves it). */
export async function assignmentsOfCampaign(db: Executor, projectId: string, campaignId: string): Promise<AssignmentRow[]> {
  return db
    .selectFrom('reward_assignments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Ids of a reward's assignments, for the `resource_in_use` answer of a delete. */
export async function assignmentIdsOfReward(db: Executor, projectId: string, rewardId: string, limit: number): Promise<{ ids: string[]; total: number }> {
  const base = db.selectFrom('reward_assignments').where('project_id', '=', projectId).where('reward_id', '=', rewardId);
  const rows = await base.select('id').orderBy('created_at').orderBy('id').limit(limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { ids: rows.map((r) => r.id), total: Number(total.n) };
}

const autoRedeemOf = prepared((db, p: { projectId: string; campaignId: string }) =>
  db.selectFrom('reward_assignments').selectAll().where('project_id', '=', p.projectId).where('campaign_id', '=', p.campaignId).where('auto_redeem', '=', true),
);

/** The campaign's auto-redeem assignment, if it has one. */
export async function autoRedeemAssignment(db: Executor, projectId: string, campaignId: string): Promise<AssignmentRow | undefined> {
  return autoRedeemOf.first(db, { projectId, campaignId });
}

/** The validation rule assignments guarding a reward assignment (deleted with it). */
export async function deleteRuleAssignmentsOf(db: Executor, projectId: string, assignmentId: string): Promise<void> {
  await db
    .deleteFrom('validation_rule_assignments')
    .where('project_id', '=', projectId)
    .where('related_object_id', '=', assignmentId)
    .where('related_object_type', '=', 'reward_assignment')
    .execute();
}

/**
 * One use of a loyalty card for a reward: `redeemed_quantity` goes up by one unless the card's
 * `redemption.quantity` is used up (null = unlimited). One conditional statement; false changes nothing.
 */
export async function useCardOnce(db: Executor, projectId: string, voucherId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('vouchers')
    .set({ redeemed_quantity: sql<number>`redeemed_quantity + 1`, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', voucherId)
    .where('binned_at', 'is', null)
    .where((eb) => eb.or([eb('redemption_quantity', 'is', null), eb('redeemed_quantity', '<', eb.ref('redemption_quantity'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
