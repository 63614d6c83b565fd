import { isPostgres, type Executor } from './db.ts';

// Row locks on customers (PostgreSQL; SQLite writers take turns). Every write that touches a customer's
// counters or cards locks the customer row first, so two transactions never wait on each other
// crosswise. A transaction often comes back to the same customer — a redemption locks it for the
// loyalty earning, then again for the order counters — so the ids a transaction holds are remembered and
// not asked for again (one round trip less). A savepoint that rolls back may release locks taken inside
// it, so it forgets them all (src/store/savepoints.ts).

const held = new WeakMap<object, Set<string>>();

/** Locks the customers' rows until the transaction ends, in id order; rows it already holds are skipped. */
export async function lockCustomerRows(db: Executor, projectId: string, customerIds: readonly string[]): Promise<void> {
  if (customerIds.length === 0 || !isPostgres(db)) return;
  let mine = held.get(db);
  if (!mine) held.set(db, (mine = new Set()));
  const wanted = [...new Set(customerIds)].filter((id) => !mine.has(`${projectId}\u0000${id}`)).sort();
  if (wanted.length === 0) return;
  await db.selectFrom('customers').select('id').where('project_id', '=', projectId).where('id', 'in', wanted).orderBy('id').forUpdate().execute();
  for (const id of wanted) mine.add(`${projectId}\u0000${id}`);
}

/** Records that the transaction locked this customer's row itself (a read FOR UPDATE). */
export function noteCustomerLocked(db: Executor, projectId: string, customerId: string): void {
  if (!isPostgres(db)) return;
  let mine = held.get(db);
  if (!mine) held.set(db, (mine = new Set()));
  mine.add(`${projectId}\u0000${customerId}`);
}

/** After a rollback to a savepoint: locks taken inside it may be gone, so none is taken for granted. */
export function forgetCustomerLocks(db: Executor): void {
  held.delete(db);
}
