import { CompiledQuery, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { definitionsVersionColumn, rowWithDefinitions, type DefinitionsView } from './definitions.ts';
import { prepared } from './prepared.ts';
import { projectCodesAreCaseSensitive } from './projects.ts';
import { deleteAssignmentsOf } from './validation-rules.ts';
import type { VouchersTable } from './schema.ts';
import { projectCheck } from './id-lookups.ts';

// Vouchers: discount codes, gift cards and loyalty cards. Paths name a voucher by its code; codes are
// compared through `code_key`, which folds case in projects whose codes ignore case.

export type VoucherRow = Selectable<VouchersTable>;

export function codeKeyOf(code: string, caseSensitive: boolean): string {
  return caseSensitive ? code : code.toLowerCase();
}

export async function codeKey(db: Executor, projectId: string, code: string): Promise<string> {
  return codeKeyOf(code, await projectCodesAreCaseSensitive(db, projectId));
}

/**
 * Inserts vouchers whose code is still free and answers the codes that were taken already (by live
 * vouchers of the project); the unique index decides, so concurrent generators never share a code.
 */
export async function insertVouchersSkippingTakenCodes(db: Executor, rows: Insertable<VouchersTable>[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // Written as one compiled multi-row statement rather than through the query builder: building and
  // compiling a 500-row insert object tree costs about as much as the insert, and bulk code generation
  // (1M codes) runs this thousands of times. No RETURNING either (on SQLite it costs a quarter of the
  // insert): when the affected-row count shows every row went in, nothing was taken; only otherwise are
  // the rows looked up by id to tell which codes were skipped.
  const postgres = isPostgres(db);
  const taken = new Set<string>();
  for (const group of groupByColumns(rows)) {
    const first = group[0] as Record<string, unknown>;
    const columns = Object.keys(first).filter((c) => first[c] !== undefined);
    const { text, params } = postgres ? unnestInsert(columns, group) : valuesInsert(columns, group);
    const result = await db.executeQuery(CompiledQuery.raw(`${text} on conflict ("project_id", "code_key") where "binned_at" is null do nothing`, params));
    if (Number(result.numAffectedRows ?? 0) === group.length) continue;
    const inserted = new Set(
      (await db.selectFrom('vouchers').select('id').where(projectCheck(), '=', first.project_id as string).where('id', 'in', group.map((r) => r.id)).execute()).map((r) => r.id),
    );
    const insertedKeys = new Set(group.filter((r) => inserted.has(r.id)).map((r) => r.code_key));
    for (const row of group) if (!inserted.has(row.id) && !insertedKeys.has(row.code_key)) taken.add(row.code_key);
  }
  return taken;
}

/**
 * PostgreSQL types of the voucher columns that are not text. The PostgreSQL insert sends one array per
 * column and must cast each to its column's type; tests/store/voucher-inserts.test.ts checks this list
 * against the catalog, so a new column cannot be forgotten here.
 */
export const VOUCHER_NON_TEXT_COLUMNS: Readonly<Record<string, 'bigint' | 'boolean'>> = {
  gift_amount: 'bigint',
  gift_subtracted_amount: 'bigint',
  gift_balance: 'bigint',
  loyalty_points: 'bigint',
  loyalty_balance: 'bigint',
  loyalty_expired_points: 'bigint',
  loyalty_subtracted_points: 'bigint',
  loyalty_pending_points: 'bigint',
  redemption_quantity: 'bigint',
  redeemed_quantity: 'bigint',
  redeemed_amount: 'bigint',
  redeemed_points: 'bigint',
  publish_count: 'bigint',
  active: 'boolean',
  is_referral_code: 'boolean',
};

type InsertStatement = { text: string; params: unknown[] };

const columnList = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

/** SQLite: a VALUES list with one parameter per cell. */
function valuesInsert(columns: readonly string[], rows: readonly Insertable<VouchersTable>[]): InsertStatement {
  const params: unknown[] = [];
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (const row of rows) for (const c of columns) params.push((row as Record<string, unknown>)[c] ?? null);
  return { text: `insert into "vouchers" (${columnList(columns)}) values ${rows.map(() => tuple).join(', ')}`, params };
}

/**
 * PostgreSQL: one array parameter per column whose value differs between rows, turned back into rows by
 * `unnest`, and one plain parameter for each column every row shares (rows made from one template differ
 * only in id and code). PostgreSQL parses and binds a 500-row VALUES list of 13,000 parameters far more
 * slowly than 27 arrays (measured: 100k voucher rows into a project of 200k, 4.7–5.0 s as VALUES, 3.0–3.7 s
 * as arrays); sending a shared value once also spares this process writing it into an array 500 times.
 */
function unnestInsert(columns: readonly string[], rows: readonly Insertable<VouchersTable>[]): InsertStatement {
  const first = rows[0] as Record<string, unknown>;
  const params: unknown[] = [];
  const arrays: string[] = [];
  const varying: string[] = [];
  const selected = columns.map((c) => {
    const type = VOUCHER_NON_TEXT_COLUMNS[c] ?? 'text';
    const value = first[c] ?? null;
    if (rows.every((row) => ((row as Record<string, unknown>)[c] ?? null) === value)) {
      params.push(value);
      return `$${params.length}::${type}`;
    }
    params.push(rows.map((row) => (row as Record<string, unknown>)[c] ?? null));
    arrays.push(`$${params.length}::${type}[]`);
    varying.push(`"${c}"`);
    return `u."${c}"`;
  });
  const from = arrays.length > 0 ? ` from unnest(${arrays.join(', ')}) as u(${varying.join(', ')})` : '';
  return { text: `insert into "vouchers" (${columnList(columns)}) select ${selected.join(', ')}${from}`, params };
}

/** Rows split by the set of columns they give (a column left out takes its default), order kept within each. */
function groupByColumns(rows: Insertable<VouchersTable>[]): Insertable<VouchersTable>[][] {
  const groups = new Map<string, Insertable<VouchersTable>[]>();
  let previous: { columns: string[]; group: Insertable<VouchersTable>[] } | null = null;
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    // Rows made from one template give the same columns: checking that against the previous row costs
    // less than building the key, which a million-code job would do a million times.
    if (previous && givesExactly(record, previous.columns)) {
      previous.group.push(row);
      continue;
    }
    const columns = Object.keys(record).filter((c) => record[c] !== undefined);
    const key = columns.join(',');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(row);
    previous = { columns, group };
  }
  return [...groups.values()];
}

/** Whether a row gives exactly these columns, in this order (undefined members count as not given). */
function givesExactly(record: Record<string, unknown>, columns: readonly string[]): boolean {
  let n = 0;
  for (const c in record) {
    if (record[c] === undefined) continue;
    if (columns[n++] !== c) return false;
  }
  return n === columns.length;
}

const liveVoucherByCodeKey = prepared((db, p: { projectId: string; codeKey: string }) =>
  db.selectFrom('vouchers').selectAll().where('project_id', '=', p.projectId).where('code_key', '=', p.codeKey).where('binned_at', 'is', null),
);

const liveVoucherById = prepared((db, p: { projectId: string; id: string }) =>
  db.selectFrom('vouchers').selectAll().where('project_id', '=', p.projectId).where('id', '=', p.id).where('binned_at', 'is', null),
);

export async function findLiveVoucherByCode(db: Executor, projectId: string, code: string): Promise<VoucherRow | undefined> {
  return liveVoucherByCodeKey.first(db, { projectId, codeKey: await codeKey(db, projectId, code) });
}

const liveVoucherByCodeKeyWithVersion = prepared((db, p: { projectId: string; codeKey: string }) =>
  db
    .selectFrom('vouchers')
    .selectAll()
    .select(definitionsVersionColumn(p.projectId))
    .where('project_id', '=', p.projectId)
    .where('code_key', '=', p.codeKey)
    .where('binned_at', 'is', null),
);

/** A live voucher by code and the definitions view as of the same statement (definitionsVersionColumn). */
export async function findLiveVoucherByCodeWithDefinitions(db: Executor, projectId: string, code: string): Promise<{ row: VoucherRow; definitions: DefinitionsView } | undefined> {
  const found = await liveVoucherByCodeKeyWithVersion.first(db, { projectId, codeKey: await codeKey(db, projectId, code) });
  return rowWithDefinitions(db, projectId, found);
}

export async function findLiveVoucherById(db: Executor, projectId: string, id: string): Promise<VoucherRow | undefined> {
  return liveVoucherById.first(db, { projectId, id });
}

/** A voucher named by code, or by id (`v_…`) where the API allows either. */
export async function findLiveVoucher(db: Executor, projectId: string, codeOrId: string): Promise<VoucherRow | undefined> {
  return (await findLiveVoucherByCode(db, projectId, codeOrId)) ?? (await findLiveVoucherById(db, projectId, codeOrId));
}

export async function updateLiveVoucher(db: Executor, projectId: string, id: string, patch: Updateable<VouchersTable>): Promise<boolean> {
  const result = await db
    .updateTable('vouchers')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether any live voucher of the project has this code (for code generation without collisions). */
export async function codesInUse(db: Executor, projectId: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom('vouchers')
    .select('code_key')
    .where('project_id', '=', projectId)
    .where('code_key', 'in', keys)
    .where('binned_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.code_key));
}

/** Applies a campaign's template change to its vouchers that are neither published nor redeemed yet. */
export async function updateUnusedVouchers(db: Executor, projectId: string, campaignId: string, patch: Updateable<VouchersTable>): Promise<number> {
  const result = await db
    .updateTable('vouchers')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('binned_at', 'is', null)
    .where('holder_id', 'is', null)
    .where('redeemed_quantity', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Bins up to `limit` live vouchers of a campaign (their codes become free); answers how many. */
export async function binCampaignVouchers(db: Executor, projectId: string, campaignId: string, limit: number, at: string): Promise<number> {
  const batch = db
    .selectFrom('vouchers')
    .select('id')
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .where('binned_at', 'is', null)
    .limit(limit);
  const result = await db.updateTable('vouchers').set({ binned_at: at }).where('id', 'in', batch).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes up to `limit` vouchers of a campaign, live or binned, with their points buckets and balance
 * transactions; answers how many vouchers went. Redemption records stay as history.
 */
export async function purgeCampaignVouchers(db: Executor, projectId: string, campaignId: string, limit: number): Promise<number> {
  const rows = await db
    .selectFrom('vouchers')
    .select('id')
    .where('project_id', '=', projectId)
    .where('campaign_id', '=', campaignId)
    .limit(limit)
    .execute();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('loyalty_buckets').where('project_id', '=', projectId).where('voucher_id', 'in', ids).execute();
  await db.deleteFrom('voucher_transactions').where('project_id', '=', projectId).where('voucher_id', 'in', ids).execute();
  await deleteAssignmentsOf(db, projectId, 'voucher', ids);
  const result = await db.deleteFrom('vouchers').where('project_id', '=', projectId).where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Takes the voucher row's lock for the rest of the transaction on PostgreSQL (SQLite write transactions
 * are exclusive already), so work on one card's buckets and balance always locks the card first.
 */
export async function lockVoucherRow(db: Executor, projectId: string, id: string): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('vouchers').select('id').where('project_id', '=', projectId).where('id', '=', id).forUpdate().execute();
}
