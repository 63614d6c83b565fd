import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eraseCustomerFromRedemptions, findRedemption, insertRedemption, orderWithoutMetadata, type NewRedemptionRow } from '../../src/store/redemption-records.ts';
import { fromJson } from '../../src/store/json.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// The GDPR erase in redemption records (the HTTP side is in tests/http/customer-erasure.test.ts): every
// record of the customer, however many pages of them there are, and nothing of anyone else's.

const order = (who: string) => ({ id: `ord_${who}`, amount: 1000, metadata: { ship_to: who }, items: [{ sku_id: 'box', metadata: { note: who } }, { sku_id: 'bag', metadata: {} }] });

function record(id: string, projectId: string, customerId: string): NewRedemptionRow {
  return {
    id, project_id: projectId, object: 'redemption', result: 'SUCCESS', status: 'SUCCEEDED', metadata: '{}', customer_id: customerId, tracking_id: `${customerId}-src`,
    related_object_type: 'voucher', related_object_id: 'v_1', campaign_name: null, channel: '{}', created_at: '2026-02-01T00:00:00.000Z',
    order_snapshot: JSON.stringify(order(customerId)), customer_snapshot: JSON.stringify({ id: customerId, name: customerId, object: 'customer' }),
  };
}

describe('erasing a customer from redemption records', () => {
  let handle: TestDatabase;
  const many = 1_050; // more than two erase batches
  before(async () => {
    handle = await createTestDatabase();
    for (let k = 0; k < many; k++) await insertRedemption(handle.db, record(`r_${String(k).padStart(5, '0')}`, 'proj_a', 'cust_gone'));
    await insertRedemption(handle.db, record('r_other', 'proj_a', 'cust_stays'));
    await insertRedemption(handle.db, record('r_elsewhere', 'proj_b', 'cust_gone'));
  });
  after(async () => handle.close());

  test('empties order and item metadata and the customer snapshot in every record of the customer', async () => {
    await eraseCustomerFromRedemptions(handle.db, 'proj_a', { id: 'cust_gone', source_id: 'cust_gone-src' });
    const rows = await handle.db.selectFrom('redemptions as r').innerJoin('redemption_snapshots as s', 's.redemption_id', 'r.id')
      .select(['r.id', 'r.tracking_id', 's.order_snapshot', 's.customer_snapshot']).where('r.project_id', '=', 'proj_a').where('r.customer_id', '=', 'cust_gone').execute();
    assert.equal(rows.length, many);
    for (const row of rows) {
      const snapshot = fromJson<ReturnType<typeof order> | null>(row.order_snapshot, null);
      assert.deepEqual(snapshot, { ...order('cust_gone'), metadata: {}, items: [{ sku_id: 'box', metadata: {} }, { sku_id: 'bag', metadata: {} }] }, row.id);
      assert.deepEqual(fromJson(row.customer_snapshot, null), { id: 'cust_gone', object: 'customer' }, row.id);
      assert.equal(row.tracking_id, null, row.id);
    }
  });

  test("leaves other customers' and other projects' records as they were", async () => {
    for (const [projectId, id, who] of [['proj_a', 'r_other', 'cust_stays'], ['proj_b', 'r_elsewhere', 'cust_gone']] as const) {
      const row = await findRedemption(handle.db, projectId, id);
      assert.deepEqual(fromJson(row?.order_snapshot, null), order(who), id);
      assert.equal(row?.tracking_id, `${who}-src`, id);
    }
  });

  test('a snapshot without metadata to empty is left alone', () => {
    assert.equal(orderWithoutMetadata({ id: 'ord_1', metadata: {}, items: [{ metadata: {} }] }), null);
    assert.equal(orderWithoutMetadata({ id: 'ord_1' }), null);
    assert.deepEqual(orderWithoutMetadata({ id: 'ord_1', items: [{ metadata: { a: 1 } }, { sku_id: 'x' }] }), { id: 'ord_1', items: [{ metadata: {} }, { sku_id: 'x' }] });
  });
});
