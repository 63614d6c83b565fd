import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { deleteBinEntriesOf } from '../../src/store/bin.ts';
import { findEventData } from '../../src/store/events.ts';
import { vouchersOfHolders } from '../../src/store/customer-redeemables.ts';
import { listMemberCards, lockCards } from '../../src/store/loyalty.ts';
import { voucherRuleIds } from '../../src/store/export-sources.ts';
import { findCatalogFacts } from '../../src/store/orders.ts';
import { findLiveItems, listStaticMembers } from '../../src/store/product-collections.ts';
import { assignmentsOfTiers } from '../../src/store/promotion-tiers.ts';
import { findVouchersForRedemption } from '../../src/store/redemption-facts.ts';
import { findLiveCustomersByRefs } from '../../src/store/segments.ts';
import { assignedRules } from '../../src/store/validation-rules.ts';
import { findVouchersByIds, listLiveVouchers } from '../../src/store/voucher-list.ts';
import { eventsForDelivery } from '../../src/store/webhooks.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';
import { customerRow, projectRow } from '../helpers/rows.ts';

// Rows asked for by their ids are looked up by key, whatever the number of ids (src/store/id-lookups.ts).
// Without statistics SQLite planned three ids or more as a walk of an index that starts with project_id,
// every row of the project (vouchers_last_change, events_project_seq, products_modified, vouchers_campaign).

const IDS = ['id_1', 'id_2', 'id_3', 'id_4', 'id_5'];

describe('lookups by ids find each id by key', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    // SQLite plans without statistics, so its plans are those of a full database already. PostgreSQL plans
    // from statistics: it gets enough rows of one project to plan as it would on real data.
    if (handle.dialect === 'postgres') await seedOneProject(handle);
  });
  after(async () => handle.close());

  /** Every statement `run` sent reads its table by the id key, never a project's range of an index. */
  async function assertByKey(run: (db: TestDatabase['db']) => Promise<unknown>): Promise<void> {
    const plans = await planOfStatements(handle, run);
    for (const plan of plans) {
      if (handle.dialect === 'sqlite') {
        assert.match(plan, /\(id=\?\)/, plan);
        assert.doesNotMatch(plan, /\(project_id=\?\)|\bSCAN\b/, plan);
      } else {
        assert.match(plan, /_pkey|_id_key/, plan);
      }
    }
  }

  test('vouchers a redemption names by id, read and locked', async () => {
    const names = IDS.map((id) => ({ codeKey: null, id }));
    await assertByKey((db) => findVouchersForRedemption(db, 'proj_plan', names, false));
    // Outside a transaction the row locks (PostgreSQL) are taken and let go at once; the plan is the same.
    await assertByKey((db) => findVouchersForRedemption(db, 'proj_plan', names, true));
  });

  test('vouchers by id for holders, publications and loyalty cards', async () => {
    await assertByKey((db) => vouchersOfHolders(db, 'proj_plan', IDS));
    await assertByKey((db) => findVouchersByIds(db, 'proj_plan', IDS));
    await assertByKey((db) => lockCards(db, 'proj_plan', IDS));
  });

  test('voucher and member lists asked for by ids (page and total)', async () => {
    await assertByKey((db) =>
      listLiveVouchers(db, { projectId: 'proj_plan', limit: 10, offset: 0, order: '-created_at', ids: IDS, campaignId: 'camp_1', dialect: handle.dialect, now: new Date() }),
    );
    await assertByKey((db) => listMemberCards(db, { projectId: 'proj_plan', campaignId: 'camp_1', limit: 10, offset: 0, order: '-created_at', ids: IDS }));
  });

  test('event payloads for expansion and for webhook deliveries', async () => {
    await assertByKey((db) => findEventData(db, 'proj_plan', IDS));
    await assertByKey((db) => eventsForDelivery(db, IDS.map((eventId) => ({ projectId: 'proj_plan', eventId }))));
  });

  test('products and SKUs an order names by id, alone or next to source ids', async () => {
    await assertByKey((db) => findCatalogFacts(db, 'proj_plan', { productIds: IDS, productSourceIds: [], skuIds: IDS, skuSourceIds: [] }));
    await assertByIdAndSourceId((db) =>
      findCatalogFacts(db, 'proj_plan', { productIds: IDS, productSourceIds: ['p-1', 'p-2', 'p-3'], skuIds: IDS, skuSourceIds: ['s-1', 's-2', 's-3'] }),
    );
  });

  test('items of a static collection and members of a static segment, named by id or source id', async () => {
    await assertByIdAndSourceId((db) => findLiveItems(db, 'proj_plan', [...IDS, 'p-1', 'p-2'], [...IDS, 's-1', 's-2']));
    await assertByIdAndSourceId((db) => findLiveCustomersByRefs(db, 'proj_plan', [...IDS, 'c-1', 'c-2']));
  });

  /** Every statement reads by the id key and by the (project, source_id) index, never a project's range. */
  async function assertByIdAndSourceId(run: (db: TestDatabase['db']) => Promise<unknown>): Promise<void> {
    const plans = await planOfStatements(handle, run);
    for (const plan of plans) {
      if (handle.dialect === 'sqlite') {
        assert.match(plan, /\(id=\?\)/, plan);
        assert.match(plan, /\(project_id=\? AND source_id=\?\)/, plan);
        assert.doesNotMatch(plan, /\(project_id=\?\)|\bSCAN\b/, plan);
      } else {
        assert.match(plan, /_pkey/, plan);
        assert.match(plan, /source_id/, plan);
      }
    }
  }

  test('rules assigned to several objects: each object looked up, oldest assignment first', async () => {
    const objects = IDS.map((id) => ({ type: 'voucher', id }));
    for (const run of [(db: TestDatabase['db']) => assignedRules(db, 'proj_plan', objects), (db: TestDatabase['db']) => voucherRuleIds(db, 'proj_plan', IDS)]) {
      const plans = await planOfStatements(handle, run);
      // SQLite walked every assignment of the project in created order (validation_rule_assignments_created)
      // to spare itself a sort; PostgreSQL plans from statistics.
      if (handle.dialect === 'sqlite') for (const plan of plans) assert.doesNotMatch(plan, /assignments_created|\(project_id=\?\)/, plan);
    }
    await handle.db.insertInto('projects').values(projectRow('proj_rules')).execute();
    const rule = { project_id: 'proj_rules', name: 'r', rules: '{}', error: null, applicable_to: '{}', type: 'basic', context_type: 'global', created_at: '2026-03-01T00:00:00.000Z' };
    await handle.db.insertInto('validation_rules').values([{ ...rule, id: 'val_a', name: 'a' }, { ...rule, id: 'val_b', name: 'b' }]).execute();
    // Ids in the opposite order of creation, so only a sort by created_at gives the expected order.
    const assignment = (id: string, ruleId: string, objectId: string, at: string) => ({ id, project_id: 'proj_rules', rule_id: ruleId, related_object_type: 'voucher', related_object_id: objectId, created_at: at });
    await handle.db
      .insertInto('validation_rule_assignments')
      .values([assignment('asgm_3', 'val_a', 'v_x', '2026-03-01T10:00:00.000Z'), assignment('asgm_2', 'val_b', 'v_y', '2026-03-01T11:00:00.000Z'), assignment('asgm_1', 'val_b', 'v_x', '2026-03-01T12:00:00.000Z')])
      .execute();
    const rows = await assignedRules(handle.db, 'proj_rules', [{ type: 'voucher', id: 'v_y' }, { type: 'voucher', id: 'v_x' }]);
    assert.deepEqual(rows.map((r) => r.assignment.id), ['asgm_3', 'asgm_2', 'asgm_1']);
    const byVoucher = await voucherRuleIds(handle.db, 'proj_rules', ['v_y', 'v_x']);
    assert.deepEqual(byVoucher.get('v_x'), ['val_a', 'val_b']);
    assert.deepEqual(byVoucher.get('v_y'), ['val_b']);
  });

  test('assignments of several promotion tiers: each tier looked up', async () => {
    const plans = await planOfStatements(handle, (db) => assignmentsOfTiers(db, 'proj_plan', IDS));
    if (handle.dialect === 'sqlite') for (const plan of plans) assert.doesNotMatch(plan, /assignments_created|\(project_id=\?\)/, plan);
  });

  test("a static collection's page reads its products and SKUs by id", async () => {
    const at = '2026-03-01T00:00:00.000Z';
    await handle.db.insertInto('projects').values(projectRow('proj_items')).execute();
    const common = { project_id: 'proj_items', metadata: '{}', attributes: '{}', created_at: at };
    const keys = ['1', '2', '3', '4', '5'];
    await handle.db.insertInto('products').values(keys.map((k) => ({ ...common, id: `prod_i${k}`, source_id: null, name: `P ${k}` }))).execute();
    await handle.db.insertInto('skus').values(keys.map((k) => ({ ...common, id: `sku_i${k}`, product_id: `prod_i${k}`, source_id: null, sku: `S ${k}` }))).execute();
    await handle.db.insertInto('product_collections').values({ id: 'pc_i', project_id: 'proj_items', name: 'c', type: 'STATIC', filter: null, products: null, created_at: at }).execute();
    const item = (type: 'product' | 'sku', id: string, productId: string) => ({ project_id: 'proj_items', collection_id: 'pc_i', item_type: type, item_id: id, product_id: productId, item_created_at: at });
    await handle.db
      .insertInto('product_collection_items')
      .values(keys.flatMap((k) => [item('product', `prod_i${k}`, `prod_i${k}`), item('sku', `sku_i${k}`, `prod_i${k}`)]))
      .execute();
    const plans = await planOfStatements(handle, async (db) => {
      const { members } = await listStaticMembers(db, 'proj_items', 'pc_i', { limit: 10, offset: 0, descending: false });
      assert.equal(members.length, 10);
    });
    if (handle.dialect === 'sqlite') for (const plan of plans) assert.doesNotMatch(plan, /(SEARCH|SCAN) (skus|products)\b(?! USING INDEX sqlite_autoindex)/, plan);
  });

  test("a product's bin entries and its SKUs' entries, each by its own index", async () => {
    const plans = await planOfStatements(handle, (db) => deleteBinEntriesOf(db, 'proj_plan', 'prod_1'));
    assert.equal(plans.length, 2);
    if (handle.dialect === 'sqlite') {
      assert.match(plans[0] ?? '', /\(project_id=\? AND resource_id=\?\)/, plans[0]);
      assert.match(plans[1] ?? '', /\(project_id=\? AND resource_parent_id=\?\)/, plans[1]);
    }
  });

  test('the project still decides which rows come back', async () => {
    await handle.db.insertInto('projects').values([projectRow('proj_a'), projectRow('proj_b')]).execute();
    const vouchers = IDS.slice(0, 3).map((id, i) => ({
      id: `v_${id}`,
      project_id: 'proj_a',
      code: `CODE-${i}`,
      code_key: `code-${i}`,
      type: 'DISCOUNT_VOUCHER' as const,
      active: true,
      metadata: '{}',
      is_referral_code: false,
      created_at: '2026-03-02T10:00:00.000Z',
    }));
    await handle.db.insertInto('vouchers').values(vouchers).execute();
    const ids = vouchers.map((v) => v.id);
    assert.equal((await findVouchersByIds(handle.db, 'proj_a', ids)).size, 3);
    assert.equal((await findVouchersByIds(handle.db, 'proj_b', ids)).size, 0);
    assert.equal((await findVouchersForRedemption(handle.db, 'proj_b', ids.map((id) => ({ codeKey: null, id })), false)).length, 0);
  });
});

async function seedOneProject(handle: TestDatabase): Promise<void> {
  const at = '2026-03-02T10:00:00.000Z';
  const n = Array.from({ length: 3000 }, (_, i) => i);
  await handle.db.insertInto('projects').values(projectRow('proj_plan')).execute();
  const common = { project_id: 'proj_plan', metadata: '{}', attributes: '{}', created_at: at };
  for (let i = 0; i < n.length; i += 500) {
    const slice = n.slice(i, i + 500);
    await handle.db
      .insertInto('vouchers')
      .values(slice.map((k) => ({ id: `v_${k}`, project_id: 'proj_plan', code: `C-${k}`, code_key: `c-${k}`, campaign_id: 'camp_1', type: 'DISCOUNT_VOUCHER' as const, active: true, metadata: '{}', is_referral_code: false, holder_id: `cust_${k % 50}`, created_at: at })))
      .execute();
    await handle.db
      .insertInto('events')
      .values(slice.map((k) => ({ id: `evt_${k}`, project_id: 'proj_plan', type: 'customer.created', data: '{}', source: '{}', group_id: `g_${k}`, created_at: at })))
      .execute();
    await handle.db.insertInto('products').values(slice.map((k) => ({ ...common, id: `prod_${k}`, source_id: `p-${k}`, name: `P ${k}` }))).execute();
    await handle.db.insertInto('skus').values(slice.map((k) => ({ ...common, id: `sku_${k}`, product_id: `prod_${k}`, source_id: `s-${k}`, sku: `S ${k}` }))).execute();
    await handle.db.insertInto('customers').values(slice.map((k) => customerRow('proj_plan', `cust_${k}`, `c-${k}`, { createdAt: at }))).execute();
  }
  await sql`analyze vouchers, events, products, skus, customers`.execute(handle.db);
}
