import { FREE_FAILURES, FRESH_MS, signInWaitMs, type ThrottleKind } from '../../domain/auth/sign-in-throttle.ts';
import { domainError } from '../../domain/errors.ts';
import type { Executor } from '../../store/db.ts';
import * as store from '../../store/user-sessions.ts';
import { inTransaction, type Deps } from '../context.ts';

// The sign-in throttle's bookkeeping (the waits themselves: src/domain/auth/sign-in-throttle.ts).
// An attempt is counted as a failure *before* its password is checked, by a conditional update of each
// counter (compare and set), so parallel attempts queue on the counters exactly as sequential ones would:
// once a counter must wait, every further attempt is refused without hashing anything. A success takes its
// attempt back: the account's counters start again and the address's count drops by one.

export type ThrottleKeys = Record<ThrottleKind, string>;

const KINDS = Object.keys(FREE_FAILURES) as ThrottleKind[];

export function throttleKeys(login: string, address: string): ThrottleKeys {
  return { pair: `pair:${address}|${login}`, address: `ip:${address}`, account: `account:${login}` };
}

export function slowedDown(waitMs: number) {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return domainError('too_many_requests', {
    message: 'Too many failed sign-ins',
    details: `Too many failed sign-ins for this account or from this address; try again in ${seconds} s`,
    extra: { retry_after: seconds },
  });
}

/** Too many sign-ins are being checked at once (or raced for the same counters): nothing was counted. */
export function signInsBusy() {
  return domainError('too_many_requests', {
    message: 'Too many sign-ins at once',
    details: 'Too many sign-ins are being checked at this moment; try again in 1 s',
    extra: { retry_after: 1 },
  });
}

/** The longest wait any of the counters imposes now (0: none). */
function waitOf(rows: readonly store.FailureCount[], keys: ThrottleKeys, nowMs: number): number {
  let wait = 0;
  for (const kind of KINDS) {
    const row = rows.find((r) => r.key === keys[kind]);
    if (row) wait = Math.max(wait, signInWaitMs(row.failures, Date.parse(row.last_failure_at), nowMs, FREE_FAILURES[kind]));
  }
  return wait;
}

/** Refuses at once, with a single read and nothing written, an attempt the throttle would refuse anyway. */
export async function assertNotSlowedDown(deps: Deps, keys: ThrottleKeys): Promise<void> {
  const wait = waitOf(await store.readFailures(deps.db, Object.values(keys)), keys, deps.clock.now().getTime());
  if (wait > 0) throw slowedDown(wait);
}

/** Another attempt changed a counter between our read and our update: the transaction is undone and read again. */
class CounterMoved extends Error {}

/** How often an attempt reads the counters again after losing a race for them before it is refused as busy. */
const COUNT_ROUNDS = 20;

/**
 * Counts this attempt under each of its counters, or refuses it (429 with the wait) when one of them must
 * wait now. All counters move in one transaction, each by a conditional update; losing a race for one
 * undoes the others and starts again from a fresh read.
 */
export async function countAttempt(deps: Deps, keys: ThrottleKeys): Promise<void> {
  for (let round = 0; round < COUNT_ROUNDS; round++) {
    try {
      await inTransaction(deps, (tx) => countOnce(deps, tx, keys));
      return;
    } catch (error) {
      if (!(error instanceof CounterMoved)) throw error;
    }
  }
  throw signInsBusy();
}

async function countOnce(deps: Deps, tx: Executor, keys: ThrottleKeys): Promise<void> {
  const now = deps.clock.now();
  const nowMs = now.getTime();
  const at = now.toISOString();
  const rows = await store.readFailures(tx, Object.values(keys));
  const wait = waitOf(rows, keys, nowMs);
  if (wait > 0) throw slowedDown(wait);
  for (const kind of KINDS) {
    const seen = rows.find((r) => r.key === keys[kind]) ?? null;
    const fresh = seen !== null && nowMs - Date.parse(seen.last_failure_at) < FRESH_MS;
    const next = fresh ? seen.failures + 1 : 1;
    if (!(await store.countAttemptIfUnchanged(tx, keys[kind], seen, next, at))) throw new CounterMoved();
  }
  await store.purgeOldFailures(tx, new Date(nowMs - 2 * FRESH_MS).toISOString());
}

/** The attempt's password was right: the account starts counting again, and the address forgets this attempt. */
export async function forgiveSuccess(tx: Executor, keys: ThrottleKeys): Promise<void> {
  await store.clearFailures(tx, keys.pair);
  await store.clearFailures(tx, keys.account);
  await store.uncountAttempt(tx, keys.address);
}

/** The attempt was counted but its password never checked (the hashing threads were full): take it back. */
export async function uncount(deps: Deps, keys: ThrottleKeys): Promise<void> {
  await inTransaction(deps, async (tx) => {
    for (const kind of KINDS) await store.uncountAttempt(tx, keys[kind]);
  });
}
