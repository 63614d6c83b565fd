import { DomainError } from '../../domain/errors.ts';
import type { Candidate } from '../../domain/redemptions/engine.ts';
import { failure, failureCode, type RedeemableFailure } from '../../domain/redemptions/failures.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { countCustomerRedemption } from '../../store/redemption-records.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import type { Resolved } from './facts.ts';
import { channelOf, insertRecord, type RedemptionRecord } from './records.ts';
import { recordBase } from './record-base.ts';
import type { RedemptionRejected } from './rejection.ts';
import { readCustomer, type NormalisedRequest } from './request.ts';
import { renderSnapshots } from './snapshots.ts';

// A refused redemption (DECISIONS 10, promotions reference 6.5): after its transaction rolled back —
// so nothing was consumed, no customer or order was created — a second small transaction stores the
// FAILURE records (a parent `rf_…` with a FAILURE child per redeemable when the request carried several,
// else one), counts the failed attempts on a customer that exists, and appends `redemption.failed`. The
// request is then answered with the failure code as an HTTP error naming the stored record.

/** Why one redeemable of a refused request was not redeemed. */
function childFailure(rejection: RedemptionRejected, index: number, requestFailure: RedeemableFailure): RedeemableFailure {
  if (rejection.consumption?.index === index) return rejection.consumption.failure;
  const outcome = rejection.evaluation.outcomes[index];
  if (!outcome) return requestFailure;
  if (outcome.status === 'INAPPLICABLE') return outcome.failure;
  if (outcome.status === 'SKIPPED') return { key: requestFailure.key, message: requestFailure.message, details: `Skipped (${outcome.key}): ${outcome.message}`, ruleMessage: null };
  // It would have applied; the request failed because of another redeemable.
  return { ...requestFailure, details: `Not redeemed: ${requestFailure.details}` };
}

export async function recordFailure(deps: Deps, actor: Actor, request: NormalisedRequest, rejection: RedemptionRejected): Promise<DomainError> {
  const { facts, evaluation } = rejection;
  let target: Candidate | null = null;
  let requestFailure: RedeemableFailure;
  if (rejection.consumption) {
    requestFailure = rejection.consumption.failure;
    target = facts.candidates[rejection.consumption.index] ?? null;
  } else if (evaluation.failure?.outcome) {
    requestFailure = evaluation.failure.outcome.failure;
    target = evaluation.failure.outcome.candidate;
  } else {
    requestFailure = failure('no_applicable_redeemables', 'None of the redeemables applies to this request');
  }
  const at = deps.clock.now().toISOString();
  const stored = await inTransaction(deps, async (tx) => {
    // The redemption's own transaction rolled back, so a customer it would have created does not exist.
    const { customer } = await readCustomer(tx, actor.projectId, request.customerInput);
    const failedFacts = { ...facts, customer: customer.id !== null ? customer : { ...customer, simple: null } };
    const snapshots = await renderSnapshots(tx, deps, actor, facts.resolved);
    const multi = facts.candidates.length > 1;
    const parentId = multi ? deps.ids.next('rf') : null;
    const events: NewEvent[] = [];
    const children: RedemptionRecord[] = [];
    for (const r of facts.resolved as Resolved[]) {
      const f = childFailure(rejection, r.candidate.index, requestFailure);
      const record = await insertRecord(tx, {
        ...recordBase(actor, failedFacts, request, r, snapshots),
        id: deps.ids.next('rf'),
        object: 'redemption',
        result: 'FAILURE',
        status: 'FAILED',
        failure: { code: f.key, message: f.message },
        parentId,
        amount: null,
        order: null,
        orderId: facts.order.existing?.id ?? null,
        reward: null,
        gift: null,
        loyaltyCard: null,
        effects: null,
        at,
      });
      children.push(record);
      events.push(
        makeEvent(deps, actor, {
          type: 'redemption.failed',
          activityType: customer.id ? 'customer.redemption.failed' : null,
          activityCategory: customer.id ? 'ACTION' : null,
          customerId: customer.id,
          voucherCode: r.kind === 'voucher' ? r.voucher.code : null,
          campaign: r.kind === 'voucher' && r.campaign ? { id: r.campaign.id, type: r.campaign.campaign_type, name: r.campaign.name } : r.kind === 'promotion_tier' ? { id: r.tier.campaign.id, type: r.tier.campaign.campaign_type, name: r.tier.campaign.name } : null,
          entityId: record.id,
          data: { redemption: record, customer: failedFacts.customer.simple, ...(record.voucher ? { voucher: record.voucher } : {}), ...(record.promotion_tier ? { promotion_tier: record.promotion_tier } : {}) },
        }),
      );
    }
    let id = children[0]?.id ?? '';
    if (parentId !== null) {
      const parent = await insertRecord(tx, {
        actor,
        channel: channelOf(actor),
        customer: failedFacts.customer.simple,
        trackingId: request.trackingId,
        metadata: request.metadata,
        relatedObject: { type: 'redemption', id: parentId, parentId: null },
        voucher: null,
        promotionTier: null,
        campaign: null,
        reason: null,
        sessionKey: request.session?.key ?? null,
        rollbackOf: null,
        id: parentId,
        object: 'redemption',
        result: 'FAILURE',
        status: 'FAILED',
        failure: { code: requestFailure.key, message: requestFailure.message },
        parentId: null,
        amount: null,
        order: null,
        orderId: facts.order.existing?.id ?? null,
        reward: null,
        gift: null,
        loyaltyCard: null,
        effects: { kind: 'parent', children: children.map((c) => c.id), order_id: null },
        at,
      });
      id = parentId;
      events.push(
        makeEvent(deps, actor, {
          type: 'redemption.failed',
          customerId: customer.id,
          entityId: parentId,
          data: { redemption: parent, customer: failedFacts.customer.simple, redemptions: children.map((c) => c.id) },
        }),
      );
    }
    if (customer.id !== null) await countCustomerRedemption(tx, actor.projectId, customer.id, 'FAILURE', children.length);
    await appendEvents(tx, events);
    return id;
  });
  return new DomainError(requestFailure.key, failureCode(requestFailure.key), {
    message: requestFailure.message,
    details: requestFailure.details,
    resourceId: stored,
    resourceType: 'redemption',
    extra: {
      ...(target ? { redeemable_type: target.object, redeemable_id: target.id } : {}),
      ...(requestFailure.ruleMessage !== null ? { error: { message: requestFailure.ruleMessage } } : {}),
    },
  });
}
