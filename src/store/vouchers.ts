import { type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from './db.ts';
import { projectCodesAreCaseSensitive } from './projects.ts';
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
  const inserted = await db
    .insertInto('vouchers')
    .values(rows)
    .onConflict((oc) => oc.columns(['project_id', 'code_key']).where('binned_at', 'is', null).doNothing())
    .returning('code_key')
    .execute();
  const done = new Set(inserted.map((r) => r.code_key));
  return new Set(rows.map((r) => r.code_key).filter((key) => !done.has(key)));
}

export async function findLiveVoucherByCode(db: Executor, projectId: string, code: string): Promise<VoucherRow | undefined> {
  const key = await codeKey(db, projectId, code);
  return db
    .selectFrom('vouchers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('code_key', '=', key)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
}

export async function findLiveVoucherById(db: Executor, projectId: string, id: string): Promise<VoucherRow | undefined> {
  return db
    .selectFrom('vouchers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('binned_at', 'is', null)
    .executeTakeFirst();
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
