import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Foundation: installation settings, organisation and project keys, OAuth tokens, idempotency records,
// the event log, jobs, customers and the catalog.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  const pg = isPostgres(db);

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('management_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('dial_code', 'text')
    .addColumn('webhook_version', 'text', (c) => c.notNull())
    .addColumn('api_version', 'text', (c) => c.notNull())
    .addColumn('cluster_id', 'text', (c) => c.notNull())
    .addColumn('case_sensitive_codes', 'boolean', (c) => c.notNull())
    .addColumn('is_sandbox', 'boolean', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('client_trusted_domains', 'text', (c) => c.notNull())
    .addColumn('client_redeem_enabled', 'boolean', (c) => c.notNull())
    .addColumn('client_publish_enabled', 'boolean', (c) => c.notNull())
    .addColumn('client_list_vouchers_enabled', 'boolean', (c) => c.notNull())
    .addColumn('client_create_customer_enabled', 'boolean', (c) => c.notNull())
    .addColumn('client_loyalty_events_enabled', 'boolean', (c) => c.notNull())
    .addColumn('client_set_voucher_expiration_date_enabled', 'boolean', (c) => c.notNull())
    .addColumn('webhooks_callout_notifications', 'text', (c) => c.notNull())
    .addColumn('api_usage_notifications', 'text', (c) => c.notNull())
    .addColumn('default_code_config', 'text')
    .addColumn('limits', 'text')
    .addColumn('webhook_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  // At most one default project, guarded by the database rather than by a prior SELECT.
  await db.schema
    .createIndex('projects_one_default')
    .on('projects')
    .column('is_default')
    .unique()
    .where(sql.ref('is_default'), '=', sql.lit(true))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_project').on('api_keys').columns(['project_id', 'kind']).execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_tokens_live').on('oauth_tokens').columns(['project_id', 'expires_at']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_content_type', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_age').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('events')
    .addColumn('seq', pg ? 'bigint' : 'integer', (c) =>
      pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('activity_type', 'text')
    .addColumn('activity_category', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('campaign_id', 'text')
    .addColumn('campaign_type', 'text')
    .addColumn('campaign_name', 'text')
    .addColumn('voucher_code', 'text')
    .addColumn('category_name', 'text')
    .addColumn('product_ids', 'text')
    .addColumn('entity_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_project_seq').on('events').columns(['project_id', 'seq']).execute();
  await db.schema
    .createIndex('events_customer_activity')
    .on('events')
    .columns(['project_id', 'customer_id', 'created_at', 'seq'])
    .where(sql.ref('activity_type'), 'is not', null)
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('error', 'text')
    .addColumn('request_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('jobs_runnable').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_project').on('jobs').columns(['project_id', 'kind', 'created_at']).execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('source_id', 'text')
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('birthday', 'text')
    .addColumn('birthdate', 'text')
    .addColumn('address', 'text')
    // Copy of address.city, so the list's city filter is an indexed equality on both dialects.
    .addColumn('address_city', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('system_metadata', 'text', (c) => c.notNull())
    .addColumn('redemptions_total_redeemed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redemptions_total_failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redemptions_total_succeeded', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redemptions_total_rolled_back', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redemptions_total_rollback_failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redemptions_total_rollback_succeeded', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders_total_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders_total_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders_last_order_amount', 'bigint')
    .addColumn('orders_last_order_date', 'text')
    .addColumn('loyalty_referred_customers', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  // Deleted customers keep their row (hidden from every read) until a permanent deletion erases it, so
  // uniqueness and the list indexes cover live rows only: a deleted customer's source_id is free at once.
  const liveCustomer = sql<boolean>`deleted_at is null`;
  await db.schema
    .createIndex('customers_source_id')
    .on('customers')
    .columns(['project_id', 'source_id'])
    .unique()
    .where(sql<boolean>`source_id is not null and deleted_at is null`)
    .execute();
  // The list sorts on these exact expressions (src/store/customers.ts); they avoid NULLs, whose sort
  // position differs between SQLite and PostgreSQL, so both dialects order and page identically.
  await db.schema.createIndex('customers_created').on('customers').columns(['project_id', 'created_at', 'id']).where(liveCustomer).execute();
  await db.schema
    .createIndex('customers_last_change')
    .on('customers')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .where(liveCustomer)
    .execute();
  await db.schema
    .createIndex('customers_source_order')
    .on('customers')
    .column('project_id')
    .expression(sql`coalesce(source_id, '')`)
    .column('id')
    .where(liveCustomer)
    .execute();
  await db.schema.createIndex('customers_email').on('customers').columns(['project_id', 'email', 'created_at']).where(liveCustomer).execute();
  await db.schema.createIndex('customers_name').on('customers').columns(['project_id', 'name', 'created_at']).where(liveCustomer).execute();
  await db.schema.createIndex('customers_city').on('customers').columns(['project_id', 'address_city', 'created_at']).where(liveCustomer).execute();

  await db.schema
    .createTable('customer_deletions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customer_deletions_customer').on('customer_deletions').columns(['project_id', 'customer_id']).execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hierarchy', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('categories_name').on('categories').columns(['project_id', 'name']).unique().execute();
  await db.schema.createIndex('categories_created').on('categories').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('source_id', 'text')
    .addColumn('name', 'text')
    .addColumn('price', 'bigint')
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('binned_at', 'text')
    .execute();
  // A binned product gives up its source_id at once (DECISIONS 9), so uniqueness covers live rows only.
  await db.schema
    .createIndex('products_source_id')
    .on('products')
    .columns(['project_id', 'source_id'])
    .unique()
    .where(sql<boolean>`source_id is not null and binned_at is null`)
    .execute();
  // Lists show live products only, so their indexes leave binned rows out. "Last modified" is
  // updated_at, or created_at for a product never updated.
  await db.schema
    .createIndex('products_created')
    .on('products')
    .columns(['project_id', 'created_at', 'id'])
    .where(sql.ref('binned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('products_modified')
    .on('products')
    .column('project_id')
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .where(sql.ref('binned_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('skus')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('source_id', 'text')
    .addColumn('sku', 'text')
    .addColumn('price', 'bigint')
    .addColumn('currency', 'text')
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addColumn('binned_at', 'text')
    .execute();
  await db.schema
    .createIndex('skus_source_id')
    .on('skus')
    .columns(['project_id', 'source_id'])
    .unique()
    .where(sql<boolean>`source_id is not null and binned_at is null`)
    .execute();
  // Not partial: permanent deletion of a product finds its binned SKUs through this index as well.
  await db.schema.createIndex('skus_product').on('skus').columns(['project_id', 'product_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('skus_modified')
    .on('skus')
    .columns(['project_id', 'product_id'])
    .expression(sql`coalesce(updated_at, created_at)`)
    .column('id')
    .where(sql.ref('binned_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('bin_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_name', 'text')
    .addColumn('resource_parent_id', 'text')
    .addColumn('deleted_by_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bin_entries_project').on('bin_entries').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('bin_entries_resource').on('bin_entries').columns(['project_id', 'resource_id']).unique().execute();
  // Purging a product also removes the entries of its separately binned SKUs, found by their parent.
  await db.schema.createIndex('bin_entries_parent').on('bin_entries').columns(['project_id', 'resource_parent_id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of [
    'bin_entries',
    'skus',
    'products',
    'categories',
    'customer_deletions',
    'customers',
    'jobs',
    'events',
    'idempotency_keys',
    'oauth_tokens',
    'api_keys',
    'projects',
    'management_keys',
    'settings',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
