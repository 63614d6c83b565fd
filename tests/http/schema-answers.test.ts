import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';
import { assertVendorResponse, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// Answers in the vendor's schema where it has no null (issue 44 items 4 to 6): a member without a value
// is left out, never null, and async actions are the vendor's kinds only, each saying how it ended.
// Each case is checked for the absent member, and against the vendor's response schema where the vendor
// document is on this machine (tests/helpers/vendor-schema.ts admits null only where it says nullable).

describe('answers leave out members that have no value', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;

  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
  });
  after(async () => t.close());

  /** Checks `body` against the vendor's answer of the operation, when the vendor document is here. */
  function conforms(method: string, path: string, body: unknown): void {
    if (vendorSchemasAvailable) assertVendorResponse(method, path, body);
  }

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // until no job is left
    }
  }

  test('an order of nobody has no customer and no referrer member, only null ids', async () => {
    const order = await f.ok('POST', '/v1/orders', { amount: 1500 });
    for (const answer of [order, await f.ok('GET', `/v1/orders/${order.id}`), await f.ok('PUT', `/v1/orders/${order.id}`, { status: 'PAID' })]) {
      assert.ok(!('referrer' in answer) && !('customer' in answer), JSON.stringify(answer));
      assert.deepEqual([answer.customer_id, answer.referrer_id], [null, null]);
    }
    conforms('POST', '/v1/orders', order);
    conforms('GET', '/v1/orders/{orderId}', await f.ok('GET', `/v1/orders/${order.id}`));
    const listed = (await f.ok('GET', '/v1/orders?limit=100')).orders.find((o: Json) => o.id === order.id);
    assert.ok(listed && !('referrer' in listed) && !('customer' in listed), JSON.stringify(listed));
    // Named, they are there.
    const customer = await f.customer();
    const named = await f.ok('POST', '/v1/orders', { amount: 100, customer: { id: customer.id }, referrer: { id: customer.id } });
    assert.deepEqual([named.customer, named.referrer], [{ id: customer.id, object: 'customer' }, { id: customer.id, object: 'customer' }]);
  });

  test('a redemption of a voucher nobody holds: no voucher.holder, no order.referrer, in the redemption, its reads and its rollback', async () => {
    const voucher = await f.amountVoucher(100);
    const customer = await f.customer();
    const redeemed = await f.ok('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: voucher.code }], order: { amount: 5000 }, customer: { id: customer.id } });
    const record = redeemed.redemptions[0];
    const absent = (r: Json) => {
      assert.ok(!('holder' in r.voucher), `voucher.holder: ${JSON.stringify(r.voucher.holder)}`);
      assert.ok(!('referrer' in r.order), `order.referrer: ${JSON.stringify(r.order.referrer)}`);
    };
    absent(record);
    assert.ok(!('referrer' in redeemed.order));
    conforms('POST', '/v1/redemptions', redeemed);
    const read = await f.ok('GET', `/v1/redemptions/${record.id}`);
    absent(read);
    conforms('GET', '/v1/redemptions/{redemptionId}', read);
    const listed = await f.ok('GET', `/v1/redemptions?customer=${customer.id}`);
    absent(listed.redemptions[0]);
    conforms('GET', '/v1/redemptions', listed);
    const entries = await f.ok('GET', `/v1/vouchers/${voucher.code}/redemption`);
    absent(entries.redemption_entries[0]);
    const rollback = await f.ok('POST', `/v1/redemptions/${record.id}/rollback`, {});
    assert.ok(!('referrer' in rollback.order), JSON.stringify(rollback.order));
    conforms('POST', '/v1/redemptions/{redemptionId}/rollback', rollback);
  });

  test('an earning rule without its own expiry has no expiration_rules member, also through a tier', async () => {
    const program = await f.ok('POST', '/v1/loyalties', { name: f.unique('Rules'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const [tier] = await f.ok('POST', `/v1/loyalties/${program.id}/tiers`, [{ name: 'Gold', points: { from: 1000 } }]);
    const [rule] = await f.ok('POST', `/v1/loyalties/${program.id}/earning-rules`, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } }]);
    const answers = [
      rule,
      await f.ok('GET', `/v1/loyalties/${program.id}/earning-rules/${rule.id}`),
      await f.ok('PUT', `/v1/loyalties/${program.id}/earning-rules/${rule.id}`, { loyalty: { type: 'FIXED', points: 6 } }),
      (await f.ok('GET', `/v1/loyalties/${program.id}/earning-rules`)).data[0],
      (await f.ok('GET', `/v1/loyalties/${program.id}/tiers/${tier.id}/earning-rules`)).data[0],
    ];
    for (const answer of answers) assert.ok(answer && !('expiration_rules' in answer), JSON.stringify(answer));
    conforms('GET', '/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}', answers[1]);
    conforms('GET', '/v1/loyalties/{campaignId}/tiers/{loyaltyTierId}/earning-rules', await f.ok('GET', `/v1/loyalties/${program.id}/tiers/${tier.id}/earning-rules`));
    // A rule's own expiry is shown.
    const [expiring] = await f.ok('POST', `/v1/loyalties/${program.id}/earning-rules`, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 5 }, expiration_rules: { period_type: 'MONTH', period_value: 3, rounding_type: 'END_OF_MONTH' } },
    ]);
    assert.equal(expiring.expiration_rules.period_value, 3);
  });

  test('a member of a program without tiers has no loyalty_tier in customer.loyalty.campaigns', async () => {
    const name = f.unique('No tiers');
    const program = await f.ok('POST', '/v1/loyalties', { name, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const member = await f.ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { source_id: f.unique('member') } });
    const customer = await f.ok('GET', `/v1/customers/${member.holder_id}`);
    const entry = customer.loyalty.campaigns[name];
    assert.ok(entry, JSON.stringify(customer.loyalty));
    assert.ok(!('loyalty_tier' in entry), JSON.stringify(entry));
    conforms('GET', '/v1/customers/{customerId}', customer);
    const listed = (await f.ok('GET', '/v1/customers?limit=100')).customers.find((c: Json) => c.id === customer.id);
    assert.ok(!('loyalty_tier' in listed.loyalty.campaigns[name]), JSON.stringify(listed.loyalty));
  });

  describe('async actions', () => {
    async function importCsv(path: string, csv: string): Promise<string> {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'import.csv');
      const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: t.serverHeaders(), body: form });
      const body = (await response.json()) as Json;
      // The vendor answers 202 for customers and vouchers, 200 for products and SKUs.
      assert.equal(response.status, path.startsWith('/v1/customers') ? 202 : 200, JSON.stringify(body));
      return body.async_action_id as string;
    }

    test('a CSV import says how it went (operation_status) and has a result, never null, while queued and once ended', async () => {
      const good = await importCsv('/v1/customers/importCSV', `source_id,name\n${f.unique('csv')},Ann\n${f.unique('csv')},Bob`);
      const bad = await importCsv('/v1/products/importCSV', `name,source_id,price\nFine,${f.unique('p')},100\nCheap,${f.unique('p')},12.50`);
      const queued = await f.ok('GET', `/v1/async-actions/${good}`);
      assert.equal(queued.status, 'ENQUEUED');
      assert.equal(queued.operation_status, 'UNKNOWN');
      assert.deepEqual(queued.result, { failed: [], done_count: 0, failed_count: 0 });
      conforms('GET', '/v1/async-actions/{asyncActionId}', queued);
      await runJobs();
      const done = await f.ok('GET', `/v1/async-actions/${good}`);
      assert.deepEqual([done.status, done.operation_status, done.result.done_count, done.result.failed_count], ['DONE', 'SUCCESS', 2, 0]);
      conforms('GET', '/v1/async-actions/{asyncActionId}', done);
      const partly = await f.ok('GET', `/v1/async-actions/${bad}`);
      assert.deepEqual([partly.status, partly.operation_status, partly.result.done_count, partly.result.failed_count], ['DONE', 'FAILED', 1, 1]);
      conforms('GET', '/v1/async-actions/{asyncActionId}', partly);
      const listed = await f.ok('GET', '/v1/async-actions?limit=100');
      assert.deepEqual(
        [good, bad].map((id) => listed.async_actions.find((a: Json) => a.id === id)?.operation_status),
        ['SUCCESS', 'FAILED'],
      );
      conforms('GET', '/v1/async-actions', listed);
    });

    test('an action that has recorded nothing yet has no result member rather than null', async () => {
      const { async_action_id: id } = await f.ok('POST', '/v1/products/bulk/async', [{ source_id: f.unique('bulk'), name: 'Bulk' }]);
      const queued = await f.ok('GET', `/v1/async-actions/${id}`);
      assert.equal(queued.status, 'ENQUEUED');
      assert.ok(!('result' in queued), JSON.stringify(queued));
      conforms('GET', '/v1/async-actions/{asyncActionId}', queued);
      await runJobs();
      const done = await f.ok('GET', `/v1/async-actions/${id}`);
      assert.deepEqual([done.status, done.operation_status], ['DONE', 'SUCCESS']);
    });

    test('internal jobs (a tier recalculation) are neither listed nor found as async actions', async () => {
      const program = await f.ok('POST', '/v1/loyalties', {
        name: f.unique('Tiered'),
        voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
        loyalty_tiers_expiration: { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'BALANCE_DROP' } },
      });
      await f.ok('POST', `/v1/loyalties/${program.id}/tiers`, [{ name: 'Silver', points: { from: 100 } }]);
      await f.ok('PUT', `/v1/loyalties/${program.id}`, { options: { recalculate_tiers: true } });
      const jobs = await t.deps.db.selectFrom('jobs').select(['id', 'kind']).where('project_id', '=', t.projectId).where('kind', '=', 'LOYALTY.TIERS_RECALCULATE').execute();
      assert.ok(jobs.length > 0, 'the recalculation is queued');
      const listed = await f.ok('GET', '/v1/async-actions?limit=100');
      assert.deepEqual(listed.async_actions.filter((a: Json) => a.type.startsWith('LOYALTY.')), []);
      assert.ok(!listed.async_actions.some((a: Json) => jobs.some((j) => j.id === a.id)));
      conforms('GET', '/v1/async-actions', listed);
      for (const job of jobs) {
        const found = await t.request('GET', `/v1/async-actions/${job.id}`);
        assert.equal(found.status, 404, found.text);
        const unknown = await t.request('GET', '/v1/async-actions/aa_0000000000000000');
        const sameAs = (body: Json) => ({ ...body, details: undefined, request_id: undefined, resource_id: undefined });
        assert.deepEqual(sameAs(found.body), sameAs(unknown.body));
        assert.equal(found.body.resource_id, job.id);
      }
    });
  });
});
