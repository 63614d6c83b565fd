import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// The customer cockpit and the project's branding (vendor management API `…/branding`).
//
// brandings: at most one per project (the vendor answers 409 `branding_exist` to a second); the vendor's
// `brand`, `address` and `contact` objects and Punchcard's `cockpit` look (logo, colours) are JSON.
//
// cockpit_keys: one random secret per project. A customer's cockpit link carries an HMAC of the customer
// under this secret, so the link can be shown on every read of the customer without storing any link.
//
// cockpit_links: a customer's link generation, counted up by each rotation (the older links stop
// working). No row = generation 0, the link every customer starts with. Permanently deleting the
// customer removes the row; the link is dead anyway because the customer is gone.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('brandings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().unique().references('projects.id'))
    .addColumn('brand', 'text')
    .addColumn('address', 'text')
    .addColumn('contact', 'text')
    .addColumn('cockpit', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();

  await db.schema
    .createTable('cockpit_keys')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('cockpit_links')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('rotated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cockpit_links_pk', ['project_id', 'customer_id'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('cockpit_links').ifExists().execute();
  await db.schema.dropTable('cockpit_keys').ifExists().execute();
  await db.schema.dropTable('brandings').ifExists().execute();
}
