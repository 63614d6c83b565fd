import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, rejects, type Json } from '../helpers/redemption-fixtures.ts';

// `GET /v1/redemptions` exactly as seed 4.11 describes it: limit 1–100 (default 10), page 1–99,
// repeated `result`, `campaign` by name, `customer` by id or source_id (unknown → empty), every `order`,
// `created_at[before]/[after]` as date or date-time, `filters`, `data_ref` redemptions, empty past the
// end; rollback records in the list; another project's records never visible.

describe('redemption list', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  const ids = {} as Record<"r1" | "r2" | "r3" | "f1" | "rr", string>;
  let campaign: Json;
  let c1: Json;
  let c2: Json;

  before(async () => {
    t = await startTestApp({ clockStart: '2026-03-02T10:00:00.000Z' });
    f = fixtures(t);
    campaign = await f.ok('POST', '/v1/campaigns', {
      name: 'Listed Campaign',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    const vouchers = await f.ok('GET', `/v1/vouchers?campaign_id=${campaign.id}`);
    const [cv1, cv2] = vouchers.vouchers.map((v: Json) => v.code).sort();
    c1 = await f.customer({ source_id: 'list-c1' });
    c2 = await f.customer({ source_id: 'list-c2' });
    const standalone = await f.voucher({ discount: { type: 'AMOUNT', amount_off: 50 } }, 'AAA-STANDALONE');
    const redeem = async (code: string, customer: Json, extra: Record<string, unknown> = {}) =>
      ((await t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, customer: { id: customer.id }, ...extra } as never)) as Json).redemptions[0].id;
    ids.r1 = await redeem(cv1, c1, { metadata: { shop: 'north' } });
    t.clock.advance(2 * 86_400_000); // 2026-03-04
    ids.r2 = await redeem(cv2, c2, { metadata: { shop: 'south' } });
    ids.r3 = await redeem(standalone.code, c1);
    t.clock.advance(2 * 86_400_000); // 2026-03-06
    ids.f1 = (await rejects(t.sdk().redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'ZZZ-MISSING' }], customer: { id: c2.id } } as never))).resource_id;
    ids.rr = ((await t.sdk().redemptions.rollback(ids.r3)) as Json).id;
  });
  after(async () => t.close());

  const list = (params: Record<string, unknown>) => t.sdk().redemptions.list(params as never) as Promise<Json>;
  const idsOf = (res: Json) => res.redemptions.map((r: Json) => r.id);

  test('envelope, newest first by default, default limit 10, rollback and failure records listed', async () => {
    const res = await list({});
    assert.equal(res.object, 'list');
    assert.equal(res.data_ref, 'redemptions');
    assert.equal(res.total, 5);
    assert.deepEqual(idsOf(res), [ids.rr, ids.f1, ids.r3, ids.r2, ids.r1]);
    const rollback = res.redemptions[0];
    assert.equal(rollback.object, 'redemption_rollback');
    assert.equal(rollback.redemption, ids.r3);
  });

  test('limit and page bounds; past the end the array is empty', async () => {
    const page = await list({ limit: 2, page: 2 });
    assert.deepEqual(idsOf(page), [ids.r3, ids.r2]);
    assert.equal(page.total, 5);
    const beyond = await list({ limit: 2, page: 4 });
    assert.deepEqual(beyond.redemptions, []);
    assert.equal(beyond.total, 5);
    for (const bad of ['limit=0', 'limit=101', 'page=0', 'page=100', 'order=amount', 'result=MAYBE', 'created_at[before]=yesterday']) {
      const res = await t.request('GET', `/v1/redemptions?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.key, 'invalid_query_params', bad);
    }
    assert.equal((await list({ limit: 100, page: 99 })).redemptions.length, 0);
  });

  test('result: one value, or repeated', async () => {
    assert.deepEqual(idsOf(await list({ result: 'FAILURE' })), [ids.f1]);
    assert.equal((await list({ result: 'SUCCESS' })).total, 4);
    const repeated = await t.request('GET', '/v1/redemptions?result=SUCCESS&result=FAILURE');
    assert.equal(repeated.body.total, 5);
  });

  test('campaign by name; customer by id or source_id; an unknown customer gives an empty list', async () => {
    assert.deepEqual(idsOf(await list({ campaign: 'Listed Campaign' })), [ids.r2, ids.r1]);
    assert.deepEqual(idsOf(await list({ customer: c1.id })), [ids.rr, ids.r3, ids.r1]);
    assert.deepEqual(idsOf(await list({ customer: 'list-c2' })), [ids.f1, ids.r2]);
    const unknown = await list({ customer: 'nobody-at-all' });
    assert.deepEqual(unknown.redemptions, []);
    assert.equal(unknown.total, 0);
  });

  test('every order value', async () => {
    const all = (await list({ limit: 100 })).redemptions as Json[];
    const byKey = (key: (r: Json) => string, descending: boolean) =>
      [...all]
        .sort((a, b) => {
          const ka = key(a);
          const kb = key(b);
          const c = ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
          return descending ? -c : c;
        })
        .map((r) => r.id);
    const keys: Record<string, (r: Json) => string> = {
      created_at: (r) => r.date,
      id: (r) => r.id,
      voucher_code: (r) => r.voucher?.code ?? '',
      tracking_id: (r) => r.tracking_id ?? '',
      customer_id: (r) => r.customer_id ?? '',
    };
    for (const [name, key] of Object.entries(keys)) {
      for (const descending of [false, true]) {
        const order = `${descending ? '-' : ''}${name}`;
        const res = await list({ order, limit: 100 });
        if (name === 'voucher_code') {
          // Records without a voucher code sort as the database puts NULLs; compare the coded ones.
          const coded = idsOf(res).filter((id: string) => all.find((r) => r.id === id)?.voucher?.code);
          assert.deepEqual(coded, byKey(key, descending).filter((id) => all.find((r) => r.id === id)?.voucher?.code), order);
        } else if (name === 'tracking_id' || name === 'customer_id') {
          const values = res.redemptions.map((r: Json) => key(r));
          assert.deepEqual(values, [...values].sort((a: string, b: string) => (descending ? (a < b ? 1 : a > b ? -1 : 0) : a < b ? -1 : a > b ? 1 : 0)), order);
        } else {
          assert.deepEqual(idsOf(res), byKey(key, descending), order);
        }
      }
    }
  });

  test('created_at[before] / [after] as date or date-time, also in the leading-bracket form', async () => {
    assert.deepEqual(idsOf(await list({ created_at: { before: '2026-03-03' } })), [ids.r1]);
    assert.deepEqual(idsOf(await list({ created_at: { after: '2026-03-05' } })), [ids.rr, ids.f1]);
    assert.deepEqual(idsOf(await list({ created_at: { after: '2026-03-03T00:00:00Z', before: '2026-03-05T00:00:00.000Z' } })), [ids.r3, ids.r2]);
    const bracket = await t.request('GET', '/v1/redemptions?[created_at][before]=2026-03-03');
    assert.deepEqual(idsOf(bracket.body), [ids.r1]);
  });

  test('filters: field conditions, junction, metadata; an unknown field is a 400', async () => {
    const q = async (query: string) => idsOf((await t.request('GET', `/v1/redemptions?${query}`)).body);
    assert.deepEqual(await q('filters[voucher_code][conditions][$is]=AAA-STANDALONE'), [ids.rr, ids.r3]);
    assert.deepEqual(await q('filters[object][conditions][$is]=redemption_rollback'), [ids.rr]);
    assert.deepEqual(await q('filters[failure_code][conditions][$in][0]=not_found'), [ids.f1]);
    assert.deepEqual(await q(`filters[related_object_parent_id][conditions][$is]=${campaign.id}`), [ids.r2, ids.r1]);
    assert.deepEqual(await q('filters[status][conditions][$is]=ROLLED_BACK'), [ids.r3]);
    assert.deepEqual(await q('filters[metadata.shop][conditions][$is]=south'), [ids.r2]);
    assert.deepEqual(await q(`filters[customer_id][conditions][$is]=${c2.id}&filters[result][conditions][$is]=SUCCESS`), [ids.r2]);
    assert.deepEqual(
      await q(`filters[junction]=OR&filters[customer_id][conditions][$is]=${c2.id}&filters[result][conditions][$is]=SUCCESS`),
      [ids.rr, ids.f1, ids.r3, ids.r2, ids.r1],
      'the rollback record succeeded too',
    );
    assert.deepEqual(await q(`filters[junction]=or&filters[customer_id][conditions][$is]=${c2.id}&filters[object][conditions][$is]=redemption_rollback`), [ids.rr, ids.f1, ids.r2]);
    assert.deepEqual(await q('filters[campaign_name][conditions][$starts_with][0]=Listed'), [ids.r2, ids.r1]);
    assert.deepEqual(await q('filters[customer][conditions][$is]=list-c2'), [ids.f1, ids.r2], 'customer by source_id');
    assert.deepEqual(await q(`filters[parent_redemption_id][conditions][$is_unknown]=`), [ids.rr, ids.f1, ids.r3, ids.r2, ids.r1]);
    const bad = await t.request('GET', '/v1/redemptions?filters[shoe_size][conditions][$is]=9');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_query_params');
    assert.match(bad.body.details, /\.filters\.shoe_size/);
  });

  test('records are served as their stored snapshots were written: each answer is the serialisation of its own value', async () => {
    // The snapshots are written into the answer as stored text (src/lib/json-text.ts); parsing and
    // serialising any answer again must give the same bytes.
    const canonical = async (path: string) => {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, JSON.stringify(res.body), path);
      return res.body as Json;
    };
    const all = await canonical('/v1/redemptions?limit=100');
    assert.equal(all.redemptions.length, 5);
    assert.ok(all.redemptions.some((r: Json) => r.order !== null && r.customer !== null && r.voucher), 'a record with its snapshots');
    for (const record of all.redemptions) assert.deepEqual(await canonical(`/v1/redemptions/${record.id}`), record);
    const history = await canonical('/v1/vouchers/AAA-STANDALONE/redemption');
    assert.deepEqual(history.redemption_entries.map((r: Json) => r.id), [ids.rr, ids.r3]);
  });

  test("another project's redemptions are invisible and its ids 404", async () => {
    const project = await f.ok('POST', '/management/v1/projects', { name: f.unique('Other'), case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' }, t.managementHeaders());
    const other = t.sdk(project.server_side_key);
    const res = (await other.redemptions.list({} as never)) as Json;
    assert.equal(res.total, 0);
    const missing = await rejects(other.redemptions.get(ids.r1));
    assert.equal(missing.code, 404);
    const rollback = await rejects(other.redemptions.rollback(ids.r2));
    assert.equal(rollback.code, 404);
    const voucher = await rejects(other.redemptions.redeem('AAA-STANDALONE', { order: { amount: 100 } } as never));
    assert.equal(voucher.code, 404, "another project's code does not exist here");
    const history = await rejects(other.redemptions.getForVoucher('AAA-STANDALONE'));
    assert.equal(history.code, 404);
    const promo = await f.promotion([{ name: 'Home tier', action: { discount: { type: 'AMOUNT', amount_off: 5 } } }]);
    const tierThere = (await other.validations.validateStackable({ redeemables: [{ object: 'promotion_tier', id: promo.promotion.tiers[0].id }], order: { amount: 100 } } as never)) as Json;
    assert.equal(tierThere.redeemables[0].result.error.key, 'not_found', "another project's tier is unknown there");
    const stackThere = await rejects(other.redemptions.redeemStackable({ redeemables: [{ object: 'promotion_stack', id: 'stack_x' }] } as never));
    assert.equal(stackThere.code, 404);
    // The attempt made there is that project's record only.
    assert.equal((await list({})).total, 5);
  });
});
