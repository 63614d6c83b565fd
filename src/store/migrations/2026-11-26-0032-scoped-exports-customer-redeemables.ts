import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Two reads that name one campaign, card or customer, served by indexes that start with it:
//
// - The exports of one campaign's or one card's transactions and of one program's points buckets
//   (`POST /v1/campaigns/{id}/transactions/export`, `…/members/{memberId}/transactions/export`,
//   `…/points-expiration/export`) walk their records in the export's order after the scope, as every
//   export batch does (src/store/export-sources.ts), instead of the whole project's records.
// - `GET /v1/customers/{id}/redeemables` pages a customer's redeemable holders by id. Until now only
//   referral codes had holder rows (referrer and referees); a published voucher now gets its holder row
//   (OWNER, or REFERRER for a referral code) when it is published, and the vouchers published before this
//   migration get theirs here, dated when they were published.

const BACKFILL_BATCH = 1000;

/**
 * A holder id as src/lib/ids.ts makes them (`rh_` + 12 hex digits of milliseconds + 8 more), sorting in
 * publication order; the last 8 come from the voucher id, so running the backfill again makes the same id.
 */
function holderId(at: string, voucherId: string): string {
  const ms = Math.max(0, Date.parse(at) || 0);
  return `rh_${ms.toString(16).padStart(12, '0')}${createHash('sha256').update(voucherId).digest('hex').slice(0, 8)}`;
}

interface PublishedVoucher {
  id: string;
  project_id: string;
  campaign_id: string | null;
  holder_id: string;
  is_referral_code: boolean | number;
  published_at: string | null;
  created_at: string;
}

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createIndex('voucher_transactions_campaign_created')
    .on('voucher_transactions')
    .columns(['project_id', 'campaign_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('voucher_transactions_voucher_created')
    .on('voucher_transactions')
    .columns(['project_id', 'voucher_id', 'created_at', 'id'])
    .execute();
  // The expression the points export sorts by (a bucket without expiry sorts after every date).
  await db.schema
    .createIndex('loyalty_buckets_campaign_expires_at')
    .on('loyalty_buckets')
    .columns(['project_id', 'campaign_id'])
    .expression(sql`coalesce(expires_at, '9999-12-31')`)
    .column('id')
    .execute();

  await db.schema.createIndex('redeemable_holders_customer').on('redeemable_holders').columns(['project_id', 'customer_id', 'id']).execute();
  await backfillHolders(db);
}

/** Gives every published voucher its holder row, in id batches; rows that exist are skipped, so it can run again. */
export async function backfillHolders(db: Kysely<MigrationDb>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: PublishedVoucher[] = await db
      .selectFrom('vouchers as v')
      .select(['v.id', 'v.project_id', 'v.campaign_id', 'v.holder_id', 'v.is_referral_code', 'v.published_at', 'v.created_at'])
      .where('v.holder_id', 'is not', null)
      .where('v.id', '>', after)
      .orderBy('v.id')
      .limit(BACKFILL_BATCH)
      .execute();
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    await db
      .insertInto('redeemable_holders')
      .values(
        rows.map((v) => {
          const at = v.published_at ?? v.created_at;
          return {
            id: holderId(at, v.id),
            project_id: v.project_id,
            voucher_id: v.id,
            campaign_id: v.campaign_id,
            customer_id: v.holder_id,
            holder_role: v.is_referral_code ? 'REFERRER' : 'OWNER',
            metadata: '{}',
            created_at: at,
          };
        }),
      )
      .onConflict((oc: MigrationDb) => oc.doNothing())
      .execute();
    if (rows.length < BACKFILL_BATCH) break;
  }
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.deleteFrom('redeemable_holders').where('holder_role', '=', 'OWNER').execute();
  for (const index of ['redeemable_holders_customer', 'loyalty_buckets_campaign_expires_at', 'voucher_transactions_voucher_created', 'voucher_transactions_campaign_created']) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
}
