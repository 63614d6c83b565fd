import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lowerExportFilter, parseExportFilter } from '../../src/domain/exports/filters.ts';
import { EXPORT_OBJECTS, EXPORTED_OBJECTS, parseOrder, type ExportedObject } from '../../src/domain/exports/objects.ts';
import type { Executor } from '../../src/store/db.ts';
import {
  readBucketBatch,
  readCustomerBatch,
  readOrderBatch,
  readPublicationBatch,
  readRedemptionBatch,
  readTransactionBatch,
  readVoucherBatch,
  UNIQUE_SORT_KEYS,
  type ExportBatchQuery,
  type KeysetBound,
} from '../../src/store/export-sources.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// Every batch an export reads must be an index range scan in the order of the index: sorting in the
// database would make each batch cost as much as the whole table, and an export of n rows cost n²/batch.
// Checked on the plans each database makes for the exact statements the export sources send.

interface Scope {
  campaignId?: string;
  voucherId?: string;
}

const READERS: Record<ExportedObject, (db: Executor, q: ExportBatchQuery) => Promise<unknown>> = {
  voucher: readVoucherBatch,
  redemption: readRedemptionBatch,
  customer: readCustomerBatch,
  publication: readPublicationBatch,
  order: readOrderBatch,
  points_expiration: readBucketBatch,
  voucher_transactions: readTransactionBatch,
};

/** The one order that is documented as not index-served (the key lives on a joined table). */
const UNINDEXED = new Set(['publication:voucher_code']);

describe('export batch query plans', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
  });
  after(async () => handle.close());

  /** The plan of every statement one batch read sends (a source may read keys first, then rows by id). */
  async function plans(object: ExportedObject, order: string, bound: KeysetBound | null, scope: Scope = {}): Promise<string[]> {
    const { key, descending } = parseOrder(order);
    const predicate = lowerExportFilter(parseExportFilter(object, undefined), new Date());
    // Every field shown: the widest statements the source can send.
    return planOfStatements(handle, (db) =>
      READERS[object](db, {
        projectId: 'proj_plan',
        dialect: handle.dialect,
        sortKey: key,
        descending,
        predicate,
        bound,
        limit: 500,
        campaignId: scope.campaignId ?? null,
        voucherId: scope.voucherId ?? null,
        fields: EXPORT_OBJECTS[object].allowedFields,
      }),
    );
  }

  function assertIndexOrdered(text: string): void {
    if (handle.dialect === 'sqlite') {
      assert.doesNotMatch(text, /TEMP B-TREE/, text);
      assert.match(text.split('\n')[0] ?? '', /USING (COVERING )?INDEX/, text);
    } else {
      assert.doesNotMatch(text, /\bSort\b/, text);
      assert.doesNotMatch(text, /Seq Scan/, text);
    }
  }

  // The exports of one campaign's or one card's records (a campaign's transactions, a card's, a program's
  // points expiration) walk an index that starts with the scope, not the whole project's rows.
  const SCOPED: Array<{ object: ExportedObject; scope: Scope; index: RegExp }> = [
    { object: 'voucher_transactions', scope: { campaignId: 'camp_plan' }, index: /voucher_transactions_campaign_created/ },
    { object: 'voucher_transactions', scope: { voucherId: 'v_plan' }, index: /voucher_transactions_voucher_created/ },
    { object: 'points_expiration', scope: { campaignId: 'camp_plan' }, index: /loyalty_buckets_campaign_expires_at/ },
  ];
  for (const { object, scope, index } of SCOPED) {
    for (const order of EXPORT_OBJECTS[object].orders) {
      test(`${object} by ${order} limited to ${Object.keys(scope).join()}: walks ${index.source}`, async () => {
        for (const bound of [null, { ties: { key: 'k', id: 'i' } }, { after: 'k' }]) {
          for (const text of await plans(object, order, bound, scope)) {
            assertIndexOrdered(text);
            assert.match(text, index, text);
          }
        }
      });
    }
  }

  for (const object of EXPORTED_OBJECTS) {
    for (const order of EXPORT_OBJECTS[object].orders) {
      if (UNINDEXED.has(`${object}:${order.replace('-', '')}`)) continue;
      test(`${object} by ${order}: first batch, ties of the cursor's key, and the keys after it`, async () => {
        // A unique key has no ties, so the sources never look for them.
        const ties = UNIQUE_SORT_KEYS[object].includes(parseOrder(order).key) ? [] : [{ ties: { key: 'k', id: 'i' } }];
        for (const bound of [null, ...ties, { after: 'k' }]) {
          for (const text of await plans(object, order, bound)) assertIndexOrdered(text);
        }
      });
    }
  }
});
