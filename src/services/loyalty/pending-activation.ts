import { pointsExpiryDate, readExpirationRules } from '../../domain/loyalty/points-expiry.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson } from '../../store/json.ts';
import { closePendingPoints, findPendingPoints, type PendingPointsRow } from '../../store/loyalty.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { creditPoints } from '../ledger/ledger.ts';
import { afterPointsChange } from './after-points-change.ts';
import { pointsBalance, type PointsBalanceObject } from './balance.ts';
import { campaignRef, customerSummary, programExpirationRules, programOf, projectDay, renderCard, type ProjectDay } from './cards.ts';
import { cardAndEntry, stateError, toPendingPointsObject } from './pending-points.ts';

// Activating pending points (loyalty reference 2.9): the points become usable, so the card's tier and
// auto-redeem follow (after-points-change). Apart from ./pending-points.ts, which earning uses to add
// entries, because what follows a points change runs earning in turn.

/**
 * Activates one entry on a locked card: the entry leaves PENDING (conditionally, so it happens once) and
 * the ledger credits its points as PENDING_POINTS_ACTIVATION, expiring from `day` by the entry's or the
 * program's rules. Used by the endpoint and by the periodic task.
 */
export async function activateEntry(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, entry: PendingPointsRow, day: ProjectDay): Promise<PointsBalanceObject> {
  const closed = await closePendingPoints(tx, actor.projectId, entry.id, 'ACTIVATED', deps.clock.now().toISOString());
  if (!closed) throw stateError('activate', (await findPendingPoints(tx, actor.projectId, entry.id)) ?? entry);
  const program = await programOf(tx, actor, card);
  const rules = readExpirationRules(fromJson<unknown>(closed.expiration_rules, null)) ?? programExpirationRules(program);
  const activated = toPendingPointsObject(closed);
  const details = activated.details;
  const result = await creditPoints(tx, deps, actor, card, 'PENDING_POINTS_ACTIVATION', {
    points: Number(closed.points),
    expiresAt: pointsExpiryDate(rules, day.today),
    source: actor.source.channel === 'INTERNAL' ? 'Automation' : 'API',
    operationType: actor.source.channel === 'INTERNAL' ? 'AUTOMATIC' : 'MANUAL',
    details: {
      ...(details.order !== undefined ? { order: details.order } : {}),
      ...(details.event !== undefined ? { event: details.event } : {}),
      ...(details.earning_rule !== undefined ? { earning_rule: details.earning_rule } : {}),
      pending_points: activated,
    },
  });
  await afterPointsChange(tx, deps, actor, result.card, { added: true });
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'voucher.loyalty_card.pending_points.activated',
      activityType: card.holder_id ? 'customer.voucher.loyalty_card.pending_points.activated' : null,
      activityCategory: card.holder_id ? 'EFFECT' : null,
      customerId: card.holder_id,
      campaign: campaignRef(program),
      voucherCode: card.code,
      entityId: closed.id,
      data: {
        customer: await customerSummary(tx, actor.projectId, card.holder_id),
        campaign: campaignRef(program),
        voucher: await renderCard(tx, deps, actor, result.card, day),
        balance: result.balance,
        order: details.order ?? null,
        transaction: result.transaction,
        pending_points: activated,
      },
    }),
  ]);
  return pointsBalance(result.balance);
}

/** `POST /v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/activate`. */
export async function activatePending(deps: Deps, actor: Actor, memberId: string, pendingPointsId: string): Promise<PointsBalanceObject> {
  return inTransaction(deps, async (tx) => {
    const { card, entry } = await cardAndEntry(tx, actor, memberId, pendingPointsId);
    if (entry.status !== 'PENDING') throw stateError('activate', entry);
    return activateEntry(tx, deps, actor, card, entry, await projectDay(tx, deps, actor.projectId));
  });
}
