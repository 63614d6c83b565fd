import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backfillHolders } from '../../src/store/migrations/2026-11-26-0032-scoped-exports-customer-redeemables.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { projectRow } from '../helpers/rows.ts';

// Migration 0032 gives the vouchers published before it their holder rows (OWNER, REFERRER for a referral
// code), dated when they were published, so a customer's redeemables list shows them; it skips vouchers
// nobody holds and rows that exist, and running it again adds nothing.

describe('migration 0032: holder rows of vouchers published before it', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    await handle.db.insertInto('projects').values(projectRow('proj_m')).execute();
    const voucher = (id: string, fields: Record<string, unknown>) => ({
      id,
      project_id: 'proj_m',
      code: id.toUpperCase(),
      code_key: id,
      campaign_id: 'camp_1',
      type: 'DISCOUNT_VOUCHER' as const,
      active: true,
      metadata: '{}',
      is_referral_code: false,
      created_at: '2026-01-01T00:00:00.000Z',
      ...fields,
    });
    await handle.db
      .insertInto('vouchers')
      .values([
        voucher('v_plain', { holder_id: 'cust_1', published_at: '2026-02-01T10:00:00.000Z' }),
        voucher('v_referral', { holder_id: 'cust_1', is_referral_code: true, published_at: '2026-02-02T10:00:00.000Z' }),
        voucher('v_free', {}),
        voucher('v_known', { holder_id: 'cust_2', published_at: '2026-02-03T10:00:00.000Z' }),
      ])
      .execute();
    await handle.db
      .insertInto('redeemable_holders')
      .values({ id: 'rh_existing', project_id: 'proj_m', voucher_id: 'v_known', campaign_id: 'camp_1', customer_id: 'cust_2', holder_role: 'REFERRER', metadata: '{}', created_at: '2026-02-03T10:00:00.000Z' })
      .execute();
  });
  after(async () => handle.close());

  const rows = () => handle.db.selectFrom('redeemable_holders').select(['id', 'voucher_id', 'customer_id', 'holder_role', 'created_at']).orderBy('voucher_id').execute();

  test('published vouchers get their holder row, once', async () => {
    await backfillHolders(handle.db);
    const first = await rows();
    assert.deepEqual(
      first.map((r) => [r.voucher_id, r.customer_id, r.holder_role, r.created_at]),
      [
        ['v_known', 'cust_2', 'REFERRER', '2026-02-03T10:00:00.000Z'],
        ['v_plain', 'cust_1', 'OWNER', '2026-02-01T10:00:00.000Z'],
        ['v_referral', 'cust_1', 'REFERRER', '2026-02-02T10:00:00.000Z'],
      ],
    );
    // Ids sort in publication order, as ids made by the API do.
    const byId = [...first].sort((a, b) => (a.id < b.id ? -1 : 1)).filter((r) => r.id !== 'rh_existing');
    assert.deepEqual(byId.map((r) => r.voucher_id), ['v_plain', 'v_referral']);
    await backfillHolders(handle.db);
    assert.deepEqual(await rows(), first);
  });
});
