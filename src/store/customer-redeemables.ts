import { sql } from 'kysely';
import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import type { VoucherRow } from './vouchers.ts';
import { projectCheck } from './id-lookups.ts';

// A customer's redeemables (`GET /v1/customers/{id}/redeemables`): the live vouchers they hold as owner,
// referrer or referee, one row each in redeemable_holders. Holder ids sort in creation order, so the id is
// both the order and the cursor, and a page is a range of index redeemable_holders_customer (project,
// customer, id); the filter fields that live on the voucher or its campaign come from a primary-key join.

export interface CustomerHolderRow {
  id: string;
  created_at: string;
  voucher_id: string;
  customer_id: string;
  holder_role: string;
  campaign_id: string | null;
  campaign_type: string | null;
  voucher_type: string;
  redeemable_object: string;
}

/** The fields `filters[…]` may name (vendor ParameterFiltersListCustomerRedeemables), as columns of the rows above. */
export const customerRedeemableFilterFields: FieldCatalog = (field) => {
  const column: Record<string, string> = {
    id: 'r.id',
    redeemable_id: 'r.voucher_id',
    redeemable_object: 'r.redeemable_object',
    holder_role: 'r.holder_role',
    campaign_id: 'r.campaign_id',
    campaign_type: 'r.campaign_type',
    voucher_type: 'r.voucher_type',
  };
  if (field === 'created_at') return { kind: 'instant', column: 'r.created_at' };
  const name = column[field];
  return name === undefined ? null : { kind: 'text', column: name };
};

export interface CustomerRedeemableQuery {
  projectId: string;
  customerId: string;
  limit: number;
  descending: boolean;
  startingAfterId?: string;
  filter?: ParsedFilter;
  dialect: Dialect;
  now: Date;
}

function holdersOf(db: Executor, q: CustomerRedeemableQuery) {
  const holders = db
    .selectFrom('redeemable_holders as h')
    .innerJoin('vouchers as v', (j) => j.onRef('v.project_id', '=', 'h.project_id').onRef('v.id', '=', 'h.voucher_id'))
    .leftJoin('campaigns as c', (j) => j.onRef('c.project_id', '=', 'h.project_id').onRef('c.id', '=', 'h.campaign_id'))
    .select(['h.id', 'h.created_at', 'h.voucher_id', 'h.customer_id', 'h.holder_role', 'h.campaign_id', 'c.campaign_type', 'v.type as voucher_type'])
    .select(sql<string>`'voucher'`.as('redeemable_object'))
    .where('h.project_id', '=', q.projectId)
    .where('h.customer_id', '=', q.customerId)
    .where('v.binned_at', 'is', null);
  let rows = db.selectFrom(holders.as('r'));
  if (q.filter && q.filter.fields.length > 0) rows = rows.where(filterCondition(q.filter, q.dialect, q.now));
  return rows;
}

/** One page of the customer's holder rows, whether more follow, and how many match the filter in all. */
export async function listCustomerHolders(db: Executor, q: CustomerRedeemableQuery): Promise<{ rows: CustomerHolderRow[]; hasMore: boolean; total: number }> {
  let page = holdersOf(db, q).selectAll();
  if (q.startingAfterId !== undefined) page = page.where('r.id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = (await page
    .orderBy('r.id', q.descending ? 'desc' : 'asc')
    .limit(q.limit + 1)
    .execute()) as CustomerHolderRow[];
  const total = await holdersOf(db, q)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit, total: Number(total.n) };
}

/** The vouchers of a page, by id. */
export async function vouchersOfHolders(db: Executor, projectId: string, voucherIds: readonly string[]): Promise<Map<string, VoucherRow>> {
  if (voucherIds.length === 0) return new Map();
  const rows = await db.selectFrom('vouchers').selectAll().where(projectCheck(), '=', projectId).where('id', 'in', [...voucherIds]).execute();
  return new Map(rows.map((row) => [row.id, row]));
}
