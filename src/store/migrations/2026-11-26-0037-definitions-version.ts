import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Definitions — a project's settings and stacking rules, its campaigns, promotion tiers and stacks,
// validation rules and their assignments, categories, metadata schemas, earning rules, reward assignments
// and loyalty tiers — are read by every validation and redemption but change rarely. Each process keeps
// them in a cache (src/store/definitions.ts) that is valid for one `projects.definitions_version`; every
// request reads that number first, so a change committed before the request began is never missed, in any
// process.
//
// The number moves in the database itself: a trigger on each definition table adds one for every row
// inserted, updated or deleted, in the same transaction as the change. No code path can forget it. The
// project row's own changes (settings) move it through a trigger on projects.

export const DEFINITION_TABLES = [
  'stacking_rules',
  'campaigns',
  'promotion_tiers',
  'promotion_stacks',
  'promotion_stack_tiers',
  'validation_rules',
  'validation_rule_assignments',
  'categories',
  'metadata_schemas',
  'earning_rules',
  'reward_assignments',
  'loyalty_tiers',
] as const;

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('definitions_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  if (isPostgres(db)) {
    await sql`create function punchcard_bump_definitions() returns trigger language plpgsql as $$
      begin
        update projects set definitions_version = definitions_version + 1
          where id = (case when tg_op = 'DELETE' then old.project_id else new.project_id end);
        return null;
      end $$`.execute(db);
    await sql`create function punchcard_bump_own_definitions() returns trigger language plpgsql as $$
      begin
        new.definitions_version := old.definitions_version + 1;
        return new;
      end $$`.execute(db);
    for (const table of DEFINITION_TABLES) {
      await sql
        .raw(`create trigger ${table}_definitions after insert or update or delete on ${table} for each row execute function punchcard_bump_definitions()`)
        .execute(db);
    }
    await sql`create trigger projects_definitions before update on projects for each row
      when (old.definitions_version = new.definitions_version) execute function punchcard_bump_own_definitions()`.execute(db);
    return;
  }
  for (const table of DEFINITION_TABLES) {
    for (const [operation, row] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const) {
      await sql
        .raw(
          `create trigger ${table}_definitions_${operation} after ${operation} on ${table} begin ` +
            `update projects set definitions_version = definitions_version + 1 where id = ${row}.project_id; end`,
        )
        .execute(db);
    }
  }
  // SQLite cannot change NEW in a trigger: the project's own update is followed by a second one.
  await sql`create trigger projects_definitions after update on projects when old.definitions_version = new.definitions_version begin
      update projects set definitions_version = definitions_version + 1 where id = new.id; end`.execute(db);
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  if (isPostgres(db)) {
    for (const table of DEFINITION_TABLES) await sql.raw(`drop trigger if exists ${table}_definitions on ${table}`).execute(db);
    await sql`drop trigger if exists projects_definitions on projects`.execute(db);
    await sql`drop function if exists punchcard_bump_definitions()`.execute(db);
    await sql`drop function if exists punchcard_bump_own_definitions()`.execute(db);
  } else {
    for (const table of DEFINITION_TABLES) {
      for (const operation of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${table}_definitions_${operation}`).execute(db);
    }
    await sql`drop trigger if exists projects_definitions`.execute(db);
  }
  await db.schema.alterTable('projects').dropColumn('definitions_version').execute();
}
