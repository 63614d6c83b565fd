import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Validation rules with their assignments, customer segments with their members, and product
// collections with the items of static collections.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  const pg = isPostgres(db);

  await db.schema
    .createTable('validation_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    // The normalised rule set: numbered rules and `logic` (promotions reference 5.2).
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('applicable_to', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('context_type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // The name is unique within a project (reference 5.1). The list orders names by their bytes on both
  // dialects (SQLite's BINARY); PostgreSQL gets a "C"-collated index for that order, whatever the
  // database's collation.
  await db.schema.createIndex('validation_rules_name').on('validation_rules').columns(['project_id', 'name']).unique().execute();
  if (pg) {
    await db.schema
      .createIndex('validation_rules_name_order')
      .on('validation_rules')
      .column('project_id')
      .expression(sql`name collate "C"`)
      .column('id')
      .execute();
  }
  await db.schema.createIndex('validation_rules_created').on('validation_rules').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('validation_rules_last_change')
    .on('validation_rules')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .execute();

  // What a rule refers to (product collections, segments), so "is this collection in use?" is an index
  // lookup rather than a scan of every rule's JSON. Rewritten whenever the rule changes.
  await db.schema
    .createTable('validation_rule_references')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('validation_rule_references_pk', ['project_id', 'rule_id', 'object_type', 'object_id'])
    .execute();
  await db.schema
    .createIndex('validation_rule_references_object')
    .on('validation_rule_references')
    .columns(['project_id', 'object_type', 'object_id', 'rule_id'])
    .execute();

  await db.schema
    .createTable('validation_rule_assignments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('related_object_type', 'text', (c) => c.notNull())
    .addColumn('related_object_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One assignment per rule and object: a second one is 409, decided by this index.
  await db.schema
    .createIndex('validation_rule_assignments_unique')
    .on('validation_rule_assignments')
    .columns(['project_id', 'rule_id', 'related_object_type', 'related_object_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('validation_rule_assignments_rule')
    .on('validation_rule_assignments')
    .columns(['project_id', 'rule_id', 'created_at', 'id'])
    .execute();
  // Serves both the list filtered by related_object_id and "which rules guard this object" for the engine.
  await db.schema
    .createIndex('validation_rule_assignments_object')
    .on('validation_rule_assignments')
    .columns(['project_id', 'related_object_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('validation_rule_assignments_created')
    .on('validation_rule_assignments')
    .columns(['project_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('segments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('filter', 'text')
    .addColumn('initial_sync_status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('segments_created').on('segments').columns(['project_id', 'created_at', 'id']).execute();
  // Every customer write looks up the project's auto-update segments.
  await db.schema.createIndex('segments_type').on('segments').columns(['project_id', 'type', 'id']).execute();

  // Materialised membership: static segments list their customers, auto-update segments are kept in step
  // with customer writes. The primary key serves the customer list's segment_id filter.
  await db.schema
    .createTable('segment_members')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('segment_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('segment_members_pk', ['project_id', 'segment_id', 'customer_id'])
    .execute();
  await db.schema.createIndex('segment_members_customer').on('segment_members').columns(['project_id', 'customer_id', 'segment_id']).execute();

  await db.schema
    .createTable('product_collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('filter', 'text')
    // The `products` member of a static collection as answered (ids resolved), for the object's echo.
    .addColumn('products', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('product_collections_created').on('product_collections').columns(['project_id', 'created_at', 'id']).execute();

  // Items of static collections, one row per product or SKU. `item_created_at` copies the item's creation
  // time (which never changes) so the collection's product list pages by index.
  await db.schema
    .createTable('product_collection_items')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('item_type', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('item_created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_collection_items_pk', ['project_id', 'collection_id', 'item_id'])
    .execute();
  await db.schema
    .createIndex('product_collection_items_order')
    .on('product_collection_items')
    .columns(['project_id', 'collection_id', 'item_created_at', 'item_id'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of [
    'product_collection_items',
    'product_collections',
    'segment_members',
    'segments',
    'validation_rule_assignments',
    'validation_rule_references',
    'validation_rules',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
