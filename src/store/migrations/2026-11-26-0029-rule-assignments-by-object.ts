import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Deleting an object's validation rule assignments (a promotion tier, a campaign and its vouchers, a
// reward assignment) names the object by id and type. SQLite keeps no statistics here, and for such a
// DELETE it picked validation_rule_assignments_unique on project_id alone: every assignment of the
// project was read to remove one or two. An index on exactly (project, object, type) is the one both
// databases choose; validation_rule_assignments_object stays for lists in created_at order.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createIndex('validation_rule_assignments_related')
    .on('validation_rule_assignments')
    .columns(['project_id', 'related_object_id', 'related_object_type'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('validation_rule_assignments_related').ifExists().execute();
}
