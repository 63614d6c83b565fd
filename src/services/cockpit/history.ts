import { listCardTransactions } from '../../store/voucher-transactions.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';

// A loyalty card's points history as the customer reads it: every change of the balance, newest first,
// each with the balance it left, so the list adds up to the balance. The ledger records each change with
// its signed amount and the balance after it (src/services/ledger/ledger.ts); the points a card starts
// with are written on the card when it is made (src/services/campaigns/voucher-generation.ts) and, as the
// vendor's transaction types have no kind for them, the public transaction lists do not show them. The
// ledger still tells them exactly: the balance before the card's first transaction. The cockpit shows
// them as the card's opening entry, dated when the card was made.

export const HISTORY_PAGE = 20;

export type HistoryEntry = {
  id: string;
  /** A ledger transaction type, or OPENING_BALANCE: the points the card held before its first transaction. */
  type: string;
  reason: string | null;
  /** The signed change. */
  points: number;
  /** The card's balance after this change. */
  balance_after: number;
  created_at: string;
};

// Types, not interfaces: the route answers them as a free-form JSON object.
export type HistoryPage = {
  data: HistoryEntry[];
  /** The balance before the oldest entry of this page (0 when the page reaches back to the card's start). */
  balance_before: number;
  has_more: boolean;
  more_starting_after: string | null;
};

/** One page of the card's history, newest first; the last page ends with the opening entry when there is one. */
export async function cardHistory(deps: Deps, actor: Actor, card: VoucherRow, startingAfterId: string | undefined): Promise<HistoryPage> {
  const { rows, hasMore } = await listCardTransactions(deps.db, {
    projectId: actor.projectId,
    voucherId: card.id,
    limit: HISTORY_PAGE,
    descending: true,
    ...(startingAfterId !== undefined ? { startingAfterId } : {}),
  });
  const data: HistoryEntry[] = rows.map((row) => ({
    id: row.id,
    type: row.type,
    reason: row.reason,
    points: Number(row.amount),
    balance_after: Number(row.balance_after),
    created_at: row.created_at,
  }));
  const oldest = data.at(-1);
  // A card without transactions holds exactly what it started with; a later page without rows (a cursor
  // past the oldest) starts from nothing.
  const before = oldest ? oldest.balance_after - oldest.points : startingAfterId === undefined ? Number(card.loyalty_balance) : 0;
  if (hasMore) return { data, balance_before: before, has_more: true, more_starting_after: oldest?.id ?? null };
  if (before !== 0) {
    data.push({ id: `opening_${card.id}`, type: 'OPENING_BALANCE', reason: null, points: before, balance_after: before, created_at: card.created_at });
  }
  return { data, balance_before: 0, has_more: false, more_starting_after: null };
}
