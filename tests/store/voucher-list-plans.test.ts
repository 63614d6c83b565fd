import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listLiveVouchers, type VoucherListQuery, type VoucherOrder } from '../../src/store/voucher-list.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// A list of one category's vouchers reads the category index, page and total, although that index holds
// only vouchers that have a category (migration 0024): an equality on category_id has to be enough for
// each database to choose the partial index.

describe('voucher list query plans', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
  });
  after(async () => handle.close());

  const base = (): VoucherListQuery => ({ projectId: 'proj_plan', limit: 10, offset: 0, order: '-created_at', dialect: handle.dialect, now: new Date() });

  for (const order of ['-created_at', 'created_at'] satisfies VoucherOrder[]) {
    test(`one category's vouchers by ${order}: page and total from vouchers_category`, async () => {
      const [page, total] = await planOfStatements(handle, (db) => listLiveVouchers(db, { ...base(), order, categoryId: 'cat_1' }));
      for (const text of [page ?? '', total ?? '']) assert.match(text, /vouchers_category/, text);
      if (handle.dialect === 'sqlite') assert.doesNotMatch(page ?? '', /TEMP B-TREE/, page);
      else assert.doesNotMatch(page ?? '', /\bSort\b/, page);
    });
  }
});
