import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { lowerExportFilter, parseExportFilter } from '../../src/domain/exports/filters.ts';
import { EXPORT_OBJECTS, parseOrder } from '../../src/domain/exports/objects.ts';
import type { Executor } from '../../src/store/db.ts';
import { readRedemptionBatch } from '../../src/store/export-sources.ts';
import { redemptionCounts } from '../../src/store/redemption-facts.ts';
import { childrenOf, listRedemptions, type RedemptionListQuery } from '../../src/store/redemption-records.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// Every redemption writes each secondary index of `redemptions` (three entries for a stacked one), so each
// index must earn its cost: this file names, for every index the table has, a statement the store sends
// whose plan walks it. An index added without such a statement, or one no statement uses any more, fails
// here (migration 0039 dropped five of them).

const PROJECT = 'proj_idx';
const since = '2026-01-01T00:00:00.000Z';
const page: RedemptionListQuery = { projectId: PROJECT, limit: 10, offset: 0, sort: 'created_at', descending: true };

function exportBatch(order: string) {
  const { key, descending } = parseOrder(order);
  return (db: Executor) =>
    readRedemptionBatch(db, {
      projectId: PROJECT,
      dialect: db.getExecutor().adapter.constructor.name.startsWith('Postgres') ? 'postgres' : 'sqlite',
      sortKey: key,
      descending,
      predicate: lowerExportFilter(parseExportFilter('redemption', undefined), new Date()),
      bound: null,
      limit: 500,
      campaignId: null,
      voucherId: null,
      fields: EXPORT_OBJECTS.redemption.allowedFields,
    });
}

/** Index → what needs it, and a store call whose statements walk it. */
const JUSTIFIED: Record<string, { serves: string; run: (db: Executor) => Promise<unknown> }> = {
  redemptions_created: { serves: 'GET /v1/redemptions, newest first (the default page)', run: (db) => listRedemptions(db, page) },
  redemptions_result: { serves: 'the list filtered by result', run: (db) => listRedemptions(db, { ...page, results: ['FAILURE'] }) },
  redemptions_campaign: { serves: 'the list filtered by campaign name', run: (db) => listRedemptions(db, { ...page, campaignName: 'Spring' }) },
  redemptions_customer: { serves: "the list filtered by customer (a customer's redemptions)", run: (db) => listRedemptions(db, { ...page, customerId: 'cust_1' }) },
  redemptions_voucher: { serves: 'GET /v1/vouchers/{code}/redemption', run: (db) => listRedemptions(db, { ...page, voucherId: 'v_1' }) },
  redemptions_parent: { serves: 'the children of a stacked redemption (reads, rollbacks)', run: (db) => childrenOf(db, PROJECT, 'r_parent') },
  redemptions_campaign_id: {
    serves: "validation rules limiting a campaign's redemptions per period",
    run: (db) => redemptionCounts(db, { projectId: PROJECT, campaignId: 'camp_1', since }),
  },
  redemptions_related: {
    serves: "validation rules limiting a voucher's or tier's redemptions per period",
    run: (db) => redemptionCounts(db, { projectId: PROJECT, relatedObjectId: 'v_1', since }),
  },
  redemptions_related_customer: {
    serves: "validation rules limiting one customer's redemptions of a voucher or tier",
    run: (db) => redemptionCounts(db, { projectId: PROJECT, relatedObjectId: 'v_1', customerId: 'cust_1', since }),
  },
  export_redemptions_id: { serves: 'redemption exports ordered by id', run: exportBatch('id') },
  export_redemptions_voucher_code: {
    serves: 'the list and exports sorted by voucher code',
    run: async (db) => {
      await listRedemptions(db, { ...page, sort: 'voucher_code' });
      await exportBatch('voucher_code')(db);
    },
  },
  export_redemptions_tracking_id: {
    serves: 'the list and exports sorted by tracking id',
    run: async (db) => {
      await listRedemptions(db, { ...page, sort: 'tracking_id' });
      await exportBatch('tracking_id')(db);
    },
  },
  export_redemptions_customer_id: {
    serves: 'the list and exports sorted by customer id',
    run: async (db) => {
      await listRedemptions(db, { ...page, sort: 'customer_id' });
      await exportBatch('customer_id')(db);
    },
  },
};

describe('every index of redemptions serves a query', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
  });
  after(async () => handle.close());

  async function secondaryIndexes(): Promise<string[]> {
    if (handle.dialect === 'sqlite') {
      const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'redemptions' and sql is not null`.execute(handle.db);
      return rows.map((r) => r.name).sort();
    }
    const { rows } = await sql<{ name: string }>`
      select i.relname as name from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where t.relname = 'redemptions' and n.nspname = current_schema() and not x.indisprimary`.execute(handle.db);
    return rows.map((r) => r.name).sort();
  }

  test('the table has exactly the justified indexes', async () => {
    assert.deepEqual(await secondaryIndexes(), Object.keys(JUSTIFIED).sort());
  });

  // SQLite plans by the shape of the statement, so its plan names the index a statement will walk at any
  // size. PostgreSQL plans by cost, and on these empty tables every index costs the same: there the plans
  // must only read some index, never scan the table.
  for (const [index, { serves, run }] of Object.entries(JUSTIFIED)) {
    test(`${index}: ${serves}`, async () => {
      const plans = await planOfStatements(handle, run);
      if (handle.dialect === 'sqlite') {
        assert.ok(
          plans.some((text) => text.includes(index)),
          `no statement walks ${index}:\n${plans.join('\n---\n')}`,
        );
      } else {
        for (const text of plans) assert.doesNotMatch(text, /Seq Scan/, text);
      }
    });
  }
});
