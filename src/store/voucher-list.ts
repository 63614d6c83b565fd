import { sql, type SqlBool } from 'kysely';
import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import { countLiveVouchers } from './list-counts.ts';
import type { VoucherRow } from './vouchers.ts';
import { projectCheck } from './id-lookups.ts';

// The voucher list (promotions reference 2.2) and the single-voucher deletions: moving one voucher to the
// bin, and removing one for good with the ledger rows that only make sense next to it.

export type VoucherOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'code' | '-code';

export interface VoucherListQuery {
  projectId: string;
  limit: number;
  offset: number;
  order: VoucherOrder;
  campaignId?: string;
  categoryId?: string;
  holderId?: string;
  codeKey?: string;
  ids?: readonly string[];
  createdBefore?: string;
  createdAfter?: string;
  updatedBefore?: string;
  updatedAfter?: string;
  filter?: ParsedFilter;
  dialect: Dialect;
  now: Date;
}

/** The fields `filters[…]` may name on the voucher list, and the columns they read. */
export const voucherFilterFields: FieldCatalog = (field) => {
  if (field.startsWith('metadata.') && field.length > 'metadata.'.length) {
    return { kind: 'json', column: 'metadata', member: field.slice('metadata.'.length) };
  }
  switch (field) {
    case 'code':
    case 'holder_id':
    case 'campaign_id':
    case 'category_id':
    case 'type':
    case 'id':
      return { kind: 'text', column: field };
    // The names the vendor's dashboard and newer clients send for the same columns.
    case 'campaign_ids':
      return { kind: 'text', column: 'campaign_id' };
    case 'category_ids':
      return { kind: 'text', column: 'category_id' };
    case 'voucher_type':
      return { kind: 'text', column: 'type' };
    case 'customer_id':
    case 'holder':
      return { kind: 'text', column: 'holder_id' };
    case 'is_referral_code':
    case 'active':
      return { kind: 'flag', column: field };
    case 'created_at':
    case 'start_date':
    case 'expiration_date':
      return { kind: 'instant', column: field };
    case 'updated_at':
      return { kind: 'instant', column: 'updated_at' };
    default:
      return null;
  }
};

// A voucher never updated counts as updated when it was created, so the order, the filter and the index
// (vouchers_last_change) all read the same expression.
const lastChange = sql<string>`coalesce(updated_at, created_at)`;

export async function listLiveVouchers(db: Executor, q: VoucherListQuery): Promise<{ rows: VoucherRow[]; total: number }> {
  // Asked for by ids, the vouchers are found by key and the project only checks them (./id-lookups.ts).
  const project = q.ids === undefined ? sql.ref<string>('project_id') : projectCheck();
  let base = db.selectFrom('vouchers').where(project, '=', q.projectId).where('binned_at', 'is', null);
  if (q.campaignId !== undefined) base = base.where('campaign_id', '=', q.campaignId);
  if (q.categoryId !== undefined) base = base.where('category_id', '=', q.categoryId);
  if (q.holderId !== undefined) base = base.where('holder_id', '=', q.holderId);
  if (q.codeKey !== undefined) base = base.where('code_key', '=', q.codeKey);
  if (q.ids !== undefined) base = q.ids.length === 0 ? base.where(sql<SqlBool>`1 = 0`) : base.where('id', 'in', q.ids);
  if (q.createdBefore !== undefined) base = base.where('created_at', '<', q.createdBefore);
  if (q.createdAfter !== undefined) base = base.where('created_at', '>', q.createdAfter);
  if (q.updatedBefore !== undefined) base = base.where(lastChange, '<', q.updatedBefore);
  if (q.updatedAfter !== undefined) base = base.where(lastChange, '>', q.updatedAfter);
  if (q.filter && q.filter.fields.length > 0) {
    const condition = filterCondition(q.filter, q.dialect, q.now);
    base = base.where(condition);
  }
  const direction = q.order.startsWith('-') ? 'desc' : 'asc';
  const key = q.order.replace('-', '');
  let page = base.selectAll();
  if (key === 'code') {
    // code_key is unique among live vouchers, so it alone orders them (and case-insensitive projects sort
    // codes regardless of case, as they compare them).
    page = page.orderBy('code_key', direction);
  } else {
    page = page.orderBy(key === 'updated_at' ? lastChange : sql<string>`created_at`, direction).orderBy('id', direction);
  }
  const rows = await page.offset(q.offset).limit(q.limit).execute();
  if (answeredByCounts(q)) return { rows, total: await countLiveVouchers(db, q.projectId, q.campaignId) };
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/**
 * Whether the list's total can come from the kept counts (voucher_counts): no condition but the campaign.
 * (An empty campaign id would meet the '' under which vouchers without a campaign count.) Other conditions
 * count the vouchers they select.
 */
function answeredByCounts(q: VoucherListQuery): boolean {
  return (
    q.campaignId !== '' &&
    q.categoryId === undefined &&
    q.holderId === undefined &&
    q.codeKey === undefined &&
    q.ids === undefined &&
    q.createdBefore === undefined &&
    q.createdAfter === undefined &&
    q.updatedBefore === undefined &&
    q.updatedAfter === undefined &&
    (q.filter === undefined || q.filter.fields.length === 0)
  );
}

/** Moves one live voucher to the bin; its code is free at once (the unique index covers live rows only). */
export async function binVoucher(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('vouchers')
    .set({ binned_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Removes one voucher (live or binned) for good, with its points buckets, balance transactions and
 * referral-code holders. Redemption and publication records stay: they are the history of what was
 * granted and to whom, and orders and customer summaries refer to them.
 */
export async function purgeVoucher(db: Executor, projectId: string, id: string): Promise<boolean> {
  await db.deleteFrom('loyalty_buckets').where('project_id', '=', projectId).where('voucher_id', '=', id).execute();
  await db.deleteFrom('voucher_transactions').where('project_id', '=', projectId).where('voucher_id', '=', id).execute();
  await db.deleteFrom('redeemable_holders').where('project_id', '=', projectId).where('voucher_id', '=', id).execute();
  const result = await db.deleteFrom('vouchers').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function findVoucherInAnyState(db: Executor, projectId: string, id: string): Promise<VoucherRow | undefined> {
  return db.selectFrom('vouchers').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

/** Live vouchers by id, for rendering lists that refer to vouchers (publications). */
export async function findVouchersByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, VoucherRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('vouchers').selectAll().where(projectCheck(), '=', projectId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}
