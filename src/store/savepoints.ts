import { sql } from 'kysely';
import type { Tx } from './db.ts';
import { forgetCustomerLocks } from './customer-locks.ts';
import { dropHeldEvents, heldEventCount } from './events.ts';
import { dropHeldWrites, heldWriteCount } from './held-writes.ts';

/**
 * Runs `fn` inside a savepoint of `tx`. When `fn` throws, what it wrote is undone, the transaction stays
 * usable for the caller's next step (on PostgreSQL a failed statement would otherwise abort the whole
 * transaction), and the error is rethrown. The same SQL serves both dialects.
 */
export async function inSavepoint<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
  await sql`savepoint step`.execute(tx);
  // Events and writes held for the transaction's commit (src/store/events.ts, held-writes.ts) that the
  // savepoint appended go with it.
  const events = heldEventCount(tx);
  const writes = heldWriteCount(tx);
  let value: T;
  try {
    value = await fn();
  } catch (error) {
    await sql`rollback to savepoint step`.execute(tx);
    await sql`release savepoint step`.execute(tx);
    dropHeldEvents(tx, events);
    dropHeldWrites(tx, writes);
    forgetCustomerLocks(tx);
    throw error;
  }
  await sql`release savepoint step`.execute(tx);
  return value;
}
