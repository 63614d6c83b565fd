import { evaluateRedeemables, type Evaluation } from '../../domain/redemptions/engine.ts';
import { sessionEcho, sessionExpiry } from '../../domain/redemptions/session.ts';
import type { StackableInput, ValidationResponseOut } from '../../api/redemptions.ts';
import { replaceSessionLocks, type NewLock } from '../../store/redemption-sessions.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { lockCustomer } from '../../store/loyalty.ts';
import { loadFacts, type Facts } from './facts.ts';
import { engineRequest, readCustomer, type NormalisedRequest } from './request.ts';
import { calculatedOrder, entryLists, nonEmptyLists, stackingRulesEcho } from './responses.ts';

// `POST /v1/validations` and `/client/v1/validations` (promotions reference 6.3): evaluates the
// redeemables against the customer and order and answers 200 with a result per redeemable. Nothing is
// stored except, with `session.type = LOCK`, the session's reservations: one use of each applicable
// voucher, the gift credits and the points it would take (reference 6.10).

export interface ValidationRun {
  facts: Facts;
  evaluation: Evaluation;
}

/** What a valid validation reserves for its session. */
function locksOf(run: ValidationRun): NewLock[] {
  const locks: NewLock[] = [];
  for (const outcome of run.evaluation.applied) {
    const r = run.facts.resolved[outcome.candidate.index];
    if (r?.kind !== 'voucher') continue;
    locks.push({ voucherId: r.voucher.id, kind: 'quantity', amount: 1 });
    if (outcome.consumption.credits > 0) locks.push({ voucherId: r.voucher.id, kind: 'credits', amount: outcome.consumption.credits });
    if (outcome.consumption.points > 0) locks.push({ voucherId: r.voucher.id, kind: 'points', amount: outcome.consumption.points });
  }
  return locks;
}

/**
 * Evaluates a request without changing anything, or (LOCK session) in a transaction that holds the
 * vouchers while their reservations are counted and written, so two sessions never reserve one last use.
 */
export async function runValidation(deps: Deps, actor: Actor, request: NormalisedRequest, options: { audienceOnly?: boolean } = {}): Promise<ValidationRun> {
  const now = deps.clock.now();
  const evaluate = async (db: Parameters<typeof loadFacts>[0], lock: boolean): Promise<ValidationRun> => {
    const { customer, definitions } = await readCustomer(db, actor.projectId, request.customerInput);
    if (lock && customer.id !== null) await lockCustomer(db, actor.projectId, customer.id);
    const facts = await loadFacts(db, deps.dialect, actor.projectId, now, request, customer, {
      lock,
      ...(definitions ? { definitions } : {}),
      ...(options.audienceOnly ? { audienceOnly: true } : {}),
    });
    return { facts, evaluation: evaluateRedeemables(facts.candidates, facts.order.start, facts.context) };
  };
  const session = request.session;
  if (!session?.lock) return evaluate(deps.db, false);
  return inTransaction(deps, async (tx) => {
    const run = await evaluate(tx, true);
    if (run.evaluation.valid) {
      const vouchers = run.facts.resolved.flatMap((r) => (r.kind === 'voucher' ? [r.voucher.id] : []));
      const expiresAt = sessionExpiry(now, session.ttl, session.ttlUnit).toISOString();
      await replaceSessionLocks(tx, actor.projectId, session.key, vouchers, locksOf(run), expiresAt, now.toISOString());
    }
    return run;
  });
}

export function validationResponse(deps: Deps, actor: Actor, request: NormalisedRequest, run: ValidationRun): ValidationResponseOut {
  const { facts, evaluation } = run;
  const lists = entryLists(evaluation, facts, actor.requestId, request.expand);
  return {
    id: deps.ids.next('valid'),
    valid: evaluation.valid,
    redeemables: lists.redeemables,
    ...nonEmptyLists({ skipped_redeemables: lists.skipped, inapplicable_redeemables: lists.inapplicable }),
    order: calculatedOrder(facts, evaluation.final, evaluation.final.applied),
    tracking_id: request.trackingId,
    ...(request.session ? { session: sessionEcho(request.session) } : {}),
    stacking_rules: stackingRulesEcho(facts.rules),
  };
}

export async function validateStackable(deps: Deps, actor: Actor, input: StackableInput): Promise<ValidationResponseOut> {
  const request = engineRequest(deps, input);
  return validationResponse(deps, actor, request, await runValidation(deps, actor, request));
}
