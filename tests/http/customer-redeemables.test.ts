import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { assertVendorResponse, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// `GET /v1/customers/{customerId}/redeemables` (vendor list-customer-redeemables): every live voucher a
// customer holds — published to them (OWNER; REFERRER for a referral code) or as a referee — with the
// voucher object and its status, newest first, an id cursor, a total and the vendor's filters.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('customer redeemables', () => {
  let t: TestApp;
  let other: KeyPairOut;
  let customer: Json;
  const held: Record<string, Json> = {};

  const publish = async (campaign: string, sourceId: string): Promise<Json> =>
    ((await t.sdk().distributions.publications.create({ campaign: { name: campaign }, customer: { source_id: sourceId } } as never)) as Json).voucher;

  before(async () => {
    t = await startTestApp();
    other = (
      await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      })
    ).body.server_side_key;
    const sdk = t.sdk();
    await sdk.campaigns.create({ name: 'Coupons', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 3, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } } } as never);
    await sdk.campaigns.create({ name: 'Gifts', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 2, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 100 } } } as never);
    const referral = {
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 500 } },
      referral_program: { conversion_event_type: 'redemption' },
    };
    await sdk.campaigns.create({ name: 'Friends', ...referral } as never);
    const program: Json = await sdk.loyalties.create({ name: 'Points', vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);

    held.coupon = await publish('Coupons', 'holder');
    customer = await sdk.customers.get('holder');
    held.disabled = await publish('Coupons', 'holder');
    await sdk.vouchers.disable(held.disabled.code);
    held.gift = await publish('Gifts', 'holder');
    await sdk.vouchers.balance.create(held.gift.code, { amount: -100, reason: 'spent elsewhere' } as never);
    held.referral = await publish('Friends', 'holder');
    held.card = await sdk.loyalties.createMember(program.id, { customer: { source_id: 'holder' } } as never);
    // Someone else's referral code, which the customer was referred with.
    const theirCode = await publish('Friends', 'someone-else');
    const added = await t.request('POST', `/v1/referrals/members/${theirCode.code}/holders`, { json: { holders: [{ id: customer.id }] } });
    assert.equal(added.status, 200, added.text);
    held.referee = theirCode;
    // Not the customer's: a coupon of another customer.
    await publish('Coupons', 'someone-else');
  });
  after(async () => t.close());

  test('through the SDK: every holding, newest first, with role, type, voucher and status, in the vendor shape', async () => {
    const list: Json = await t.sdk().customers.listRedeemables(customer.id, { limit: 10 } as never);
    if (vendorSchemasAvailable) assertVendorResponse('GET', '/v1/customers/{customerId}/redeemables', list);
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'data');
    assert.equal(list.total, 6);
    assert.equal(list.has_more, false);
    assert.deepEqual(
      list.data.map((r: Json) => [r.redeemable.voucher.code, r.holder_role, r.campaign_type, r.voucher_type, r.redeemable.status]),
      [
        [held.referee.code, 'REFEREE', 'REFERRAL_PROGRAM', 'DISCOUNT_VOUCHER', 'ACTIVE'],
        [held.card.code, 'OWNER', 'LOYALTY_PROGRAM', 'LOYALTY_CARD', 'ACTIVE'],
        [held.referral.code, 'REFERRER', 'REFERRAL_PROGRAM', 'DISCOUNT_VOUCHER', 'ACTIVE'],
        [held.gift.code, 'OWNER', 'GIFT_VOUCHERS', 'GIFT_VOUCHER', 'NO_BALANCE'],
        [held.disabled.code, 'OWNER', 'DISCOUNT_COUPONS', 'DISCOUNT_VOUCHER', 'DISABLED'],
        [held.coupon.code, 'OWNER', 'DISCOUNT_COUPONS', 'DISCOUNT_VOUCHER', 'ACTIVE'],
      ],
    );
    const first = list.data[5];
    assert.match(first.id, /^rh_/);
    assert.equal(first.redeemable_id, held.coupon.id);
    assert.equal(first.redeemable_object, 'voucher');
    assert.equal(first.customer_id, customer.id);
    assert.equal(first.redeemable.type, 'voucher');
    assert.equal(first.redeemable.voucher.holder_id, customer.id);
    // By source_id as well, and a referee does not show the code's referrer's holdings.
    assert.equal(((await t.sdk().customers.listRedeemables('holder')) as Json).total, 6);
  });

  test('pages with the id cursor, in both orders', async () => {
    const first = await t.request('GET', `/v1/customers/${customer.id}/redeemables?limit=4`);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.more_starting_after, first.body.data[3].id);
    const rest = await t.request('GET', `/v1/customers/${customer.id}/redeemables?limit=4&starting_after_id=${first.body.more_starting_after}`);
    assert.equal(rest.body.data.length, 2);
    assert.equal(rest.body.has_more, false);
    assert.equal(rest.body.more_starting_after, undefined);
    const oldest = await t.request('GET', `/v1/customers/${customer.id}/redeemables?order=id&limit=1`);
    assert.equal(oldest.body.data[0].redeemable.voucher.code, held.coupon.code);
    assert.equal(oldest.body.total, 6);
  });

  test("the vendor's filters: type, role, campaign, and dates", async () => {
    const codes = async (query: string) =>
      (await t.request('GET', `/v1/customers/${customer.id}/redeemables?${query}`)).body.data.map((r: Json) => r.redeemable.voucher.code);
    // As the SDK sends them.
    const sdkList: Json = await t.sdk().customers.listRedeemables(customer.id, { filters: { voucher_type: { conditions: { $in: ['GIFT_VOUCHER', 'LOYALTY_CARD'] } } } } as never);
    assert.deepEqual(
      sdkList.data.map((r: Json) => r.redeemable.voucher.code),
      [held.card.code, held.gift.code],
    );
    assert.deepEqual(await codes('filters[holder_role][conditions][$is]=REFERRER'), [held.referral.code]);
    assert.deepEqual(await codes('filters[campaign_type][conditions][$in][0]=DISCOUNT_COUPONS'), [held.disabled.code, held.coupon.code]);
    assert.deepEqual(await codes(`filters[redeemable_id][conditions][$is]=${held.gift.id}`), [held.gift.code]);
    assert.deepEqual(await codes('filters[redeemable_object][conditions][$is]=voucher&limit=1'), [held.referee.code]);
    assert.deepEqual(await codes('filters[created_at][conditions][$after][0]=2099-01-01'), []);
    assert.equal(
      (await t.request('GET', `/v1/customers/${customer.id}/redeemables?filters[junction]=or&filters[holder_role][conditions][$is]=REFEREE&filters[voucher_type][conditions][$is]=GIFT_VOUCHER`)).body.total,
      2,
    );
  });

  test('a voucher deleted or a customer unknown here: gone from the list, or 404; bad queries are 400', async () => {
    await t.sdk().vouchers.delete(held.disabled.code);
    assert.equal(((await t.sdk().customers.listRedeemables(customer.id)) as Json).total, 5);
    for (const id of ['cust_unknown', 'someone-unknown']) {
      const res = await t.request('GET', `/v1/customers/${id}/redeemables`);
      assert.equal(res.status, 404);
      assert.equal(res.body.key, 'not_found');
    }
    const foreign = await t.request('GET', `/v1/customers/${customer.id}/redeemables`, { headers: t.serverHeaders(other) });
    assert.equal(foreign.status, 404);
    for (const query of ['filters[amount][conditions][$is]=1', 'filters[holder_role][conditions][$bogus]=x', 'order=created_at', 'limit=0', 'limit=1000']) {
      const res = await t.request('GET', `/v1/customers/${customer.id}/redeemables?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.key, 'invalid_query_params');
    }
  });
});
