import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Consents (vendor GET /v1/consents, the customer's consents): the marketing permissions a project asks
// its customers for, grouped for display, and each customer's answer to each of them. A project defines
// them through the management API (src/services/consents); a customer's answer is one row per customer
// and consent, written with an upsert, so concurrent answers never lose one another.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('consents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('category', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('consents_created').on('consents').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('consent_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // The ids of the group's consents, in the order given (JSON array).
    .addColumn('consents', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('consent_groups_created').on('consent_groups').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('customer_consents')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('consent_id', 'text', (c) => c.notNull())
    .addColumn('granted', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_consents_pk', ['project_id', 'customer_id', 'consent_id'])
    .execute();
  // Deleting a consent removes every customer's answer to it.
  await db.schema.createIndex('customer_consents_consent').on('customer_consents').columns(['project_id', 'consent_id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('customer_consents').ifExists().execute();
  await db.schema.dropTable('consent_groups').ifExists().execute();
  await db.schema.dropTable('consents').ifExists().execute();
}
