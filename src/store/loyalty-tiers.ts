import { sql, type Insertable, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { LoyaltyTierMembersTable, LoyaltyTiersTable } from './schema.ts';

// Loyalty tiers of a program and the tier each card holds. Every query is limited to one project.

export type TierRow = Selectable<LoyaltyTiersTable>;
export type TierMemberRow = Selectable<LoyaltyTierMembersTable>;

export async function insertTiers(db: Executor, rows: Insertable<LoyaltyTiersTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('loyalty_tiers').values(rows).execute();
}

export async function findTier(db: Executor, projectId: string, id: string): Promise<TierRow | undefined> {
  return db.selectFrom('loyalty_tiers').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function findTiersByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, TierRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('loyalty_tiers').selectAll().where('project_id', '=', projectId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

const campaignTiers = prepared((db, p: { projectId: string; campaignId: string }) =>
  db.selectFrom('loyalty_tiers').selectAll().where('project_id', '=', p.projectId).where('campaign_id', '=', p.campaignId).orderBy('points_from').orderBy('id'),
);

/** Every tier of a program, lowest range first (programs have a handful; the range index serves it). */
export async function tiersOfCampaign(db: Executor, projectId: string, campaignId: string): Promise<TierRow[]> {
  return campaignTiers.all(db, { projectId, campaignId });
}

/**
 * Holds the program's tier definitions until the transaction ends (PostgreSQL), so two concurrent
 * creates check their ranges against each other's result instead of both passing the overlap check.
 */
export async function lockTierDefinitions(db: Executor, projectId: string, campaignId: string): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('campaigns').select('id').where('project_id', '=', projectId).where('id', '=', campaignId).forUpdate().execute();
}

export async function updateTierRow(db: Executor, projectId: string, id: string, patch: Updateable<LoyaltyTiersTable>): Promise<void> {
  await db.updateTable('loyalty_tiers').set(patch).where('project_id', '=', projectId).where('id', '=', id).execute();
}

/** Deletes a tier and the memberships that hold it or wait for it (the recalculation places those cards again). */
export async function deleteTierRow(db: Executor, projectId: string, id: string): Promise<void> {
  await db
    .deleteFrom('loyalty_tier_members')
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('tier_id', '=', id), eb('pending_tier_id', '=', id)]))
    .execute();
  await db.deleteFrom('loyalty_tiers').where('project_id', '=', projectId).where('id', '=', id).execute();
}

/** Earning rules that trigger on this tier (their `loyalty_tier`), at most `limit` ids. */
export async function earningRulesOnTier(db: Executor, projectId: string, tierId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('earning_rules').select('id').where('project_id', '=', projectId).where('loyalty_tier_id', '=', tierId).limit(limit).execute();
  return rows.map((r) => r.id);
}

export type TierOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

export async function listTiers(
  db: Executor,
  q: { projectId: string; campaignId: string; limit: number; offset: number; order: TierOrder },
): Promise<{ rows: TierRow[]; total: number }> {
  const base = db.selectFrom('loyalty_tiers').where('project_id', '=', q.projectId).where('campaign_id', '=', q.campaignId);
  const direction = q.order.startsWith('-') ? 'desc' : 'asc';
  const column = q.order.endsWith('updated_at') ? sql<string>`coalesce(updated_at, created_at)` : sql<string>`created_at`;
  const rows = await base.selectAll().orderBy(column, direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

const membershipOf = prepared((db, p: { projectId: string; voucherId: string }) =>
  db.selectFrom('loyalty_tier_members').selectAll().where('project_id', '=', p.projectId).where('voucher_id', '=', p.voucherId),
);

export async function findMembership(db: Executor, projectId: string, voucherId: string): Promise<TierMemberRow | undefined> {
  return membershipOf.first(db, { projectId, voucherId });
}

export async function findMemberships(db: Executor, projectId: string, voucherIds: readonly string[]): Promise<Map<string, TierMemberRow>> {
  if (voucherIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('loyalty_tier_members')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('voucher_id', 'in', [...new Set(voucherIds)])
    .execute();
  return new Map(rows.map((r) => [r.voucher_id, r]));
}

/** Writes a card's membership (one row per card: the unique index merges concurrent first writes). */
export async function saveMembership(db: Executor, row: Insertable<LoyaltyTierMembersTable>): Promise<void> {
  await db
    .insertInto('loyalty_tier_members')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'voucher_id']).doUpdateSet({
        customer_id: row.customer_id ?? null,
        tier_id: row.tier_id ?? null,
        start_date: row.start_date ?? null,
        expiration_date: row.expiration_date ?? null,
        pending_tier_id: row.pending_tier_id ?? null,
        pending_start_date: row.pending_start_date ?? null,
        pending_expiration_date: row.pending_expiration_date ?? null,
        updated_at: row.updated_at ?? row.created_at,
      }),
    )
    .execute();
}

export async function deleteMembership(db: Executor, projectId: string, voucherId: string): Promise<void> {
  await db.deleteFrom('loyalty_tier_members').where('project_id', '=', projectId).where('voucher_id', '=', voucherId).execute();
}

export interface DueMembership {
  projectId: string;
  voucherId: string;
}

/**
 * Cards whose held tier ended before `latestToday` or whose pending tier starts by then (the latest
 * calendar date on earth; each project then checks its own day), after the cursor, in (project, card)
 * order. Served by the two date indexes.
 */
export async function dueMemberships(db: Executor, latestToday: string, after: DueMembership | null, limit: number): Promise<DueMembership[]> {
  let query = db
    .selectFrom('loyalty_tier_members')
    .select(['project_id', 'voucher_id'])
    .where((eb) => eb.or([eb('expiration_date', '<', latestToday), eb('pending_start_date', '<=', latestToday)]));
  if (after) query = query.where(sql<SqlBool>`(project_id, voucher_id) > (${after.projectId}, ${after.voucherId})`);
  const rows = await query.orderBy('project_id').orderBy('voucher_id').limit(limit).execute();
  return rows.map((r) => ({ projectId: r.project_id, voucherId: r.voucher_id }));
}

/** Cards of a program with a holder, keyset-paged by id (a full recalculation after tiers change). */
export async function programCards(db: Executor, projectId: string, campaignId: string, afterId: string | null, limit: number): Promise<string[]> {
  let query = db
    .selectFrom('vouchers')
    .select('id')
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('binned_at', 'is', null)
    .where('holder_id', 'is not', null);
  if (afterId !== null) query = query.where('id', '>', afterId);
  const rows = await query.orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

/**
 * Points a card collected between two instants: accruals, manual additions and activated pending
 * points (loyalty reference 6.2: "points collected (earned, not balance)"); transfers in and refunds
 * of spent points are not new points. Served by the card's transaction index.
 */
export async function pointsCollected(db: Executor, projectId: string, voucherId: string, fromInstant: string): Promise<number> {
  const row = await db
    .selectFrom('voucher_transactions')
    .select((eb) => eb.fn.sum<number>('amount').as('points'))
    .where('project_id', '=', projectId)
    .where('voucher_id', '=', voucherId)
    .where('type', 'in', ['POINTS_ACCRUAL', 'POINTS_ADDITION', 'PENDING_POINTS_ACTIVATION'])
    .where('created_at', '>=', fromInstant)
    .executeTakeFirst();
  return Number(row?.points ?? 0);
}
