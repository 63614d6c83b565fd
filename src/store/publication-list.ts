import { sql, type SqlBool } from 'kysely';
import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import type { PublicationRow } from './publications.ts';
import type { CustomerRow } from './customers.ts';
import type { VoucherType } from './schema.ts';

// The publication list (`GET /v1/publications`). Publications are read with their voucher joined by
// primary key, for the filters and the order that concern the voucher (type, referral codes, code).

export type PublicationOrder = 'id' | 'voucher_code' | 'tracking_id' | 'customer_id' | 'created_at' | 'channel';

export interface PublicationListQuery {
  projectId: string;
  limit: number;
  offset: number;
  order: PublicationOrder;
  descending: boolean;
  campaignId?: string;
  customerId?: string;
  voucherId?: string;
  result?: 'SUCCESS' | 'FAILURE';
  voucherType?: VoucherType;
  referralCodesOnly?: boolean;
  sourceId?: string;
  filter?: ParsedFilter;
  dialect: Dialect;
  now: Date;
}

/** The fields `filters[…]` may name on the publication list (platform reference 7.4), and their columns. */
export const publicationFilterFields: FieldCatalog = (field) => {
  if (field.startsWith('metadata.') && field.length > 'metadata.'.length) {
    return { kind: 'json', column: 'p.metadata', member: field.slice('metadata.'.length) };
  }
  switch (field) {
    case 'customer_id':
    case 'result':
    case 'source_id':
      return { kind: 'text', column: `p.${field}` };
    case 'related_object_id':
      return { kind: 'text', column: 'p.voucher_id' };
    case 'parent_object_id':
      return { kind: 'text', column: 'p.campaign_id' };
    case 'voucher_type':
      return { kind: 'text', column: 'v.type' };
    case 'is_referral_code':
      return { kind: 'flag', column: 'v.is_referral_code' };
    case 'campaign_name':
      return { kind: 'text', column: 'c.name' };
    // No failure code is recorded with a publication.
    case 'failure_code':
      return { kind: 'absent', column: 'failure_code' };
    case 'created_at':
      return { kind: 'instant', column: 'p.created_at' };
    default:
      return null;
  }
};

const ORDER_COLUMN: Record<PublicationOrder, string> = {
  id: 'p.id',
  voucher_code: 'v.code',
  tracking_id: 'p.tracking_id',
  customer_id: 'p.customer_id',
  created_at: 'p.created_at',
  channel: 'p.channel',
};

export async function listPublications(db: Executor, q: PublicationListQuery): Promise<{ rows: PublicationRow[]; total: number }> {
  let base = db
    .selectFrom('publications as p')
    .leftJoin('vouchers as v', (join) => join.onRef('v.id', '=', 'p.voucher_id').onRef('v.project_id', '=', 'p.project_id'))
    .leftJoin('campaigns as c', (join) => join.onRef('c.id', '=', 'p.campaign_id').onRef('c.project_id', '=', 'p.project_id'))
    .where('p.project_id', '=', q.projectId);
  if (q.campaignId !== undefined) base = base.where('p.campaign_id', '=', q.campaignId);
  if (q.customerId !== undefined) base = base.where('p.customer_id', '=', q.customerId);
  if (q.voucherId !== undefined) base = base.where('p.voucher_id', '=', q.voucherId);
  if (q.result !== undefined) base = base.where('p.result', '=', q.result);
  if (q.sourceId !== undefined) base = base.where('p.source_id', '=', q.sourceId);
  if (q.voucherType !== undefined) base = base.where('v.type', '=', q.voucherType);
  if (q.referralCodesOnly) base = base.where('v.is_referral_code', '=', true);
  if (q.filter && q.filter.fields.length > 0) base = base.where(filterCondition(q.filter, q.dialect, q.now));
  const direction = q.descending ? 'desc' : 'asc';
  // Ties (same time, same customer, …) are broken by id so pages never overlap or skip.
  const rows = await base
    .selectAll('p')
    .orderBy(sql.ref(ORDER_COLUMN[q.order]), direction)
    .orderBy('p.id', direction)
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

export async function findCustomersByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<Map<string, CustomerRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('customers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', 'in', [...new Set(ids)])
    .where(sql<SqlBool>`deleted_at is null`)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}
