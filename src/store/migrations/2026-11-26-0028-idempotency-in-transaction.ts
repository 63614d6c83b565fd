import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Idempotency answers are now written in the transaction of the change they answer, so a row exists only
// for a request that committed; the `pending` claims of the old design mean nothing and go. Answers that
// carried secrets (OAuth access tokens; a new project's key pairs and webhook token) were stored in clear
// and replayed: they are dropped here and the keys marked `withheld`, so a retry still cannot run the
// request twice but no longer shows the secret.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('state', '=', 'pending').execute();
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'withheld', response_body: null, response_content_type: null })
    .where('response_status', '<', 400)
    .where((eb) =>
      eb.or([
        eb('response_body', 'like', '%"access_token"%'),
        eb('response_body', 'like', '%"app_token"%'),
        eb('response_body', 'like', '%"webhook_token"%'),
      ]),
    )
    .execute();
}

export async function down(): Promise<void> {
  // The dropped secrets cannot come back, and withheld keys keep meaning "carried out".
}
