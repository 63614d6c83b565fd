import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// The redemption list answers `total` with every page, so its count must not visit the table. The
// campaign and customer indexes therefore carry `result` as a trailing column: a count or a page
// filtered by campaign or customer and by result is answered from the index alone (measured on SQLite:
// 18 ms → under 2 ms for 30k matching rows). `redemptions_id` duplicated `export_redemptions_id`
// (both `project_id, id`); one of them is enough, and every index costs each redemption write.

const WIDENED = [
  { name: 'redemptions_campaign', column: 'campaign_name' },
  { name: 'redemptions_customer', column: 'customer_id' },
] as const;

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  for (const { name, column } of WIDENED) {
    await db.schema.dropIndex(name).ifExists().execute();
    await db.schema.createIndex(name).on('redemptions').columns(['project_id', column, 'created_at', 'id', 'result']).execute();
  }
  await db.schema.dropIndex('redemptions_id').ifExists().execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const { name, column } of WIDENED) {
    await db.schema.dropIndex(name).ifExists().execute();
    await db.schema.createIndex(name).on('redemptions').columns(['project_id', column, 'created_at', 'id']).execute();
  }
  await db.schema.createIndex('redemptions_id').on('redemptions').columns(['project_id', 'id']).execute();
}
