import type { BalanceInput } from '../../api/vouchers.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { localDate } from '../../domain/validity/validity.ts';
import { appendEvents } from '../../store/events.ts';
import { findLiveCampaignById } from '../../store/campaigns.ts';
import type { Tx } from '../../store/db.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { creditCredits, creditPoints, debitCredits, debitPoints, type LedgerResult } from '../ledger/ledger.ts';
import { adjustMemberBalance } from '../loyalty/balance.ts';
import { renderCampaign } from '../campaigns/render.ts';
import { liveVoucherByCode, projectTimeZone, renderVoucherRow } from './vouchers.ts';

// `POST /v1/vouchers/{code}/balance` (promotions reference 2.4): a signed manual adjustment of a gift
// card's credits or a loyalty card's points. The ledger makes every change (one conditional UPDATE: a
// removal larger than the balance changes nothing and fails) and records the transaction and its event;
// gift top-ups also announce `voucher.gift.balance_added`, in the same transaction.
//
// Loyalty cards of a program are adjusted by the loyalty members use case (holder required, points
// expire by the program's rules), so both endpoints behave the same. A standalone loyalty card has no
// program and so no expiry rules: its added points never expire.

export interface BalanceResponse {
  amount: number;
  total: number;
  balance: number;
  type: 'gift_voucher' | 'loyalty_card';
  operation_type: 'MANUAL';
  object: 'balance';
  related_object: { type: 'voucher'; id: string };
}

function toResponse(result: LedgerResult, amount: number): BalanceResponse {
  return {
    amount,
    total: result.balance.total,
    balance: result.balance.balance,
    type: result.balance.type,
    operation_type: 'MANUAL',
    object: 'balance',
    related_object: { type: 'voucher', id: result.card.id },
  };
}

const invalidAmount = () =>
  businessError('invalid_amount', 'Invalid Amount', { details: 'Property .amount must not be 0: send a positive amount to add, a negative one to remove' });

async function adjustGift(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, input: BalanceInput): Promise<BalanceResponse> {
  const ledgerInput = { points: Math.abs(input.amount), source: 'API', sourceId: input.source_id ?? null, reason: input.reason ?? null, operationType: 'MANUAL' as const };
  if (input.amount < 0) return toResponse(await debitCredits(tx, deps, actor, card, 'CREDITS_REMOVAL', ledgerInput), input.amount);
  const result = await creditCredits(tx, deps, actor, card, 'CREDITS_ADDITION', ledgerInput);
  const response = toResponse(result, input.amount);
  const campaignRow = card.campaign_id ? await findLiveCampaignById(tx, actor.projectId, card.campaign_id) : undefined;
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'voucher.gift.balance_added',
      activityType: card.holder_id ? 'customer.voucher.gift.balance_added' : null,
      activityCategory: card.holder_id ? 'ACTION' : null,
      customerId: card.holder_id,
      entityId: card.id,
      voucherCode: card.code,
      campaign: campaignRow ? { id: campaignRow.id, type: campaignRow.campaign_type, name: campaignRow.name } : null,
      data: {
        voucher: await renderVoucherRow(tx, deps, actor.projectId, result.card),
        balance: response,
        campaign: campaignRow ? await renderCampaign(tx, actor.projectId, campaignRow) : null,
        transaction: { ...result.transaction, details: { ...result.transaction.details, balance: response } },
      },
    }),
  ]);
  return response;
}

async function adjustStandaloneCard(tx: Tx, deps: Deps, actor: Actor, card: VoucherRow, input: BalanceInput): Promise<BalanceResponse> {
  if (card.holder_id === null) {
    throw errors.invalidPayload(`Loyalty card ${card.code} has no holder: publish it to a customer (POST /v1/publications) before changing its balance`);
  }
  const common = { points: Math.abs(input.amount), source: 'API', sourceId: input.source_id ?? null, reason: input.reason ?? null, operationType: 'MANUAL' as const };
  if (input.amount < 0) {
    const today = localDate(deps.clock.now(), await projectTimeZone(tx, actor.projectId));
    return toResponse(await debitPoints(tx, deps, actor, card, 'POINTS_REMOVAL', { ...common, today }), input.amount);
  }
  const result = await creditPoints(tx, deps, actor, card, 'POINTS_ADDITION', { ...common, expiresAt: null });
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'voucher.loyalty_card.points_added',
      activityType: 'customer.voucher.loyalty_card.points_added',
      activityCategory: 'ACTION',
      customerId: card.holder_id,
      voucherCode: card.code,
      entityId: card.id,
      data: { voucher: await renderVoucherRow(tx, deps, actor.projectId, result.card), balance: result.balance, campaign: null, transaction: result.transaction },
    }),
  ]);
  return toResponse(result, input.amount);
}

export async function adjustVoucherBalance(deps: Deps, actor: Actor, code: string, input: BalanceInput): Promise<BalanceResponse> {
  if (input.amount === 0) throw invalidAmount();
  const named = await liveVoucherByCode(deps.db, actor.projectId, code);
  if (named.type === 'LOYALTY_CARD' && named.campaign_id !== null) {
    const balance = await adjustMemberBalance(deps, actor, null, code, {
      points: input.amount,
      ...(input.source_id !== undefined ? { source_id: input.source_id } : {}),
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
    });
    return { amount: input.amount, total: balance.total, balance: balance.balance, type: 'loyalty_card', operation_type: 'MANUAL', object: 'balance', related_object: { type: 'voucher', id: named.id } };
  }
  return inTransaction(deps, async (tx) => {
    // Read again inside the transaction: the card's balance is what the ledger's conditional update checks.
    const card = await liveVoucherByCode(tx, actor.projectId, code);
    switch (card.type) {
      case 'GIFT_VOUCHER':
        return adjustGift(tx, deps, actor, card, input);
      case 'LOYALTY_CARD':
        return adjustStandaloneCard(tx, deps, actor, card, input);
      case 'DISCOUNT_VOUCHER':
        throw businessError('invalid_voucher', 'Invalid voucher', {
          details: `Voucher ${card.code} is a DISCOUNT_VOUCHER; only gift cards and loyalty cards have a balance`,
          resourceId: card.code,
          resourceType: 'voucher',
        });
    }
  });
}
