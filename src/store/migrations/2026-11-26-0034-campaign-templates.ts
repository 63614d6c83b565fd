import type { Kysely } from 'kysely';
import type { MigrationDb } from './helpers.ts';

// Campaign templates (vendor /v1/templates/campaigns…): a discount or gift campaign's configuration, or a
// promotion tier's as a discount campaign, kept under a name unique in the project, from which campaigns
// and promotion tiers are made again (src/services/campaign-templates). Listed by id (ids sort in creation
// order), so the list and its cursor are one range of (project_id, id).

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('campaign_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('campaign_type', 'text', (c) => c.notNull())
    // The campaign configuration and the definitions of its validation rules (JSON).
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('campaign_templates_name').on('campaign_templates').columns(['project_id', 'name']).unique().execute();
  await db.schema.createIndex('campaign_templates_project').on('campaign_templates').columns(['project_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('campaign_templates').ifExists().execute();
}
