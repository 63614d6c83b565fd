import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Four requests from the vendor's own examples whose reading was open (issue 19), answered as decided
// from the vendor's OpenAPI and reference:
// - a voucher's `category` by a name no category has: the category is created with the voucher, as the
//   vendor's free-form categories are (more in tests/http/named-categories.test.ts);
// - a publication naming both a voucher and a campaign (the vendor's "Specific Voucher" example): the
//   voucher is published and the campaign not read, as the vendor's query-string variant documents;
// - a loyalty member's `customer` as a bare string (the vendor's "Using source ID" and "Using unique
//   Voucherify assigned ID" examples): the customer with that id or source_id, else a new one with it as
//   source_id;
// - a custom event needs its event schema: the vendor's `event` is "the name you used to define a custom
//   event in … Event Schema" (DECISIONS 24).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('vendor example requests whose reading was open', () => {
  let t: TestApp;
  let programId: string;
  before(async () => {
    t = await startTestApp();
    const program: Json = await t.request('POST', '/v1/loyalties', { json: { name: 'Examples club', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    assert.equal(program.status, 200, program.text);
    programId = program.body.id;
  });
  after(async () => t.close());

  test('a voucher category given by a new name creates it; a known name is taken', async () => {
    const created = await t.request('POST', '/v1/vouchers/CAT-1', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, category: 'New Customers' } });
    assert.equal(created.status, 200, created.text);
    const categories = (await t.request('GET', '/v1/categories')).body;
    assert.deepEqual(categories.data.map((c: Json) => [c.id, c.name, c.hierarchy]), [[created.body.category_id, 'New Customers', 1]]);

    const known = await t.request('POST', '/v1/vouchers/CAT-2', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, category: 'New Customers' } });
    assert.equal(known.status, 200, known.text);
    assert.equal(known.body.category_id, created.body.category_id);
    assert.equal((await t.request('GET', '/v1/categories')).body.total, 1);
  });

  test('a publication naming a voucher and a campaign publishes the voucher; the campaign is not read', async () => {
    const campaign = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Pub campaign', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } },
    });
    assert.equal(campaign.status, 200, campaign.text);
    await t.request('POST', '/v1/vouchers/PUB-SPECIFIC', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } });
    const both = await t.request('POST', '/v1/publications', {
      json: { campaign: { name: 'Pub campaign' }, voucher: 'PUB-SPECIFIC', customer: { source_id: 'pub-both', name: 'Both' }, metadata: { key: 'value' } },
    });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.voucher.code, 'PUB-SPECIFIC');
    const left = await t.request('GET', `/v1/vouchers?campaign_id=${campaign.body.id}`);
    assert.equal(left.body.vouchers[0].publish.count, 0, "the campaign's voucher stays unpublished");
    // A campaign name that does not exist is not read either.
    await t.request('POST', '/v1/vouchers/PUB-SPECIFIC-2', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } });
    const unread = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'campaign-name', count: 1 }, voucher: 'PUB-SPECIFIC-2', customer: { source_id: 'pub-both' } } });
    assert.equal(unread.status, 200, unread.text);
    assert.equal(unread.body.voucher.code, 'PUB-SPECIFIC-2');
  });

  test("a loyalty member's customer as a string: an existing customer's id or source_id, else a new customer with it as source_id", async () => {
    const existing = await t.request('POST', '/v1/customers', { json: { source_id: 'member-by-source', name: 'Known' } });
    const byId = await t.request('POST', '/v1/customers', { json: { source_id: 'member-by-id' } });
    const join = (customer: string) => t.request('POST', `/v1/loyalties/${programId}/members`, { json: { customer, metadata: { year: 2022 }, channel: 'postman' } });

    const bySource = await join('member-by-source');
    assert.equal(bySource.status, 200, bySource.text);
    assert.equal(bySource.body.holder_id, existing.body.id);
    const byOwnId = await join(byId.body.id);
    assert.equal(byOwnId.status, 200, byOwnId.text);
    assert.equal(byOwnId.body.holder_id, byId.body.id);
    const fresh = await join('source_customer_1');
    assert.equal(fresh.status, 200, fresh.text);
    const created = await t.request('GET', `/v1/customers/${fresh.body.holder_id}`);
    assert.equal(created.body.source_id, 'source_customer_1');

    const empty = await t.request('POST', `/v1/loyalties/${programId}/members`, { json: { customer: '' } });
    assert.equal(empty.status, 400, empty.text);
    assert.equal(empty.body.key, 'invalid_payload');
  });

  test('a custom event needs its event schema: 400 naming the event, then accepted once the schema exists', async () => {
    const event = { event: 'user_subscribed', customer: { source_id: 'event-customer' } };
    const refused = await t.request('POST', '/v1/events', { json: event });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.key, 'invalid_payload');
    assert.match(refused.body.details, /user_subscribed/);
    assert.equal((await t.request('GET', '/v1/customers/event-customer')).status, 404, 'nothing is stored');

    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/custom-event-schemas`, {
      headers: t.managementHeaders(),
      json: { name: 'user_subscribed', schema: { properties: {} } },
    });
    assert.equal(schema.status, 200, schema.text);
    const accepted = await t.request('POST', '/v1/events', { json: event });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.type, 'user_subscribed');
  });
});
