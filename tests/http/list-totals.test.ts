import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { writtenBefore } from '../helpers/database.ts';

// `total` of GET /v1/vouchers (unfiltered or by campaign) and GET /v1/customers (unfiltered) comes from
// counts the database keeps as rows come and go (migration 0038), not from counting the rows. Every way a
// voucher or customer appears or goes must move them, so after each step the answered totals must equal
// the live rows counted in the tables, and the same lists with a filter that selects everything (which
// still count rows) must agree.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const EVERYTHING = 'created_at[after]=2000-01-01T00:00:00Z';

describe('list totals kept as rows come and go', () => {
  let t: TestApp;
  let other: KeyPairOut;
  const campaigns = new Set<string>();

  before(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(created.status, 200, created.text);
    other = created.body.server_side_key;
  });
  after(async () => t.close());

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      /* until the queue is empty */
    }
  }

  async function ok(method: string, path: string, json?: unknown, keys?: KeyPairOut): Promise<Json> {
    const res = await t.request(method, path, { ...(json !== undefined ? { json } : {}), headers: t.serverHeaders(keys) });
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }

  async function liveVouchers(projectId: string, campaignId?: string): Promise<number> {
    let query = t.deps.db.selectFrom('vouchers').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).where('binned_at', 'is', null);
    if (campaignId !== undefined) query = query.where('campaign_id', '=', campaignId);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  async function liveCustomers(projectId: string): Promise<number> {
    const row = await t.deps.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The answered totals equal the live rows, for the project, each campaign and the customers. */
  async function assertExact(step: string, expected?: { vouchers: number; customers: number }): Promise<void> {
    const vouchers = await ok('GET', '/v1/vouchers?limit=1');
    assert.equal(vouchers.total, await liveVouchers(t.projectId), `${step}: voucher total`);
    assert.equal((await ok('GET', `/v1/vouchers?limit=1&${EVERYTHING}`)).total, vouchers.total, `${step}: counted voucher total`);
    for (const id of campaigns) {
      const total = (await ok('GET', `/v1/vouchers?limit=1&campaign_id=${id}`)).total;
      assert.equal(total, await liveVouchers(t.projectId, id), `${step}: vouchers of ${id}`);
      assert.equal((await ok('GET', `/v1/vouchers?limit=1&campaign_id=${id}&${EVERYTHING}`)).total, total, `${step}: counted vouchers of ${id}`);
    }
    const customers = await ok('GET', '/v1/customers?limit=1');
    assert.equal(customers.total, await liveCustomers(t.projectId), `${step}: customer total`);
    assert.equal((await ok('GET', `/v1/customers?limit=1&${EVERYTHING}`)).total, customers.total, `${step}: counted customer total`);
    if (expected) assert.deepEqual({ vouchers: vouchers.total, customers: customers.total }, expected, step);
  }

  async function campaign(name: string, vouchersCount: number): Promise<Json> {
    const created = await ok('POST', '/v1/campaigns', {
      name,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: vouchersCount,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    });
    campaigns.add(created.id);
    return created;
  }

  test('vouchers: creates, campaign generation in the request and as a job, adding to a campaign', async () => {
    await assertExact('empty project', { vouchers: 0, customers: 0 });
    await ok('POST', '/v1/vouchers', { code: 'ONE-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    await ok('POST', '/v1/vouchers', { type: 'GIFT_VOUCHER', gift: { amount: 500 } });
    const duplicate = await t.request('POST', '/v1/vouchers', { json: { code: 'ONE-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    assert.equal(duplicate.status, 409, 'a code already in use adds nothing');
    await assertExact('standalone creates', { vouchers: 2, customers: 0 });

    const small = await campaign('Generated inline', 5);
    await assertExact('generation inside the request', { vouchers: 7, customers: 0 });
    const big = await campaign('Generated by a job', 1_200);
    await runJobs();
    await assertExact('generation job', { vouchers: 1_207, customers: 0 });

    await ok('POST', `/v1/campaigns/${small.id}/vouchers`, {});
    await ok('POST', `/v1/campaigns/${small.id}/vouchers/MINE-1`, {});
    await ok('POST', '/v1/vouchers', { code: 'INTO-SMALL', campaign_id: small.id });
    await assertExact('vouchers added to a campaign', { vouchers: 1_210, customers: 0 });
    assert.equal((await ok('GET', `/v1/vouchers?limit=1&campaign_id=${small.id}`)).total, 8);
    assert.equal((await ok('GET', `/v1/vouchers?limit=1&campaign_id=${big.id}`)).total, 1_200);
    assert.equal((await ok('GET', '/v1/vouchers?limit=1&campaign=Generated%20inline')).total, 8, 'by campaign name as by id');
  });

  test('vouchers: imports, with a code taken meanwhile counted once', async () => {
    const before = (await ok('GET', '/v1/vouchers?limit=1')).total as number;
    const queued = await ok('POST', '/v1/vouchers/import', [
      { code: 'IMP-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } },
      { code: 'IMP-2', type: 'GIFT_VOUCHER', gift: { amount: 700 } },
      { code: 'IMP-3', type: 'GIFT_VOUCHER', gift: { amount: 700 } },
    ]);
    await ok('POST', '/v1/vouchers', { code: 'IMP-3', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } });
    await runJobs();
    assert.equal((await ok('GET', `/v1/async-actions/${queued.async_action_id}`)).result.failed_count, 1);
    await assertExact('standalone import', { vouchers: before + 3, customers: 0 });

    const target = await campaign('Imported into', 0);
    await ok('POST', `/v1/campaigns/${target.id}/import`, Array.from({ length: 1_100 }, (_, i) => ({ code: `CI-${i}` })));
    await runJobs();
    await assertExact('campaign import', { vouchers: before + 1_103, customers: 0 });
    assert.equal((await ok('GET', `/v1/vouchers?limit=1&campaign_id=${target.id}`)).total, 1_100);
  });

  test('vouchers: the bin, permanent deletion and campaign deletion (bin, force, bin entry)', async () => {
    await ok('POST', '/v1/vouchers', { code: 'BIN-ME', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } });
    await ok('POST', '/v1/vouchers', { code: 'FORCE-ME', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } });
    const start = (await ok('GET', '/v1/vouchers?limit=1')).total as number;
    const toBin = await ok('GET', '/v1/vouchers/BIN-ME');
    assert.equal((await t.request('DELETE', '/v1/vouchers/BIN-ME')).status, 204);
    await assertExact('a voucher binned', { vouchers: start - 1, customers: 0 });
    const entry = (await ok('GET', '/v1/trash-bin?limit=100')).data.find((e: Json) => e.resource_id === toBin.id);
    assert.equal((await t.request('DELETE', `/v1/trash-bin/${entry.id}`)).status, 204);
    await assertExact('a binned voucher deleted for good', { vouchers: start - 1, customers: 0 });
    assert.equal((await t.request('DELETE', '/v1/vouchers/FORCE-ME?force=true')).status, 204);
    await assertExact('a live voucher deleted for good', { vouchers: start - 2, customers: 0 });

    const binned = await campaign('Binned campaign', 1_050);
    const purged = await campaign('Purged campaign', 30);
    await runJobs();
    const withBoth = (await ok('GET', '/v1/vouchers?limit=1')).total as number;
    assert.equal((await t.request('DELETE', `/v1/campaigns/${binned.id}`)).status, 202);
    await runJobs();
    await assertExact('a campaign deleted to the bin', { vouchers: withBoth - 1_050, customers: 0 });
    assert.equal((await ok('GET', `/v1/vouchers?limit=1&campaign_id=${binned.id}`)).total, 0);
    const campaignEntry = (await ok('GET', '/v1/trash-bin?limit=100')).data.find((e: Json) => e.resource_id === binned.id);
    assert.equal((await t.request('DELETE', `/v1/trash-bin/${campaignEntry.id}`)).status, 204);
    await runJobs();
    await assertExact('the binned campaign deleted for good', { vouchers: withBoth - 1_050, customers: 0 });
    assert.equal((await t.request('DELETE', `/v1/campaigns/${purged.id}?force=true`)).status, 202);
    await runJobs();
    await assertExact('a campaign deleted for good', { vouchers: withBoth - 1_080, customers: 0 });
  });

  test('customers: creates and upserts, created by redemptions and CSV imports, deleted and erased', async () => {
    await ok('POST', '/v1/customers', { source_id: 'c-1', name: 'One' });
    await ok('POST', '/v1/customers', { source_id: 'c-2' });
    await ok('POST', '/v1/customers', { name: 'No source id' });
    await ok('POST', '/v1/customers', { source_id: 'c-1', name: 'One, updated' });
    const vouchers = (await ok('GET', '/v1/vouchers?limit=1')).total as number;
    await assertExact('creates and an update', { vouchers, customers: 3 });

    await ok('POST', '/v1/vouchers', { code: 'FOR-NEWCOMER', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    await ok('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: 'FOR-NEWCOMER' }], customer: { source_id: 'newcomer' }, order: { amount: 1000 } });
    await ok('POST', '/v1/redemptions', {
      redeemables: [{ object: 'voucher', id: 'ONE-1' }],
      customer: { source_id: 'c-2' },
      order: { amount: 1000, customer: { source_id: 'c-2' } },
    });
    await assertExact('a redemption created its customer', { vouchers: vouchers + 1, customers: 4 });

    const csv = ['source_id,name', 'csv-1,First', 'csv-2,Second', 'c-2,Existing one', ',No source id'].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'customers.csv');
    const upload = await fetch(`${t.url}/v1/customers/importCSV`, { method: 'POST', headers: t.serverHeaders(), body: form });
    assert.equal(upload.status, 202, await upload.clone().text());
    await runJobs();
    await assertExact('a CSV import', { vouchers: vouchers + 1, customers: 7 });

    const hidden = await ok('GET', '/v1/customers/csv-1');
    assert.equal((await t.request('DELETE', `/v1/customers/${hidden.id}`)).status, 204);
    await assertExact('a customer deleted', { vouchers: vouchers + 1, customers: 6 });
    assert.equal((await t.request('POST', `/v1/customers/${hidden.id}/permanent-deletion`, { json: {} })).status, 200);
    await assertExact('the deleted customer erased', { vouchers: vouchers + 1, customers: 6 });
    const erased = await ok('GET', '/v1/customers/csv-2');
    assert.equal((await t.request('POST', `/v1/customers/${erased.id}/permanent-deletion`, { json: {} })).status, 200);
    await assertExact('a live customer erased', { vouchers: vouchers + 1, customers: 5 });
    await ok('POST', '/v1/customers', { source_id: 'csv-1', name: 'Back with the same source_id' });
    await assertExact('a new customer with a freed source_id', { vouchers: vouchers + 1, customers: 6 });
  });

  test('concurrent creates and deletes on one project count every row once', async () => {
    const before = { vouchers: (await ok('GET', '/v1/vouchers?limit=1')).total as number, customers: (await ok('GET', '/v1/customers?limit=1')).total as number };
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        Promise.all([
          ok('POST', '/v1/customers', { source_id: `par-${i}` }),
          ok('POST', '/v1/vouchers', { code: `PAR-${i}`, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } }),
        ]),
      ),
    );
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        assert.equal((await t.request('DELETE', `/v1/vouchers/PAR-${i}?force=true`)).status, 204);
        assert.equal((await t.request('DELETE', `/v1/customers/par-${i}`)).status, 204);
      }),
    );
    await assertExact('concurrent writers', { vouchers: before.vouchers + 30, customers: before.customers + 30 });
    if (t.db.dialect === 'postgres') {
      // Not one hot row: the writers' transactions spread over the count's shards.
      const shards = await t.deps.db.selectFrom('customer_counts').select('shard').where('project_id', '=', t.projectId).execute();
      assert.ok(shards.length > 1, `customer counts in ${shards.length} row(s)`);
    }
  });

  test("another project's rows never count", async () => {
    const mine = { vouchers: (await ok('GET', '/v1/vouchers?limit=1')).total as number, customers: (await ok('GET', '/v1/customers?limit=1')).total as number };
    await ok('POST', '/v1/vouchers', { code: 'ELSEWHERE', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } }, other);
    await ok('POST', '/v1/customers', { source_id: 'elsewhere' }, other);
    assert.equal((await ok('GET', '/v1/vouchers?limit=1', undefined, other)).total, 1);
    assert.equal((await ok('GET', '/v1/customers?limit=1', undefined, other)).total, 1);
    await assertExact('after writes in another project', mine);
  });

  test('the migration counts the vouchers and customers a database already holds', async () => {
    const before = { vouchers: (await ok('GET', '/v1/vouchers?limit=1')).total as number, customers: (await ok('GET', '/v1/customers?limit=1')).total as number };
    await writtenBefore(t.db, '2026-11-26-0037-definitions-version', async () => {
      await ok('POST', '/v1/vouchers', { code: 'OLD-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } });
      await ok('POST', '/v1/vouchers', { code: 'OLD-2', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } });
      assert.equal((await t.request('DELETE', '/v1/vouchers/OLD-2')).status, 204);
      // A customer as that schema stored it, written directly: today's customer answer carries cockpit
      // links, whose tables (migration 0040) that schema does not have yet.
      const template = await t.deps.db.selectFrom('customers').selectAll().where('project_id', '=', t.projectId).limit(1).executeTakeFirstOrThrow();
      await t.deps.db.insertInto('customers').values({ ...template, id: 'cust_old_1', source_id: 'old-1', email: null, deleted_at: null }).execute();
    });
    await assertExact('after the migration', { vouchers: before.vouchers + 1, customers: before.customers + 1 });
  });
});
