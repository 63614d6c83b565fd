import { CompiledQuery, type Insertable, type Selectable, type Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { prepared } from './prepared.ts';
import { projectCodesAreCaseSensitive } from './projects.ts';
import { deleteAssignmentsOf } from './validation-rules.ts';
import type { VouchersTable } from './schema.ts';

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
    const params: unknown[] = [];
    const sqliteTuple = `(${columns.map(() => '?').join(', ')})`;
    const tuples = group.map((row) => {
      const record = row as Record<string, unknown>;
      const offset = params.length;
      for (const c of columns) params.push(record[c] ?? null);
      return postgres ? `(${columns.map((_, k) => `$${offset + k + 1}`).join(', ')})` : sqliteTuple;
    });
    const text =
      `insert into "vouchers" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')} ` +
      `on conflict ("project_id", "code_key") where "binned_at" is null do nothing`;
    const result = await db.executeQuery(CompiledQuery.raw(text, params));
    if (Number(result.numAffectedRows ?? 0) === group.length) continue;
    const inserted = new Set(
      (await db.selectFrom('vouchers').select('id').where('project_id', '=', first.project_id as string).where('id', 'in', group.map((r) => r.id)).execute()).map((r) => r.id),
    );
    const insertedKeys = new Set(group.filter((r) => inserted.has(r.id)).map((r) => r.code_key));
    for (const row of group) if (!inserted.has(row.id) && !insertedKeys.has(row.code_key)) taken.add(row.code_key);
  }
  return taken;
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
