import { sql, type Insertable, type Selectable } from 'kysely';
import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import { prepared } from './prepared.ts';
import type { RedeemableHoldersTable, ReferralsTable } from './schema.ts';

// Referral programs: who holds a referral code (its referrer and its referees) and which customers were
// referred by whom. Uniqueness (one role per customer and code, one referral per customer and program) is
// kept by unique indexes; inserts skip on conflict so a caller's transaction stays usable.

export type HolderRow = Selectable<RedeemableHoldersTable>;
export type ReferralRow = Selectable<ReferralsTable>;

export async function insertHolderIfAbsent(db: Executor, row: Insertable<RedeemableHoldersTable>): Promise<boolean> {
  const result = await db
    .insertInto('redeemable_holders')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'voucher_id', 'customer_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findHolderOf(db: Executor, projectId: string, voucherId: string, customerId: string): Promise<HolderRow | undefined> {
  return db
    .selectFrom('redeemable_holders')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('voucher_id', '=', voucherId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

export async function findHolder(db: Executor, projectId: string, voucherId: string, id: string): Promise<HolderRow | undefined> {
  return db.selectFrom('redeemable_holders').selectAll().where('project_id', '=', projectId).where('voucher_id', '=', voucherId).where('id', '=', id).executeTakeFirst();
}

export async function deleteHolder(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('redeemable_holders').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The fields `filters[…]` may name on the holder list (vendor ParameterFiltersListReferralsRedeemableHolders). */
export const holderFilterFields: FieldCatalog = (field) => {
  switch (field) {
    case 'id':
    case 'holder_role':
    case 'customer_id':
      return { kind: 'text', column: field };
    case 'created_at':
      return { kind: 'instant', column: 'created_at' };
    default:
      return null;
  }
};

export interface HolderListQuery {
  projectId: string;
  voucherId: string;
  limit: number;
  descending: boolean;
  startingAfterId?: string;
  filter?: ParsedFilter;
  dialect: Dialect;
  now: Date;
}

/** Holder ids sort in creation order (src/lib/ids.ts), so the id is both the order and the cursor. */
export async function listHolders(db: Executor, q: HolderListQuery): Promise<{ rows: HolderRow[]; hasMore: boolean; total: number }> {
  let base = db.selectFrom('redeemable_holders').where('project_id', '=', q.projectId).where('voucher_id', '=', q.voucherId);
  if (q.filter && q.filter.fields.length > 0) base = base.where(filterCondition(q.filter, q.dialect, q.now));
  let page = base.selectAll();
  if (q.startingAfterId !== undefined) page = page.where('id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = await page
    .orderBy('id', q.descending ? 'desc' : 'asc')
    .limit(q.limit + 1)
    .execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit, total: Number(total.n) };
}

/** Records a referred customer unless already referred in that program; answers whether it was recorded. */
export async function insertReferralIfAbsent(db: Executor, row: Insertable<ReferralsTable>): Promise<boolean> {
  const result = await db
    .insertInto('referrals')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'campaign_id', 'customer_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findReferral(db: Executor, projectId: string, campaignId: string, customerId: string): Promise<ReferralRow | undefined> {
  return db
    .selectFrom('referrals')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** One more customer referred by `referrerId` (a conditional increment, never a read-modify-write). */
export async function countReferredCustomer(db: Executor, projectId: string, referrerId: string): Promise<void> {
  await db
    .updateTable('customers')
    .set({ loyalty_referred_customers: sql<number>`loyalty_referred_customers + 1` })
    .where('project_id', '=', projectId)
    .where('id', '=', referrerId)
    .execute();
}

/** `referrals` of the customer object (platform reference 3.2): how and by whom each customer was referred. */
export interface CustomerReferrals {
  total: number;
  campaigns: Array<{ campaign_id: string; referrer_id: string; related_object_id: string; related_object_type: string; date: string }>;
}

const referralsOf = prepared((db, p: { projectId: string; ids: string[] }) =>
  db.selectFrom('referrals').selectAll().where('project_id', '=', p.projectId).where('customer_id', 'in', p.ids).orderBy('created_at').orderBy('id'),
);

export async function referralsOfCustomers(db: Executor, projectId: string, customerIds: readonly string[]): Promise<Map<string, CustomerReferrals>> {
  const out = new Map<string, CustomerReferrals>();
  const ids = [...new Set(customerIds)];
  if (ids.length === 0) return out;
  const rows = await referralsOf.all(db, { projectId, ids });
  for (const row of rows) {
    const entry = out.get(row.customer_id) ?? { total: 0, campaigns: [] };
    entry.total += 1;
    entry.campaigns.push({
      campaign_id: row.campaign_id,
      referrer_id: row.referrer_id,
      related_object_id: row.related_object_id,
      related_object_type: row.related_object_type,
      date: row.created_at,
    });
    out.set(row.customer_id, entry);
  }
  return out;
}
