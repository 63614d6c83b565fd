import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import type { TransactionRow } from './ledger.ts';

// Reading the balance ledger back: one card's transactions, or every card transaction of one campaign, by
// id. Transaction ids sort in creation order (src/lib/ids.ts), so an id cursor is one range condition on
// the index (project_id, voucher_id, id) or (project_id, campaign_id, id).

export interface CardTransactionQuery {
  projectId: string;
  voucherId: string;
  limit: number;
  descending: boolean;
  /** Only transactions beyond this id in list order (it need not exist). */
  startingAfterId?: string;
  /** With the dialect and clock it is read with (loyalty member lists only). */
  filter?: { filter: ParsedFilter; dialect: Dialect; now: Date };
}

export async function listCardTransactions(db: Executor, q: CardTransactionQuery): Promise<{ rows: TransactionRow[]; hasMore: boolean }> {
  let query = db.selectFrom('voucher_transactions').selectAll().where('project_id', '=', q.projectId).where('voucher_id', '=', q.voucherId);
  if (q.filter && q.filter.filter.fields.length > 0) query = query.where(filterCondition(q.filter.filter, q.filter.dialect, q.filter.now));
  if (q.startingAfterId !== undefined) query = query.where('id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = await query.orderBy('id', q.descending ? 'desc' : 'asc').limit(q.limit + 1).execute();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** The fields `filters[…]` may name on a campaign's transaction list (vendor ParametersFiltersListCampaignTransactions). */
export const campaignTransactionFilterFields: FieldCatalog = (field) => (field === 'id' || field === 'voucher_id' ? { kind: 'text', column: field } : null);

/** The fields `filters[…]` may name on a loyalty card's transaction list (vendor ParameterFiltersListMemberTransactions). */
export const memberTransactionFilterFields: FieldCatalog = (field) => {
  if (field === 'id') return { kind: 'text', column: 'id' };
  if (field === 'created_at') return { kind: 'instant', column: 'created_at' };
  return null;
};

export interface CampaignTransactionQuery {
  projectId: string;
  campaignId: string;
  limit: number;
  descending: boolean;
  startingAfterId?: string;
  filter?: ParsedFilter;
  dialect: Dialect;
  now: Date;
}

export async function listCampaignTransactions(db: Executor, q: CampaignTransactionQuery): Promise<{ rows: TransactionRow[]; hasMore: boolean }> {
  let query = db.selectFrom('voucher_transactions').selectAll().where('project_id', '=', q.projectId).where('campaign_id', '=', q.campaignId);
  if (q.filter && q.filter.fields.length > 0) query = query.where(filterCondition(q.filter, q.dialect, q.now));
  if (q.startingAfterId !== undefined) query = query.where('id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = await query.orderBy('id', q.descending ? 'desc' : 'asc').limit(q.limit + 1).execute();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}
