import { sql } from 'kysely';
import type { Executor } from './db.ts';

/**
 * GDPR erase, for the rows that keep naming an erased customer by id (redemption records, publications):
 * a `tracking_id` equal to the customer's source_id — what those rows record by default, often an
 * email — is cleared. Other tracking ids were chosen by the caller and stay.
 */
export async function clearTrackingIdOfErased(
  db: Executor,
  table: 'redemptions' | 'publications',
  projectId: string,
  customer: { id: string; source_id: string | null },
): Promise<void> {
  if (customer.source_id === null) return;
  await sql`update ${sql.table(table)} set tracking_id = null
    where project_id = ${projectId} and customer_id = ${customer.id} and tracking_id = ${customer.source_id}`.execute(db);
}
