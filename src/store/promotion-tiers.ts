import { sql, type CompiledQuery, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { CampaignRow } from './campaigns.ts';
import { isPostgres, type Db, type Executor } from './db.ts';
import type { DefinitionsView } from './definitions.ts';
import { prepared } from './prepared.ts';
import { shardOf } from './shards.ts';
import type { PromotionTiersTable, ValidationRuleAssignmentsTable } from './schema.ts';

// Promotion tiers (promotions reference 4.1). A tier is visible only while its campaign is a live
// PROMOTION campaign: every read joins the campaign, so binning a campaign hides its tiers at once.
// Every query names its project.

export type TierRow = Selectable<PromotionTiersTable>;

/** A tier with the campaign it belongs to, as one query loads them. */
export interface TierWithCampaign {
  tier: TierRow;
  campaign: CampaignRow;
}

export type TierLock = 'update' | 'share';

// Tier columns are aliased so they cannot collide with the campaign's (`id`, `name`, `active`, …); the
// campaign's columns come with selectAll and map onto CampaignRow unchanged.
const TIER_SELECTION = [
  't.id as t_id',
  't.project_id as t_project_id',
  't.campaign_id as t_campaign_id',
  't.name as t_name',
  't.banner as t_banner',
  't.action as t_action',
  't.metadata as t_metadata',
  't.hierarchy as t_hierarchy',
  't.active as t_active',
  't.start_date as t_start_date',
  't.expiration_date as t_expiration_date',
  't.validity_timeframe as t_validity_timeframe',
  't.validity_day_of_week as t_validity_day_of_week',
  't.validity_hours as t_validity_hours',
  't.recurring as t_recurring',
  't.category_id as t_category_id',
  't.created_at as t_created_at',
  't.updated_at as t_updated_at',
] as const;

function joined(db: Executor, projectId: string) {
  return db
    .selectFrom('promotion_tiers as t')
    .innerJoin('campaigns as c', (join) => join.onRef('c.project_id', '=', 't.project_id').onRef('c.id', '=', 't.campaign_id'))
    .where('t.project_id', '=', projectId)
    .where('c.binned_at', 'is', null)
    .where('c.campaign_type', '=', 'PROMOTION');
}

type JoinedRow = CampaignRow & {
  t_id: string;
  t_project_id: string;
  t_campaign_id: string;
  t_name: string;
  t_banner: string | null;
  t_action: string;
  t_metadata: string;
  t_hierarchy: number;
  t_active: boolean | number;
  t_start_date: string | null;
  t_expiration_date: string | null;
  t_validity_timeframe: string | null;
  t_validity_day_of_week: string | null;
  t_validity_hours: string | null;
  t_recurring: boolean | number;
  t_category_id: string | null;
  t_created_at: string;
  t_updated_at: string | null;
};

function split(row: JoinedRow): TierWithCampaign {
  const {
    t_id,
    t_project_id,
    t_campaign_id,
    t_name,
    t_banner,
    t_action,
    t_metadata,
    t_hierarchy,
    t_active,
    t_start_date,
    t_expiration_date,
    t_validity_timeframe,
    t_validity_day_of_week,
    t_validity_hours,
    t_recurring,
    t_category_id,
    t_created_at,
    t_updated_at,
    ...campaign
  } = row;
  return {
    tier: {
      id: t_id,
      project_id: t_project_id,
      campaign_id: t_campaign_id,
      name: t_name,
      banner: t_banner,
      action: t_action,
      metadata: t_metadata,
      hierarchy: Number(t_hierarchy),
      active: t_active,
      start_date: t_start_date,
      expiration_date: t_expiration_date,
      validity_timeframe: t_validity_timeframe,
      validity_day_of_week: t_validity_day_of_week,
      validity_hours: t_validity_hours,
      recurring: t_recurring,
      category_id: t_category_id,
      created_at: t_created_at,
      updated_at: t_updated_at,
    },
    campaign,
  };
}

export async function insertTiers(db: Executor, rows: readonly Insertable<PromotionTiersTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('promotion_tiers').values([...rows]).execute();
}

function tiersWithCampaignQuery(lock: TierLock | 'none') {
  return prepared((db, p: { projectId: string; ids: string[] }) => {
    const query = joined(db, p.projectId).selectAll('c').select(TIER_SELECTION).where('t.id', 'in', p.ids);
    if (lock === 'none' || !isPostgres(db)) return query;
    return lock === 'update' ? query.forUpdate('t') : query.forShare('t');
  });
}

const tiersWithCampaign = { none: tiersWithCampaignQuery('none'), update: tiersWithCampaignQuery('update'), share: tiersWithCampaignQuery('share') };

/**
 * Tiers by id with their campaigns, in one query, in the order the ids were given (unknown ids, tiers of
 * binned campaigns and other projects' tiers are left out). For the redemption engine and every read.
 * `lock` locks the tier rows (not the campaigns) on PostgreSQL until the transaction ends.
 */
export async function findTiersWithCampaign(
  db: Executor,
  projectId: string,
  ids: readonly string[],
  lock?: TierLock,
  defs?: DefinitionsView,
): Promise<TierWithCampaign[]> {
  if (ids.length === 0) return [];
  const load = async (db: Executor, wanted: readonly string[]) => {
    const rows = await tiersWithCampaign[lock ?? 'none'].all(db, { projectId, ids: [...new Set(wanted)] });
    return new Map(rows.map((row) => [row.t_id, split(row)]));
  };
  // Locked reads go to the database; plain ones may come from the definitions cache (src/store/definitions.ts).
  const byId = defs && !lock ? await defs.many('tier', ids, load) : await load(db, ids);
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function findTierWithCampaign(db: Executor, projectId: string, id: string, lock?: TierLock): Promise<TierWithCampaign | undefined> {
  const [found] = await findTiersWithCampaign(db, projectId, [id], lock);
  return found;
}

/** Tiers of one campaign, in the order they apply (hierarchy, then creation through the sortable id). */
export async function listCampaignTiers(
  db: Executor,
  projectId: string,
  campaignId: string,
  page: { limit: number; offset: number } = { limit: 1000, offset: 0 },
): Promise<TierRow[]> {
  return db
    .selectFrom('promotion_tiers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .orderBy('hierarchy')
    .orderBy('id')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
}

export async function countCampaignTiers(db: Executor, projectId: string, campaignId: string): Promise<number> {
  const row = await db
    .selectFrom('promotion_tiers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The highest hierarchy of a campaign's tiers (0 when it has none); served by promotion_tiers_campaign. */
export async function maxHierarchy(db: Executor, projectId: string, campaignId: string): Promise<number> {
  const row = await db
    .selectFrom('promotion_tiers')
    .select('hierarchy')
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .orderBy('hierarchy', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.hierarchy) : 0;
}

/**
 * The first `perCampaign` tiers (in hierarchy order) of each of several campaigns, and how many tiers each
 * has: two queries for a whole page of campaigns.
 */
export async function tiersOfCampaigns(
  db: Executor,
  projectId: string,
  campaignIds: readonly string[],
  perCampaign: number,
): Promise<{ rows: TierRow[]; totals: Map<string, number> }> {
  if (campaignIds.length === 0) return { rows: [], totals: new Map() };
  const ids = [...new Set(campaignIds)];
  const ranked = db
    .selectFrom('promotion_tiers')
    .selectAll()
    .select(sql<number>`row_number() over (partition by campaign_id order by hierarchy, id)`.as('rank'))
    .where('project_id', '=', projectId)
    .where('campaign_id', 'in', ids)
    .as('ranked');
  const rows = await db
    .selectFrom(ranked)
    .selectAll()
    .where('rank', '<=', perCampaign)
    .orderBy('campaign_id')
    .orderBy('hierarchy')
    .orderBy('id')
    .execute();
  const counts = await db
    .selectFrom('promotion_tiers')
    .select(['campaign_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('project_id', '=', projectId)
    .where('campaign_id', 'in', ids)
    .groupBy('campaign_id')
    .execute();
  return {
    rows: rows.map(({ rank: _rank, ...row }) => ({
      ...row,
      hierarchy: Number(row.hierarchy),
    })),
    totals: new Map(counts.map((c) => [c.campaign_id, Number(c.n)])),
  };
}

export type TierOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'hierarchy';

export interface TierListQuery {
  projectId: string;
  limit: number;
  offset: number;
  order: TierOrder;
  campaignId?: string;
  /**
   * Only tiers usable at `now`: tier and campaign active and inside their dates. Recurring limits are
   * decided by the caller, which names the tiers and campaigns they currently close.
   */
  available?: { now: string; closedTierIds: readonly string[]; closedCampaignIds: readonly string[] };
}

type TierListArgs = {
  projectId: string;
  campaignId: string | undefined;
  now: string | undefined;
  closedTierIds: string[];
  closedCampaignIds: string[];
};

/** The filters of a tier list; which are present (and whether the closed lists are empty) shapes it. */
function tierListBase(db: Db, p: TierListArgs) {
  let base = joined(db, p.projectId);
  if (p.campaignId !== undefined) base = base.where('t.campaign_id', '=', p.campaignId);
  const now = p.now;
  if (now !== undefined) {
    base = base
      .where('t.active', '=', true)
      .where('c.active', '=', true)
      .where((eb) => eb.or([eb('t.start_date', 'is', null), eb('t.start_date', '<=', now)]))
      .where((eb) => eb.or([eb('t.expiration_date', 'is', null), eb('t.expiration_date', '>=', now)]));
  }
  if (p.closedTierIds.length > 0) base = base.where('t.id', 'not in', p.closedTierIds);
  if (p.closedCampaignIds.length > 0) base = base.where('t.campaign_id', 'not in', p.closedCampaignIds);
  return base;
}

function tierPageQuery(order: TierOrder) {
  return prepared((db, p: TierListArgs & { offset: number; limit: number }) => {
    const page = tierListBase(db, p).selectAll('c').select(TIER_SELECTION);
    if (order === 'hierarchy') return page.orderBy('t.hierarchy').orderBy('t.id').offset(p.offset).limit(p.limit);
    const direction = order.startsWith('-') ? 'desc' : 'asc';
    const key = order.endsWith('updated_at') ? sql<string>`coalesce(t.updated_at, t.created_at)` : sql<string>`t.created_at`;
    return page.orderBy(key, direction).orderBy('t.id', direction).offset(p.offset).limit(p.limit);
  });
}

const tierPages = new Map<TierOrder, ReturnType<typeof tierPageQuery>>();
const tierCount = prepared((db, p: TierListArgs) => tierListBase(db, p).select((eb) => eb.fn.countAll<number>().as('n')));

/** A page of tiers with their campaigns, and the total for the same filters. */
export async function listTiers(db: Executor, q: TierListQuery): Promise<{ items: TierWithCampaign[]; total: number }> {
  const args: TierListArgs = {
    projectId: q.projectId,
    campaignId: q.campaignId,
    now: q.available?.now,
    closedTierIds: [...(q.available?.closedTierIds ?? [])],
    closedCampaignIds: [...(q.available?.closedCampaignIds ?? [])],
  };
  let page = tierPages.get(q.order);
  if (page === undefined) {
    page = tierPageQuery(q.order);
    tierPages.set(q.order, page);
  }
  const rows = await page.all(db, { ...args, offset: q.offset, limit: q.limit });
  // A first page that is not full holds every match: no count needed.
  const total = q.offset === 0 && rows.length < q.limit ? rows.length : Number((await tierCount.first(db, args))?.n ?? 0);
  return { items: rows.map(split), total };
}

export type TierWindowRow = Pick<
  TierRow,
  'id' | 'campaign_id' | 'active' | 'start_date' | 'expiration_date' | 'validity_timeframe' | 'validity_day_of_week' | 'validity_hours'
>;

/** The project's tiers that have a recurring limit, with only what deciding their window needs. */
export async function recurringTierWindows(db: Executor, projectId: string): Promise<TierWindowRow[]> {
  return db
    .selectFrom('promotion_tiers')
    .select(['id', 'campaign_id', 'active', 'start_date', 'expiration_date', 'validity_timeframe', 'validity_day_of_week', 'validity_hours'])
    .where('project_id', '=', projectId)
    .where('recurring', '=', true)
    .execute();
}

/**
 * The project's live PROMOTION campaigns that are not open at every moment: disabled, dated, or with a
 * recurring limit. Campaign dates are stored as sent (any zone), so their windows are decided in code.
 */
export async function restrictedPromotionCampaigns(db: Executor, projectId: string): Promise<CampaignRow[]> {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('campaign_type', '=', 'PROMOTION')
    .where('binned_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('active', '=', false),
        eb('start_date', 'is not', null),
        eb('expiration_date', 'is not', null),
        eb('validity_timeframe', 'is not', null),
        eb('validity_day_of_week', 'is not', null),
        eb('validity_hours', 'is not', null),
      ]),
    )
    .execute();
}

export async function updateTier(db: Executor, projectId: string, id: string, patch: Updateable<PromotionTiersTable>): Promise<boolean> {
  const result = await db.updateTable('promotion_tiers').set(patch).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteTierRow(db: Executor, projectId: string, id: string): Promise<boolean> {
  await db.deleteFrom('promotion_tier_counts').where('project_id', '=', projectId).where('tier_id', '=', id).execute();
  const result = await db.deleteFrom('promotion_tiers').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export interface TierSummaryDelta {
  /** Successful redemptions of the tier (+1 per redemption; -1 when one is rolled back). */
  redeemed: number;
  /** The order's total amount (minor units). */
  orderAmount: number;
  /** The discount this tier gave on the order (minor units). */
  discountAmount: number;
}

/** A tier's summary (seed 2.9 `summary`): the sums of its count rows (migration 0030). */
export interface TierSummary {
  redeemed: number;
  ordersAmount: number;
  discountAmount: number;
}

export const EMPTY_TIER_SUMMARY: TierSummary = { redeemed: 0, ordersAmount: 0, discountAmount: 0 };

/** Rows each tier's summary is spread over. */
const TIER_COUNT_SHARDS = 16;

const tierCountUpsert = prepared((db, p: { projectId: string; tierId: string; shard: number; redeemed: number; ordersAmount: number; discountAmount: number }) =>
  db
    .insertInto('promotion_tier_counts')
    .values({ project_id: p.projectId, tier_id: p.tierId, shard: p.shard, redeemed: p.redeemed, orders_amount: p.ordersAmount, discount_amount: p.discountAmount })
    .onConflict((oc) =>
      oc.columns(['project_id', 'tier_id', 'shard']).doUpdateSet({
        redeemed: sql<number>`promotion_tier_counts.redeemed + excluded.redeemed`,
        orders_amount: sql<number>`promotion_tier_counts.orders_amount + excluded.orders_amount`,
        discount_amount: sql<number>`promotion_tier_counts.discount_amount + excluded.discount_amount`,
      }),
    ),
);

/**
 * Moves a tier's summary by relative amounts: the redemption engine adds each tier it redeems, and
 * subtracts when one is rolled back. One upsert into one of the tier's count rows, picked from `groupId`
 * (the request's parent or rollback id), so concurrent redemptions of a tier seldom wait for each other
 * on PostgreSQL. Callers run it last in their transaction, and on PostgreSQL it waits for the commit
 * with the transaction's other held writes (src/store/held-writes.ts), so even that wait holds nothing else.
 */
export async function addToTierSummary(db: Executor, projectId: string, tierId: string, groupId: string, delta: TierSummaryDelta): Promise<void> {
  await tierCountUpsert.write(db, { projectId, tierId, shard: shardOf(groupId, TIER_COUNT_SHARDS), redeemed: delta.redeemed, ordersAmount: delta.orderAmount, discountAmount: delta.discountAmount });
}

const tierSummaries = prepared((db, p: { projectId: string; tierIds: string[] }) =>
  db
    .selectFrom('promotion_tier_counts')
    .select((eb) => [
      'tier_id',
      eb.fn.sum<number>('redeemed').as('redeemed'),
      eb.fn.sum<number>('orders_amount').as('orders_amount'),
      eb.fn.sum<number>('discount_amount').as('discount_amount'),
    ])
    .where('project_id', '=', p.projectId)
    .where('tier_id', 'in', p.tierIds)
    .groupBy('tier_id'),
);

/** The summaries of several tiers in one query; a tier never redeemed has none (EMPTY_TIER_SUMMARY). */
export async function findTierSummaries(db: Executor, projectId: string, tierIds: readonly string[]): Promise<Map<string, TierSummary>> {
  if (tierIds.length === 0) return new Map();
  return tierSummariesOf((await db.executeQuery(tierSummariesQuery(db, projectId, tierIds))).rows);
}

/** findTierSummaries' statement, to be sent with other reads (src/store/combined-reads.ts); tierIds not empty. */
export function tierSummariesQuery(db: Executor, projectId: string, tierIds: readonly string[]): CompiledQuery<Record<string, unknown>> {
  return tierSummaries.bind(db, { projectId, tierIds: [...new Set(tierIds)] });
}

/** The rows of tierSummariesQuery, per tier. */
export function tierSummariesOf(rows: ReadonlyArray<Record<string, unknown>>): Map<string, TierSummary> {
  const out = new Map<string, TierSummary>();
  for (const row of rows) {
    out.set(row.tier_id as string, { redeemed: Number(row.redeemed), ordersAmount: Number(row.orders_amount), discountAmount: Number(row.discount_amount) });
  }
  return out;
}

/**
 * Locks a campaign row on PostgreSQL until the transaction ends, so tiers and stacks of one campaign are
 * created one at a time (the next free hierarchy is read, then written). SQLite writers are serialised.
 */
export async function lockCampaignRow(db: Executor, projectId: string, campaignId: string): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('campaigns').select('id').where('project_id', '=', projectId).where('id', '=', campaignId).forUpdate().execute();
}

export type TierAssignmentRow = Selectable<ValidationRuleAssignmentsTable>;

// Sorted in JavaScript, not by the statement: asked to order the assignments of several tiers by
// created_at, SQLite walked all of the project's assignments in that order (validation_rule_assignments_created)
// instead of looking each tier up (validation_rule_assignments_object).
const tierAssignments = prepared((db, p: { projectId: string; tierIds: string[] }) =>
  db
    .selectFrom('validation_rule_assignments')
    .selectAll()
    .where('project_id', '=', p.projectId)
    .where('related_object_id', 'in', p.tierIds)
    .where('related_object_type', '=', 'promotion_tier'),
);

const oldestFirst = (a: TierAssignmentRow, b: TierAssignmentRow) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1);

/** The validation rule assignments of several tiers, oldest first (each tier read from validation_rule_assignments_object). */
export async function assignmentsOfTiers(db: Executor, projectId: string, tierIds: readonly string[], defs?: DefinitionsView): Promise<TierAssignmentRow[]> {
  if (tierIds.length === 0) return [];
  if (!defs) return (await tierAssignments.all(db, { projectId, tierIds: [...new Set(tierIds)] })).sort(oldestFirst);
  const byTier = await defs.many('tier-assignments', tierIds, async (db, wanted) => {
    const out = new Map<string, TierAssignmentRow[]>(wanted.map((id) => [id, []]));
    for (const row of await tierAssignments.all(db, { projectId, tierIds: wanted })) out.get(row.related_object_id)?.push(row);
    return out;
  });
  return [...byTier.values()].flat().sort(oldestFirst);
}

/** Removes the given assignments of one tier (all of them when `ruleIds` is omitted); answers the rows removed. */
export async function deleteTierAssignments(db: Executor, projectId: string, tierId: string, ruleIds?: readonly string[]): Promise<TierAssignmentRow[]> {
  if (ruleIds !== undefined && ruleIds.length === 0) return [];
  let query = db
    .deleteFrom('validation_rule_assignments')
    .where('project_id', '=', projectId)
    .where('related_object_id', '=', tierId)
    .where('related_object_type', '=', 'promotion_tier');
  if (ruleIds !== undefined) query = query.where('rule_id', 'in', [...ruleIds]);
  return query.returningAll().execute();
}

/**
 * Removes a campaign's tiers, their rule assignments, and the campaign's stacks for good. For the job
 * that deletes a campaign permanently (`force=true`); a binned campaign's tiers and stacks stay, unseen.
 * Answers how many tiers were removed.
 */
export async function deleteCampaignPromotions(db: Executor, projectId: string, campaignId: string): Promise<number> {
  const tierIds = db.selectFrom('promotion_tiers').select('id').where('project_id', '=', projectId).where('campaign_id', '=', campaignId);
  const stackIds = db.selectFrom('promotion_stacks').select('id').where('project_id', '=', projectId).where('campaign_id', '=', campaignId);
  await db
    .deleteFrom('validation_rule_assignments')
    .where('project_id', '=', projectId)
    .where('related_object_type', '=', 'promotion_tier')
    .where('related_object_id', 'in', tierIds)
    .execute();
  await db.deleteFrom('promotion_stack_tiers').where('project_id', '=', projectId).where('stack_id', 'in', stackIds).execute();
  await db.deleteFrom('promotion_stacks').where('project_id', '=', projectId).where('campaign_id', '=', campaignId).execute();
  await db.deleteFrom('promotion_tier_counts').where('project_id', '=', projectId).where('tier_id', 'in', tierIds).execute();
  const result = await db.deleteFrom('promotion_tiers').where('project_id', '=', projectId).where('campaign_id', '=', campaignId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
