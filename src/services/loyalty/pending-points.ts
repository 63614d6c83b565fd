import type { PendingAdjustInput, PendingListInput } from '../../api/loyalty.ts';
import { businessError, errors } from '../../domain/errors.ts';
import type { ExpirationRules } from '../../domain/loyalty/points-expiry.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import {
  addToCardPendingPoints,
  adjustPendingPoints,
  closePendingPoints,
  findPendingPoints,
  insertPendingPoints,
  listPendingPoints,
  type PendingPointsRow,
} from '../../store/loyalty.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { campaignRef, customerSummary, lockedCard, loyaltyCard, loyaltyProgram, programOf, projectDay, renderCard, type ProjectDay } from './cards.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Pending points (loyalty reference 2.9): points an order earned that become usable on `activates_at`.
// They are not part of `points` or `balance` until then; the card's `pending_points` counts them. Entries
// are created by the earning rules (addPendingPoints), activated by the periodic task when due or by
// hand (./pending-activation.ts), adjusted or canceled while PENDING. Every state change is one conditional UPDATE.

export interface PendingPointsObject {
  id: string;
  voucher_id: string;
  campaign_id: string | null;
  customer_id: string | null;
  order_id: string | null;
  points: number;
  activates_at: string;
  details: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
}

export function toPendingPointsObject(row: PendingPointsRow): PendingPointsObject {
  return {
    id: row.id,
    voucher_id: row.voucher_id,
    campaign_id: row.campaign_id,
    customer_id: row.customer_id,
    order_id: row.order_id,
    points: Number(row.points),
    activates_at: row.activates_at,
    details: fromJson(row.details, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface PendingBalanceObject {
  points: number;
  total: number;
  object: 'balance';
  related_object: { type: 'voucher'; id: string };
  operation_type: 'MANUAL';
}

function pendingBalance(card: VoucherRow, delta: number): PendingBalanceObject {
  return { points: delta, total: Number(card.loyalty_pending_points), object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' };
}

type PendingEventKind = 'added' | 'updated' | 'canceled';

async function pendingEvent(tx: Tx, deps: Deps, actor: Actor, kind: PendingEventKind, card: VoucherRow, program: CampaignRow, entry: PendingPointsObject, balance: PendingBalanceObject, day: ProjectDay) {
  return makeEvent(deps, actor, {
    type: `voucher.loyalty_card.pending_points.${kind}`,
    activityType: card.holder_id ? `customer.voucher.loyalty_card.pending_points.${kind}` : null,
    activityCategory: card.holder_id ? (kind === 'added' ? 'EFFECT' : 'ACTION') : null,
    customerId: card.holder_id,
    campaign: campaignRef(program),
    voucherCode: card.code,
    entityId: entry.id,
    data: {
      voucher: await renderCard(tx, deps, actor, card, day),
      voucher_pending_points_balance: balance,
      campaign: campaignRef(program),
      customer: await customerSummary(tx, actor.projectId, card.holder_id),
      order: entry.details.order ?? null,
      pending_points: entry,
    },
  });
}

export interface NewPendingPoints {
  points: number;
  /** YYYY-MM-DD in the project's time zone: the points become usable from the start of that day. */
  activates_at: string;
  /** order, event, earning_rule, loyalty_tier, holder_loyalty_tier, as the vendor's entries carry them. */
  details: Record<string, unknown>;
  /** The earning rule's own expiry rules; the program's apply when absent (counted from activation). */
  expiration_rules?: ExpirationRules | null;
}

/**
 * For the earning rules (`pending_points` on an order.paid rule): records pending points on a card
 * inside the caller's transaction and emits `voucher.loyalty_card.pending_points.added`.
 */
export async function addPendingPoints(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, input: NewPendingPoints): Promise<PendingPointsObject> {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) throw businessError('invalid_amount', 'Invalid Amount', { details: 'Pending points must be a positive whole number' });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.activates_at)) throw errors.invalidPayload(`activates_at must be a date (YYYY-MM-DD), not ${input.activates_at}`);
  const now = deps.clock.now().toISOString();
  const order = input.details.order as { id?: unknown } | undefined;
  const row: PendingPointsRow = {
    id: deps.ids.next('lopp'),
    project_id: actor.projectId,
    voucher_id: card.id,
    campaign_id: card.campaign_id,
    customer_id: card.holder_id,
    order_id: typeof order?.id === 'string' ? order.id : null,
    points: input.points,
    activates_at: input.activates_at,
    status: 'PENDING',
    details: toJson(input.details),
    expiration_rules: input.expiration_rules ? toJson(input.expiration_rules) : null,
    created_at: now,
    updated_at: null,
  };
  await insertPendingPoints(tx, row);
  const after = await addToCardPendingPoints(tx, actor.projectId, card.id, input.points, now);
  if (!after) throw errors.notFound('voucher', card.code);
  const program = await programOf(tx, actor, after);
  const day = await projectDay(tx, deps, actor.projectId);
  const entry = toPendingPointsObject(row);
  await appendEvents(tx, [await pendingEvent(tx, deps, actor, 'added', after, program, entry, pendingBalance(after, input.points), day)]);
  return entry;
}

export interface PendingPointsList {
  object: 'list';
  data_ref: 'data';
  data: PendingPointsObject[];
  has_more: boolean;
  more_starting_after?: string;
}

/** The PENDING entries of a program (`memberId` null) or of one card. */
export async function listPending(deps: Deps, actor: Actor, campaignId: string | null, memberId: string | null, query: PendingListInput): Promise<PendingPointsList> {
  const program = campaignId === null ? undefined : await loyaltyProgram(deps.db, actor, campaignId);
  const card = memberId === null ? undefined : await loyaltyCard(deps.db, actor, memberId, program);
  const { rows, hasMore } = await listPendingPoints(deps.db, {
    projectId: actor.projectId,
    ...(program ? { campaignId: program.id } : {}),
    ...(card ? { voucherId: card.id } : {}),
    limit: query.limit ?? 10,
    descending: (query.order ?? '-id') === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
  });
  const data = await readableRows(listing(deps, actor, 'pending_points'), rows, (some) => some.map(toPendingPointsObject));
  // The next page continues after the last row read, shown or left out.
  const last = rows.at(-1);
  return { object: 'list', data_ref: 'data', data, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}

const VERB = { activate: 'activated', update: 'updated', cancel: 'canceled' } as const;

/** The card (locked) and the entry named by a pending-points path; 404 unless the entry is the card's. */
export async function cardAndEntry(tx: Tx, actor: Actor, memberId: string, pendingPointsId: string): Promise<{ card: VoucherRow; entry: PendingPointsRow }> {
  const card = await lockedCard(tx, actor, await loyaltyCard(tx, actor, memberId));
  const entry = await findPendingPoints(tx, actor.projectId, pendingPointsId);
  if (!entry || entry.voucher_id !== card.id) throw errors.notFound('pending_points', pendingPointsId);
  return { card, entry };
}

export function stateError(action: keyof typeof VERB, entry: PendingPointsRow) {
  return businessError('invalid_pending_points_state', 'Invalid pending points state', {
    details: `Only pending points in 'PENDING' status can be ${VERB[action]}. Current status: '${entry.status}'.`,
    resourceId: entry.id,
    resourceType: 'pending_points',
  });
}

/** `POST …/pending-points/{pendingPointsId}/balance`: changes a PENDING entry; it must stay above zero. */
export async function adjustPending(deps: Deps, actor: Actor, memberId: string, pendingPointsId: string, input: PendingAdjustInput): Promise<PendingBalanceObject> {
  if (input.points === 0) throw businessError('invalid_amount', 'Invalid Amount', { details: 'Property .points must not be 0' });
  return inTransaction(deps, async (tx) => {
    const { card, entry } = await cardAndEntry(tx, actor, memberId, pendingPointsId);
    if (entry.status !== 'PENDING') throw stateError('update', entry);
    const now = deps.clock.now().toISOString();
    const adjusted = await adjustPendingPoints(tx, actor.projectId, entry.id, input.points, now);
    if (!adjusted) {
      throw businessError('invalid_amount', 'Invalid Amount', {
        details: `Amount has to be a valid positive number: ${Number(entry.points)} ${input.points < 0 ? '-' : '+'} ${Math.abs(input.points)} pending points would leave ${Number(entry.points) + input.points}`,
      });
    }
    const after = await addToCardPendingPoints(tx, actor.projectId, card.id, input.points, now);
    if (!after) throw new Error(`card ${card.id} counts fewer pending points than its entries`);
    const balance = pendingBalance(after, input.points);
    const program = await programOf(tx, actor, after);
    const day = await projectDay(tx, deps, actor.projectId);
    await appendEvents(tx, [await pendingEvent(tx, deps, actor, 'updated', after, program, toPendingPointsObject(adjusted), balance, day)]);
    return balance;
  });
}

/** `POST …/pending-points/{pendingPointsId}/cancel`: the entry's points will never become usable. */
export async function cancelPending(deps: Deps, actor: Actor, memberId: string, pendingPointsId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const { card, entry } = await cardAndEntry(tx, actor, memberId, pendingPointsId);
    if (entry.status !== 'PENDING') throw stateError('cancel', entry);
    const now = deps.clock.now().toISOString();
    const closed = await closePendingPoints(tx, actor.projectId, entry.id, 'CANCELED', now);
    if (!closed) throw stateError('cancel', entry);
    const after = await addToCardPendingPoints(tx, actor.projectId, card.id, -Number(closed.points), now);
    if (!after) throw new Error(`card ${card.id} counts fewer pending points than its entries`);
    const program = await programOf(tx, actor, after);
    const day = await projectDay(tx, deps, actor.projectId);
    await appendEvents(tx, [await pendingEvent(tx, deps, actor, 'canceled', after, program, toPendingPointsObject(closed), pendingBalance(after, -Number(closed.points)), day)]);
  });
}
