import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { parseFilter } from '../../src/domain/filters/filter.ts';
import { customerRedeemableFilterFields, listCustomerHolders } from '../../src/store/customer-redeemables.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';
import { projectRow } from '../helpers/rows.ts';

// A page of a customer's redeemables reads that customer's entries of redeemable_holders_customer in id
// order (migration 0032), with or without filters and a cursor, never the project's holders.

describe('customer redeemable list query plans', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    // Enough vouchers and holders of many customers that PostgreSQL plans as it would on real data.
    await handle.db.insertInto('projects').values(projectRow('proj_plan')).execute();
    const at = '2026-03-02T10:00:00.000Z';
    const vouchers = Array.from({ length: 2000 }, (_, i) => ({
      id: `v_${String(i).padStart(5, '0')}`,
      project_id: 'proj_plan',
      code: `CODE-${i}`,
      code_key: `code-${i}`,
      campaign_id: `camp_${i % 10}`,
      type: 'DISCOUNT_VOUCHER' as const,
      active: true,
      metadata: '{}',
      is_referral_code: false,
      holder_id: `cust_${i % 100}`,
      created_at: at,
    }));
    const holders = vouchers.map((v, i) => ({
      id: `rh_${String(i).padStart(5, '0')}`,
      project_id: 'proj_plan',
      voucher_id: v.id,
      campaign_id: v.campaign_id,
      customer_id: v.holder_id,
      holder_role: 'OWNER' as const,
      metadata: '{}',
      created_at: at,
    }));
    for (let i = 0; i < vouchers.length; i += 250) {
      await handle.db.insertInto('vouchers').values(vouchers.slice(i, i + 250)).execute();
      await handle.db.insertInto('redeemable_holders').values(holders.slice(i, i + 250)).execute();
    }
    if (handle.dialect === 'postgres') await sql`analyze vouchers, redeemable_holders, campaigns`.execute(handle.db);
  });
  after(async () => handle.close());

  const filters: Array<[string, unknown]> = [
    ['no filter', undefined],
    ['a campaign type and a role', { campaign_type: { conditions: { $in: ['LOYALTY_PROGRAM'] } }, holder_role: { conditions: { $is: 'OWNER' } } }],
  ];
  for (const [what, raw] of filters) {
    for (const descending of [true, false]) {
      test(`${what}, ${descending ? 'newest' : 'oldest'} first, after a cursor: the customer's index range`, async () => {
        const filter = raw === undefined ? undefined : parseFilter(raw, customerRedeemableFilterFields, { path: '.filters', allowRelativeTime: true });
        const plans = await planOfStatements(handle, (db) =>
          listCustomerHolders(db, {
            projectId: 'proj_plan',
            customerId: 'cust_7',
            limit: 10,
            descending,
            startingAfterId: descending ? 'rh_01900' : 'rh_00100',
            ...(filter ? { filter } : {}),
            dialect: handle.dialect,
            now: new Date(),
          }),
        );
        const [page = '', total = ''] = plans;
        for (const plan of [page, total]) {
          if (handle.dialect === 'sqlite') {
            assert.match(plan, /SEARCH h USING (COVERING )?INDEX redeemable_holders_customer \(project_id=\? AND customer_id=\?/, plan);
            assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
          } else {
            assert.match(plan, /redeemable_holders_customer/, plan);
            // With a filter PostgreSQL may sort what it kept of the customer's range (a customer's handful of rows).
            if (raw === undefined) assert.doesNotMatch(plan, /\bSort\b/, plan);
          }
        }
      });
    }
  }
});
