import type { ScopedExportInput } from '../../api/exports.ts';
import type { CampaignTransactionsInput, ListTransactionsInput, MemberTransactionsInput } from '../../api/vouchers.ts';
import { errors } from '../../domain/errors.ts';
import { FilterError, parseFilter } from '../../domain/filters/filter.ts';
import { findLiveCampaign, type CampaignRow } from '../../store/campaigns.ts';
import { fromJson } from '../../store/json.ts';
import type { TransactionRow } from '../../store/ledger.ts';
import { campaignTransactionFilterFields, listCampaignTransactions, listCardTransactions, memberTransactionFilterFields } from '../../store/voucher-transactions.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { Actor, Deps } from '../context.ts';
import { createScopedExport } from '../exports/exports.ts';
import { liveVoucherByCode } from './vouchers.ts';
import { listing } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// The balance transactions of one card, gift or loyalty (loyalty reference 2.7; promotions reference 2.1),
// and of every card of one campaign: `GET /v1/vouchers/{code}/transactions` and
// `GET /v1/campaigns/{campaignId}/transactions` here, the loyalty lists through the same functions, so all
// answer the same objects and page the same way. Their exports are `voucher_transactions` exports limited
// to the card or the campaign (src/services/exports).

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

/**
 * One page of a card's transactions, newest first unless `order=id`. Shared with the loyalty member
 * endpoints, which also take `filters` (id, created_at; the voucher list's vendor operation has none).
 */
export async function listTransactionsOfCard(deps: Deps, actor: Actor, card: VoucherRow, query: ListTransactionsInput | MemberTransactionsInput): Promise<TransactionList> {
  let filter;
  try {
    // A live list, so "created less than 3 days ago" may be asked.
    filter = 'filters' in query && query.filters ? parseFilter(query.filters, memberTransactionFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  const { rows, hasMore } = await listCardTransactions(deps.db, {
    projectId: actor.projectId,
    voucherId: card.id,
    limit: query.limit ?? 10,
    descending: (query.order ?? '-id') === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
    ...(filter ? { filter: { filter, dialect: deps.dialect, now: deps.clock.now() } } : {}),
  });
  const data = await readableRows(listing(deps, actor, 'voucher_transaction'), rows, (some) => some.map(toTransactionObject));
  // The next page continues after the last row read, shown or left out.
  const last = rows[rows.length - 1];
  return { object: 'list', data_ref: 'data', data, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}

/** `GET /v1/vouchers/{code}/transactions`. A discount voucher has no balance, so its list is empty. */
export async function listVoucherTransactions(deps: Deps, actor: Actor, code: string, query: ListTransactionsInput): Promise<TransactionList> {
  const card = await liveVoucherByCode(deps.db, actor.projectId, code);
  return listTransactionsOfCard(deps, actor, card, query);
}

/** `GET /v1/campaigns/{campaignId}/transactions` and `GET /v1/loyalties/{campaignId}/transactions`: newest first unless `order=id`. */
export async function listTransactionsOfCampaign(deps: Deps, actor: Actor, campaign: CampaignRow, query: CampaignTransactionsInput): Promise<TransactionList> {
  let filter;
  try {
    filter = query.filters ? parseFilter(query.filters, campaignTransactionFilterFields, { path: '.filters', allowRelativeTime: false }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  const { rows, hasMore } = await listCampaignTransactions(deps.db, {
    projectId: actor.projectId,
    campaignId: campaign.id,
    limit: query.limit ?? 10,
    descending: (query.order ?? '-id') === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
    ...(filter ? { filter } : {}),
    dialect: deps.dialect,
    now: deps.clock.now(),
  });
  const data = await readableRows(listing(deps, actor, 'voucher_transaction'), rows, (some) => some.map(toTransactionObject));
  const last = rows.at(-1);
  return { object: 'list', data_ref: 'data', data, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}

/** Schedules the CSV export of one card's transactions (`POST /v1/vouchers/{code}/transactions/export` and the loyalty member forms). */
export const exportTransactionsOfCard = (deps: Deps, actor: Actor, card: VoucherRow, input: ScopedExportInput) =>
  createScopedExport(deps, actor, 'voucher_transactions', input, { voucher_id: card.id });

/** Schedules the CSV export of every card transaction of a campaign. */
export const exportTransactionsOfCampaign = (deps: Deps, actor: Actor, campaign: CampaignRow, input: ScopedExportInput) =>
  createScopedExport(deps, actor, 'voucher_transactions', input, { campaign_id: campaign.id });

/** `POST /v1/vouchers/{code}/transactions/export`. */
export async function exportVoucherTransactions(deps: Deps, actor: Actor, code: string, input: ScopedExportInput) {
  return exportTransactionsOfCard(deps, actor, await liveVoucherByCode(deps.db, actor.projectId, code), input);
}

async function liveCampaign(deps: Deps, actor: Actor, idOrName: string): Promise<CampaignRow> {
  const campaign = await findLiveCampaign(deps.db, actor.projectId, idOrName);
  if (!campaign) throw errors.notFound('campaign', idOrName);
  return campaign;
}

/** `GET /v1/campaigns/{campaignId}/transactions`: a campaign of any type (one without cards has none). */
export async function campaignTransactions(deps: Deps, actor: Actor, idOrName: string, query: CampaignTransactionsInput): Promise<TransactionList> {
  return listTransactionsOfCampaign(deps, actor, await liveCampaign(deps, actor, idOrName), query);
}

/** `POST /v1/campaigns/{campaignId}/transactions/export`. */
export async function exportCampaignTransactions(deps: Deps, actor: Actor, idOrName: string, input: ScopedExportInput) {
  return exportTransactionsOfCampaign(deps, actor, await liveCampaign(deps, actor, idOrName), input);
}
