import { sql, type Insertable, type Selectable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import type { PublicationsTable } from './schema.ts';
import type { VoucherRow } from './vouchers.ts';

// Publications: a voucher handed to a customer (its holder).

export type PublicationRow = Selectable<PublicationsTable>;

export async function insertPublication(db: Executor, row: Insertable<PublicationsTable>): Promise<void> {
  await db.insertInto('publications').values(row).execute();
}

export async function findPublicationBySourceId(db: Executor, projectId: string, sourceId: string): Promise<PublicationRow | undefined> {
  return db.selectFrom('publications').selectAll().where('project_id', '=', projectId).where('source_id', '=', sourceId).executeTakeFirst();
}

/** A live voucher of the campaign that the customer already holds (join-once campaigns hold one each). */
export async function findHeldVoucher(db: Executor, projectId: string, campaignId: string, customerId: string): Promise<VoucherRow | undefined> {
  return db
    .selectFrom('vouchers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('holder_id', '=', customerId)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Gives the customer one active, never-published voucher of the campaign and answers it, or undefined
 * when none is left. On PostgreSQL concurrent publishers skip each other's candidate rows; the
 * `holder_id is null` condition makes the hand-over itself race-free on both databases.
 */
export async function claimUnpublishedVoucher(
  db: Executor,
  projectId: string,
  campaignId: string,
  customerId: string,
  at: string,
): Promise<VoucherRow | undefined> {
  const lock = isPostgres(db) ? sql`for update skip locked` : sql``;
  const result = await sql<VoucherRow>`
    update vouchers
    set holder_id = ${customerId}, publish_count = publish_count + 1, published_at = ${at}, updated_at = ${at}
    where id = (
      select id from vouchers
      where project_id = ${projectId} and campaign_id = ${campaignId} and binned_at is null
        and holder_id is null and active = ${true}
      order by created_at, id
      limit 1
      ${lock}
    ) and holder_id is null
    returning *
  `.execute(db);
  return result.rows[0];
}

/** Hands a specific voucher to the customer, only if nobody holds it yet. */
export async function claimVoucher(db: Executor, projectId: string, voucherId: string, customerId: string, at: string): Promise<VoucherRow | undefined> {
  return db
    .updateTable('vouchers')
    .set({ holder_id: customerId, publish_count: sql<number>`publish_count + 1`, published_at: at, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', voucherId)
    .where('binned_at', 'is', null)
    .where('holder_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
