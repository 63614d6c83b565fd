import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Publications (promotions reference 2.5; vendor /v1/publications): handing vouchers to customers and
// listing what was handed out, driven by the SDK's distributions.publications calls.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('publications', () => {
  let t: TestApp;
  let other: KeyPairOut;
  before(async () => {
    t = await startTestApp();
    other = (
      await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      })
    ).body.server_side_key;
  });
  after(async () => t.close());

  const campaign = async (name: string, extra: Record<string, unknown> = {}): Promise<Json> =>
    t.sdk().campaigns.create({
      name,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 5,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      ...extra,
    } as never);

  async function events(type: string, entityId: string): Promise<Json[]> {
    const rows = await t.deps.db.selectFrom('events').selectAll().where('type', '=', type).where('entity_id', '=', entityId).execute();
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
  }

  test('publishing from a campaign creates the customer and makes them the holder, through the SDK', async () => {
    const camp = await campaign('Welcome');
    const pub: Json = await t.sdk().distributions.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id: 'alice', email: 'alice@example.com' }, channel: 'Email', metadata: { wave: 1 } } as never);
    assert.match(pub.id, /^pub_/);
    assert.equal(pub.object, 'publication');
    assert.equal(pub.result, 'SUCCESS');
    assert.equal(pub.channel, 'Email');
    assert.equal(pub.tracking_id, 'alice');
    assert.deepEqual(pub.metadata, { wave: 1 });
    assert.match(pub.customer_id, /^cust_/);
    assert.equal(pub.customer.source_id, 'alice');
    assert.equal(pub.customer.email, 'alice@example.com');
    assert.equal(pub.voucher.campaign_id, camp.id);
    assert.equal(pub.voucher.holder_id, pub.customer_id);
    assert.equal(pub.voucher.publish.count, 1);
    assert.deepEqual(pub.vouchers_id, [pub.voucher.id]);
    const customer: Json = await t.sdk().customers.get('alice');
    assert.equal(customer.id, pub.customer_id);
    assert.equal((await events('publication.succeeded', pub.id)).length, 1);
    const [published] = await events('voucher.published', pub.voucher.id);
    assert.equal(published.data.publication.id, pub.id);
    assert.equal(published.data.campaign.id, camp.id);
  });

  test('a campaign can be named by id, and several vouchers published at once', async () => {
    const camp = await campaign('Bulk');
    const pub = await t.request('POST', '/v1/publications', { json: { campaign: { id: camp.id, count: 3 }, customer: { source_id: 'bob' } } });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.vouchers.length, 3);
    assert.equal(pub.body.vouchers_id.length, 3);
    assert.equal(pub.body.voucher, undefined);
    const held = await t.request('GET', '/v1/vouchers?customer=bob');
    assert.deepEqual(held.body.vouchers.map((v: Json) => v.code).sort(), [...pub.body.vouchers].sort());
    const tooMany = await t.request('POST', '/v1/publications', { json: { campaign: { id: camp.id, count: 51 }, customer: { source_id: 'bob' } } });
    assert.equal(tooMany.status, 400);
    const withSource = await t.request('POST', '/v1/publications', { json: { campaign: { id: camp.id, count: 2 }, customer: { source_id: 'bob' }, source_id: 'p-1' } });
    assert.equal(withSource.status, 400);
    assert.match(withSource.body.details, /source_id/);
  });

  test('a specific voucher by code; it cannot be published twice', async () => {
    await t.sdk().vouchers.create({ code: 'ONE-OFF', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    const pub: Json = await t.sdk().distributions.publications.create({ voucher: 'ONE-OFF', customer: { source_id: 'carol' } } as never);
    assert.equal(pub.voucher.code, 'ONE-OFF');
    assert.equal(pub.voucher.campaign, null);
    const again = await t.request('POST', '/v1/publications', { json: { voucher: 'ONE-OFF', customer: { source_id: 'dave' } } });
    assert.equal(again.status, 400);
    assert.equal(again.body.key, 'voucher_already_published');
    await t.sdk().vouchers.create({ code: 'OFF-NOW', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, active: false } as never);
    const disabled = await t.request('POST', '/v1/publications', { json: { voucher: 'OFF-NOW', customer: { source_id: 'dave' } } });
    assert.equal(disabled.status, 400);
    assert.equal(disabled.body.key, 'voucher_cannot_be_published');
  });

  test('a repeated source_id answers the first publication; for another customer it is refused', async () => {
    await campaign('Idempotent');
    const first: Json = await t.sdk().distributions.publications.create({ campaign: { name: 'Idempotent' }, customer: { source_id: 'erin' }, source_id: 'crm-77' } as never);
    const second: Json = await t.sdk().distributions.publications.create({ campaign: { name: 'Idempotent' }, customer: { source_id: 'erin' }, source_id: 'crm-77' } as never);
    assert.equal(second.id, first.id);
    assert.equal(second.voucher.code, first.voucher.code);
    const held = await t.request('GET', '/v1/vouchers?customer=erin');
    assert.equal(held.body.total, 1);
    const stolen = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Idempotent' }, customer: { source_id: 'frank' }, source_id: 'crm-77' } });
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.key, 'duplicate_source_id');
  });

  test('join_once gives a customer one voucher of the campaign', async () => {
    await campaign('Once');
    await t.request('POST', '/v1/publications?join_once=true', { json: { campaign: { name: 'Once' }, customer: { source_id: 'gina' } } });
    const second = await t.request('POST', '/v1/publications?join_once=true', { json: { campaign: { name: 'Once' }, customer: { source_id: 'gina' } } });
    assert.equal(second.status, 400);
    assert.equal(second.body.key, 'voucher_cannot_be_published');
    // The SDK sends join_once in the body.
    const inBody = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Once' }, customer: { source_id: 'gina' }, join_once: true } });
    assert.equal(inBody.status, 400);
    const withoutFlag = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Once' }, customer: { source_id: 'gina' } } });
    assert.equal(withoutFlag.status, 200);
    await campaign('Once by campaign', { join_once: true });
    await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Once by campaign' }, customer: { source_id: 'gina' } } });
    const byCampaign = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Once by campaign' }, customer: { source_id: 'gina' } } });
    assert.equal(byCampaign.status, 400);
  });

  test('a static campaign runs out; an auto-update campaign makes new vouchers', async () => {
    await campaign('Static two', { type: 'STATIC', vouchers_count: 2 });
    for (const who of ['h1', 'h2']) {
      const ok = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Static two' }, customer: { source_id: who } } });
      assert.equal(ok.status, 200, ok.text);
    }
    const out = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Static two' }, customer: { source_id: 'h3' } } });
    assert.equal(out.status, 400);
    assert.equal(out.body.key, 'no_voucher_suitable_for_publication');
    const auto = await campaign('Auto zero', { vouchers_count: 0 });
    const made = await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Auto zero' }, customer: { source_id: 'h3' } } });
    assert.equal(made.status, 200, made.text);
    assert.equal(((await t.sdk().campaigns.get(auto.id)) as Json).vouchers_count, 1);
  });

  test('bad requests are refused precisely and publish nothing', async () => {
    await campaign('Guarded');
    const before = (await t.deps.db.selectFrom('publications').select('id').execute()).length;
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ campaign: { name: 'Guarded' } }, 400, 'invalid_payload', /customer/],
      [{ customer: { source_id: 'x1' } }, 400, 'invalid_payload', /voucher' or 'campaign/],
      // A voucher wins over a campaign sent with it (the vendor's examples send both): the campaign is not read.
      [{ customer: { source_id: 'x1' }, voucher: 'NEVER-MADE', campaign: { name: 'Guarded' } }, 404, 'not_found', /NEVER-MADE/],
      [{ customer: {}, campaign: { name: 'Guarded' } }, 400, 'invalid_payload', /source_id/],
      [{ customer: { source_id: 'x1' }, campaign: { count: 2 } }, 400, 'invalid_payload', /name/],
      [{ customer: { source_id: 'x1' }, campaign: { name: 'No such' } }, 404, 'not_found', /campaign/],
      [{ customer: { source_id: 'x1' }, voucher: 'NO-SUCH' }, 404, 'not_found', /voucher/],
      [{ customer: { id: 'cust_missing' }, campaign: { name: 'Guarded' } }, 404, 'not_found', /customer/],
      [{ customer: { source_id: 'x1' }, campaign: { name: 'Guarded', count: 0 } }, 400, 'invalid_payload', /count/],
    ];
    for (const [body, status, key, details] of cases) {
      const res = await t.request('POST', '/v1/publications', { json: body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
    }
    assert.equal((await t.deps.db.selectFrom('publications').select('id').execute()).length, before);
    assert.equal((await t.request('GET', '/v1/customers/x1')).status, 404, 'no customer was created either');
  });

  test('the query-string variant publishes one voucher', async () => {
    await campaign('By query');
    const res = await t.request('GET', '/v1/publications/create?campaign[name]=By%20query&customer[source_id]=ivan&channel=Web&metadata[k]=v');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.customer.source_id, 'ivan');
    assert.equal(res.body.channel, 'Web');
    assert.deepEqual(res.body.metadata, { k: 'v' });
    // `voucher` wins over `campaign` here, as the vendor documents.
    await t.sdk().vouchers.create({ code: 'Q-ONE', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    const both = await t.request('GET', '/v1/publications/create?voucher=Q-ONE&campaign[name]=By%20query&customer[source_id]=ivan');
    assert.equal(both.body.voucher.code, 'Q-ONE');
    const noCustomer = await t.request('GET', '/v1/publications/create?campaign[name]=By%20query');
    assert.equal(noCustomer.status, 400);
    assert.equal(noCustomer.body.key, 'invalid_query_params');
  });

  test('the list filters and pages publications', async () => {
    const camp = await campaign('Listed pubs');
    const gifts: Json = await t.sdk().campaigns.create({ name: 'Listed gifts', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 2, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 300 } } } as never);
    const made: Json[] = [];
    for (const [name, who] of [['Listed pubs', 'l1'], ['Listed pubs', 'l2'], ['Listed gifts', 'l1']]) {
      t.clock.advance(1000);
      made.push((await t.request('POST', '/v1/publications', { json: { campaign: { name }, customer: { source_id: who }, source_id: `src-${made.length}`, metadata: { n: made.length } } })).body);
    }
    const byCampaign: Json = await t.sdk().distributions.publications.list({ limit: 5, campaign: camp.id } as never);
    assert.equal(byCampaign.object, 'list');
    assert.equal(byCampaign.data_ref, 'publications');
    assert.equal(byCampaign.total, 2);
    assert.deepEqual(byCampaign.publications.map((p: Json) => p.id), [made[1].id, made[0].id]);
    const item = byCampaign.publications[1];
    assert.equal(item.customer.source_id, 'l1');
    assert.deepEqual(item.voucher, { code: made[0].voucher.code, object: 'voucher', campaign: 'Listed pubs', discount: { type: 'AMOUNT', amount_off: 100, is_dynamic: false }, is_referral_code: false });
    assert.deepEqual(item.vouchers_id, [made[0].voucher.id]);
    const byName = await t.request('GET', '/v1/publications?campaign=Listed%20pubs&order=created_at');
    assert.deepEqual(byName.body.publications.map((p: Json) => p.id), [made[0].id, made[1].id]);
    const byCustomer = await t.request('GET', '/v1/publications?customer=l1&limit=100');
    assert.deepEqual(byCustomer.body.publications.map((p: Json) => p.id).sort(), [made[0].id, made[2].id].sort());
    const byVoucher = await t.request('GET', `/v1/publications?voucher=${encodeURIComponent(made[2].voucher.code)}`);
    assert.equal(byVoucher.body.total, 1);
    assert.deepEqual(byVoucher.body.publications[0].voucher.gift, { amount: 300, balance: 300 });
    assert.equal(made[2].voucher.campaign_id, gifts.id);
    const byType = await t.request('GET', '/v1/publications?voucher_type=gift&limit=100');
    assert.equal(byType.status, 200, byType.text);
    assert.ok(byType.body.publications.length >= 1, byType.text);
    assert.ok(byType.body.publications.every((p: Json) => p.voucher.gift !== undefined));
    const bySource = await t.request('GET', '/v1/publications?source_id=src-1');
    assert.deepEqual(bySource.body.publications.map((p: Json) => p.id), [made[1].id]);
    const filtered = await t.request('GET', `/v1/publications?filters[customer_id][conditions][$in][0]=${made[1].customer_id}&filters[parent_object_id][conditions][$is]=${camp.id}`);
    assert.deepEqual(filtered.body.publications.map((p: Json) => p.id), [made[1].id]);
    const either = await t.request('GET', `/v1/publications?filters[junction]=OR&filters[source_id][conditions][$is]=src-0&filters[metadata.n][conditions][$is]=2`);
    assert.equal(either.status, 200, either.text);
    assert.deepEqual(either.body.publications.map((p: Json) => p.id).sort(), [made[0].id, made[2].id].sort());
    const page = await t.request('GET', '/v1/publications?campaign=Listed%20pubs&limit=1&page=2&order=created_at');
    assert.deepEqual(page.body.publications.map((p: Json) => p.id), [made[1].id]);
    assert.equal(page.body.total, 2);
    const byCode = await t.request('GET', '/v1/publications?campaign=Listed%20pubs&order=voucher_code');
    assert.deepEqual(byCode.body.publications.map((p: Json) => p.voucher.code), [made[0].voucher.code, made[1].voucher.code].sort());
    const byCustomerDesc = await t.request('GET', '/v1/publications?campaign=Listed%20pubs&order=-customer_id');
    assert.deepEqual(byCustomerDesc.body.publications.map((p: Json) => p.customer_id), [made[0].customer_id, made[1].customer_id].sort().reverse());
    const nobody = await t.request('GET', '/v1/publications?customer=nobody');
    assert.equal(nobody.body.total, 0);
    const farPage = await t.request('GET', '/v1/publications?page=1001');
    assert.equal(farPage.status, 400);
    assert.equal(farPage.body.key, 'page_over_limit');
    for (const query of ['voucher_type=coupon', 'order=name', 'result=MAYBE', 'filters[nope][conditions][$is]=1', 'filters=abc', 'filters[source_id]=x', 'limit=500']) {
      const bad = await t.request('GET', `/v1/publications?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.key, 'invalid_query_params', query);
    }
  });

  test("another project's keys cannot publish this project's vouchers or list its publications", async () => {
    await campaign('Mine only');
    await t.request('POST', '/v1/publications', { json: { campaign: { name: 'Mine only' }, customer: { source_id: 'zed' } } });
    const keys = t.serverHeaders(other);
    const publish = await t.request('POST', '/v1/publications', { headers: keys, json: { campaign: { name: 'Mine only' }, customer: { source_id: 'zed' } } });
    assert.equal(publish.status, 404);
    const byVoucher = await t.request('POST', '/v1/publications', { headers: keys, json: { voucher: 'ONE-OFF', customer: { source_id: 'zed' } } });
    assert.equal(byVoucher.status, 404);
    const list = await t.request('GET', '/v1/publications', { headers: keys });
    assert.equal(list.body.total, 0);
    assert.equal((await t.request('GET', '/v1/customers/zed', { headers: keys })).status, 404, 'the refused request created no customer there');
  });
});
