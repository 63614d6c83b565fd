import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Insertable } from 'kysely';
import type { VouchersTable } from '../../src/store/schema.ts';
import { insertVouchersSkippingTakenCodes, VOUCHER_NON_TEXT_COLUMNS } from '../../src/store/vouchers.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.ts';
import { projectRow } from '../helpers/rows.ts';

// Vouchers are written in multi-row statements, one per set of columns the rows give (a column a row
// leaves out takes its default). Rows of different shapes, interleaved, must each land with their own
// values, and codes already taken must be reported, not written.

const PROJECT = 'proj_vi';

function discountRow(n: number): Insertable<VouchersTable> {
  return { id: `v_d${n}`, project_id: PROJECT, code: `D-${n}`, code_key: `d-${n}`, type: 'DISCOUNT_VOUCHER', discount: '{"type":"PERCENT","percent_off":10}', active: true, is_referral_code: false, metadata: '{}', created_at: '2026-01-01T00:00:00.000Z' };
}

function giftRow(n: number): Insertable<VouchersTable> {
  // Same members as a discount row in another order, plus the gift balance.
  return { project_id: PROJECT, id: `v_g${n}`, code_key: `g-${n}`, code: `G-${n}`, type: 'GIFT_VOUCHER', active: true, is_referral_code: false, gift_amount: 1000 * n, gift_balance: 1000 * n, metadata: '{"gift":true}', created_at: '2026-01-01T00:00:00.000Z' };
}

/** A gift row whose last member is the balance; left undefined, the column takes its default (0). */
function giftRowBalanceLast(n: number, balance: number | undefined): Insertable<VouchersTable> {
  const { gift_balance: _, ...rest } = giftRow(n);
  return { ...rest, gift_balance: balance };
}

describe('insertVouchersSkippingTakenCodes', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    await handle.db.insertInto('projects').values(projectRow(PROJECT)).execute();
  });
  after(async () => handle.close());

  test('interleaved rows of different shapes each keep their own values', async () => {
    const rows = [
      discountRow(1), giftRow(1), discountRow(2), discountRow(3), giftRow(2), { ...discountRow(4), discount: undefined },
      giftRowBalanceLast(7, 7), giftRowBalanceLast(8, undefined),
    ];
    assert.equal((await insertVouchersSkippingTakenCodes(handle.db, rows)).size, 0);
    const stored = await handle.db.selectFrom('vouchers').select(['id', 'code', 'type', 'discount', 'gift_balance', 'metadata']).where('project_id', '=', PROJECT).orderBy('id').execute();
    assert.deepEqual(
      stored.map((v) => ({ ...v, gift_balance: Number(v.gift_balance) })),
      [
        { id: 'v_d1', code: 'D-1', type: 'DISCOUNT_VOUCHER', discount: '{"type":"PERCENT","percent_off":10}', gift_balance: 0, metadata: '{}' },
        { id: 'v_d2', code: 'D-2', type: 'DISCOUNT_VOUCHER', discount: '{"type":"PERCENT","percent_off":10}', gift_balance: 0, metadata: '{}' },
        { id: 'v_d3', code: 'D-3', type: 'DISCOUNT_VOUCHER', discount: '{"type":"PERCENT","percent_off":10}', gift_balance: 0, metadata: '{}' },
        { id: 'v_d4', code: 'D-4', type: 'DISCOUNT_VOUCHER', discount: null, gift_balance: 0, metadata: '{}' },
        { id: 'v_g1', code: 'G-1', type: 'GIFT_VOUCHER', discount: null, gift_balance: 1000, metadata: '{"gift":true}' },
        { id: 'v_g2', code: 'G-2', type: 'GIFT_VOUCHER', discount: null, gift_balance: 2000, metadata: '{"gift":true}' },
        { id: 'v_g7', code: 'G-7', type: 'GIFT_VOUCHER', discount: null, gift_balance: 7, metadata: '{"gift":true}' },
        { id: 'v_g8', code: 'G-8', type: 'GIFT_VOUCHER', discount: null, gift_balance: 0, metadata: '{"gift":true}' },
      ],
    );
  });

  test('codes already taken are reported by key and not written again', async () => {
    const rows = [{ ...discountRow(1), id: 'v_again1' }, discountRow(5), { ...giftRow(2), id: 'v_again2' }, giftRow(3)];
    const taken = await insertVouchersSkippingTakenCodes(handle.db, rows);
    assert.deepEqual([...taken].sort(), ['d-1', 'g-2']);
    const ids = (await handle.db.selectFrom('vouchers').select('id').where('project_id', '=', PROJECT).orderBy('id').execute()).map((v) => v.id);
    assert.deepEqual(ids, ['v_d1', 'v_d2', 'v_d3', 'v_d4', 'v_d5', 'v_g1', 'v_g2', 'v_g3', 'v_g7', 'v_g8']);
  });

  test('a column set in some rows of one statement and null or shared in others keeps each row\'s value', async () => {
    const rows = [null, 'first note', null, 'first note', 'second note'].map((note, n) => ({ ...discountRow(20 + n), additional_info: note, redemption_quantity: n === 4 ? null : 3 }));
    assert.equal((await insertVouchersSkippingTakenCodes(handle.db, rows)).size, 0);
    const stored = await handle.db.selectFrom('vouchers').select(['id', 'additional_info', 'redemption_quantity', 'discount']).where('project_id', '=', PROJECT).where('id', 'in', rows.map((r) => r.id)).orderBy('id').execute();
    assert.deepEqual(
      stored.map((v) => [v.id, v.additional_info, v.redemption_quantity === null ? null : Number(v.redemption_quantity), v.discount]),
      rows.map((r) => [r.id, r.additional_info, r.redemption_quantity, r.discount]),
    );
  });

  test('the PostgreSQL insert casts every column that is not text to its type', { skip: testDialect() !== 'postgres' && 'PostgreSQL only' }, async () => {
    const { rows } = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where table_schema = ${handle.schema} and table_name = 'vouchers' and data_type <> 'text'`.execute(handle.db);
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]).sort()), Object.fromEntries(Object.entries(VOUCHER_NON_TEXT_COLUMNS).sort()));
  });
});
