import { withMembers } from '../lib/objects.ts';
import { sql, type CompiledQuery, type Expression, type ExpressionBuilder, type Insertable, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { noteCustomerLocked } from './customer-locks.ts';
import { customerSearchCondition, emailKey, phoneKey, writeNameParts } from './customer-search.ts';
import { isPostgres, type Executor } from './db.ts';
import { definitionsVersionColumn, rowWithDefinitions, type DefinitionsView } from './definitions.ts';
import { fromJson, toJson } from './json.ts';
import { countLiveCustomers } from './list-counts.ts';
import { prepared } from './prepared.ts';
import { referralsOfCustomers } from './referrals.ts';
import type { CustomerDeletionsTable, CustomersTable, Database } from './schema.ts';

// Customers of one project. DELETE hides a row (`deleted_at`) and frees its source_id; only a permanent
// deletion removes it. Every read here sees live rows of one project only.

export type CustomerRow = Selectable<CustomersTable>;

export interface CustomerAddress {
  city: string | null;
  state: string | null;
  line_1: string | null;
  line_2: string | null;
  country: string | null;
  postal_code: string | null;
}

/** The customer object of seed 2.7 / platform reference 3.2 (without cockpit `assets`: we have no cockpits). */
export interface CustomerObject {
  id: string;
  source_id: string | null;
  name: string | null;
  description: string | null;
  email: string | null;
  phone: string | null;
  birthday: string | null;
  birthdate: string | null;
  address: CustomerAddress | null;
  metadata: Record<string, unknown>;
  system_metadata: Record<string, unknown>;
  summary: {
    redemptions: {
      total_redeemed: number;
      total_failed: number;
      total_succeeded: number;
      total_rolled_back: number;
      total_rollback_failed: number;
      total_rollback_succeeded: number;
      gift: { redeemed_amount: number; amount_to_go: number };
      loyalty_card: { redeemed_points: number; points_to_go: number };
    };
    orders: {
      total_amount: number;
      total_count: number;
      average_amount: number;
      last_order_amount: number;
      last_order_date: string | null;
    };
  };
  loyalty: { points: number; referred_customers: number; campaigns: Record<string, unknown> };
  referrals: { total: number; campaigns: CustomerReferral[] };
  created_at: string;
  updated_at: string | null;
  object: 'customer';
}

/** How the customer was referred, per referral campaign; fed by the referrals area. */
export interface CustomerReferral {
  campaign_id: string;
  referrer_id: string;
  related_object_id: string;
  related_object_type: string;
  date: string;
}

const ADDRESS_MEMBERS = ['city', 'state', 'line_1', 'line_2', 'country', 'postal_code'] as const;

export type AddressInput = Partial<Record<(typeof ADDRESS_MEMBERS)[number], string | null>>;

/** The writable members of a customer, as create and update bodies carry them; absent means "unchanged". */
export interface CustomerFields {
  name?: string | null;
  description?: string | null;
  email?: string | null;
  phone?: string | null;
  birthday?: string | null;
  birthdate?: string | null;
  address?: AddressInput | null;
  metadata?: Record<string, unknown> | null;
}

function fullAddress(input: AddressInput): CustomerAddress {
  const out = {} as CustomerAddress;
  for (const member of ADDRESS_MEMBERS) out[member] = input[member] ?? null;
  return out;
}

/** Column values for the members present in `fields`; members left out are not touched. */
export function customerColumns(fields: CustomerFields): Updateable<CustomersTable> {
  const columns: Updateable<CustomersTable> = {};
  if (fields.name !== undefined) columns.name = fields.name;
  if (fields.description !== undefined) columns.description = fields.description;
  if (fields.email !== undefined) {
    columns.email = fields.email;
    columns.email_key = emailKey(fields.email);
  }
  if (fields.phone !== undefined) {
    columns.phone = fields.phone;
    columns.phone_key = phoneKey(fields.phone);
  }
  if (fields.birthday !== undefined) columns.birthday = fields.birthday;
  if (fields.birthdate !== undefined) columns.birthdate = fields.birthdate;
  if (fields.address !== undefined) {
    const address = fields.address === null ? null : fullAddress(fields.address);
    columns.address = address === null ? null : toJson(address);
    columns.address_city = address?.city ?? null;
  }
  if (fields.metadata !== undefined) columns.metadata = toJson(fields.metadata ?? {});
  return columns;
}

/**
 * What a customer's vouchers add up to (seed 2.7 `loyalty`, `summary.redemptions.gift|loyalty_card`).
 * Derived from the vouchers the customer holds each time a customer is rendered, so it can never drift
 * from the cards themselves (no counter copies to keep in step).
 */
export interface CustomerHoldings {
  /** Lifetime points minus expired points, over every loyalty card held (the vendor's `loyalty.points`). */
  loyaltyPoints: number;
  /** Per loyalty program, keyed by campaign name: the remaining balance; `loyalty_tier` only when the member is in one. */
  campaigns: Record<string, { points: number; loyalty_tier?: string; referred_customers: number }>;
  redeemedPoints: number;
  /** Spendable balance over every loyalty card held. */
  pointsToGo: number;
  giftRedeemedAmount: number;
  /** Remaining gift credits over every gift card held. */
  giftAmountToGo: number;
}

export const NO_HOLDINGS: CustomerHoldings = {
  loyaltyPoints: 0,
  campaigns: {},
  redeemedPoints: 0,
  pointsToGo: 0,
  giftRedeemedAmount: 0,
  giftAmountToGo: 0,
};

const holdingsOf = prepared((db, p: { projectId: string; ids: string[] }) =>
  db
    .selectFrom('vouchers as v')
    .leftJoin('campaigns as c', (join) => join.onRef('c.id', '=', 'v.campaign_id').onRef('c.project_id', '=', 'v.project_id'))
    .leftJoin('loyalty_tier_members as tm', (join) => join.onRef('tm.voucher_id', '=', 'v.id').onRef('tm.project_id', '=', 'v.project_id'))
    .select(['v.holder_id', 'v.type', 'c.name as campaign_name', 'c.campaign_type'])
    .select((eb) => [
      // A member holds one card per program (join-once), so one tier per program and customer.
      eb.fn.max('tm.tier_id').as('tier_id'),
      eb.fn.sum<number>(sql`v.loyalty_points - v.loyalty_expired_points`).as('points_unexpired'),
      eb.fn.sum<number>('v.loyalty_balance').as('loyalty_balance'),
      eb.fn.sum<number>('v.redeemed_points').as('redeemed_points'),
      eb.fn.sum<number>('v.redeemed_amount').as('redeemed_amount'),
      eb.fn.sum<number>('v.gift_balance').as('gift_balance'),
    ])
    .where('v.project_id', '=', p.projectId)
    .where('v.holder_id', 'in', p.ids)
    .where('v.binned_at', 'is', null)
    .where('v.type', 'in', ['LOYALTY_CARD', 'GIFT_VOUCHER'])
    .where((eb) => eb.or([eb('v.campaign_id', 'is', null), eb('c.binned_at', 'is', null)]))
    .groupBy(['v.holder_id', 'v.type', 'c.id', 'c.name', 'c.campaign_type']),
);

/**
 * Holdings of several customers in one grouped query (a list page costs one query, not one per
 * customer). Binned vouchers and cards of binned campaigns do not count.
 */
export async function customerHoldings(db: Executor, projectId: string, customerIds: readonly string[]): Promise<Map<string, CustomerHoldings>> {
  const out = new Map<string, CustomerHoldings>();
  const ids = [...new Set(customerIds)];
  if (ids.length === 0) return out;
  const rows = await holdingsOf.all(db, { projectId, ids });
  for (const row of rows) {
    if (row.holder_id === null) continue;
    let h = out.get(row.holder_id);
    if (!h) {
      h = { ...NO_HOLDINGS, campaigns: {} };
      out.set(row.holder_id, h);
    }
    if (row.type === 'LOYALTY_CARD') {
      h.loyaltyPoints += Number(row.points_unexpired ?? 0);
      h.pointsToGo += Number(row.loyalty_balance ?? 0);
      h.redeemedPoints += Number(row.redeemed_points ?? 0);
      if (row.campaign_name !== null && row.campaign_type === 'LOYALTY_PROGRAM') {
        const entry = h.campaigns[row.campaign_name] ?? { points: 0, referred_customers: 0 };
        entry.points += Number(row.loyalty_balance ?? 0);
        // Left out for a member of no tier (a program without tiers): the vendor's schema has no null here.
        if (row.tier_id !== null) entry.loyalty_tier = row.tier_id;
        h.campaigns[row.campaign_name] = entry;
      }
    } else {
      h.giftRedeemedAmount += Number(row.redeemed_amount ?? 0);
      h.giftAmountToGo += Number(row.gift_balance ?? 0);
    }
  }
  return out;
}

/**
 * The customer object without looking at the customer's vouchers: loyalty and gift summaries read as
 * zero. Event snapshots of other areas use it; responses go through renderCustomers.
 */
export function toCustomerObject(row: CustomerRow): CustomerObject {
  return customerObjectWith(row, NO_HOLDINGS);
}

export function customerObjectWith(row: CustomerRow, holdings: CustomerHoldings): CustomerObject {
  const orderCount = Number(row.orders_total_count);
  const orderTotal = Number(row.orders_total_amount);
  return {
    id: row.id,
    source_id: row.source_id,
    name: row.name,
    description: row.description,
    email: row.email,
    phone: row.phone,
    birthday: row.birthday,
    birthdate: row.birthdate,
    address: fromJson<CustomerAddress | null>(row.address, null),
    metadata: fromJson(row.metadata, {}),
    system_metadata: fromJson(row.system_metadata, {}),
    summary: {
      redemptions: {
        total_redeemed: Number(row.redemptions_total_redeemed),
        total_failed: Number(row.redemptions_total_failed),
        total_succeeded: Number(row.redemptions_total_succeeded),
        total_rolled_back: Number(row.redemptions_total_rolled_back),
        total_rollback_failed: Number(row.redemptions_total_rollback_failed),
        total_rollback_succeeded: Number(row.redemptions_total_rollback_succeeded),
        gift: { redeemed_amount: holdings.giftRedeemedAmount, amount_to_go: holdings.giftAmountToGo },
        loyalty_card: { redeemed_points: holdings.redeemedPoints, points_to_go: holdings.pointsToGo },
      },
      orders: {
        total_amount: orderTotal,
        total_count: orderCount,
        // Derived rather than stored, so it can never disagree with the two counters it comes from.
        average_amount: orderCount > 0 ? Math.round(orderTotal / orderCount) : 0,
        last_order_amount: Number(row.orders_last_order_amount ?? 0),
        last_order_date: row.orders_last_order_date,
      },
    },
    loyalty: { points: holdings.loyaltyPoints, referred_customers: Number(row.loyalty_referred_customers), campaigns: holdings.campaigns },
    referrals: { total: 0, campaigns: [] },
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'customer',
  };
}

/** Customer objects with their holdings, one grouped query for all rows. */
export async function renderCustomers(db: Executor, projectId: string, rows: readonly CustomerRow[]): Promise<CustomerObject[]> {
  const holdings = await customerHoldings(db, projectId, rows.map((r) => r.id));
  // How each customer was referred comes from the referral records (src/store/referrals.ts).
  const referrals = await referralsOfCustomers(db, projectId, rows.map((r) => r.id));
  return rows.map((row) => withMembers(customerObjectWith(row, holdings.get(row.id) ?? NO_HOLDINGS), { referrals: referrals.get(row.id) ?? { total: 0, campaigns: [] } }));
}

export async function renderCustomer(db: Executor, projectId: string, row: CustomerRow): Promise<CustomerObject> {
  const [customer] = await renderCustomers(db, projectId, [row]);
  if (!customer) throw new Error('rendering one customer gave none');
  return customer;
}

/**
 * Inserts a customer unless a live customer of the project already holds its source_id (the unique index
 * decides, so two concurrent creates cannot both win). Answers the inserted row, or undefined when it was
 * not inserted; the caller then reads the winner. A conflict does not abort the surrounding transaction,
 * which matters to callers that create customers inside their own larger transaction.
 */
export async function insertCustomerIfAbsent(db: Executor, row: Insertable<CustomersTable>): Promise<CustomerRow | undefined> {
  return db
    .insertInto('customers')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'source_id']).where('source_id', 'is not', null).where('deleted_at', 'is', null).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
}

const liveCustomerById = prepared((db, p: { projectId: string; id: string }) =>
  db.selectFrom('customers').selectAll().where('id', '=', p.id).where('project_id', '=', p.projectId).where('deleted_at', 'is', null),
);

const liveCustomerBySourceId = prepared((db, p: { projectId: string; sourceId: string }) =>
  db.selectFrom('customers').selectAll().where('project_id', '=', p.projectId).where('source_id', '=', p.sourceId).where('deleted_at', 'is', null),
);

export async function findLiveCustomerById(db: Executor, projectId: string, id: string): Promise<CustomerRow | undefined> {
  return liveCustomerById.first(db, { projectId, id });
}

export async function findLiveCustomerBySourceId(db: Executor, projectId: string, sourceId: string): Promise<CustomerRow | undefined> {
  return liveCustomerBySourceId.first(db, { projectId, sourceId });
}

const liveCustomerByIdWithVersion = prepared((db, p: { projectId: string; id: string }) =>
  db.selectFrom('customers').selectAll().select(definitionsVersionColumn(p.projectId)).where('id', '=', p.id).where('project_id', '=', p.projectId).where('deleted_at', 'is', null),
);

const liveCustomerBySourceIdWithVersion = prepared((db, p: { projectId: string; sourceId: string }) =>
  db
    .selectFrom('customers')
    .selectAll()
    .select(definitionsVersionColumn(p.projectId))
    .where('project_id', '=', p.projectId)
    .where('source_id', '=', p.sourceId)
    .where('deleted_at', 'is', null),
);

/** A live customer by id or by source_id, and the definitions view as of the same statement (definitionsVersionColumn). */
export async function findLiveCustomerWithDefinitions(
  db: Executor,
  projectId: string,
  by: { id: string } | { sourceId: string },
): Promise<{ row: CustomerRow; definitions: DefinitionsView } | undefined> {
  const found = 'id' in by ? await liveCustomerByIdWithVersion.first(db, { projectId, id: by.id }) : await liveCustomerBySourceIdWithVersion.first(db, { projectId, sourceId: by.sourceId });
  return rowWithDefinitions(db, projectId, found);
}

// The same reads, holding the row until the transaction ends (PostgreSQL; SQLite writers take turns): a
// redemption locks its customer anyway, and reading and locking in one statement saves a round trip. They
// read the definitions version too (definitionsVersionColumn): the redemption needs the definitions right
// after its customer, and takes them from this statement instead of a read of its own.
const lockedCustomerBy = (column: 'id' | 'source_id') =>
  prepared((db, p: { projectId: string; key: string }) => {
    const query = db
      .selectFrom('customers')
      .selectAll()
      .select(definitionsVersionColumn(p.projectId))
      .where('project_id', '=', p.projectId)
      .where(column, '=', p.key)
      .where('deleted_at', 'is', null);
    return isPostgres(db) ? query.forUpdate() : query;
  });
const lockedCustomerById = lockedCustomerBy('id');
const lockedCustomerBySourceId = lockedCustomerBy('source_id');

/**
 * A live customer by id or source_id, its row locked (src/store/customer-locks.ts) when found. Inside a
 * transaction that has no definitions view yet, the version the statement read becomes its view
 * (src/store/definitions.ts), so `definitions()` afterwards reads nothing.
 */
export async function lockLiveCustomer(db: Executor, projectId: string, by: { id: string } | { sourceId: string }): Promise<CustomerRow | undefined> {
  return lockedCustomerOf(db, projectId, (await db.executeQuery(lockedCustomerQuery(db, projectId, by))).rows);
}

/** lockLiveCustomer's statement, to be sent with another read (src/store/combined-reads.ts). */
export function lockedCustomerQuery(db: Executor, projectId: string, by: { id: string } | { sourceId: string }): CompiledQuery {
  return 'id' in by ? lockedCustomerById.bind(db, { projectId, key: by.id }) : lockedCustomerBySourceId.bind(db, { projectId, key: by.sourceId });
}

/** The customer lockLiveCustomer answers, from the rows of its statement. */
export async function lockedCustomerOf(db: Executor, projectId: string, rows: readonly unknown[]): Promise<CustomerRow | undefined> {
  const read = await rowWithDefinitions(db, projectId, rows[0] as (CustomerRow & { definitions_version: number | string | null }) | undefined);
  if (read) noteCustomerLocked(db, projectId, read.row.id);
  return read?.row;
}

export async function findLiveCustomersByIds(db: Executor, projectId: string, ids: readonly string[]): Promise<CustomerRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('customers').selectAll().where('project_id', '=', projectId).where('id', 'in', [...new Set(ids)]).where('deleted_at', 'is', null).execute();
}

/** A path's `customerId` is an id or a source_id; an id wins when a value could be both. */
export async function findLiveCustomer(db: Executor, projectId: string, idOrSourceId: string): Promise<CustomerRow | undefined> {
  const byId = couldBeCustomerId(idOrSourceId) ? await findLiveCustomerById(db, projectId, idOrSourceId) : undefined;
  return byId ?? (await findLiveCustomerBySourceId(db, projectId, idOrSourceId));
}

/**
 * Whether a value an API path takes as "id or source_id" may be a customer id. Every customer id is made by
 * `ids.next('cust')`, so a value without that prefix can only be a source_id: looking it up by id as well
 * would cost a statement that never finds anything (GET /v1/customers/{source_id} ran two).
 */
export function couldBeCustomerId(value: string): boolean {
  return value.startsWith('cust_');
}

/** A deleted (hidden) customer by id, which a permanent deletion may still erase. */
export async function findDeletedCustomerById(db: Executor, projectId: string, id: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is not', null)
    .executeTakeFirst();
}

/** Changes a live customer; answers the row as changed, or undefined when it was gone (a concurrent delete won). */
export async function updateCustomer(db: Executor, projectId: string, id: string, patch: Updateable<CustomersTable>): Promise<CustomerRow | undefined> {
  return db
    .updateTable('customers')
    .set(patch)
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Hides a live customer; false when it was already gone (a concurrent delete won). */
export async function markCustomerDeleted(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  return (await updateCustomer(db, projectId, id, { deleted_at: at })) !== undefined;
}

/** Removes the row itself, live or hidden, and its name parts (personal data too). */
export async function eraseCustomer(db: Executor, projectId: string, row: { id: string; name: string | null }): Promise<number> {
  const { id } = row;
  await writeNameParts(db, projectId, id, row.name, null);
  const result = await db.deleteFrom('customers').where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertCustomerDeletion(db: Executor, row: Insertable<CustomerDeletionsTable>): Promise<void> {
  await db.insertInto('customer_deletions').values(row).execute();
}

export type CustomerSortKey = 'created_at' | 'updated_at' | 'source_id';

// These expressions must stay identical to the ones the foundation migration indexes
// (customers_last_change, customers_source_order): both databases match an index expression verbatim.
// "Updated" means the last change, which is the creation for a customer never updated.
const LAST_CHANGE = sql<string>`coalesce(updated_at, created_at)`;
const SOURCE_ORDER = sql<string>`coalesce(source_id, '')`;

function sortExpression(key: CustomerSortKey): Expression<string> {
  switch (key) {
    case 'created_at':
      return sql<string>`${sql.ref('created_at')}`;
    case 'updated_at':
      return LAST_CHANGE;
    case 'source_id':
      return SOURCE_ORDER;
  }
}

export interface CustomerListQuery {
  projectId: string;
  limit: number;
  offset: number;
  sort: CustomerSortKey;
  descending: boolean;
  email?: string;
  name?: string;
  city?: string;
  /** Only members of this segment (served by the segment_members primary key). */
  segmentId?: string;
  /** Exclusive bounds on `created_at`. */
  createdBefore?: string;
  createdAfter?: string;
  /** Exclusive bounds on the last change (`updated_at`, or `created_at` when never updated). */
  updatedBefore?: string;
  updatedAfter?: string;
  /** `created_at` cursor: only customers created beyond it in walking direction. */
  startingAfter?: string;
  /** Prefix of a name's word, an e-mail, a phone number or a source_id (src/store/customer-search.ts). */
  search?: string;
}

function listFilters(db: Executor, eb: ExpressionBuilder<Database, 'customers'>, q: CustomerListQuery): Expression<SqlBool> {
  // A search is led by the customers it found (an index range per branch, then the primary key), never by
  // walking the project's whole list in the page's order and testing each one against the search: SQLite
  // picks that walk to spare a sort unless project_id is kept off its indexes here (the unary plus).
  const project = q.search !== undefined && !isPostgres(db) ? eb(sql<string>`+customers.project_id`, '=', q.projectId) : eb('project_id', '=', q.projectId);
  const conditions: Expression<SqlBool>[] = [project, eb('deleted_at', 'is', null)];
  if (q.email !== undefined) conditions.push(eb('email', '=', q.email));
  if (q.name !== undefined) conditions.push(eb('name', '=', q.name));
  if (q.city !== undefined) conditions.push(eb('address_city', '=', q.city));
  if (q.search !== undefined) conditions.push(customerSearchCondition(db, eb, q.projectId, q.search));
  if (q.segmentId !== undefined) {
    const segmentId = q.segmentId;
    conditions.push(
      eb.exists(
        eb
          .selectFrom('segment_members as m')
          .select('m.customer_id')
          .whereRef('m.project_id', '=', 'customers.project_id')
          .where('m.segment_id', '=', segmentId)
          .whereRef('m.customer_id', '=', 'customers.id'),
      ),
    );
  }
  if (q.createdBefore !== undefined) conditions.push(eb('created_at', '<', q.createdBefore));
  if (q.createdAfter !== undefined) conditions.push(eb('created_at', '>', q.createdAfter));
  if (q.updatedBefore !== undefined) conditions.push(eb(LAST_CHANGE, '<', q.updatedBefore));
  if (q.updatedAfter !== undefined) conditions.push(eb(LAST_CHANGE, '>', q.updatedAfter));
  return eb.and(conditions);
}

export async function listCustomers(
  db: Executor,
  q: CustomerListQuery,
): Promise<{ rows: CustomerRow[]; total: number; hasMore: boolean }> {
  const direction = q.descending ? 'desc' : 'asc';
  let page = db
    .selectFrom('customers')
    .selectAll()
    .where((eb) => listFilters(db, eb, q));
  if (q.startingAfter !== undefined) page = page.where('created_at', q.descending ? '<' : '>', q.startingAfter);
  // One row beyond the page tells whether another page exists without a second scan.
  const rows = await page
    .orderBy(sortExpression(q.sort), direction)
    .orderBy('id', direction)
    .offset(q.offset)
    .limit(q.limit + 1)
    .execute();
  // The total leaves the cursor out: it is how many customers match the filters. Without filters that is
  // every live customer, a kept count (customer_counts); filters count the customers they select.
  const total = unfiltered(q) ? await countLiveCustomers(db, q.projectId) : await countMatching(db, q);
  return { rows: rows.slice(0, q.limit), total, hasMore: rows.length > q.limit };
}

async function countMatching(db: Executor, q: CustomerListQuery): Promise<number> {
  const row = await db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => listFilters(db, eb, q))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function unfiltered(q: CustomerListQuery): boolean {
  return (
    q.email === undefined &&
    q.name === undefined &&
    q.city === undefined &&
    q.search === undefined &&
    q.segmentId === undefined &&
    q.createdBefore === undefined &&
    q.createdAfter === undefined &&
    q.updatedBefore === undefined &&
    q.updatedAfter === undefined
  );
}
