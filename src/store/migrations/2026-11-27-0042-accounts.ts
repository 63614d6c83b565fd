import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Accounts: password reset links and whether a member has taken up their place in a project.
//
// project_users.joined_at: when the person first signed in (or accepted a link) after being given the
// role; null while the place is an open invitation. A project's console is told a member's status from
// this, never from the account's password, so an ADMIN who adds an e-mail cannot tell whether it had an
// account elsewhere (src/services/users/project-users.ts). Members whose account has a password already
// took their place: they count as joined from when they were added.
//
// user_tokens.project_id: the project a password reset link was issued in (the page names that shop and
// the person is signed in there); null for the other purposes.

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('project_users').addColumn('joined_at', 'text').execute();
  await sql`update project_users set joined_at = created_at
    where user_id in (select id from users where password_hash is not null)`.execute(db);
  await db.schema.alterTable('user_tokens').addColumn('project_id', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('user_tokens').dropColumn('project_id').execute();
  await db.schema.alterTable('project_users').dropColumn('joined_at').execute();
}
