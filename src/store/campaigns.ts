import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { DefinitionsView } from './definitions.ts';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';
import type { CampaignStatus, CampaignsTable, CampaignType } from './schema.ts';

// Campaigns of every type. A binned campaign (`binned_at` set) is invisible to every "live" function.

export type CampaignRow = Selectable<CampaignsTable>;

export async function insertCampaign(db: Executor, row: Insertable<CampaignsTable>): Promise<void> {
  await db.insertInto('campaigns').values(row).execute();
}

const liveCampaignById = prepared((db, p: { projectId: string; id: string }) =>
  db.selectFrom('campaigns').selectAll().where('project_id', '=', p.projectId).where('id', '=', p.id).where('binned_at', 'is', null),
);

const liveCampaignByName = prepared((db, p: { projectId: string; name: string }) =>
  db.selectFrom('campaigns').selectAll().where('project_id', '=', p.projectId).where('name', '=', p.name).where('binned_at', 'is', null),
);

export async function findLiveCampaignById(db: Executor, projectId: string, id: string): Promise<CampaignRow | undefined> {
  return liveCampaignById.first(db, { projectId, id });
}

/** Paths name a campaign by id or by name (seed 4.5); an id match wins. */
export async function findLiveCampaign(db: Executor, projectId: string, idOrName: string): Promise<CampaignRow | undefined> {
  return (await findLiveCampaignById(db, projectId, idOrName)) ?? (await liveCampaignByName.first(db, { projectId, name: idOrName }));
}

export async function findCampaignInAnyState(db: Executor, projectId: string, id: string): Promise<CampaignRow | undefined> {
  return db.selectFrom('campaigns').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function updateLiveCampaign(
  db: Executor,
  projectId: string,
  id: string,
  patch: Updateable<CampaignsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Moves the campaign's count of vouchers by `delta` (never read and written back). */
export async function addToVouchersCount(db: Executor, projectId: string, id: string, delta: number): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ vouchers_count: sql<number>`vouchers_count + ${delta}` })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}

export async function setGenerationStatus(db: Executor, projectId: string, id: string, status: CampaignStatus, at: string): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ creation_status: status, vouchers_generation_status: status, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}

export type CampaignOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

export interface CampaignListQuery {
  projectId: string;
  limit: number;
  offset: number;
  order: CampaignOrder;
  campaignTypes?: readonly CampaignType[];
  status?: CampaignStatus;
  isReferralCode?: boolean;
}

export async function listLiveCampaigns(db: Executor, q: CampaignListQuery): Promise<{ rows: CampaignRow[]; total: number }> {
  let base = db.selectFrom('campaigns').where('project_id', '=', q.projectId).where('binned_at', 'is', null);
  if (q.campaignTypes && q.campaignTypes.length > 0) base = base.where('campaign_type', 'in', q.campaignTypes);
  if (q.status !== undefined) base = base.where('creation_status', '=', q.status);
  if (q.isReferralCode !== undefined) {
    base = q.isReferralCode ? base.where('campaign_type', '=', 'REFERRAL_PROGRAM') : base.where('campaign_type', '!=', 'REFERRAL_PROGRAM');
  }
  const descending = q.order.startsWith('-');
  const column = q.order.endsWith('updated_at') ? sql<string>`coalesce(updated_at, created_at)` : sql<string>`created_at`;
  const direction = descending ? 'desc' : 'asc';
  const rows = await base.selectAll().orderBy(column, direction).orderBy('id', direction).offset(q.offset).limit(q.limit).execute();
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

export async function binCampaign(db: Executor, projectId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set({ binned_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteCampaignRow(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('campaigns').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

const campaignsByIds = prepared((db, p: { projectId: string; ids: string[] }) =>
  db.selectFrom('campaigns').selectAll().where('project_id', '=', p.projectId).where('id', 'in', p.ids),
);

/** Campaigns by id; with `defs`, from the definitions cache (src/store/definitions.ts). */
export async function findCampaignsByIds(db: Executor, projectId: string, ids: readonly string[], defs?: DefinitionsView): Promise<Map<string, CampaignRow>> {
  if (ids.length === 0) return new Map();
  const load = async (db: Executor, wanted: readonly string[]) => {
    const rows = await campaignsByIds.all(db, { projectId, ids: [...new Set(wanted)] });
    return new Map(rows.map((r) => [r.id, r]));
  };
  return defs ? defs.many('campaign', ids, load) : load(db, ids);
}
