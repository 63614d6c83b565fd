import type { ListTransactionsInput } from '../../http/schemas/vouchers.ts';
import { fromJson } from '../../store/json.ts';
import type { TransactionRow } from '../../store/ledger.ts';
import { listCardTransactions } from '../../store/voucher-transactions.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';
import { liveVoucherByCode } from './vouchers.ts';

// The balance transactions of one card, gift or loyalty (loyalty reference 2.7; promotions reference 2.1):
// `GET /v1/vouchers/{code}/transactions` here, and the loyalty member transaction lists through
// `listTransactionsOfCard`, so both answer the same objects and page the same way.

export interface TransactionObject {
  id: string;
  source_id: string | null;
  voucher_id: string;
  campaign_id: string | null;
  source: string | null;
  reason: string | null;
  type: string;
  details: Record<string, unknown>;
  related_transaction_id: string | null;
  created_at: string;
}

export interface TransactionList {
  object: 'list';
  data_ref: 'data';
  data: TransactionObject[];
  has_more: boolean;
  more_starting_after?: string;
}

export function toTransactionObject(row: TransactionRow): TransactionObject {
  return {
    id: row.id,
    source_id: row.source_id,
    voucher_id: row.voucher_id,
    campaign_id: row.campaign_id,
    source: row.source,
    reason: row.reason,
    type: row.type,
    details: fromJson<Record<string, unknown>>(row.details, {}),
    related_transaction_id: row.related_transaction_id,
    created_at: row.created_at,
  };
}

/** One page of a card's transactions, newest first unless `order=id`. Shared with the loyalty member endpoints. */
export async function listTransactionsOfCard(deps: Deps, actor: Actor, card: VoucherRow, query: ListTransactionsInput): Promise<TransactionList> {
  const { rows, hasMore } = await listCardTransactions(deps.db, {
    projectId: actor.projectId,
    voucherId: card.id,
    limit: query.limit ?? 10,
    descending: (query.order ?? '-id') === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
  });
  const data = rows.map(toTransactionObject);
  const last = data[data.length - 1];
  return { object: 'list', data_ref: 'data', data, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}

/** `GET /v1/vouchers/{code}/transactions`. A discount voucher has no balance, so its list is empty. */
export async function listVoucherTransactions(deps: Deps, actor: Actor, code: string, query: ListTransactionsInput): Promise<TransactionList> {
  const card = await liveVoucherByCode(deps.db, actor.projectId, code);
  return listTransactionsOfCard(deps, actor, card, query);
}
