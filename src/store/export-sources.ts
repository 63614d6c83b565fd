import { sql, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Predicate } from '../domain/exports/filters.ts';
import type { ExportedObject } from '../domain/exports/objects.ts';
import type { Dialect, Executor } from './db.ts';
import { compileExportFilter, jsonMemberAsText, type FieldSql, type SetSql } from './export-sql.ts';
import type {
  CustomersTable,
  Database,
  LoyaltyBucketsTable,
  OrdersTable,
  PublicationsTable,
  RedemptionsTable,
  VoucherTransactionsTable,
  VouchersTable,
} from './schema.ts';

// The tables an export reads, one batch at a time: each batch continues after the last row of the one
// before ((sort key, id) beyond the cursor), so an export of any size holds one batch in memory, and each
// batch is an index range scan on (project_id, sort key, id) (indexes: migration 0009 and earlier). Sort
// keys are NULL-free (coalesce), so both databases order and page identically. Every query reads one
// project's rows only; filter fields map onto the columns below (src/domain/exports/filters.ts decides
// what the operators mean).
//
// One order is not index-served: publications by `voucher_code`, which lives on the joined voucher; each
// of its batches sorts the project's publications.

export interface ExportCursor {
  key: string;
  id: string;
}

/**
 * Where a batch starts. After a cursor, a batch first takes the rows that share the cursor's key (`ties`:
 * same key, id beyond), then the rows with a key beyond it (`after`). Each is a plain index seek on
 * (project_id, key, id) on both databases, however many rows share a key.
 */
export type KeysetBound = { ties: ExportCursor } | { after: string };

/** Sort keys no two rows share (the id; a live voucher's code): after a cursor there are no ties to read. */
export const UNIQUE_SORT_KEYS: Record<ExportedObject, readonly string[]> = {
  voucher: ['code'],
  redemption: ['id'],
  customer: ['id'],
  publication: ['id'],
  order: [],
  points_expiration: [],
  voucher_transactions: [],
};

export interface ExportBatchQuery {
  projectId: string;
  dialect: Dialect;
  /** Sort key without the direction dash (`created_at`, `code`, …); one the object offers. */
  sortKey: string;
  descending: boolean;
  predicate: Predicate;
  bound: KeysetBound | null;
  limit: number;
  /** Voucher, transaction and points exports: only this campaign's records. */
  campaignId: string | null;
  /** Transaction exports: only this voucher's transactions. */
  voucherId: string | null;
  /** The export's fields (CSV columns); a reader may skip work for columns nobody asked for. */
  fields: readonly string[];
}

type Expr = RawBuilder<unknown>;
type Condition = RawBuilder<SqlBool>;

const ref = (column: string): RawBuilder<string> => sql<string>`${sql.ref(column)}`;
const blank = (column: string): RawBuilder<string> => sql<string>`coalesce(${sql.ref(column)}, '')`;

function sortKeyOf(keys: Record<string, RawBuilder<string>>, key: string): RawBuilder<string> {
  const expr = keys[key];
  if (!expr) throw new Error(`export sort key ${key} is not offered`);
  return expr;
}

/** Rows from the bound on, in walking direction. */
function beyond(sortKey: RawBuilder<string>, idColumn: string, q: ExportBatchQuery): Condition {
  if (!q.bound) return sql<SqlBool>`(1 = 1)`;
  const op = sql.raw(q.descending ? '<' : '>');
  if ('ties' in q.bound) return sql<SqlBool>`(${sortKey} = ${q.bound.ties.key} and ${sql.ref(idColumn)} ${op} ${q.bound.ties.id})`;
  return sql<SqlBool>`(${sortKey} ${op} ${q.bound.after})`;
}

/**
 * The batch's order. Ties share one key, so they are ordered by id alone (an expression key would
 * otherwise be sorted again by SQLite); a unique key (the id, a live voucher's code) orders alone.
 */
function ordered<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  sortKey: RawBuilder<string>,
  idColumn: string,
  q: ExportBatchQuery,
  keyIsUnique: boolean,
): SelectQueryBuilder<DB, TB, O> {
  const direction = q.descending ? 'desc' : 'asc';
  if (q.bound && 'ties' in q.bound) return query.orderBy(sql.ref(idColumn), direction);
  if (keyIsUnique) return query.orderBy(sortKey, direction);
  return query.orderBy(sortKey, direction).orderBy(sql.ref(idColumn), direction);
}

function fieldSql(scalars: Record<string, Expr>, sets: Record<string, SetSql>, json: Record<string, string>, extra?: (name: string) => Expr | null): FieldSql {
  return {
    scalar: (name) => scalars[name] ?? extra?.(name) ?? null,
    set: (name) => sets[name] ?? null,
    jsonColumn: (prefix) => json[prefix] ?? null,
  };
}

// ---- vouchers ----

export type VoucherExportRow = Selectable<VouchersTable> & {
  campaign_name: string | null;
  category_name: string | null;
  holder_source_id: string | null;
  sort_key: string;
};

const VOUCHER_SORT: Record<string, RawBuilder<string>> = {
  created_at: ref('vouchers.created_at'),
  // Never updated counts as updated when created: the expression of index vouchers_last_change.
  updated_at: sql<string>`coalesce(${sql.ref('vouchers.updated_at')}, ${sql.ref('vouchers.created_at')})`,
  // Unique among live vouchers; case-insensitive projects sort codes as they compare them.
  code: ref('vouchers.code_key'),
};

function voucherFields(): FieldSql {
  // NOT_REDEEMED until the first redemption; FULLY_REDEEMED once a limited voucher has none left.
  const redemptionStatus = sql`(case when ${sql.ref('vouchers.redeemed_quantity')} = 0 then 'NOT_REDEEMED' when ${sql.ref('vouchers.redemption_quantity')} is not null and ${sql.ref('vouchers.redeemed_quantity')} >= ${sql.ref('vouchers.redemption_quantity')} then 'FULLY_REDEEMED' else 'PARTIALLY_REDEEMED' end)`;
  return fieldSql(
    {
      created_at: ref('vouchers.created_at'),
      updated_at: ref('vouchers.updated_at'),
      created_date: sql`substr(${sql.ref('vouchers.created_at')}, 1, 10)`,
      active: ref('vouchers.active'),
      redemption_status: redemptionStatus,
      start_date: ref('vouchers.start_date'),
      expiration_date: ref('vouchers.expiration_date'),
      code: ref('vouchers.code'),
      holder_id: ref('vouchers.holder_id'),
      is_referral_code: ref('vouchers.is_referral_code'),
      validity_timeframe: ref('vouchers.validity_timeframe'),
      'redemption.quantity': ref('vouchers.redemption_quantity'),
      'redemption.redeemed_quantity': ref('vouchers.redeemed_quantity'),
      'redemption.redeemed_amount': ref('vouchers.redeemed_amount'),
      'redemption.redeemed_points': ref('vouchers.redeemed_points'),
    },
    {
      validity_day_of_week: { kind: 'json_array', column: 'vouchers.validity_day_of_week' },
      categories: { kind: 'columns', exprs: [ref('g.name')] },
      category_ids: { kind: 'columns', exprs: [ref('vouchers.category_id')] },
      vouchers: { kind: 'columns', exprs: [ref('vouchers.id'), ref('vouchers.code')] },
      published_for_customer_id: {
        kind: 'rows',
        from: sql`publications as p`,
        where: sql<SqlBool>`(p.project_id = ${sql.ref('vouchers.project_id')} and p.voucher_id = ${sql.ref('vouchers.id')})`,
        element: sql`p.customer_id`,
      },
    },
    { metadata: 'vouchers.metadata' },
  );
}

export async function readVoucherBatch(db: Executor, q: ExportBatchQuery): Promise<VoucherExportRow[]> {
  const sortKey = sortKeyOf(VOUCHER_SORT, q.sortKey);
  let query = db
    .selectFrom('vouchers')
    .leftJoin('campaigns as c', (j) => j.onRef('c.id', '=', 'vouchers.campaign_id').onRef('c.project_id', '=', 'vouchers.project_id'))
    .leftJoin('categories as g', (j) => j.onRef('g.id', '=', 'vouchers.category_id').onRef('g.project_id', '=', 'vouchers.project_id'))
    .leftJoin('customers as h', (j) =>
      j.onRef('h.id', '=', 'vouchers.holder_id').onRef('h.project_id', '=', 'vouchers.project_id').on('h.deleted_at', 'is', null),
    )
    .selectAll('vouchers')
    .select(['c.name as campaign_name', 'g.name as category_name', 'h.source_id as holder_source_id'])
    .select(sortKey.as('sort_key'))
    .where('vouchers.project_id', '=', q.projectId)
    .where('vouchers.binned_at', 'is', null)
    .where(compileExportFilter(q.predicate, q.dialect, voucherFields()))
    .where(beyond(sortKey, 'vouchers.id', q));
  if (q.campaignId !== null) query = query.where('vouchers.campaign_id', '=', q.campaignId);
  // code_key is unique among live vouchers, so it orders them alone (index vouchers_code has no id).
  return ordered(query, sortKey, 'vouchers.id', q, UNIQUE_SORT_KEYS.voucher.includes(q.sortKey)).limit(q.limit).execute();
}

/** Ids of the validation rules assigned to each voucher (voucher-level assignments). */
export async function voucherRuleIds(db: Executor, projectId: string, voucherIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (voucherIds.length === 0) return out;
  // Sorted here (oldest assignment first): with ORDER BY in the statement, SQLite walked every assignment
  // of the project in created order instead of looking up the page's vouchers.
  const rows = await db
    .selectFrom('validation_rule_assignments')
    .select(['related_object_id', 'rule_id', 'created_at', 'id'])
    .where('project_id', '=', projectId)
    .where('related_object_type', '=', 'voucher')
    .where('related_object_id', 'in', [...voucherIds])
    .execute();
  rows.sort((a, b) => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const row of rows) out.set(row.related_object_id, [...(out.get(row.related_object_id) ?? []), row.rule_id]);
  return out;
}

// ---- redemptions ----

export type RedemptionExportRow = Pick<
  Selectable<RedemptionsTable>,
  | 'id'
  | 'object'
  | 'created_at'
  | 'voucher_code'
  | 'campaign_name'
  | 'promotion_tier_id'
  | 'customer_id'
  | 'tracking_id'
  | 'order_id'
  | 'result'
  | 'failure_code'
  | 'failure_message'
  | 'metadata'
> & {
  customer_source_id: string | null;
  customer_name: string | null;
  order_amount: number | string | null;
  gift_amount: string | null;
  loyalty_points: string | null;
  sort_key: string;
};

const REDEMPTION_SORT: Record<string, RawBuilder<string>> = {
  id: ref('redemptions.id'),
  voucher_code: blank('redemptions.voucher_code'),
  tracking_id: blank('redemptions.tracking_id'),
  customer_id: blank('redemptions.customer_id'),
  created_at: ref('redemptions.created_at'),
};

/**
 * The redemption fields a filter may name, shared by exports and `GET /v1/redemptions?filters[…]`.
 * `customer` compares the record's customer id and, through a correlated primary-key lookup, that
 * customer's source_id, so neither reader has to join the customers table to filter.
 */
export function redemptionFilterFields(dialect: Dialect): FieldSql {
  const channelType = jsonMemberAsText(dialect, 'redemptions.channel', 'channel_type');
  const channelId = jsonMemberAsText(dialect, 'redemptions.channel', 'channel_id');
  return fieldSql(
    {
      created_at: ref('redemptions.created_at'),
      related_object: ref('redemptions.related_object_type'),
      voucher_code: ref('redemptions.voucher_code'),
      related_object_id: ref('redemptions.related_object_id'),
      related_object_parent_id: ref('redemptions.related_object_parent_id'),
      parent_redemption_id: ref('redemptions.parent_id'),
      failure_code: ref('redemptions.failure_code'),
      result: ref('redemptions.result'),
      object: ref('redemptions.object'),
      customer_id: ref('redemptions.customer_id'),
      campaign_name: ref('redemptions.campaign_name'),
      // A dashboard user's login; redemptions made through the API have none.
      user_login: sql`(case when ${channelType} = 'USER' then ${channelId} end)`,
      status: ref('redemptions.status'),
    },
    {
      campaign: { kind: 'columns', exprs: [ref('redemptions.campaign_id'), ref('redemptions.campaign_name')] },
      customer: {
        kind: 'columns',
        exprs: [
          ref('redemptions.customer_id'),
          sql`(select c.source_id from customers as c where c.project_id = ${sql.ref('redemptions.project_id')} and c.id = ${sql.ref('redemptions.customer_id')} and c.deleted_at is null)`,
        ],
      },
      voucher: { kind: 'columns', exprs: [ref('redemptions.voucher_id'), ref('redemptions.voucher_code')] },
    },
    { metadata: 'redemptions.metadata' },
  );
}

/**
 * The export's columns of redemption records. Reading a JSON member parses the whole document, so a
 * column the export's fields do not show is selected as NULL instead: the default fields need no JSON.
 * `createdInKey`: the sort key is created_at, which the caller then takes from the key instead.
 */
function redemptionExportColumns(db: Executor, q: ExportBatchQuery, createdInKey: boolean) {
  const shown = new Set(q.fields);
  const ifShown = (field: string, expr: RawBuilder<string | null>): RawBuilder<string | null> => (shown.has(field) ? expr : sql<null>`null`);
  const member = (column: string, name: string) => jsonMemberAsText(q.dialect, column, name) as RawBuilder<string | null>;
  // The customer as the redemption saw them (the record's snapshot, joined only when a customer field is
  // shown), else as they are now.
  const snapshotShown = shown.has('customer_source_id') || shown.has('customer_name');
  const customer = (name: 'source_id' | 'name') =>
    sql<string | null>`coalesce(${member('s.customer_snapshot', name)}, (select c.${sql.ref(name)} from customers as c where c.project_id = ${sql.ref('redemptions.project_id')} and c.id = ${sql.ref('redemptions.customer_id')} and c.deleted_at is null))`;
  return db
    .selectFrom('redemptions')
    .$if(snapshotShown, (qb) =>
      qb.leftJoin('redemption_snapshots as s', (join) => join.onRef('s.redemption_id', '=', 'redemptions.id').onRef('s.project_id', '=', 'redemptions.project_id')),
    )
    .select(createdInKey ? sql<string>`''`.as('created_at') : 'redemptions.created_at')
    .select([
      'redemptions.id',
      'redemptions.object',
      'redemptions.voucher_code',
      'redemptions.campaign_name',
      'redemptions.promotion_tier_id',
      'redemptions.customer_id',
      'redemptions.tracking_id',
      'redemptions.order_id',
      'redemptions.result',
      'redemptions.failure_code',
      'redemptions.failure_message',
      'redemptions.metadata',
    ])
    .select(ifShown('customer_source_id', customer('source_id')).as('customer_source_id'))
    .select(ifShown('customer_name', customer('name')).as('customer_name'))
    .select(ifShown('order_amount', sql<string | null>`${sql.ref('redemptions.order_amount')}`).as('order_amount'))
    .select(ifShown('gift_amount', member('redemptions.gift', 'amount')).as('gift_amount'))
    .select(ifShown('loyalty_points', member('redemptions.loyalty_card', 'points')).as('loyalty_points'))
    .where('redemptions.project_id', '=', q.projectId);
}

/**
 * A batch of redemptions. PostgreSQL reads it in one query along the sort index. SQLite reads it in two
 * steps: the batch's keys from the sort index, then the rows by id. Records are stored in the order they
 * were made, so reading them along a descending index walks the table backwards page by page, which
 * defeats the operating system's read-ahead; looked up by id, they are read in id order, forwards
 * (measured when records still carried their snapshots: cold SQLite, 100k records newest first, 31 s →
 * 5.3 s). With narrow records PostgreSQL no longer gains from the split: 300k records newest first took
 * 3.5 s in one query against 5.6 s in two.
 */
export async function readRedemptionBatch(db: Executor, q: ExportBatchQuery): Promise<RedemptionExportRow[]> {
  const sortKey = sortKeyOf(REDEMPTION_SORT, q.sortKey);
  const inOrder = <O>(qb: SelectQueryBuilder<Database, 'redemptions', O>) =>
    qb
      .where(compileExportFilter(q.predicate, q.dialect, redemptionFilterFields(q.dialect)))
      .where(beyond(sortKey, 'redemptions.id', q))
      .$call((b) => ordered(b, sortKey, 'redemptions.id', q, UNIQUE_SORT_KEYS.redemption.includes(q.sortKey)))
      .limit(q.limit);
  if (q.dialect === 'postgres') {
    return inOrder(redemptionExportColumns(db, q, false).select(sortKey.as('sort_key'))).execute();
  }
  const keys = await inOrder(db.selectFrom('redemptions').select(['redemptions.id', sortKey.as('sort_key')]).where('redemptions.project_id', '=', q.projectId)).execute();
  if (keys.length === 0) return [];
  // Sorted by created_at, the key already holds it. (Selecting it next to `id in (…)` also made SQLite
  // walk the created_at index instead of looking the ids up.)
  const createdInKey = q.sortKey === 'created_at';
  const rows = await redemptionExportColumns(db, q, createdInKey)
    .where('redemptions.id', 'in', keys.map((k) => k.id))
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  // Records are never deleted, so every key finds its row; the guard only keeps the types honest.
  return keys.flatMap((key) => {
    const row = byId.get(key.id);
    return row ? [{ ...row, created_at: createdInKey ? key.sort_key : row.created_at, sort_key: key.sort_key }] : [];
  });
}

// ---- customers ----

export type CustomerExportRow = Selectable<CustomersTable> & { sort_key: string };

const CUSTOMER_SORT: Record<string, RawBuilder<string>> = {
  name: blank('customers.name'),
  id: ref('customers.id'),
  email: blank('customers.email'),
  // The expressions of indexes customers_source_order and customers_last_change.
  source_id: blank('customers.source_id'),
  created_at: ref('customers.created_at'),
  updated_at: sql<string>`coalesce(${sql.ref('customers.updated_at')}, ${sql.ref('customers.created_at')})`,
};

/** A sum over the live cards of one type the customer holds (the holdings of src/store/customers.ts). */
function heldSum(type: 'LOYALTY_CARD' | 'GIFT_VOUCHER', amount: Expr, campaignId?: string): Expr {
  const campaign = campaignId === undefined ? sql`` : sql` and v.campaign_id = ${campaignId}`;
  return sql`(select coalesce(sum(${amount}), 0) from vouchers as v left join campaigns as vc on vc.id = v.campaign_id and vc.project_id = v.project_id where v.project_id = ${sql.ref('customers.project_id')} and v.holder_id = ${sql.ref('customers.id')} and v.binned_at is null and v.type = ${type} and (v.campaign_id is null or vc.binned_at is null)${campaign})`;
}

function customerFields(dialect: Dialect): FieldSql {
  const address = (member: string) => jsonMemberAsText(dialect, 'customers.address', member);
  const publications = (element: Expr): SetSql => ({
    kind: 'rows',
    from: sql`publications as p`,
    where: sql<SqlBool>`(p.project_id = ${sql.ref('customers.project_id')} and p.customer_id = ${sql.ref('customers.id')})`,
    element,
  });
  return fieldSql(
    {
      created_at: ref('customers.created_at'),
      updated_at: ref('customers.updated_at'),
      email: ref('customers.email'),
      name: ref('customers.name'),
      city: ref('customers.address_city'),
      phone: ref('customers.phone'),
      // The deprecated member, falling back to the one that replaced it.
      birthday: sql`coalesce(${sql.ref('customers.birthday')}, ${sql.ref('customers.birthdate')})`,
      source_id: ref('customers.source_id'),
      'address.city': ref('customers.address_city'),
      'address.state': address('state'),
      'address.line_1': address('line_1'),
      'address.line_2': address('line_2'),
      'address.country': address('country'),
      'address.postal_code': address('postal_code'),
      'summary.redemptions.total_redeemed': ref('customers.redemptions_total_redeemed'),
      'summary.redemptions.total_failed': ref('customers.redemptions_total_failed'),
      'summary.redemptions.total_succeeded': ref('customers.redemptions_total_succeeded'),
      'summary.redemptions.total_rolled_back': ref('customers.redemptions_total_rolled_back'),
      'summary.redemptions.total_rollback_failed': ref('customers.redemptions_total_rollback_failed'),
      'summary.redemptions.total_rollback_succeeded': ref('customers.redemptions_total_rollback_succeeded'),
      'summary.redemptions.gift.redeemed_amount': heldSum('GIFT_VOUCHER', sql`v.redeemed_amount`),
      'summary.redemptions.gift.amount_to_go': heldSum('GIFT_VOUCHER', sql`v.gift_balance`),
      'summary.redemptions.loyalty_card.redeemed_points': heldSum('LOYALTY_CARD', sql`v.redeemed_points`),
      'summary.redemptions.loyalty_card.points_to_go': heldSum('LOYALTY_CARD', sql`v.loyalty_balance`),
      'summary.orders.total_amount': ref('customers.orders_total_amount'),
      'summary.orders.total_count': ref('customers.orders_total_count'),
      // As the customer object derives it: rounded mean, 0 without orders.
      'summary.orders.average_amount': sql`(case when ${sql.ref('customers.orders_total_count')} > 0 then round(${sql.ref('customers.orders_total_amount')} * 1.0 / ${sql.ref('customers.orders_total_count')}) else 0 end)`,
      'summary.orders.last_order_amount': sql`coalesce(${sql.ref('customers.orders_last_order_amount')}, 0)`,
      'summary.orders.last_order_date': ref('customers.orders_last_order_date'),
      'loyalty.points': heldSum('LOYALTY_CARD', sql`v.loyalty_points - v.loyalty_expired_points`),
      'loyalty.referred_customers': ref('customers.loyalty_referred_customers'),
    },
    {
      'publications.created_at': publications(sql`p.created_at`),
      'publications.related_object_id': publications(sql`p.voucher_id`),
    },
    { metadata: 'customers.metadata', system_metadata: 'customers.system_metadata' },
    (name) => (name.startsWith('loyalty_points.') ? heldSum('LOYALTY_CARD', sql`v.loyalty_balance`, name.slice('loyalty_points.'.length)) : null),
  );
}

export async function readCustomerBatch(db: Executor, q: ExportBatchQuery): Promise<CustomerExportRow[]> {
  const sortKey = sortKeyOf(CUSTOMER_SORT, q.sortKey);
  return db
    .selectFrom('customers')
    .selectAll('customers')
    .select(sortKey.as('sort_key'))
    .where('customers.project_id', '=', q.projectId)
    .where('customers.deleted_at', 'is', null)
    .where(compileExportFilter(q.predicate, q.dialect, customerFields(q.dialect)))
    .where(beyond(sortKey, 'customers.id', q))
    .$call((qb) => ordered(qb, sortKey, 'customers.id', q, UNIQUE_SORT_KEYS.customer.includes(q.sortKey)))
    .limit(q.limit)
    .execute();
}

// ---- publications ----

export type PublicationExportRow = Selectable<PublicationsTable> & {
  voucher_code: string | null;
  campaign_name: string | null;
  customer_source_id: string | null;
  sort_key: string;
};

const PUBLICATION_SORT: Record<string, RawBuilder<string>> = {
  id: ref('publications.id'),
  voucher_code: blank('v.code'),
  tracking_id: blank('publications.tracking_id'),
  customer_id: ref('publications.customer_id'),
  created_at: ref('publications.created_at'),
  channel: blank('publications.channel'),
};

function publicationFields(): FieldSql {
  return fieldSql(
    {
      created_at: ref('publications.created_at'),
      // Publications are recorded when they succeed; no failure code is ever stored.
      failure_code: sql`cast(null as text)`,
      result: ref('publications.result'),
      customer_id: ref('publications.customer_id'),
      campaign_name: ref('c.name'),
      voucher_type: ref('v.type'),
      is_referral_code: ref('v.is_referral_code'),
      // The publication's parent object is the campaign its voucher comes from.
      parent_object_id: ref('publications.campaign_id'),
      related_object_id: ref('publications.voucher_id'),
      source_id: ref('publications.source_id'),
    },
    {
      campaign: { kind: 'columns', exprs: [ref('publications.campaign_id'), ref('c.name')] },
      customer: { kind: 'columns', exprs: [ref('publications.customer_id'), ref('h.source_id')] },
      voucher: { kind: 'columns', exprs: [ref('publications.voucher_id'), ref('v.code')] },
    },
    { metadata: 'publications.metadata' },
  );
}

export async function readPublicationBatch(db: Executor, q: ExportBatchQuery): Promise<PublicationExportRow[]> {
  const sortKey = sortKeyOf(PUBLICATION_SORT, q.sortKey);
  return db
    .selectFrom('publications')
    .leftJoin('vouchers as v', (j) => j.onRef('v.id', '=', 'publications.voucher_id').onRef('v.project_id', '=', 'publications.project_id'))
    .leftJoin('campaigns as c', (j) => j.onRef('c.id', '=', 'publications.campaign_id').onRef('c.project_id', '=', 'publications.project_id'))
    .leftJoin('customers as h', (j) =>
      j.onRef('h.id', '=', 'publications.customer_id').onRef('h.project_id', '=', 'publications.project_id').on('h.deleted_at', 'is', null),
    )
    .selectAll('publications')
    .select(['v.code as voucher_code', 'c.name as campaign_name', 'h.source_id as customer_source_id'])
    .select(sortKey.as('sort_key'))
    .where('publications.project_id', '=', q.projectId)
    .where(compileExportFilter(q.predicate, q.dialect, publicationFields()))
    .where(beyond(sortKey, 'publications.id', q))
    .$call((qb) => ordered(qb, sortKey, 'publications.id', q, UNIQUE_SORT_KEYS.publication.includes(q.sortKey)))
    .limit(q.limit)
    .execute();
}

// ---- orders ----

export type OrderExportRow = Omit<Selectable<OrdersTable>, 'items' | 'redemptions' | 'project_id' | 'initial_amount' | 'paid_at'> & { sort_key: string };

const ORDER_SORT: Record<string, RawBuilder<string>> = {
  created_at: ref('orders.created_at'),
  // The expression of index orders_last_change.
  updated_at: sql<string>`coalesce(${sql.ref('orders.updated_at')}, ${sql.ref('orders.created_at')})`,
  status: ref('orders.status'),
};

function orderFields(): FieldSql {
  return fieldSql(
    {
      created_at: ref('orders.created_at'),
      updated_at: ref('orders.updated_at'),
      status: ref('orders.status'),
      source_id: ref('orders.source_id'),
      amount: ref('orders.amount'),
      total_amount: ref('orders.total_amount'),
      discount_amount: ref('orders.discount_amount'),
      total_discount_amount: ref('orders.total_discount_amount'),
      items_discount_amount: ref('orders.items_discount_amount'),
    },
    {},
    { metadata: 'orders.metadata' },
  );
}

export async function readOrderBatch(db: Executor, q: ExportBatchQuery): Promise<OrderExportRow[]> {
  const sortKey = sortKeyOf(ORDER_SORT, q.sortKey);
  // The lines and the redemptions map are left out: no column shows them and they can be large.
  return db
    .selectFrom('orders')
    .select([
      'orders.id',
      'orders.source_id',
      'orders.status',
      'orders.amount',
      'orders.discount_amount',
      'orders.items_discount_amount',
      'orders.total_discount_amount',
      'orders.total_amount',
      'orders.metadata',
      'orders.customer_id',
      'orders.referrer_id',
      'orders.created_at',
      'orders.updated_at',
    ])
    .select(sortKey.as('sort_key'))
    .where('orders.project_id', '=', q.projectId)
    .where(compileExportFilter(q.predicate, q.dialect, orderFields()))
    .where(beyond(sortKey, 'orders.id', q))
    .$call((qb) => ordered(qb, sortKey, 'orders.id', q, UNIQUE_SORT_KEYS.order.includes(q.sortKey)))
    .limit(q.limit)
    .execute();
}

// ---- loyalty points buckets ----

export type BucketExportRow = Selectable<LoyaltyBucketsTable> & { sort_key: string };

// A bucket without expiry never expires: it sorts after every date (index export_loyalty_buckets_expires_at).
const BUCKET_SORT: Record<string, RawBuilder<string>> = {
  expires_at: sql<string>`coalesce(${sql.ref('loyalty_buckets.expires_at')}, '9999-12-31')`,
};

export async function readBucketBatch(db: Executor, q: ExportBatchQuery): Promise<BucketExportRow[]> {
  const sortKey = sortKeyOf(BUCKET_SORT, q.sortKey);
  const fields = fieldSql({ campaign_id: ref('loyalty_buckets.campaign_id'), voucher_id: ref('loyalty_buckets.voucher_id') }, {}, {});
  return db
    .selectFrom('loyalty_buckets')
    .selectAll('loyalty_buckets')
    .select(sortKey.as('sort_key'))
    .where('loyalty_buckets.project_id', '=', q.projectId)
    .$if(q.campaignId !== null, (qb) => qb.where('loyalty_buckets.campaign_id', '=', q.campaignId))
    .where(compileExportFilter(q.predicate, q.dialect, fields))
    .where(beyond(sortKey, 'loyalty_buckets.id', q))
    .$call((qb) => ordered(qb, sortKey, 'loyalty_buckets.id', q, UNIQUE_SORT_KEYS.points_expiration.includes(q.sortKey)))
    .limit(q.limit)
    .execute();
}

// ---- voucher transactions ----

export type TransactionExportRow = Omit<Selectable<VoucherTransactionsTable>, 'bucket_moves'> & { sort_key: string };

export async function readTransactionBatch(db: Executor, q: ExportBatchQuery): Promise<TransactionExportRow[]> {
  const sortKey = sortKeyOf({ created_at: ref('voucher_transactions.created_at') }, q.sortKey);
  const fields = fieldSql(
    {
      created_at: ref('voucher_transactions.created_at'),
      voucher_id: ref('voucher_transactions.voucher_id'),
      campaign_id: ref('voucher_transactions.campaign_id'),
    },
    {},
    {},
  );
  return db
    .selectFrom('voucher_transactions')
    .select([
      'voucher_transactions.id',
      'voucher_transactions.project_id',
      'voucher_transactions.voucher_id',
      'voucher_transactions.campaign_id',
      'voucher_transactions.type',
      'voucher_transactions.source_id',
      'voucher_transactions.source',
      'voucher_transactions.reason',
      'voucher_transactions.amount',
      'voucher_transactions.balance_after',
      'voucher_transactions.total_after',
      'voucher_transactions.operation_type',
      'voucher_transactions.details',
      'voucher_transactions.related_transaction_id',
      'voucher_transactions.created_at',
    ])
    .select(sortKey.as('sort_key'))
    .where('voucher_transactions.project_id', '=', q.projectId)
    .$if(q.campaignId !== null, (qb) => qb.where('voucher_transactions.campaign_id', '=', q.campaignId))
    .$if(q.voucherId !== null, (qb) => qb.where('voucher_transactions.voucher_id', '=', q.voucherId))
    .where(compileExportFilter(q.predicate, q.dialect, fields))
    .where(beyond(sortKey, 'voucher_transactions.id', q))
    .$call((qb) => ordered(qb, sortKey, 'voucher_transactions.id', q, UNIQUE_SORT_KEYS.voucher_transactions.includes(q.sortKey)))
    .limit(q.limit)
    .execute();
}

/** Whether a live voucher of the project has this id (transaction exports may be limited to one). */
export async function voucherExists(db: Executor, projectId: string, voucherId: string): Promise<boolean> {
  const row = await db
    .selectFrom('vouchers')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', '=', voucherId)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a campaign of the project exists (voucher, transaction and points exports may be limited to one). */
export async function campaignExists(db: Executor, projectId: string, campaignId: string): Promise<boolean> {
  const row = await db
    .selectFrom('campaigns')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', '=', campaignId)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
