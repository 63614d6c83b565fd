import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redemptionCounts } from '../../src/store/redemption-facts.ts';
import { listRedemptions, type RedemptionListQuery, type RedemptionSort } from '../../src/store/redemption-records.ts';
import { lockedByOthers } from '../../src/store/redemption-sessions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// The redemption list must stay fast at a million rows: every page is an index walk in the index's own
// order (no sort of the project's redemptions), and the rule counters and session sums are index range
// reads. Checked on the plans each database makes for the exact statements the store sends.

describe('redemption list and counter query plans', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
  });
  after(async () => handle.close());

  const plans = (run: (db: TestDatabase['db']) => Promise<unknown>): Promise<string[]> => planOfStatements(handle, run);

  function assertIndexed(text: string, sorted: boolean): void {
    if (handle.dialect === 'sqlite') {
      if (sorted) assert.doesNotMatch(text, /TEMP B-TREE/, text);
      assert.match(text, /USING (COVERING )?INDEX/, text);
      assert.doesNotMatch(text, /SCAN redemptions(?! USING)/, text);
    } else {
      if (sorted) assert.doesNotMatch(text, /\bSort\b/, text);
      assert.doesNotMatch(text, /Seq Scan/, text);
    }
  }

  const base: RedemptionListQuery = { projectId: 'proj_plan', limit: 10, offset: 0, sort: 'created_at', descending: true };
  const SORTS: RedemptionSort[] = ['created_at', 'id', 'voucher_code', 'tracking_id', 'customer_id'];

  for (const sort of SORTS) {
    for (const descending of [false, true]) {
      test(`page and total by ${descending ? '-' : ''}${sort}`, async () => {
        const [page, total] = await plans((db) => listRedemptions(db, { ...base, sort, descending }));
        assertIndexed(page ?? '', true);
        assertIndexed(total ?? '', false);
      });
    }
  }

  const FILTERS: Array<[string, Partial<RedemptionListQuery>]> = [
    ['result', { results: ['FAILURE'] }],
    ['campaign', { campaignName: 'Spring' }],
    ['customer', { customerId: 'cust_1' }],
    ['voucher', { voucherId: 'v_1' }],
    ['created_at range', { createdBefore: '2026-01-01T00:00:00.000Z', createdAfter: '2025-01-01T00:00:00.000Z' }],
  ];
  for (const [name, filter] of FILTERS) {
    test(`filtered by ${name}, newest first`, async () => {
      const [page, total] = await plans((db) => listRedemptions(db, { ...base, ...filter }));
      assertIndexed(page ?? '', true);
      assertIndexed(total ?? '', false);
    });
  }

  test('rule counters and session sums read indexes', async () => {
    const since = '2026-01-01T00:00:00.000Z';
    const queries = await plans(async (db) => {
      await redemptionCounts(db, { projectId: 'proj_plan', relatedObjectId: 'v_1', customerId: 'cust_1', since });
      await redemptionCounts(db, { projectId: 'proj_plan', relatedObjectId: 'v_1', since });
      await redemptionCounts(db, { projectId: 'proj_plan', campaignId: 'camp_1', since });
      await lockedByOthers(db, 'proj_plan', ['v_1', 'v_2'], 'ssn_1', since);
    });
    assert.equal(queries.length, 4);
    for (const text of queries) assertIndexed(text, false);
  });
});
