import { sql, type Kysely } from 'kysely';
import { emailKey, nameParts, phoneKey } from '../customer-search.ts';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Prefix search over customers (GET /v1/customers?q=, src/store/customer-search.ts). The keys compare in
// code point order on both databases: SQLite's default BINARY collation does; on PostgreSQL the columns
// and the source_id index are declared COLLATE "C", since a linguistic collation does not keep every
// string that starts with a prefix in one range.
//
// What a write costs: email_key and phone_key are two more columns with one index each (written only when
// e-mail or phone are); a name adds one row per word (at most six) to customer_name_parts, whose primary
// key is its only index. On PostgreSQL one more index orders source_id by code point; SQLite's existing
// customers_source_id already does.

const BATCH = 1000;

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  const pg = isPostgres(db);
  const keyType = pg ? sql`text collate "C"` : sql`text`;
  await sql`alter table customers add column email_key ${keyType}`.execute(db);
  await sql`alter table customers add column phone_key ${keyType}`.execute(db);
  await db.schema
    .createTable('customer_name_parts')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name_part', pg ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_name_parts_pk', ['project_id', 'name_part', 'customer_id'])
    .execute();

  // Existing customers, a project at a time and a batch at a time: the keys are made by the same code as
  // on every later write, so old and new customers match alike.
  const projects: { id: string }[] = await db.selectFrom('projects').select('id').execute();
  for (const { id: projectId } of projects) {
    let after = '';
    for (;;) {
      const rows: { id: string; name: string | null; email: string | null; phone: string | null }[] = await db
        .selectFrom('customers')
        .select(['id', 'name', 'email', 'phone'])
        .where('project_id', '=', projectId)
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        if (row.email !== null || row.phone !== null) {
          await db
            .updateTable('customers')
            .set({ email_key: emailKey(row.email), phone_key: phoneKey(row.phone) })
            .where('project_id', '=', projectId)
            .where('id', '=', row.id)
            .execute();
        }
      }
      const parts = rows.flatMap((row) => nameParts(row.name).map((name_part) => ({ project_id: projectId, name_part, customer_id: row.id })));
      for (let i = 0; i < parts.length; i += BATCH) await db.insertInto('customer_name_parts').values(parts.slice(i, i + BATCH)).execute();
      after = rows[rows.length - 1]!.id;
    }
  }

  const live = sql<boolean>`deleted_at is null`;
  await db.schema.createIndex('customers_email_key').on('customers').columns(['project_id', 'email_key']).where(live).execute();
  await db.schema.createIndex('customers_phone_key').on('customers').columns(['project_id', 'phone_key']).where(live).execute();
  if (pg) {
    await db.schema
      .createIndex('customers_source_prefix')
      .on('customers')
      .column('project_id')
      .expression(sql`(source_id collate "C")`)
      .where(sql<boolean>`source_id is not null and deleted_at is null`)
      .execute();
  }
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('customers_source_prefix').ifExists().execute();
  await db.schema.dropIndex('customers_phone_key').ifExists().execute();
  await db.schema.dropIndex('customers_email_key').ifExists().execute();
  await db.schema.dropTable('customer_name_parts').ifExists().execute();
  await db.schema.alterTable('customers').dropColumn('phone_key').execute();
  await db.schema.alterTable('customers').dropColumn('email_key').execute();
}
