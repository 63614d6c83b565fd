import type { ListActivitiesInput, ListActivityInput } from '../../api/customers.ts';
import { errors } from '../../domain/errors.ts';
import { findLiveCustomer } from '../../store/customers.ts';
import {
  ACTIVITY_WINDOW,
  countActivitiesInRange,
  findCustomerEvent,
  listCustomerActivities,
  type ActivityQuery,
  type ActivitySortKey,
  toStoredEvent,
  type EventRow,
  type EventSource,
  type StoredEvent,
} from '../../store/events.ts';
import { listing, type Actor, type Deps } from '../context.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { expandEventData } from '../events/expand.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Both activity lists (DECISIONS 6) are queries over the event log: events that carry an activity type
// and the customer's id. The seed's `/activities` answers a total; the vendor's newer `/activity` answers
// has_more and the id to continue from.

export interface CustomerActivity {
  id: string;
  type: string;
  data: { data: Record<string, unknown>; event_source: EventSource };
  created_at: string;
  group_id: string;
}

/** The activities of one page, their payloads expanded (src/services/events/expand.ts). */
async function toActivities(deps: Deps, actor: Actor, events: readonly StoredEvent[]): Promise<CustomerActivity[]> {
  const payloads = await expandEventData(deps.db, actor.projectId, events);
  return events.map((event, i) => ({
    id: event.id,
    // The query selects activity events only, so the type is always present.
    type: event.activityType ?? event.type,
    data: { data: payloads[i] ?? event.data, event_source: event.source },
    created_at: event.createdAt,
    group_id: event.groupId,
  }));
}

/** The activities of the rows a page read, leaving out those whose stored JSON does not parse. */
function readableActivities(deps: Deps, actor: Actor, rows: readonly EventRow[]): Promise<CustomerActivity[]> {
  return readableRows(listing(deps, actor, 'customer_activity'), rows, (some) => toActivities(deps, actor, some.map(toStoredEvent)));
}

type OrderName = NonNullable<ListActivitiesInput['order']>;

// Activities never change after they are written, so "updated" orders the same way as "created".
const SORT_BY_ORDER: Record<OrderName, ActivitySortKey> = {
  created_at: 'created_at',
  '-created_at': 'created_at',
  updated_at: 'created_at',
  '-updated_at': 'created_at',
  type: 'type',
  '-type': 'type',
  code: 'code',
  '-code': 'code',
  campaign: 'campaign',
  '-campaign': 'campaign',
  category: 'category',
  '-category': 'category',
};

interface CommonFilters {
  limit?: number;
  order?: OrderName;
  starting_after_id?: string;
  campaign_type?: string;
  campaign_id?: string;
  start_date?: string;
  end_date?: string;
}

/** The customer (404 when unknown to this project) and the query shared by both lists. */
async function buildQuery(deps: Deps, actor: Actor, customerId: string, input: CommonFilters): Promise<ActivityQuery> {
  const customer = await findLiveCustomer(deps.db, actor.projectId, customerId);
  if (!customer) throw errors.notFound('customer', customerId);
  const order = input.order ?? '-created_at';
  const sort = SORT_BY_ORDER[order];
  const query: ActivityQuery = {
    projectId: actor.projectId,
    customerId: customer.id,
    limit: input.limit ?? 10,
    sort,
    descending: order.startsWith('-'),
    campaignId: input.campaign_id,
    campaignType: input.campaign_type,
    startDate: input.start_date === undefined ? undefined : queryInstant(input.start_date),
    endDate: input.end_date === undefined ? undefined : queryInstant(input.end_date, { wholeDay: true }),
  };
  if (input.starting_after_id !== undefined) {
    const cursor = await findCustomerEvent(deps.db, actor.projectId, customer.id, input.starting_after_id, sort);
    if (!cursor) {
      throw errors.invalidQuery(`Property .starting_after_id names no activity of customer ${customerId}: ${input.starting_after_id}`);
    }
    query.startingAfterEvent = cursor;
  }
  return query;
}

/**
 * Filters the activity index does not hold (campaign, product, type, category) and orders other than
 * created_at make the database read every activity of the date range, so they are served while the
 * range holds at most ACTIVITY_WINDOW activities (README "HTTP conventions"); beyond that, 400.
 */
async function assertWithinWindow(deps: Deps, query: ActivityQuery): Promise<void> {
  const readsWholeRange =
    query.sort !== 'created_at' ||
    [query.campaignId, query.campaignType, query.productId, query.type, query.category].some((filter) => filter !== undefined);
  if (!readsWholeRange || (await countActivitiesInRange(deps.db, query)) <= ACTIVITY_WINDOW) return;
  throw errors.invalidQuery(
    `More than ${ACTIVITY_WINDOW} activities lie between start_date and end_date: with campaign_id, campaign_type, product_id, type or category, or an order other than created_at, narrow start_date/end_date to at most ${ACTIVITY_WINDOW}`,
  );
}

export interface ActivitiesList {
  object: 'list';
  data_ref: 'data';
  data: CustomerActivity[];
  total: number;
}

/** `GET /v1/customers/{customerId}/activities` (seed 4.6). */
export async function listActivities(deps: Deps, actor: Actor, customerId: string, input: ListActivitiesInput): Promise<ActivitiesList> {
  const query = await buildQuery(deps, actor, customerId, input);
  if (input.starting_after !== undefined) query.startingAfter = queryInstant(input.starting_after);
  if (input.product_id !== undefined) query.productId = input.product_id;
  await assertWithinWindow(deps, query);
  const result = await listCustomerActivities(deps.db, query, { withTotal: true });
  return { object: 'list', data_ref: 'data', data: await readableActivities(deps, actor, result.rows), total: result.total ?? 0 };
}

export interface ActivityList {
  object: 'list';
  data_ref: 'data';
  data: CustomerActivity[];
  has_more: boolean;
  more_starting_after?: string;
}

/** `GET /v1/customers/{customerId}/activity` (platform reference 3.6): no total, an id cursor instead. */
export async function listActivity(deps: Deps, actor: Actor, customerId: string, input: ListActivityInput): Promise<ActivityList> {
  const query = await buildQuery(deps, actor, customerId, input);
  if (input.type !== undefined) query.type = input.type;
  if (input.category !== undefined) query.category = input.category;
  await assertWithinWindow(deps, query);
  const result = await listCustomerActivities(deps.db, query, { withTotal: false });
  const data = await readableActivities(deps, actor, result.rows);
  // The next page continues after the last row read, shown or left out.
  const last = result.rows[result.rows.length - 1];
  return {
    object: 'list',
    data_ref: 'data',
    data,
    has_more: result.hasMore,
    ...(result.hasMore && last ? { more_starting_after: last.id } : {}),
  };
}
