import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Console sign-in: sessions and the slow-down of failed sign-ins.
//
// A session is a random token in an HttpOnly cookie; only its hash is stored. It works in one project
// (the user's role there decides what it may do), ends at expires_at, and is revoked by signing out
// (one session) or signing out everywhere (every session of the user).
//
// login_throttle counts recent failed sign-ins per account and per client address; after a few, each
// further attempt must wait longer (src/services/users/sessions.ts). Its rows are small and short-lived.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  // Signing out everywhere, and dropping a user's sessions in a project they leave.
  await db.schema.createIndex('user_sessions_user').on('user_sessions').columns(['user_id', 'project_id']).execute();
  // Purging ended sessions.
  await db.schema.createIndex('user_sessions_expiry').on('user_sessions').column('expires_at').execute();

  await db.schema
    .createTable('login_throttle')
    // `account:<login>` or `ip:<address>`.
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_throttle_age').on('login_throttle').column('last_failure_at').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('login_throttle').ifExists().execute();
  await db.schema.dropTable('user_sessions').ifExists().execute();
}
