import { sql, type Insertable, type RawBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { FieldCatalog, ParsedFilter } from '../domain/filters/filter.ts';
import type { DefinitionsView } from './definitions.ts';
import type { Dialect, Executor } from './db.ts';
import { filterCondition } from './filter-sql.ts';
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
  filter?: ParsedFilter;
  /** State filters (CampaignState), each a non-empty list of alternatives. */
  states?: readonly (readonly CampaignState[])[];
  dialect: Dialect;
  now: Date;
}

/** The fields `filters[…]` may name on the campaign list (vendor ParameterFiltersListCampaigns), and the columns they read. */
export const campaignFilterFields: FieldCatalog = (field) => {
  if (field.startsWith('metadata.') && field.length > 'metadata.'.length) {
    return { kind: 'json', column: 'metadata', member: field.slice('metadata.'.length) };
  }
  switch (field) {
    case 'campaigns':
    case 'name':
      return { kind: 'text', column: 'name' };
    case 'campaigns_id':
    case 'id':
      return { kind: 'text', column: 'id' };
    case 'campaign_status':
      return { kind: 'text', column: 'creation_status' };
    case 'categories':
    case 'category_ids':
      return { kind: 'text', column: 'category_id' };
    case 'type':
    case 'campaign_type':
      return { kind: 'text', column: field };
    case 'voucher_type':
      return { kind: 'json', column: 'voucher_template', member: 'type' };
    case 'created_date':
    case 'created_at':
      return { kind: 'instant', column: 'created_at' };
    case 'updated_at':
    case 'start_date':
    case 'expiration_date':
      return { kind: 'instant', column: field };
    // A timeframe ({ interval, duration }) is a recurrence, not a date; its windows repeat from the
    // campaign's start_date (which a timeframe requires). So a date test on validity_timeframe asks when
    // the recurring windows begin: it tests start_date, on campaigns that have a timeframe (`$after` X:
    // windows starting after X; `$more_than` N: started over N days ago); a campaign without one never
    // matches a positive test. `$has_value` is "has a timeframe".
    case 'validity_timeframe':
      return { kind: 'instant', column: 'start_date', onlyWith: 'validity_timeframe' };
    // The weekdays the campaign is limited to; `$is` [1, 3] finds campaigns valid on Mondays and
    // Wednesdays by their own day list (a campaign without a day limit has no list and is not matched).
    case 'validity_day_of_week':
      return { kind: 'day_list', column: 'validity_day_of_week' };
    default:
      return null;
  }
};

/**
 * The vendor's state filters of the campaign list, which take no operand:
 * `filters[active][conditions][$enabled|$disabled|$expired|$active]` and
 * `filters[status][conditions][$active|$failed|$in_progress|$expired|before_start]` (code generation).
 */
export type CampaignState = 'enabled' | 'disabled' | 'expired' | 'active' | 'generated' | 'failed' | 'in_progress' | 'before_start' | 'referral' | 'not_referral';

function stateCondition(state: CampaignState, now: string): RawBuilder<SqlBool> {
  switch (state) {
    case 'enabled':
      return sql<SqlBool>`(active = ${sql.lit(true)})`;
    case 'disabled':
      return sql<SqlBool>`(active = ${sql.lit(false)})`;
    case 'expired':
      return sql<SqlBool>`(expiration_date is not null and expiration_date < ${now})`;
    case 'active':
      return sql<SqlBool>`(active = ${sql.lit(true)} and (start_date is null or start_date <= ${now}) and (expiration_date is null or expiration_date > ${now}))`;
    case 'generated':
      return sql<SqlBool>`(vouchers_generation_status = 'DONE')`;
    case 'failed':
      return sql<SqlBool>`(vouchers_generation_status = 'FAILED')`;
    case 'in_progress':
      return sql<SqlBool>`(vouchers_generation_status in ('IN_PROGRESS', 'MODIFYING'))`;
    case 'before_start':
      return sql<SqlBool>`(start_date is not null and start_date > ${now})`;
    // A campaign's codes are referral codes exactly when it is a referral program.
    case 'referral':
      return sql<SqlBool>`(campaign_type = 'REFERRAL_PROGRAM')`;
    case 'not_referral':
      return sql<SqlBool>`(campaign_type <> 'REFERRAL_PROGRAM')`;
  }
}

export async function listLiveCampaigns(db: Executor, q: CampaignListQuery): Promise<{ rows: CampaignRow[]; total: number }> {
  let base = db.selectFrom('campaigns').where('project_id', '=', q.projectId).where('binned_at', 'is', null);
  if (q.filter && q.filter.fields.length > 0) base = base.where(filterCondition(q.filter, q.dialect, q.now));
  // Each state filter holds when any of its states does; the state filters and the others must all hold.
  for (const states of q.states ?? []) {
    const now = q.now.toISOString();
    base = base.where(sql<SqlBool>`(${sql.join(states.map((s) => stateCondition(s, now)), sql` or `)})`);
  }
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
