import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction } from '../../src/services/context.ts';
import { resolveCustomer } from '../../src/services/customers/customers.ts';
import { publishVoucher } from '../../src/services/publications/publish.ts';
import { findLiveCampaignById } from '../../src/store/campaigns.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { qrGridFromPng, readPng, readQr, runsOfRow } from '../helpers/png-reader.ts';

// Loyalty members (loyalty reference 2.1–2.4; seed 2.5, 2.7; DECISIONS 19): adding members, the card
// object with every field, its QR code and barcode, the member list, and the customer's loyalty summary.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('loyalty members', () => {
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

  async function program(name: string, extra: Record<string, unknown> = {}): Promise<Json> {
    return t.sdk().loyalties.create({ name, vouchers_count: 3, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 } }, ...extra } as never);
  }

  async function freeCodes(campaignId: string): Promise<string[]> {
    const rows = await t.deps.db
      .selectFrom('vouchers')
      .select('code')
      .where('campaign_id', '=', campaignId)
      .where('holder_id', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.code);
  }

  test('a member joins through the SDK: a new customer, the card with every field of seed 2.5', async () => {
    const loyal = await program('Members basic');
    const card: Json = await t.sdk().loyalties.createMember(loyal.id, { customer: { source_id: 'member-1', name: 'Ann', email: 'ann@example.com' }, metadata: { shop: 'north' } });
    const customer: Json = await t.sdk().customers.get('member-1');
    assert.equal(customer.name, 'Ann', 'the unknown customer was created from the member body');
    const expected = [
      'id', 'code', 'campaign', 'campaign_id', 'category', 'category_id', 'categories', 'type', 'discount', 'gift', 'loyalty_card',
      'start_date', 'expiration_date', 'validity_timeframe', 'validity_day_of_week', 'validity_hours', 'active', 'additional_info',
      'metadata', 'is_referral_code', 'assets', 'holder_id', 'created_at', 'updated_at', 'publish', 'redemption', 'object',
    ];
    for (const key of expected) assert.ok(key in card, `card has ${key}`);
    assert.match(card.id, /^v_/);
    assert.equal(card.type, 'LOYALTY_CARD');
    assert.equal(card.object, 'voucher');
    assert.equal(card.campaign, 'Members basic');
    assert.equal(card.campaign_id, loyal.id);
    assert.equal(card.discount, null);
    assert.equal(card.gift, null);
    assert.equal(card.holder_id, customer.id);
    assert.equal(card.active, true);
    assert.equal(card.is_referral_code, false);
    assert.deepEqual(card.categories, []);
    assert.deepEqual(card.loyalty_card, { points: 100, balance: 100, pending_points: 0, expired_points: 0, subtracted_points: 0 });
    assert.deepEqual(card.publish, { object: 'list', count: 1, url: `/v1/vouchers/${card.code}/publications?page=1&limit=10` });
    assert.deepEqual(card.redemption, { quantity: null, redeemed_quantity: 0, redeemed_points: 0, object: 'list', url: `/v1/vouchers/${card.code}/redemptions?page=1&limit=10` });
    assert.match(card.assets.qr.url, new RegExp(`^${t.url}/v1/assets/qr/`));
    assert.match(card.assets.barcode.url, new RegExp(`^${t.url}/v1/assets/barcode/`));
    assert.ok(card.assets.qr.url.endsWith(card.assets.qr.id));
    // The first free card (in creation order) was handed out.
    assert.equal(card.code, (await t.deps.db.selectFrom('vouchers').select('code').where('id', '=', card.id).executeTakeFirstOrThrow()).code);

    const withCampaign: Json = await t.sdk().loyalties.getMember(loyal.id, card.code);
    const withoutCampaign: Json = await t.sdk().loyalties.getMember(null as never, card.code);
    const byName: Json = await t.sdk().loyalties.getMember('Members basic', card.code);
    assert.deepEqual(withCampaign, card);
    assert.deepEqual(withoutCampaign, card);
    assert.deepEqual(byName, card);

    // Publishing is a customer activity of the card.
    const activity: Json = await t.sdk().loyalties.listMemberActivity(loyal.id, card.code);
    assert.deepEqual(activity.data.map((a: Json) => a.type), ['customer.publication.succeeded']);
  });

  test('a repeated source_id answers the same card; join-once refuses a second card', async () => {
    const loyal = await program('Members idempotent');
    const first: Json = await t.sdk().loyalties.createMember(loyal.id, { customer: { source_id: 'member-2' }, source_id: 'pub-1' } as never);
    const again: Json = await t.sdk().loyalties.createMember(loyal.id, { customer: { source_id: 'member-2' }, source_id: 'pub-1' } as never);
    assert.equal(again.id, first.id);
    assert.equal(again.publish.count, 1);
    const second = await t.request('POST', `/v1/loyalties/${loyal.id}/members`, { json: { customer: { source_id: 'member-2' } } });
    assert.equal(second.status, 400);
    assert.equal(second.body.key, 'voucher_cannot_be_published');
    assert.match(second.body.details, /already joined/);
    assert.equal((await freeCodes(loyal.id)).length, 2, 'no second card was handed out');
    // The same source_id for another program is a different publication, and refused.
    const elsewhere = await program('Members idempotent B');
    const clash = await t.request('POST', `/v1/loyalties/${elsewhere.id}/members`, { json: { customer: { source_id: 'member-2' }, source_id: 'pub-1' } });
    assert.equal(clash.status, 400);
    assert.equal(clash.body.key, 'duplicate_source_id');
  });

  test('concurrent joins of one customer end with one card', async () => {
    const loyal = await program('Members race', { vouchers_count: 10 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.request('POST', `/v1/loyalties/${loyal.id}/members`, { json: { customer: { source_id: 'racer' } } })),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => `${r.status} ${r.body?.key}`).join(','));
    for (const r of results.filter((x) => x.status !== 200)) assert.equal(r.body.key, 'voucher_cannot_be_published');
    const held = await t.deps.db.selectFrom('vouchers').select('id').where('campaign_id', '=', loyal.id).where('holder_id', 'is not', null).execute();
    assert.equal(held.length, 1);
  });

  test('a named card, a taken card, an unknown or foreign code', async () => {
    const loyal = await program('Members named');
    const [a, b] = await freeCodes(loyal.id);
    const card: Json = await t.sdk().loyalties.createMember(loyal.id, { voucher: b, customer: { source_id: 'member-3' } } as never);
    assert.equal(card.code, b);
    const taken = await t.request('POST', `/v1/loyalties/${loyal.id}/members`, { json: { voucher: b, customer: { source_id: 'member-4' } } });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.key, 'voucher_already_published');
    const unknown = await t.request('POST', `/v1/loyalties/${loyal.id}/members`, { json: { voucher: 'NO-SUCH-CARD', customer: { source_id: 'member-4' } } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'voucher');
    const foreignProgram = await program('Members named B');
    const foreign = await t.request('POST', `/v1/loyalties/${foreignProgram.id}/members`, { json: { voucher: a, customer: { source_id: 'member-4' } } });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.resource_type, 'voucher');
    // Nothing of the failed attempts stayed: member-4 was never created.
    assert.equal((await t.request('GET', '/v1/customers/member-4')).status, 404);
    // The card of one program is not found under another.
    assert.equal((await t.request('GET', `/v1/loyalties/${foreignProgram.id}/members/${b}`)).status, 404);
  });

  test('a STATIC program without free cards refuses; an AUTO_UPDATE program makes a card', async () => {
    const fixed = await program('Members static', { type: 'STATIC', vouchers_count: 1 });
    await t.sdk().loyalties.createMember(fixed.id, { customer: { source_id: 'static-1' } });
    const none = await t.request('POST', `/v1/loyalties/${fixed.id}/members`, { json: { customer: { source_id: 'static-2' } } });
    assert.equal(none.status, 400);
    assert.equal(none.body.key, 'no_voucher_suitable_for_publication');
    assert.equal((await t.request('GET', '/v1/customers/static-2')).status, 404, 'the customer created for the refused join was rolled back');

    const growing = await program('Members auto', { vouchers_count: 0 });
    const made: Json = await t.sdk().loyalties.createMember(growing.id, { customer: { source_id: 'auto-1' } });
    assert.equal(made.campaign_id, growing.id);
    assert.equal(made.loyalty_card.balance, 100);
    assert.equal((await t.sdk().loyalties.get(growing.id)).vouchers_count, 1);
  });

  test('a disabled program takes no members', async () => {
    const loyal = await program('Members disabled');
    await t.sdk().campaigns.disable(loyal.id);
    const refused = await t.request('POST', `/v1/loyalties/${loyal.id}/members`, { json: { customer: { source_id: 'late' } } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'campaign_not_active');
  });

  test('bad member bodies are precise 400s; unknown program or customer id are 404s', async () => {
    const loyal = await program('Members bad input');
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{}, 400, 'invalid_payload', /customer/],
      // A bare string names a customer (the vendor's examples do so); an empty one names nobody.
      [{ customer: '' }, 400, 'invalid_payload', /customer/],
      [{ customer: {} }, 400, 'invalid_payload', /id' or 'source_id/],
      [{ customer: { source_id: 'ok' }, metadata: 'x' }, 400, 'invalid_payload', /metadata/],
      [{ customer: { id: 'cust_missing' } }, 404, 'not_found', /customer/],
    ];
    for (const [json, status, key, details] of cases) {
      const res = await t.request('POST', `/v1/loyalties/${loyal.id}/members`, { json });
      assert.equal(res.status, status, JSON.stringify(json));
      assert.equal(res.body.key, key);
      assert.match(res.body.details, details);
    }
    const missing = await t.request('POST', '/v1/loyalties/camp_missing/members', { json: { customer: { source_id: 'x' } } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.resource_type, 'campaign');
    // A campaign of another type is not a loyalty program.
    const coupons: Json = await t.sdk().campaigns.create({ name: 'Members coupons', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } } as never);
    assert.equal((await t.request('POST', `/v1/loyalties/${coupons.id}/members`, { json: { customer: { source_id: 'x' } } })).status, 404);
    const [coupon] = (await t.deps.db.selectFrom('vouchers').select('code').where('campaign_id', '=', coupons.id).execute()).map((r) => r.code);
    assert.equal((await t.request('GET', `/v1/loyalties/members/${coupon}`)).status, 404, 'a discount code is not a member card');
  });

  test('the member list: data_ref vouchers, members only, filters, order, pages', async () => {
    const loyal = await program('Members list', { vouchers_count: 6 });
    const joined: Json[] = [];
    for (const source of ['list-a', 'list-b', 'list-c']) joined.push(await t.sdk().loyalties.createMember(loyal.id, { customer: { source_id: source } }));
    const all: Json = await t.sdk().loyalties.listMembers(loyal.id, { limit: 10 } as never);
    assert.equal(all.object, 'list');
    assert.equal(all.data_ref, 'vouchers');
    assert.equal(all.total, 3, 'unpublished cards are not members');
    assert.equal(all.vouchers.length, 3);
    assert.ok(all.vouchers.every((v: Json) => v.holder_id && v.assets.qr.url));
    const byCustomer: Json = await t.sdk().loyalties.listMembers(loyal.id, { customer: 'list-b' } as never);
    assert.deepEqual(byCustomer.vouchers.map((v: Json) => v.code), [joined[1].code]);
    const byCode = await t.request('GET', `/v1/loyalties/${loyal.id}/members?code=${encodeURIComponent(joined[2].code)}`);
    assert.deepEqual(byCode.body.vouchers.map((v: Json) => v.id), [joined[2].id]);
    const codes = joined.map((j) => j.code).sort();
    const ascending = await t.request('GET', `/v1/loyalties/${loyal.id}/members?order=code&limit=2`);
    assert.deepEqual(ascending.body.vouchers.map((v: Json) => v.code), codes.slice(0, 2));
    const page2 = await t.request('GET', `/v1/loyalties/${loyal.id}/members?order=code&limit=2&page=2`);
    assert.deepEqual(page2.body.vouchers.map((v: Json) => v.code), codes.slice(2));
    assert.equal(page2.body.total, 3);
    const future = await t.sdk().loyalties.listMembers(loyal.id, { created_at: { after: '2100-01-01' } } as never);
    assert.equal((future as Json).total, 0);
    const nobody = await t.request('GET', `/v1/loyalties/${loyal.id}/members?customer=nobody`);
    assert.equal(nobody.body.total, 0);
    const bad = await t.request('GET', `/v1/loyalties/${loyal.id}/members?order=points`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_query_params');
  });

  test("a card's QR code and barcode are real PNGs of its code, served without keys", async () => {
    const loyal = await program('Members assets');
    const card: Json = await t.sdk().loyalties.createMember(loyal.id, { customer: { source_id: 'assets-1' } });
    const qr = await fetch(card.assets.qr.url);
    assert.equal(qr.status, 200);
    assert.equal(qr.headers.get('content-type'), 'image/png');
    const qrImage = readPng(Buffer.from(await qr.arrayBuffer()));
    // Default: 6 pixels per module and a 4-module quiet zone.
    assert.equal(readQr(qrGridFromPng(qrImage, 6, 4)).text, card.code);
    const big = readPng(Buffer.from(await (await fetch(`${card.assets.qr.url}?size=10`)).arrayBuffer()));
    assert.equal(big.width, (qrImage.width / 6) * 10);

    // The links need no key, so a huge size is reduced to stay within 2000 pixels (and still scans).
    const capped = readPng(Buffer.from(await (await fetch(`${card.assets.qr.url}?size=100`)).arrayBuffer()));
    const modulesAcross = qrImage.width / 6;
    const cappedScale = Math.floor(2000 / modulesAcross);
    assert.equal(capped.width, modulesAcross * cappedScale);
    assert.equal(readQr(qrGridFromPng(capped, cappedScale, 4)).text, card.code);

    const barcode = await fetch(card.assets.barcode.url);
    assert.equal(barcode.headers.get('content-type'), 'image/png');
    const bars = readPng(Buffer.from(await barcode.arrayBuffer()));
    const runs = runsOfRow(bars, Math.floor(bars.height / 2));
    // Default: 2 pixels per module, 10-module quiet zones, Start B (211214) first and the stop symbol last.
    assert.equal(runs[0]?.length, 20);
    const modules = runs.slice(1, -1).map((r) => r.length / 2);
    assert.deepEqual(modules.slice(0, 6), [2, 1, 1, 2, 1, 4]);
    assert.deepEqual(modules.slice(-7), [2, 3, 3, 1, 1, 1, 2]);
    assert.equal(modules.reduce((s, m) => s + m, 0), 11 * (card.code.length + 3) + 2, 'start, one symbol per character, checksum, stop');

    const svg = await fetch(`${card.assets.qr.url}?format=svg`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(await svg.text(), /<svg /);
    // A forged or altered id draws nothing.
    const forged = await t.request('GET', `/v1/assets/qr/${card.assets.qr.id.slice(0, -2)}xx`, { headers: {} });
    assert.equal(forged.status, 404);
    const swapped = await t.request('GET', `/v1/assets/barcode/${card.assets.qr.id}`, { headers: {} });
    assert.equal(swapped.status, 404, 'a QR id is not a barcode id');
    assert.equal((await t.request('GET', `${new URL(card.assets.qr.url).pathname}?size=0`, { headers: {} })).status, 400);
  });

  test("another project's keys find neither the program nor the card", async () => {
    const loyal = await program('Members private');
    const card: Json = await t.sdk().loyalties.createMember(loyal.id, { customer: { source_id: 'private-1' } });
    const headers = t.serverHeaders(other);
    assert.equal((await t.request('GET', `/v1/loyalties/${loyal.id}/members`, { headers })).status, 404);
    assert.equal((await t.request('GET', `/v1/loyalties/members/${card.code}`, { headers })).status, 404);
    assert.equal((await t.request('POST', `/v1/loyalties/${loyal.id}/members`, { headers, json: { customer: { source_id: 'x' } } })).status, 404);
    await assert.rejects(t.sdk(other).loyalties.getMember(null as never, card.code), (e: Json) => e.code === 404 && e.resource_type === 'voucher');
  });

  test('customer loyalty fields are derived from the cards held, in gets and in lists', async () => {
    const alpha = await program('Summary alpha', { voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50 } } });
    const beta = await program('Summary beta', { voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const a: Json = await t.sdk().loyalties.createMember(alpha.id, { customer: { source_id: 'summary-1' } });
    const b: Json = await t.sdk().loyalties.createMember(beta.id, { customer: { source_id: 'summary-1' } });
    await t.sdk().loyalties.addOrRemoveCardBalance(a.code, { points: 30 });
    await t.sdk().loyalties.addOrRemoveCardBalance(b.code, { points: 200 });
    await t.sdk().loyalties.addOrRemoveCardBalance(b.code, { points: -20 });
    const gifts: Json = await t.sdk().campaigns.create({ name: 'Summary gifts', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2500 } } } as never);
    // Hand the gift card to the same customer (through the core publishing service).
    const actor = { projectId: t.projectId, requestId: 'v-test', source: { channel: 'API' as const } };
    await inTransaction(t.deps, async (tx) => {
      const { customer } = await resolveCustomer(tx, t.deps, actor, { source_id: 'summary-1' }, { createIfMissing: false });
      const campaign = await findLiveCampaignById(tx, t.projectId, gifts.id);
      assert.ok(campaign);
      await publishVoucher(tx, t.deps, actor, { customer, campaign });
    });
    const customer: Json = await t.sdk().customers.get('summary-1');
    assert.deepEqual(customer.loyalty.campaigns, {
      'Summary alpha': { points: 80, referred_customers: 0 },
      'Summary beta': { points: 180, referred_customers: 0 },
    });
    // points = lifetime points minus expired (80 + 200); points_to_go = spendable balance (80 + 180).
    assert.equal(customer.loyalty.points, 280);
    assert.deepEqual(customer.summary.redemptions.loyalty_card, { redeemed_points: 0, points_to_go: 260 });
    assert.deepEqual(customer.summary.redemptions.gift, { redeemed_amount: 0, amount_to_go: 2500 });
    const list: Json = await t.sdk().customers.list({ limit: 100 } as never);
    const listed = list.customers.find((c: Json) => c.id === customer.id);
    assert.deepEqual(listed.loyalty, customer.loyalty);
    assert.deepEqual(listed.summary, customer.summary);
    const stranger = list.customers.find((c: Json) => c.source_id === 'member-1');
    assert.equal(stranger.loyalty.points, 100, 'each customer gets their own holdings');
  });
});
