import type { MemberBalanceInput } from '../../api/loyalty.ts';
import { afterPointsChange } from './after-points-change.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { pointsExpiryDate } from '../../domain/loyalty/points-expiry.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { appendEvents } from '../../store/events.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { creditPoints, debitPoints, type BalanceObject } from '../ledger/ledger.ts';
import { campaignRef, customerSummary, lockedCard, loyaltyCard, loyaltyProgram, programExpirationRules, programOf, projectDay, renderCard, type ProjectDay } from './cards.ts';

// `POST /v1/loyalties/{campaignId}/members/{memberId}/balance` and `POST /v1/loyalties/members/{memberId}/balance`
// (loyalty reference 2.5): a signed manual change of a card's points, through the ledger only.
//
// Decision (the vendor is silent): manual adjustments are allowed on cards that are disabled, expired
// or outside their validity window, and in inactive programs. They are the merchant's corrections;
// spending and transferring the points still obey validity.

/** Refuses cards nobody holds: points belong to members (DECISIONS 17 gives the same answer for transfers). */
export function requireHolder(card: VoucherRow, what: string): void {
  if (card.holder_id === null) {
    throw errors.invalidPayload(`Loyalty card ${card.code} has no holder: add it to a member (POST /v1/loyalties/{campaignId}/members) before ${what}`);
  }
}

/** The last usable day of points added by hand, or null for never (loyalty reference 2.5, 2.8.2). */
export function manualExpiry(input: MemberBalanceInput, program: CampaignRow, day: ProjectDay): string | null {
  const type = input.expiration_type ?? (input.expiration_date !== undefined ? 'CUSTOM_DATE' : 'PROGRAM_RULES');
  if (type !== 'CUSTOM_DATE' && input.expiration_date !== undefined) {
    throw errors.invalidPayload(`Property .expiration_date goes with expiration_type CUSTOM_DATE, not ${type}`);
  }
  switch (type) {
    case 'NON_EXPIRING':
      return null;
    case 'PROGRAM_RULES':
      return pointsExpiryDate(programExpirationRules(program), day.today);
    case 'CUSTOM_DATE': {
      const date = input.expiration_date;
      if (date === undefined) throw errors.invalidPayload('Property .expiration_date is required with expiration_type CUSTOM_DATE');
      if (date < day.today) {
        throw businessError('invalid_expiration_date', 'Invalid Expiration Date', {
          details: `Expiration date cannot be set in the past: ${date} is before today (${day.today}, project time zone)`,
        });
      }
      return date;
    }
  }
}

export type PointsBalanceObject = BalanceObject & { type: 'loyalty_card' };

/** The ledger's balance object of a loyalty card (its type member says so). */
export function pointsBalance(balance: BalanceObject): PointsBalanceObject {
  if (balance.type !== 'loyalty_card') throw new Error(`balance of voucher ${balance.related_object.id} is not a loyalty card's`);
  return { ...balance, type: 'loyalty_card' };
}

export async function adjustMemberBalance(deps: Deps, actor: Actor, campaignId: string | null, memberId: string, input: MemberBalanceInput): Promise<PointsBalanceObject> {
  if (input.points === 0) throw errors.invalidPayload('Property .points must not be 0: send a positive number to add points, a negative one to remove them');
  if (input.points < 0 && (input.expiration_type !== undefined || input.expiration_date !== undefined)) {
    throw errors.invalidPayload('Properties .expiration_type and .expiration_date apply to added points only');
  }
  return inTransaction(deps, async (tx) => {
    const program = campaignId === null ? undefined : await loyaltyProgram(tx, actor, campaignId);
    const named = await loyaltyCard(tx, actor, memberId, program);
    const card = await lockedCard(tx, actor, named);
    requireHolder(card, 'changing its balance');
    const cardProgram = program ?? (await programOf(tx, actor, card));
    const day = await projectDay(tx, deps, actor.projectId);
    const common = { source: 'API', sourceId: input.source_id ?? null, reason: input.reason ?? null, operationType: 'MANUAL' as const };
    if (input.points < 0) {
      const result = await debitPoints(tx, deps, actor, card, 'POINTS_REMOVAL', { ...common, points: -input.points, today: day.today });
      await afterPointsChange(tx, deps, actor, result.card, { added: false });
      return pointsBalance(result.balance);
    }
    const expiresAt = manualExpiry(input, cardProgram, day);
    const result = await creditPoints(tx, deps, actor, card, 'POINTS_ADDITION', { ...common, points: input.points, expiresAt });
    await afterPointsChange(tx, deps, actor, result.card, { added: true });
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'voucher.loyalty_card.points_added',
        activityType: 'customer.voucher.loyalty_card.points_added',
        activityCategory: 'ACTION',
        customerId: card.holder_id,
        campaign: campaignRef(cardProgram),
        voucherCode: card.code,
        entityId: card.id,
        data: {
          voucher: await renderCard(tx, deps, actor, result.card, day),
          balance: result.balance,
          campaign: campaignRef(cardProgram),
          customer: await customerSummary(tx, actor.projectId, card.holder_id),
          transaction: result.transaction,
        },
      }),
    ]);
    return pointsBalance(result.balance);
  });
}
