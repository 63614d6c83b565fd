import type { Insertable, Selectable, Updateable } from 'kysely';
import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
import type { CampaignTemplatesTable } from './schema.ts';

// Campaign templates (migration 0034). Every query names the project; names are unique per project (the
// unique index decides, callers turn its violation into 409). Ids sort in creation order, so the list
// pages by id on (project_id, id).

export type CampaignTemplateRow = Selectable<CampaignTemplatesTable>;

export async function insertCampaignTemplate(db: Executor, row: Insertable<CampaignTemplatesTable>): Promise<void> {
  await db.insertInto('campaign_templates').values(row).execute();
}

export async function findCampaignTemplate(db: Executor, projectId: string, id: string): Promise<CampaignTemplateRow | undefined> {
  return db.selectFrom('campaign_templates').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function updateCampaignTemplate(db: Executor, projectId: string, id: string, patch: Updateable<CampaignTemplatesTable>): Promise<boolean> {
  const result = await db.updateTable('campaign_templates').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteCampaignTemplate(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('campaign_templates').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The fields `filters[…]` may name (vendor ParameterFiltersListTemplates). */
export const campaignTemplateFilterFields: FieldCatalog = (field) => (field === 'id' || field === 'name' || field === 'campaign_type' ? { kind: 'text', column: field } : null);

export interface CampaignTemplateQuery {
  projectId: string;
  limit: number;
  descending: boolean;
  startingAfterId?: string;
  filter?: ParsedFilter;
  withTotal: boolean;
  dialect: Dialect;
  now: Date;
}

export async function listCampaignTemplates(db: Executor, q: CampaignTemplateQuery): Promise<{ rows: CampaignTemplateRow[]; hasMore: boolean; total: number | null }> {
  let base = db.selectFrom('campaign_templates').where('project_id', '=', q.projectId);
  if (q.filter && q.filter.fields.length > 0) base = base.where(filterCondition(q.filter, q.dialect, q.now));
  let page = base.selectAll();
  if (q.startingAfterId !== undefined) page = page.where('id', q.descending ? '<' : '>', q.startingAfterId);
  const rows = await page
    .orderBy('id', q.descending ? 'desc' : 'asc')
    .limit(q.limit + 1)
    .execute();
  // The vendor counts every template of the project, whatever the filters.
  const total = q.withTotal
    ? Number((await db.selectFrom('campaign_templates').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', q.projectId).executeTakeFirstOrThrow()).n)
    : null;
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit, total };
}
