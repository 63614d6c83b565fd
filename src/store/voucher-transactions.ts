import type { Executor } from './db.ts';
import type { TransactionRow } from './ledger.ts';

// Reading the balance ledger back: one card's transactions by id. Transaction ids sort in creation order
// (src/lib/ids.ts), so an id cursor is one range condition on the index (project_id, voucher_id, id).

export interface CardTransactionQuery {
  projectId: string;
  voucherId: string;
  limit: number;
  descending: boolean;
  /** Only transactions beyond this id in list order (it need not exist). */
  startingAfterId?: string;
}

export async function listCardTransactions(db: Executor, q: CardTransactionQuery): Promise<{ rows: TransactionRow[]; hasMore: boolean }> {
  let query = db.selectFrom('voucher_transactions').selectAll().where('project_id', '=', q.projectId).where('voucher_id', '=', q.voucherId);
  if (q.startingAfterId !== undefined) query = query.where('id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = await query.orderBy('id', q.descending ? 'desc' : 'asc').limit(q.limit + 1).execute();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}
