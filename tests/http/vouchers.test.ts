import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertRedemption, type NewRedemptionRow } from '../../src/store/redemption-records.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Vouchers one by one and in bulk (promotions reference 1.1 import/summary, 2.1–2.3; platform reference
// 4.4 bin, 6.4 voucher.* events, 8.3 async actions), driven by the SDK where it has the call.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('vouchers', () => {
  let t: TestApp;
  let other: KeyPairOut;
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

  async function events(type: string, entityId?: string): Promise<Json[]> {
    let query = t.deps.db.selectFrom('events').selectAll().where('type', '=', type);
    if (entityId !== undefined) query = query.where('entity_id', '=', entityId);
    return (await query.orderBy('seq').execute()).map((e) => ({ ...e, data: JSON.parse(e.data) }));
  }

  async function voucherRows(): Promise<number> {
    const row = await t.deps.db.selectFrom('vouchers').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  const campaign = async (name: string, extra: Record<string, unknown> = {}): Promise<Json> =>
    t.sdk().campaigns.create({
      name,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 15 } },
      ...extra,
    } as never);

  test('a standalone discount voucher with a given code, through the SDK', async () => {
    const created: Json = await t.sdk().vouchers.create({ code: 'CODE-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } as never);
    assert.match(created.id, /^v_/);
    assert.equal(created.object, 'voucher');
    assert.equal(created.code, 'CODE-1');
    assert.equal(created.campaign, null);
    assert.equal(created.campaign_id, null);
    assert.equal(created.type, 'DISCOUNT_VOUCHER');
    assert.deepEqual(created.discount, { type: 'AMOUNT', amount_off: 500, is_dynamic: false });
    assert.equal(created.gift, null);
    assert.equal(created.loyalty_card, null);
    assert.equal(created.active, true);
    assert.equal(created.is_referral_code, false);
    assert.equal(created.holder_id, null);
    assert.deepEqual(created.metadata, {});
    assert.deepEqual(created.publish, { object: 'list', count: 0, url: '/v1/vouchers/CODE-1/publications?page=1&limit=10' });
    assert.equal(created.redemption.quantity, null);
    assert.equal(created.redemption.redeemed_quantity, 0);
    assert.match(created.assets.qr.url, /\/v1\/assets\/qr\//);
    const fetched: Json = await t.sdk().vouchers.get('CODE-1');
    assert.equal(fetched.id, created.id);
    assert.deepEqual(fetched.validation_rules_assignments, { object: 'list', data_ref: 'data', data: [], total: 0 });
    const [event] = await events('voucher.created', created.id);
    assert.equal(event.data.voucher.code, 'CODE-1');
    assert.equal(event.data.campaign, null);
    const again = await t.request('POST', '/v1/vouchers/CODE-1', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    assert.equal(again.status, 409);
    assert.equal(again.body.key, 'duplicate_found');
    assert.equal(again.body.resource_type, 'voucher');
  });

  test('codes with spaces and slashes round-trip through the path', async () => {
    const created: Json = await t.sdk().vouchers.create({ code: 'SUMMER 10/x', type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } as never);
    assert.equal(created.code, 'SUMMER 10/x');
    const fetched: Json = await t.sdk().vouchers.get('SUMMER 10/x');
    assert.equal(fetched.id, created.id);
  });

  test('generated codes follow code_config, with or without the trailing slash', async () => {
    const slash = await t.request('POST', '/v1/vouchers/', {
      json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 }, code_config: { pattern: 'GEN-####', charset: '0123456789' } },
    });
    assert.equal(slash.status, 200, slash.text);
    assert.match(slash.body.code, /^GEN-\d{4}$/);
    const sdkMade: Json = await t.sdk().vouchers.create({ type: 'GIFT_VOUCHER', gift: { amount: 2500 } } as never);
    assert.match(sdkMade.code, /^[0-9A-Za-z]{8}$/);
    const bodyCode = await t.request('POST', '/v1/vouchers', { json: { code: 'BODY-CODE', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    assert.equal(bodyCode.body.code, 'BODY-CODE');
  });

  test('standalone gift cards and loyalty cards start with their credits or points', async () => {
    const gift: Json = await t.sdk().vouchers.create({ code: 'GIFT-A', type: 'GIFT_VOUCHER', gift: { amount: 5000, effect: 'APPLY_TO_ITEMS' } } as never);
    assert.deepEqual(gift.gift, { amount: 5000, subtracted_amount: 0, balance: 5000, effect: 'APPLY_TO_ITEMS' });
    assert.equal(gift.discount, null);
    assert.equal(gift.redemption.redeemed_amount, 0);
    const card: Json = await t.sdk().vouchers.create({ code: 'CARD-A', type: 'LOYALTY_CARD', loyalty_card: { points: 120 } } as never);
    assert.equal(card.loyalty_card.points, 120);
    assert.equal(card.loyalty_card.balance, 120);
    assert.equal(card.redemption.redeemed_points, 0);
    // The type can be left out when the definition tells it.
    const inferred = await t.request('POST', '/v1/vouchers/GIFT-B', { json: { gift: { amount: 100 }, metadata: { batch: 7 }, additional_info: 'for Bob', active: false } });
    assert.equal(inferred.body.type, 'GIFT_VOUCHER');
    assert.deepEqual(inferred.body.metadata, { batch: 7 });
    assert.equal(inferred.body.additional_info, 'for Bob');
    assert.equal(inferred.body.active, false);
  });

  test('a voucher joins a campaign by name or id and starts from its template', async () => {
    const camp = await campaign('Joinable', { category: undefined });
    const byName = await t.request('POST', '/v1/vouchers/JOIN-1', { json: { campaign: 'Joinable', metadata: { x: 1 } } });
    assert.equal(byName.status, 200, byName.text);
    assert.equal(byName.body.campaign, 'Joinable');
    assert.equal(byName.body.campaign_id, camp.id);
    assert.deepEqual(byName.body.discount, { type: 'PERCENT', percent_off: 15, is_dynamic: false });
    const byId = await t.request('POST', '/v1/vouchers/JOIN-2', { json: { campaign_id: camp.id, discount: { type: 'AMOUNT', amount_off: 300 } } });
    assert.deepEqual(byId.body.discount, { type: 'AMOUNT', amount_off: 300, is_dynamic: false });
    assert.equal(((await t.sdk().campaigns.get(camp.id)) as Json).vouchers_count, 2);
    const [event] = await events('voucher.created', byId.body.id);
    assert.equal(event.data.campaign.id, camp.id);
    const wrongType = await t.request('POST', '/v1/vouchers/JOIN-3', { json: { campaign: 'Joinable', type: 'GIFT_VOUCHER', gift: { amount: 1 } } });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.details, /campaign holds DISCOUNT_VOUCHER/);
    const unknown = await t.request('POST', '/v1/vouchers/JOIN-4', { json: { campaign: 'No such campaign', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'campaign');
  });

  test('bad definitions are refused with precise errors and change nothing', async () => {
    const before = await voucherRows();
    const createdEvents = (await events('voucher.created')).length;
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT' } }, 400, 'invalid_payload', /amount_off/],
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' } }, 400, 'invalid_payload', /effect/],
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 5, amount_off_formula: 'ORDER_AMOUNT **' } }, 400, 'invalid_payload', /amount_off_formula/],
      [{ type: 'DISCOUNT_VOUCHER' }, 400, 'invalid_payload', /discount/],
      [{ type: 'GIFT_VOUCHER', gift: { amount: 0 } }, 400, 'invalid_payload', /gift\.amount/],
      [{ type: 'GIFT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, gift: { amount: 5 } }, 400, 'invalid_payload', /discount does not apply to GIFT_VOUCHER/],
      [{ type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH' } } }, 400, 'invalid_payload', /period_value/],
      [{ metadata: { a: 1 } }, 400, 'invalid_payload', /'type'/],
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, validity_timeframe: { interval: 'P1D', duration: 'PT1H' } }, 400, 'invalid_payload', /start_date/],
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, category_id: 'cat_missing' }, 404, 'not_found', /category/],
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, validation_rules: ['val_missing'] }, 404, 'not_found', /val_missing/],
      [{ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: '5' } }, 400, 'invalid_payload', /amount_off/],
      [{ type: 'COUPON', discount: { type: 'AMOUNT', amount_off: 5 } }, 400, 'invalid_payload', /type/],
    ];
    for (const [body, status, key, details] of cases) {
      const res = await t.request('POST', '/v1/vouchers/BAD-1', { json: body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
    }
    const badConfig = await t.request('POST', '/v1/vouchers', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: 'NOHASH' } } });
    assert.equal(badConfig.status, 400);
    assert.equal(badConfig.body.key, 'invalid_code_config');
    const malformed = await t.request('POST', '/v1/vouchers/BAD-1', { body: '{"type": ', headers: { ...t.serverHeaders(), 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.key, 'malformed_json');
    assert.equal((await t.request('GET', '/v1/vouchers/BAD-1')).status, 404);
    assert.equal(await voucherRows(), before);
    assert.equal((await events('voucher.created')).length, createdEvents);
  });

  test('validation rules named at creation are assigned to the voucher', async () => {
    const rule = await t.request('POST', '/v1/validation-rules', { json: { name: 'Big orders', rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] }, rules: {} }, logic: '1' } } });
    assert.equal(rule.status, 200, rule.text);
    const created = await t.request('POST', '/v1/vouchers/RULED-1', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, validation_rules: [rule.body.id] } });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.validation_rules_assignments.total, 1);
    const [assignment] = created.body.validation_rules_assignments.data;
    assert.equal(assignment.rule_id, rule.body.id);
    assert.equal(assignment.related_object_id, created.body.id);
    assert.equal(assignment.related_object_type, 'voucher');
    assert.equal((await events('business_validation_rule.assignment.created', assignment.id)).length, 1);
  });

  test('a rule assigned to a voucher later shows in the voucher at once, in a project that had no voucher rules', async () => {
    // A fresh project: the voucher object knows from the definitions cache that no voucher has rules.
    const project = await t.request('POST', '/management/v1/projects', { headers: t.managementHeaders(), json: { name: 'Voucher rules later', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' } });
    assert.equal(project.status, 200, project.text);
    const headers = t.serverHeaders(project.body.server_side_key as KeyPairOut);
    const made = await t.request('POST', '/v1/vouchers/LATER-1', { headers, json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    assert.equal(made.status, 200, made.text);
    const before = await t.request('GET', '/v1/vouchers/LATER-1', { headers });
    assert.equal(before.body.validation_rules_assignments.total, 0);

    const rule = await t.request('POST', '/v1/validation-rules', { headers, json: { name: 'Later', rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] }, rules: {} }, logic: '1' } } });
    assert.equal(rule.status, 200, rule.text);
    const assigned = await t.request('POST', `/v1/validation-rules/${rule.body.id}/assignments`, { headers, json: { related_object_type: 'voucher', related_object_id: made.body.id } });
    assert.equal(assigned.status, 200, assigned.text);
    const after = await t.request('GET', '/v1/vouchers/LATER-1', { headers });
    assert.equal(after.body.validation_rules_assignments.total, 1);
    assert.equal(after.body.validation_rules_assignments.data[0].id, assigned.body.id);
    assert.equal(after.body.validation_rules_assignments.data[0].rule_id, rule.body.id);
  });

  test('the list filters, orders and pages as the vendor does', async () => {
    const category = await t.sdk().categories.create({ name: 'Listed', hierarchy: 1 } as never);
    const listed = await campaign('Listed campaign');
    const codes = ['LST-C', 'LST-A', 'LST-B'];
    const made: Json[] = [];
    for (const code of codes) {
      t.clock.advance(60_000);
      made.push((await t.request('POST', `/v1/vouchers/${code}`, { json: { campaign_id: listed.id, category: 'Listed' } })).body);
    }
    assert.equal(made[0].category, 'Listed');
    assert.equal(made[0].category_id, (category as Json).id);
    const byCampaign: Json = await t.sdk().vouchers.list({ campaign: 'Listed campaign', limit: 2 } as never);
    assert.equal(byCampaign.object, 'list');
    assert.equal(byCampaign.data_ref, 'vouchers');
    assert.equal(byCampaign.total, 3);
    assert.deepEqual(byCampaign.vouchers.map((v: Json) => v.code), ['LST-B', 'LST-A']);
    const page2 = await t.request('GET', '/v1/vouchers?campaign=Listed%20campaign&limit=2&page=2');
    assert.deepEqual(page2.body.vouchers.map((v: Json) => v.code), ['LST-C']);
    const byCode = await t.request('GET', `/v1/vouchers?campaign_id=${listed.id}&order=code`);
    assert.deepEqual(byCode.body.vouchers.map((v: Json) => v.code), ['LST-A', 'LST-B', 'LST-C']);
    const descCode = await t.request('GET', `/v1/vouchers?campaign_id=${listed.id}&order=-code`);
    assert.deepEqual(descCode.body.vouchers.map((v: Json) => v.code), ['LST-C', 'LST-B', 'LST-A']);
    const byCategory = await t.request('GET', '/v1/vouchers?category=Listed');
    assert.equal(byCategory.body.total, 3);
    const byIds = await t.request('GET', `/v1/vouchers?ids[0]=${made[0].id}&ids[1]=${made[2].id}&order=created_at`);
    assert.deepEqual(byIds.body.vouchers.map((v: Json) => v.code), ['LST-C', 'LST-B']);
    const oneId = await t.request('GET', `/v1/vouchers?ids=${made[1].id}`);
    assert.deepEqual(oneId.body.vouchers.map((v: Json) => v.code), ['LST-A']);
    const exact = await t.request('GET', '/v1/vouchers?code=LST-A');
    assert.equal(exact.body.total, 1);
    const after = await t.request('GET', `/v1/vouchers?campaign_id=${listed.id}&created_at[after]=${encodeURIComponent(made[0].created_at)}&order=created_at`);
    assert.deepEqual(after.body.vouchers.map((v: Json) => v.code), ['LST-A', 'LST-B']);
    const beforeAt = await t.request('GET', `/v1/vouchers?campaign_id=${listed.id}&created_at[before]=${encodeURIComponent(made[1].created_at)}`);
    assert.deepEqual(beforeAt.body.vouchers.map((v: Json) => v.code), ['LST-C']);
    t.clock.advance(60_000);
    await t.sdk().vouchers.update({ code: 'LST-C', metadata: { touched: true } } as never);
    const updatedAfter = await t.request('GET', `/v1/vouchers?campaign_id=${listed.id}&updated_at[after]=${encodeURIComponent(made[2].created_at)}`);
    assert.deepEqual(updatedAfter.body.vouchers.map((v: Json) => v.code), ['LST-C']);
    const lastChanged = await t.request('GET', `/v1/vouchers?campaign_id=${listed.id}&order=-updated_at`);
    assert.deepEqual(lastChanged.body.vouchers.map((v: Json) => v.code), ['LST-C', 'LST-B', 'LST-A']);
    const filtered = await t.request('GET', '/v1/vouchers?filters[code][conditions][$in][0]=LST-A&filters[code][conditions][$in][1]=LST-C&order=code');
    assert.deepEqual(filtered.body.vouchers.map((v: Json) => v.code), ['LST-A', 'LST-C']);
    const meta = await t.request('GET', '/v1/vouchers?filters[metadata.touched][conditions][$is]=true');
    assert.deepEqual(meta.body.vouchers.map((v: Json) => v.code), ['LST-C']);
    // Names that match nothing give an empty list, not an error.
    for (const query of ['campaign=Nope', 'category=Nope', 'customer=nobody', 'code=NOPE']) {
      const none = await t.request('GET', `/v1/vouchers?${query}`);
      assert.equal(none.status, 200);
      assert.equal(none.body.total, 0, query);
    }
    for (const query of ['page=100', 'limit=101', 'order=name', 'created_at[before]=yesterday', 'created_at=2024-01-01', 'ids[0][x]=1', 'filters=abc', 'filters[nope][conditions][$is]=1', 'filters[code][conditions][$more_than]=1']) {
      const bad = await t.request('GET', `/v1/vouchers?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.key, 'invalid_query_params', query);
    }
  });

  test('the customer filter finds the vouchers a customer holds', async () => {
    const camp = await campaign('Held vouchers', { vouchers_count: 2 });
    await t.sdk().distributions.publications.create({ campaign: { name: camp.name }, customer: { source_id: 'holder-1' } } as never);
    const bySource = await t.request('GET', '/v1/vouchers?customer=holder-1');
    assert.equal(bySource.body.total, 1);
    const holderId = bySource.body.vouchers[0].holder_id;
    const byId = await t.request('GET', `/v1/vouchers?customer=${holderId}`);
    assert.equal(byId.body.vouchers[0].id, bySource.body.vouchers[0].id);
  });

  test('update changes the members sent; credits, points and type never change through it', async () => {
    await t.sdk().vouchers.create({ code: 'UPD-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { a: 1 } } as never);
    const updated: Json = await t.sdk().vouchers.update({
      code: 'UPD-1',
      discount: { type: 'PERCENT', percent_off: 30 },
      expiration_date: '2027-01-01T00:00:00.000Z',
      additional_info: 'updated',
      redemption: { quantity: 3 },
    } as never);
    assert.deepEqual(updated.discount, { type: 'PERCENT', percent_off: 30, is_dynamic: false });
    assert.equal(updated.expiration_date, '2027-01-01T00:00:00.000Z');
    assert.equal(updated.additional_info, 'updated');
    assert.equal(updated.redemption.quantity, 3);
    assert.deepEqual(updated.metadata, { a: 1 }, 'members not sent stay');
    assert.ok(updated.updated_at);
    const [event] = await events('voucher.updated', updated.id);
    assert.equal(event.data.voucher.discount.percent_off, 30);

    await t.sdk().vouchers.create({ code: 'UPD-GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1000 } } as never);
    const gift = await t.request('PUT', '/v1/vouchers/UPD-GIFT', { json: { gift: { amount: 99999 }, loyalty_card: { points: 5 }, metadata: { b: 2 } } });
    assert.equal(gift.status, 200);
    assert.deepEqual(gift.body.gift, { amount: 1000, subtracted_amount: 0, balance: 1000, effect: null });
    assert.deepEqual(gift.body.metadata, { b: 2 });
    const discountOnGift = await t.request('PUT', '/v1/vouchers/UPD-GIFT', { json: { discount: { type: 'AMOUNT', amount_off: 1 } } });
    assert.equal(discountOnGift.status, 400);
    const typeChange = await t.request('PUT', '/v1/vouchers/UPD-GIFT', { json: { type: 'DISCOUNT_VOUCHER' } });
    assert.equal(typeChange.status, 400);
    assert.match(typeChange.body.details, /type/);
    const badWindow = await t.request('PUT', '/v1/vouchers/UPD-1', { json: { validity_timeframe: { interval: 'P1D', duration: 'PT1H' } } });
    assert.equal(badWindow.status, 400);
    assert.equal((await t.request('PUT', '/v1/vouchers/NOPE', { json: { active: false } })).status, 404);
  });

  test('enable and disable answer the voucher and emit their events', async () => {
    const made: Json = await t.sdk().vouchers.create({ code: 'TOGGLE-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    const disabled: Json = await t.sdk().vouchers.disable('TOGGLE-1');
    assert.equal(disabled.active, false);
    assert.equal(disabled.object, 'voucher');
    assert.equal(((await t.sdk().vouchers.get('TOGGLE-1')) as Json).active, false);
    const enabled: Json = await t.sdk().vouchers.enable('TOGGLE-1');
    assert.equal(enabled.active, true);
    assert.equal((await events('voucher.disabled', made.id)).length, 1);
    assert.equal((await events('voucher.enabled', made.id)).length, 1);
    assert.equal((await t.request('POST', '/v1/vouchers/NOPE/enable', { json: {} })).status, 404);
  });

  test('delete bins the voucher (its code is free at once); the bin entry deletes it for good', async () => {
    const camp = await campaign('Shrinking');
    const made = (await t.request('POST', '/v1/vouchers/BIN-1', { json: { campaign_id: camp.id } })).body;
    assert.equal(((await t.sdk().campaigns.get(camp.id)) as Json).vouchers_count, 1);
    const res = await t.request('DELETE', '/v1/vouchers/BIN-1', { headers: { ...t.serverHeaders(), 'content-type': 'application/json' } });
    assert.equal(res.status, 204);
    assert.equal((await t.request('GET', '/v1/vouchers/BIN-1')).status, 404);
    assert.equal(((await t.sdk().campaigns.get(camp.id)) as Json).vouchers_count, 0);
    const [event] = await events('voucher.deleted', made.id);
    assert.equal(event.data.voucher.code, 'BIN-1');
    assert.equal(event.data.campaign.id, camp.id);
    const bin = await t.request('GET', '/v1/trash-bin?limit=100');
    const entry = bin.body.data.find((e: Json) => e.resource_id === made.id);
    assert.equal(entry.resource_type, 'voucher');
    assert.equal(entry.resource_name, 'BIN-1');
    assert.equal(entry.resource_parent_id, camp.id);
    // The code is free for a new voucher while the old one waits in the bin.
    const reused: Json = await t.sdk().vouchers.create({ code: 'BIN-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 2 } } as never);
    assert.notEqual(reused.id, made.id);
    assert.equal((await t.request('DELETE', `/v1/trash-bin/${entry.id}`)).status, 204);
    const gone = await t.deps.db.selectFrom('vouchers').select('id').where('id', '=', made.id).executeTakeFirst();
    assert.equal(gone, undefined);
    assert.equal(((await t.sdk().vouchers.get('BIN-1')) as Json).id, reused.id);
    assert.equal((await t.request('DELETE', '/v1/vouchers/NOPE')).status, 404);
  });

  test('force delete removes the voucher and its ledger for good, without a bin entry', async () => {
    const made: Json = await t.sdk().vouchers.create({ code: 'FORCE-1', type: 'GIFT_VOUCHER', gift: { amount: 100 } } as never);
    await t.sdk().vouchers.balance.create('FORCE-1', { amount: 50 } as never);
    await t.sdk().vouchers.delete('FORCE-1', { force: true });
    const row = await t.deps.db.selectFrom('vouchers').select('id').where('id', '=', made.id).executeTakeFirst();
    assert.equal(row, undefined);
    const txs = await t.deps.db.selectFrom('voucher_transactions').select('id').where('voucher_id', '=', made.id).execute();
    assert.equal(txs.length, 0);
    const bin = await t.request('GET', '/v1/trash-bin?limit=100');
    assert.equal(bin.body.data.some((e: Json) => e.resource_id === made.id), false);
    const again: Json = await t.sdk().vouchers.create({ code: 'FORCE-1', type: 'GIFT_VOUCHER', gift: { amount: 100 } } as never);
    assert.equal(again.gift.balance, 100);
  });

  test('imports run as async actions; bad imports are refused whole', async () => {
    const category: Json = await t.sdk().categories.create({ name: 'Imported', hierarchy: 2 } as never);
    const action: Json = await t.sdk().vouchers.import([
      { code: 'IMP-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 }, category: 'Imported' },
      { code: 'IMP-2', type: 'GIFT_VOUCHER', gift: { amount: 700 }, metadata: { src: 'csv' }, active: false },
    ] as never);
    assert.match(action.async_action_id, /^aa_/);
    const queued = await t.request('GET', `/v1/async-actions/${action.async_action_id}`);
    assert.equal(queued.body.status, 'ENQUEUED');
    assert.equal(queued.body.type, 'VOUCHERS.IMPORT');
    assert.equal((await t.request('GET', '/v1/vouchers/IMP-1')).status, 404);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const done = await t.request('GET', `/v1/async-actions/${action.async_action_id}`);
    assert.equal(done.body.status, 'DONE');
    assert.equal(done.body.result.done_count, 2);
    assert.equal(done.body.result.failed_count, 0);
    assert.equal(done.body.result.message, '2 voucher(s) imported successfully, 0 failed.');
    assert.equal(((await t.sdk().vouchers.get('IMP-1')) as Json).category_id, category.id);
    const imported: Json = await t.sdk().vouchers.get('IMP-2');
    assert.equal(imported.category_id, null);
    assert.equal(imported.gift.balance, 700);
    assert.equal(imported.active, false);
    assert.equal(imported.campaign_id, null);
    // Bulk imports do not announce each voucher.
    assert.equal((await events('voucher.created', imported.id)).length, 0);

    const refusals: Array<[unknown, number, string, RegExp]> = [
      [[{ code: 'IMP-3', discount: { type: 'PERCENT', percent_off: 5 } }, { code: 'imp-4', type: 'DISCOUNT_VOUCHER' }], 400, 'invalid_payload', /\[1\]\.discount/],
      [[{ code: 'IMP-5', gift: { amount: 1 } }, { code: 'IMP-5', gift: { amount: 2 } }], 400, 'duplicate_key', /\[0\] and \[1\]/],
      [[{ code: 'IMP-6', gift: { amount: 1 } }, { code: 'IMP-1', gift: { amount: 2 } }], 400, 'duplicate_key', /IMP-1/],
      [[{ code: 'IMP-7', gift: { amount: 1 }, category_id: 'cat_no_such_category' }], 404, 'not_found', /category/],
      [[], 400, 'invalid_payload', /fewer than 1|\bminItems|must NOT have fewer/i],
      [{ code: 'IMP-8' }, 400, 'invalid_payload', /array/],
    ];
    const jobsBefore = (await t.deps.db.selectFrom('jobs').select('id').execute()).length;
    for (const [body, status, key, details] of refusals) {
      const res = await t.request('POST', '/v1/vouchers/import', { json: body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
    }
    assert.equal((await t.deps.db.selectFrom('jobs').select('id').execute()).length, jobsBefore, 'no job was queued');
  });

  test('a code taken between the request and the job is reported as a failed item', async () => {
    const res = await t.request('POST', '/v1/vouchers/import', { json: [{ code: 'RACE-1', gift: { amount: 1 } }, { code: 'RACE-2', gift: { amount: 1 } }] });
    assert.equal(res.status, 202);
    await t.sdk().vouchers.create({ code: 'RACE-2', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    while (await t.worker.runOnce()) {
      /* drain */
    }
    const done = await t.request('GET', `/v1/async-actions/${res.body.async_action_id}`);
    assert.equal(done.body.result.done_count, 1);
    assert.equal(done.body.result.failed_count, 1);
    assert.deepEqual(done.body.result.failed, [{ code: 'RACE-2', reason: 'A voucher with this code already exists' }]);
    assert.equal(((await t.sdk().vouchers.get('RACE-2')) as Json).type, 'DISCOUNT_VOUCHER');
  });

  test('a campaign import adds vouchers to the campaign in chunks', async () => {
    const camp = await campaign('Imported into', { category: undefined });
    const items = Array.from({ length: 2300 }, (_, i) => ({ code: `CI-${String(i).padStart(5, '0')}` }));
    const action: Json = await t.sdk().campaigns.importVouchers(camp.id, items as never);
    const queued = await t.request('GET', `/v1/async-actions/${action.async_action_id}`);
    assert.equal(queued.body.type, 'CAMPAIGN.VOUCHERS_IMPORT');
    assert.equal(await t.worker.runOnce(), true);
    const done = await t.request('GET', `/v1/async-actions/${action.async_action_id}`);
    assert.equal(done.body.status, 'DONE');
    assert.equal(done.body.result.done_count, 2300);
    const fetched: Json = await t.sdk().campaigns.get(camp.id);
    assert.equal(fetched.vouchers_count, 2300);
    const one: Json = await t.sdk().vouchers.get('CI-01234');
    assert.equal(one.campaign_id, camp.id);
    assert.deepEqual(one.discount, { type: 'PERCENT', percent_off: 15, is_dynamic: false });
    const added = await events('campaign.vouchers.added', camp.id);
    assert.equal(added.length, 1);
    assert.equal(added[0].data.count, 2300);
    const wrongType = await t.request('POST', `/v1/campaigns/${camp.id}/import`, { json: [{ code: 'CI-X', type: 'GIFT_VOUCHER', gift: { amount: 1 } }] });
    assert.equal(wrongType.status, 400);
    assert.equal((await t.request('POST', '/v1/campaigns/camp_nope/import', { json: [{ code: 'CI-Y' }] })).status, 404);
  });

  test('the campaign summary is derived from stored records', async () => {
    const gifts: Json = await t.sdk().campaigns.create({ name: 'Summary gifts', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 3, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } as never);
    const codes = (await t.request('GET', `/v1/vouchers?campaign_id=${gifts.id}&order=code`)).body.vouchers.map((v: Json) => v.code);
    await t.sdk().distributions.publications.create({ campaign: { name: 'Summary gifts' }, customer: { source_id: 'sum-1' } } as never);
    await t.sdk().vouchers.balance.create(codes[0], { amount: 500 } as never);
    await t.sdk().vouchers.balance.create(codes[1], { amount: -200 } as never);
    await t.request('DELETE', `/v1/vouchers/${encodeURIComponent(codes[2])}`);
    const summary = await t.request('GET', `/v1/campaigns/${gifts.id}/summary`);
    assert.equal(summary.status, 200, summary.text);
    assert.equal(summary.body.object, 'campaign_summary');
    assert.equal(summary.body.campaign.id, gifts.id);
    assert.equal(summary.body.vouchers_created, 3);
    assert.equal(summary.body.vouchers_deleted, 1);
    assert.equal(summary.body.publications, 1);
    assert.equal(summary.body.publications_succeeded, 1);
    assert.equal(summary.body.created_vouchers_amount, 3000);
    assert.equal(summary.body.amount_added, 500);
    assert.equal(summary.body.amount_subtracted, 200);
    assert.equal(summary.body.amount_deleted, 1000);
    assert.equal(summary.body.redemptions, 0);
    // A window of days before the campaign existed counts nothing.
    const old = await t.request('GET', `/v1/campaigns/Summary%20gifts/summary?start_date=2020-01-01&end_date=2020-01-31`);
    assert.equal(old.body.vouchers_created, 0);
    assert.equal(old.body.amount_added, 0);
    const reversed = await t.request('GET', `/v1/campaigns/${gifts.id}/summary?start_date=2026-02-01&end_date=2026-01-01`);
    assert.equal(reversed.status, 400);
    assert.equal((await t.request('GET', '/v1/campaigns/camp_nope/summary')).status, 404);
  });

  test('the discount summary counts the redemption records stored for the campaign', async () => {
    // The redemption engine is a later area; its records are written here as it will store them.
    const camp = await campaign('Summary discounts');
    const record = (id: string, object: 'redemption' | 'redemption_rollback', result: 'SUCCESS' | 'FAILURE', order: Record<string, number> | null): NewRedemptionRow => ({
      id,
      project_id: t.projectId,
      object,
      result,
      status: result === 'SUCCESS' ? ('SUCCEEDED' as const) : ('FAILED' as const),
      failure_code: null,
      failure_message: null,
      reason: null,
      customer_id: null,
      tracking_id: null,
      metadata: '{}',
      amount: null,
      parent_id: null,
      related_object_type: 'voucher',
      related_object_id: 'v_x',
      related_object_parent_id: camp.id,
      voucher_id: null,
      voucher_code: null,
      promotion_tier_id: null,
      campaign_id: camp.id,
      campaign_name: camp.name,
      order_id: null,
      session_key: null,
      rollback_of: null,
      rolled_back_by: null,
      order_snapshot: order ? JSON.stringify(order) : null,
      channel: '{}',
      customer_snapshot: null,
      voucher_snapshot: null,
      promotion_tier_snapshot: null,
      reward_snapshot: null,
      gift: null,
      loyalty_card: null,
      effects: null,
      created_at: t.clock.now().toISOString(),
      order_amount: order?.amount ?? null,
      order_total_discount_amount: order?.total_discount_amount ?? null,
      order_total_applied_discount_amount: null,
    });
    for (const row of [
      record('r_s1', 'redemption', 'SUCCESS', { amount: 10000, total_discount_amount: 1500 }),
      record('r_s2', 'redemption', 'SUCCESS', { amount: 5000, total_discount_amount: 750 }),
      record('rf_f1', 'redemption', 'FAILURE', null),
      record('rr_1', 'redemption_rollback', 'SUCCESS', { amount: 5000, total_discount_amount: 750 }),
    ])
      await insertRedemption(t.deps.db, row);
    const summary = await t.request('GET', `/v1/campaigns/${camp.id}/summary`);
    assert.equal(summary.body.redemptions, 3);
    assert.equal(summary.body.redemptions_succeeded, 2);
    assert.equal(summary.body.redemptions_failed, 1);
    assert.equal(summary.body.rollbacks, 1);
    assert.equal(summary.body.rollbacks_succeeded, 1);
    assert.equal(summary.body.orders_amount, 15000);
    assert.equal(summary.body.orders_rolledback_amount, 5000);
    assert.equal(summary.body.discounted_amount, 2250);
    assert.equal(summary.body.rolledback_discounted_amount, 750);
    assert.equal(summary.body.amount_added, undefined, 'gift members belong to gift campaigns');
  });

  test("another project's keys cannot see or change a voucher; its codes can ignore case", async () => {
    const mine: Json = await t.sdk().vouchers.create({ code: 'PRIVATE-1', type: 'GIFT_VOUCHER', gift: { amount: 100 } } as never);
    const keys = t.serverHeaders(other);
    assert.equal((await t.request('GET', '/v1/vouchers/PRIVATE-1', { headers: keys })).status, 404);
    assert.equal((await t.request('PUT', '/v1/vouchers/PRIVATE-1', { headers: keys, json: { active: false } })).status, 404);
    assert.equal((await t.request('POST', '/v1/vouchers/PRIVATE-1/disable', { headers: keys, json: {} })).status, 404);
    assert.equal((await t.request('POST', '/v1/vouchers/PRIVATE-1/balance', { headers: keys, json: { amount: 10 } })).status, 404);
    assert.equal((await t.request('GET', '/v1/vouchers/PRIVATE-1/transactions', { headers: keys })).status, 404);
    assert.equal((await t.request('DELETE', '/v1/vouchers/PRIVATE-1', { headers: keys })).status, 404);
    assert.equal((await t.request('GET', `/v1/vouchers?ids[0]=${mine.id}`, { headers: keys })).body.total, 0);
    assert.equal((await t.request('GET', '/v1/vouchers', { headers: keys })).body.total, 0);
    assert.equal(((await t.sdk().vouchers.get('PRIVATE-1')) as Json).active, true);
    const camp = await campaign('Private campaign');
    assert.equal((await t.request('GET', `/v1/campaigns/${camp.id}/summary`, { headers: keys })).status, 404);
    assert.equal((await t.request('POST', `/v1/campaigns/${camp.id}/import`, { headers: keys, json: [{ code: 'SNEAK-1' }] })).status, 404);
    assert.equal((await t.request('POST', '/v1/vouchers/SNEAK-2', { headers: keys, json: { campaign_id: camp.id } })).status, 404);
    assert.equal(((await t.sdk().campaigns.get(camp.id)) as Json).vouchers_count, 0);
    // The same code is free in the other project, whose codes ignore case.
    const theirs: Json = await t.sdk(other).vouchers.create({ code: 'ABC', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    const folded = await t.request('GET', '/v1/vouchers/abc', { headers: keys });
    assert.equal(folded.status, 200);
    assert.equal(folded.body.id, theirs.id);
    assert.equal(folded.body.code, 'ABC');
    const dup = await t.request('POST', '/v1/vouchers/Abc', { headers: keys, json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    assert.equal(dup.status, 409);
    assert.equal((await t.request('GET', '/v1/vouchers?code=aBc', { headers: keys })).body.total, 1);
    // This project compares codes exactly.
    await t.sdk().vouchers.create({ code: 'XYZ', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    assert.equal((await t.request('GET', '/v1/vouchers/xyz')).status, 404);
  });
});
