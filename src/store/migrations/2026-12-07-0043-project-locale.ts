import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// projects.locale: the language tag (BCP 47, such as en-GB or de-DE) the console writes the project's
// dates and numbers in, with the project's time zone; null leaves it to each reader's browser.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('locale', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('projects').dropColumn('locale').execute();
}
