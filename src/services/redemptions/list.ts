import { errors } from '../../domain/errors.ts';
import { ExportFilterError, lowerExportFilter, parseExportFilter } from '../../domain/exports/filters.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import type { JsonText } from '../../lib/json-text.ts';
import type { ListRedemptionsInput, VoucherRedemptionsInput } from '../../api/redemptions.ts';
import { findLiveCustomer } from '../../store/customers.ts';
import { compileExportFilter } from '../../store/export-sql.ts';
import { redemptionFilterFields } from '../../store/export-sources.ts';
import { findRedemption, listRedemptions as listRows, type RedemptionSort } from '../../store/redemption-records.ts';
import { findLiveVoucherByCode } from '../../store/vouchers.ts';
import { listing, type Actor, type Deps } from '../context.ts';
import { renderRedemptions, type RedemptionRecord } from './records.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Redemption records and rollback records (seed 4.11, promotions reference 6.12): the project's list
// with the vendor's query, one record by id, and one voucher's history. Pages are index walks over the
// redemptions indexes (created_at, result, customer, campaign name, voucher, and the other orders).

export interface RedemptionList {
  object: 'list';
  data_ref: 'redemptions';
  redemptions: Array<RedemptionRecord<JsonText>>;
  total: number;
}

const EMPTY: RedemptionList = { object: 'list', data_ref: 'redemptions', redemptions: [], total: 0 };

/** `GET /v1/redemptions`: newest first unless `order` says otherwise; past the end the array is empty. */
export async function listRedemptions(deps: Deps, actor: Actor, query: ListRedemptionsInput): Promise<RedemptionList> {
  let filter;
  try {
    filter = query.filters ? lowerExportFilter(parseExportFilter('redemption', query.filters, '.filters'), deps.clock.now()) : undefined;
  } catch (error) {
    if (error instanceof ExportFilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  let customerId: string | undefined;
  if (query.customer !== undefined) {
    // A customer that does not exist has no redemptions (seed 4.11), whether named by id or source_id.
    const customer = await findLiveCustomer(deps.db, actor.projectId, query.customer);
    if (!customer) return EMPTY;
    customerId = customer.id;
  }
  const order = query.order ?? '-created_at';
  const limit = query.limit ?? 10;
  const page = query.page ?? 1;
  const sent = query.result === undefined ? [] : Array.isArray(query.result) ? query.result : [query.result];
  // Both results is no condition; dropping it keeps the page an index walk in created_at order.
  const results = new Set(sent).size === 1 ? sent : undefined;
  const { rows, total } = await listRows(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: (page - 1) * limit,
    sort: order.replace(/^-/, '') as RedemptionSort,
    descending: order.startsWith('-'),
    ...(results ? { results } : {}),
    ...(query.campaign !== undefined ? { campaignName: query.campaign } : {}),
    ...(customerId !== undefined ? { customerId } : {}),
    ...(query.created_at?.before !== undefined ? { createdBefore: queryInstant(query.created_at.before) } : {}),
    ...(query.created_at?.after !== undefined ? { createdAfter: queryInstant(query.created_at.after) } : {}),
    ...(filter ? { filter: compileExportFilter(filter, deps.dialect, redemptionFilterFields(deps.dialect)) } : {}),
  });
  return { object: 'list', data_ref: 'redemptions', redemptions: await readableRows(listing(deps, actor, 'redemption'), rows, (some) => renderRedemptions(deps.db, actor.projectId, some)), total };
}

/** `GET /v1/redemptions/{id}`: a redemption or rollback record, success or failure. */
export async function getRedemption(deps: Deps, actor: Actor, id: string): Promise<RedemptionRecord<JsonText>> {
  const row = await findRedemption(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('redemption', id);
  const [record] = await renderRedemptions(deps.db, actor.projectId, [row]);
  return record as RedemptionRecord<JsonText>;
}

export interface VoucherRedemptions {
  quantity: number | null;
  redeemed_quantity: number;
  object: 'list';
  url: string;
  data_ref: 'redemption_entries';
  total: number;
  redemption_entries: Array<RedemptionRecord<JsonText>>;
}

/** `GET /v1/vouchers/{code}/redemption`: the voucher's redemptions, failures and rollbacks, newest first. */
export async function voucherRedemptions(deps: Deps, actor: Actor, code: string, query: VoucherRedemptionsInput): Promise<VoucherRedemptions> {
  const voucher = await findLiveVoucherByCode(deps.db, actor.projectId, code);
  if (!voucher) throw errors.notFound('voucher', code);
  const limit = query.limit ?? 100;
  const { rows, total } = await listRows(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    sort: 'created_at',
    descending: true,
    voucherId: voucher.id,
  });
  return {
    quantity: voucher.redemption_quantity === null ? null : Number(voucher.redemption_quantity),
    redeemed_quantity: Number(voucher.redeemed_quantity),
    object: 'list',
    url: `/v1/vouchers/${encodeURIComponent(voucher.code)}/redemptions?page=1&limit=10`,
    data_ref: 'redemption_entries',
    total,
    redemption_entries: await readableRows(listing(deps, actor, 'redemption'), rows, (some) => renderRedemptions(deps.db, actor.projectId, some)),
  };
}
