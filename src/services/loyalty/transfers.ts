import type { TransferInput } from '../../api/loyalty.ts';
import { afterPointsChange } from './after-points-change.ts';
import { businessError, DomainError, errors } from '../../domain/errors.ts';
import { pointsExpiryDate } from '../../domain/loyalty/points-expiry.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { findCampaignsByIds } from '../../store/campaigns.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { lockCards } from '../../store/loyalty.ts';
import { findLiveVoucherByCode, type VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { creditPoints, debitPoints } from '../ledger/ledger.ts';
import { requireHolder } from './balance.ts';
import { campaignRef, customerSummary, loyaltyCard, loyaltyProgram, programExpirationRules, projectDay, renderCard, simpleCards, unusableCard , type LoyaltyCard } from './cards.ts';

// `POST /v1/loyalties/{campaignId}/members/{memberId}/transfers` (seed 4.7, loyalty reference 3): points
// move from each donor card to the destination card. The whole array is one transaction (DECISIONS 16):
// one refused item and nothing moved. Donor and destination rows are locked in id order before any
// point moves, so opposite transfers running at once queue instead of deadlocking.

export async function transferPoints(deps: Deps, actor: Actor, campaignId: string, memberId: string, items: TransferInput): Promise<LoyaltyCard> {
  return inTransaction(deps, async (tx) => {
    const program = await loyaltyProgram(tx, actor, campaignId);
    const named = await loyaltyCard(tx, actor, memberId, program);
    const donors: VoucherRow[] = [];
    for (const [i, item] of items.entries()) {
      const donor = await findLiveVoucherByCode(tx, actor.projectId, item.code);
      if (!donor) throw errors.notFound('voucher', item.code);
      if (donor.type !== 'LOYALTY_CARD') throw errors.invalidPayload(`Property [${i}].code: ${item.code} is a ${donor.type}, not a loyalty card`);
      if (donor.id === named.id) throw errors.invalidPayload(`Property [${i}].code: card ${item.code} cannot transfer points to itself`);
      donors.push(donor);
    }

    const locked = await lockCards(tx, actor.projectId, [named.id, ...donors.map((d) => d.id)]);
    const current = (row: VoucherRow): VoucherRow => {
      const now = locked.get(row.id);
      if (!now) throw errors.notFound('voucher', row.code);
      return now;
    };
    const destination = current(named);
    requireHolder(destination, 'receiving points');
    for (const donor of donors) requireHolder(current(donor), 'giving points');

    const programs = await findCampaignsByIds(tx, actor.projectId, donors.map((d) => d.campaign_id).filter((id): id is string => id !== null));
    programs.set(program.id, program);
    const programOfCard = (card: VoucherRow): CampaignRow => {
      const found = card.campaign_id ? programs.get(card.campaign_id) : undefined;
      if (!found || found.binned_at !== null) throw errors.notFound('campaign', card.campaign_id ?? card.code);
      return found;
    };
    const day = await projectDay(tx, deps, actor.projectId);
    for (const card of [destination, ...donors.map(current)]) {
      const problem = unusableCard(card, programOfCard(card), day);
      if (problem) throw problem;
    }

    // Moved points expire by the destination program's rules, counted from today (loyalty reference 2.8.2).
    const expiresAt = pointsExpiryDate(programExpirationRules(program), day.today);
    const events: NewEvent[] = [];
    let destinationNow = destination;
    const donorNow = new Map<string, VoucherRow>();
    for (const [i, item] of items.entries()) {
      const donorRow = donors[i] as VoucherRow;
      const donor = donorNow.get(donorRow.id) ?? current(donorRow);
      const donorProgram = programOfCard(donor);
      const snapshot = await simpleCards(tx, actor, [{ row: donor, program: donorProgram }, { row: destinationNow, program }], day.today);
      const sourceVoucher = snapshot.get(donor.id);
      const destinationVoucher = snapshot.get(destinationNow.id);
      const outId = deps.ids.next('vtx');
      const inId = deps.ids.next('vtx');
      const common = { points: item.points, source: 'API', sourceId: item.source_id ?? null, reason: item.reason ?? null, operationType: 'MANUAL' as const };
      const out = await debitPoints(tx, deps, actor, donor, 'POINTS_TRANSFER_OUT', {
        ...common,
        today: day.today,
        transactionId: outId,
        relatedTransactionId: inId,
        details: { destination_voucher: destinationVoucher },
      }).catch((error: unknown) => {
        // Name the item, so a caller sending several donors knows which one fell short.
        if (error instanceof DomainError && error.key === 'loyalty_card_points_exceeded') {
          throw businessError('loyalty_card_points_exceeded', 'Loyalty card points exceeded', {
            details: `Item [${i}]: ${error.details ?? error.message}`,
            resourceId: donor.code,
            resourceType: 'voucher',
          });
        }
        throw error;
      });
      const into = await creditPoints(tx, deps, actor, destinationNow, 'POINTS_TRANSFER_IN', {
        ...common,
        expiresAt,
        transactionId: inId,
        relatedTransactionId: outId,
        details: { source_voucher: sourceVoucher },
      });
      donorNow.set(donor.id, out.card);
      destinationNow = into.card;
      await afterPointsChange(tx, deps, actor, out.card, { added: false });
      await afterPointsChange(tx, deps, actor, into.card, { added: true });
      const sides = [
        { card: donor, program: donorProgram, result: out },
        { card: destination, program, result: into },
      ];
      for (const side of sides) {
        events.push(
          makeEvent(deps, actor, {
            type: 'voucher.loyalty_card.points_transferred',
            activityType: 'customer.voucher.loyalty_card.points_transferred',
            activityCategory: 'ACTION',
            customerId: side.card.holder_id,
            campaign: campaignRef(side.program),
            voucherCode: side.card.code,
            entityId: side.result.transaction.id,
            data: {
              customer: await customerSummary(tx, actor.projectId, side.card.holder_id),
              campaign: campaignRef(side.program),
              voucher: { id: side.card.id, code: side.card.code, campaign_id: side.card.campaign_id },
              source_voucher: sourceVoucher,
              destination_voucher: destinationVoucher,
              balance: side.result.balance,
              transaction: side.result.transaction,
            },
          }),
        );
      }
    }
    await appendEvents(tx, events);
    return renderCard(tx, deps, actor, destinationNow, day);
  });
}
