import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Console users (the vendor's management "users"): people who sign in to the dashboard. A user belongs
// to the organisation and holds one role per project (project_users). One-time links — the first
// admin's setup link and invitations — are stored as hashes of their secret in user_tokens; a link is
// spent by one conditional update (used_at from null), so it works exactly once.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The e-mail address as typed, and its lower-cased form, which is the unique login.
    .addColumn('login', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    // A memory-hard KDF's output with its parameters (src/lib/passwords.ts); null until the user sets one.
    .addColumn('password_hash', 'text')
    .addColumn('is_owner', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();

  await db.schema
    .createTable('project_users')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .addPrimaryKeyConstraint('project_users_pk', ['project_id', 'user_id'])
    .execute();
  // A user's projects (the `projects` member of the user object, sign-in).
  await db.schema.createIndex('project_users_user').on('project_users').columns(['user_id', 'project_id']).execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    // 'setup' (creates the first admin) or 'invitation' (an invited user sets a password).
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'purpose']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('user_tokens').ifExists().execute();
  await db.schema.dropTable('project_users').ifExists().execute();
  await db.schema.dropTable('users').ifExists().execute();
}
