import type { ScopedExportInput } from '../../api/exports.ts';
import type { CampaignTransactionsInput, MemberTransactionsInput } from '../../api/vouchers.ts';
import type { MemberActivitiesInput, MemberActivityInput, PageInput } from '../../api/loyalty.ts';
import { errors } from '../../domain/errors.ts';
import { findCardEvent, listCardActivity, listUsableBuckets, toCardEvent, type CardEvent, type CardEventRow } from '../../store/loyalty.ts';
import { listing, type Actor, type Deps } from '../context.ts';
import { expandEventData } from '../events/expand.ts';
import { createScopedExport } from '../exports/exports.ts';
import {
  exportTransactionsOfCampaign,
  exportTransactionsOfCard,
  listTransactionsOfCampaign,
  listTransactionsOfCard,
  type TransactionList,
} from '../vouchers/transactions.ts';
import { loyaltyCard, loyaltyProgram, projectDay } from './cards.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// What happened to a card, read back: its transactions and its program's (loyalty reference 2.7) and
// their exports, the points it holds by expiry date (2.8.1) and their export (2.8.3), and its activity,
// the event log filtered by the card (2.6).

/** Card transactions: the voucher area's list, so gift and loyalty cards page and render the same way. */
export async function cardTransactions(deps: Deps, actor: Actor, campaignId: string | null, memberId: string, query: MemberTransactionsInput): Promise<TransactionList> {
  const program = campaignId === null ? undefined : await loyaltyProgram(deps.db, actor, campaignId);
  const card = await loyaltyCard(deps.db, actor, memberId, program);
  return listTransactionsOfCard(deps, actor, card, query);
}

/** `GET /v1/loyalties/{campaignId}/transactions`: every card transaction of the program. */
export async function programTransactions(deps: Deps, actor: Actor, campaignId: string, query: CampaignTransactionsInput): Promise<TransactionList> {
  return listTransactionsOfCampaign(deps, actor, await loyaltyProgram(deps.db, actor, campaignId), query);
}

/** `POST /v1/loyalties/{campaignId}/transactions/export`. */
export async function exportProgramTransactions(deps: Deps, actor: Actor, campaignId: string, input: ScopedExportInput) {
  return exportTransactionsOfCampaign(deps, actor, await loyaltyProgram(deps.db, actor, campaignId), input);
}

/** `POST /v1/loyalties/members/{memberId}/transactions/export` and the form with the program in the path. */
export async function exportCardTransactions(deps: Deps, actor: Actor, campaignId: string | null, memberId: string, input: ScopedExportInput) {
  const program = campaignId === null ? undefined : await loyaltyProgram(deps.db, actor, campaignId);
  return exportTransactionsOfCard(deps, actor, await loyaltyCard(deps.db, actor, memberId, program), input);
}

/** `POST /v1/loyalties/{campaignId}/points-expiration/export`: the program's points buckets as CSV. */
export async function exportPointsExpiration(deps: Deps, actor: Actor, campaignId: string, input: ScopedExportInput) {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  return createScopedExport(deps, actor, 'points_expiration', input, { campaign_id: program.id });
}

export interface PointsBucketObject {
  id: string;
  voucher_id: string;
  campaign_id: string | null;
  bucket: { total_points: number };
  status: 'ACTIVE';
  expires_at?: string;
  created_at: string;
  updated_at: string | null;
  object: 'loyalty_points_bucket';
}

/**
 * `GET /v1/loyalties/{campaignId}/members/{memberId}/points-expiration`: buckets still usable today in
 * the project's time zone, soonest expiry first and never-expiring last. Emptied buckets stay listed
 * (as the vendor's examples show); a bucket past its last day is gone even before the expiry job ran.
 */
export async function pointsExpiration(deps: Deps, actor: Actor, campaignId: string, memberId: string, query: PageInput) {
  const program = await loyaltyProgram(deps.db, actor, campaignId);
  const card = await loyaltyCard(deps.db, actor, memberId, program);
  const day = await projectDay(deps.db, deps, actor.projectId);
  const limit = query.limit ?? 10;
  const { rows, total } = await listUsableBuckets(deps.db, actor.projectId, card.id, day.today, limit, ((query.page ?? 1) - 1) * limit);
  const data: PointsBucketObject[] = rows.map((b) => ({
    id: b.id,
    voucher_id: b.voucher_id,
    campaign_id: b.campaign_id,
    bucket: { total_points: Number(b.points) },
    status: 'ACTIVE',
    ...(b.expires_at !== null ? { expires_at: b.expires_at } : {}),
    created_at: b.created_at,
    updated_at: b.updated_at,
    object: 'loyalty_points_bucket',
  }));
  return { object: 'list' as const, data_ref: 'data' as const, data, total };
}

/** The activities' data: payloads expanded (src/services/events/expand.ts), with the event source. */
async function activityData(deps: Deps, actor: Actor, events: readonly CardEvent[]): Promise<Array<Record<string, unknown>>> {
  const payloads = await expandEventData(deps.db, actor.projectId, events.map((e) => ({ type: e.eventType, data: e.data })));
  return events.map((event, i) => ({ ...(payloads[i] ?? event.data), event_source: event.source }));
}

/** The events of the rows a page read, with their data, leaving out those whose stored JSON does not parse. */
function readableActivities(deps: Deps, actor: Actor, rows: readonly CardEventRow[]): Promise<Array<{ event: CardEvent; data: Record<string, unknown> }>> {
  return readableRows(listing(deps, actor, 'card_activity'), rows, async (some) => {
    const events = some.map(toCardEvent);
    const data = await activityData(deps, actor, events);
    return events.map((event, i) => ({ event, data: data[i] ?? {} }));
  });
}

export interface MemberActivityList {
  object: 'list';
  data_ref: 'data';
  data: { id: string; type: string; data: Record<string, unknown>; created_at: string; group_id: string }[];
  has_more: boolean;
  more_starting_after?: string;
}

/** `GET …/members/{memberId}/activity`: the card's activities, newest first, with an event-id cursor. */
export async function memberActivity(deps: Deps, actor: Actor, campaignId: string | null, memberId: string, query: MemberActivityInput): Promise<MemberActivityList> {
  const program = campaignId === null ? undefined : await loyaltyProgram(deps.db, actor, campaignId);
  const card = await loyaltyCard(deps.db, actor, memberId, program);
  let after: { createdAt: string; seq: number } | undefined;
  if (query.starting_after_id !== undefined) {
    const found = await findCardEvent(deps.db, actor.projectId, card.code, query.starting_after_id);
    if (!found) throw errors.invalidQuery(`Property .starting_after_id names no activity of card ${card.code}: ${query.starting_after_id}`);
    after = found;
  }
  const { rows, hasMore } = await listCardActivity(deps.db, {
    projectId: actor.projectId,
    voucherCode: card.code,
    since: card.created_at,
    limit: query.limit ?? 10,
    descending: (query.order ?? '-created_at') === '-created_at',
    ...(after ? { after } : {}),
    withTotal: false,
  });
  const shown = await readableActivities(deps, actor, rows);
  const data = shown.map(({ event: e, data }) => ({ id: e.id, type: e.type, data, created_at: e.createdAt, group_id: e.groupId }));
  // The next page continues after the last row read, shown or left out.
  const last = rows.at(-1);
  return { object: 'list', data_ref: 'data', data, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}

export interface MemberActivitiesList {
  object: 'list';
  data_ref: 'activities';
  activities: { id: string; type: string; object: 'event'; data: Record<string, unknown>; created_at: string; group_id: string }[];
  total: number;
}

/** `GET …/members/{memberId}/activities`: the older form the SDK's getMemberActivities reads (pages and a total). */
export async function memberActivities(deps: Deps, actor: Actor, campaignId: string | null, memberId: string, query: MemberActivitiesInput): Promise<MemberActivitiesList> {
  const program = campaignId === null ? undefined : await loyaltyProgram(deps.db, actor, campaignId);
  const card = await loyaltyCard(deps.db, actor, memberId, program);
  const limit = query.limit ?? 10;
  const { rows, total } = await listCardActivity(deps.db, {
    projectId: actor.projectId,
    voucherCode: card.code,
    since: card.created_at,
    limit,
    descending: true,
    // At most 100 pages of 100: the deepest offset stays inside the ACTIVITY_WINDOW the total counts.
    offset: ((query.page ?? 1) - 1) * limit,
    withTotal: true,
  });
  const shown = await readableActivities(deps, actor, rows);
  return {
    object: 'list',
    data_ref: 'activities',
    activities: shown.map(({ event: e, data }) => ({ id: e.id, type: e.type, object: 'event' as const, data, created_at: e.createdAt, group_id: e.groupId })),
    total: total ?? 0,
  };
}
