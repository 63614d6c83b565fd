import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Gift cards: balance adjustments through the ledger and the card's transaction list (promotions
// reference 2.3, 2.4; loyalty reference 2.7 transaction shape; platform reference 6.4 gift events).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('gift cards', () => {
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

  const giftCard = async (code: string, amount = 1000): Promise<Json> => t.sdk().vouchers.create({ code, type: 'GIFT_VOUCHER', gift: { amount } } as never);

  async function ledgerOf(voucherId: string): Promise<Json[]> {
    return t.deps.db.selectFrom('voucher_transactions').selectAll().where('voucher_id', '=', voucherId).orderBy('id').execute();
  }

  async function eventsOf(type: string, code: string): Promise<Json[]> {
    const rows = await t.deps.db.selectFrom('events').selectAll().where('type', '=', type).where('voucher_code', '=', code).orderBy('seq').execute();
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
  }

  test('a top-up adds credits and answers the balance object, through the SDK', async () => {
    const card = await giftCard('GC-1');
    const balance: Json = await t.sdk().vouchers.balance.create('GC-1', { amount: 2500, source_id: 'topup-1', reason: 'birthday' } as never);
    assert.deepEqual(balance, {
      amount: 2500,
      total: 3500,
      balance: 3500,
      type: 'gift_voucher',
      operation_type: 'MANUAL',
      object: 'balance',
      related_object: { type: 'voucher', id: card.id },
    });
    const fetched: Json = await t.sdk().vouchers.get('GC-1');
    assert.deepEqual(fetched.gift, { amount: 3500, subtracted_amount: 0, balance: 3500, effect: null });
    const [row] = await ledgerOf(card.id);
    assert.equal(row.type, 'CREDITS_ADDITION');
    assert.equal(Number(row.amount), 2500);
    assert.equal(row.source_id, 'topup-1');
    assert.equal(row.reason, 'birthday');
    const added = await eventsOf('voucher.gift.balance_added', 'GC-1');
    assert.equal(added.length, 1);
    assert.equal(added[0].data.balance.amount, 2500);
    assert.equal(added[0].data.voucher.gift.balance, 3500);
    assert.equal(added[0].data.transaction.type, 'CREDITS_ADDITION');
    assert.equal((await eventsOf('voucher.gift.transaction.created', 'GC-1')).length, 1);
  });

  test('a removal lowers the balance; one beyond the balance changes nothing', async () => {
    const card = await giftCard('GC-2', 1000);
    const removed: Json = await t.sdk().vouchers.balance.create('GC-2', { amount: -300 } as never);
    assert.equal(removed.amount, -300);
    assert.equal(removed.balance, 700);
    assert.equal(removed.total, 700);
    const fetched: Json = await t.sdk().vouchers.get('GC-2');
    assert.deepEqual(fetched.gift, { amount: 1000, subtracted_amount: 300, balance: 700, effect: null });
    const eventsBefore = (await t.deps.db.selectFrom('events').select('id').execute()).length;
    const tooMuch = await t.request('POST', '/v1/vouchers/GC-2/balance', { json: { amount: -701 } });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.key, 'gift_amount_exceeded');
    assert.equal(((await t.sdk().vouchers.get('GC-2')) as Json).gift.balance, 700);
    assert.equal((await ledgerOf(card.id)).length, 1, 'the refused removal left no transaction');
    assert.equal((await t.deps.db.selectFrom('events').select('id').execute()).length, eventsBefore, 'and no event');
    // Removals announce a transaction but no balance_added.
    assert.equal((await eventsOf('voucher.gift.balance_added', 'GC-2')).length, 0);
    assert.equal((await eventsOf('voucher.gift.transaction.created', 'GC-2')).length, 1);
    const all: Json = await t.sdk().vouchers.balance.create('GC-2', { amount: -700 } as never);
    assert.equal(all.balance, 0);
  });

  test('concurrent removals never take a card below zero', async () => {
    await giftCard('GC-RACE', 500);
    const results = await Promise.all(Array.from({ length: 10 }, () => t.request('POST', '/v1/vouchers/GC-RACE/balance', { json: { amount: -100 } })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 400);
    assert.equal(ok.length, 5, results.map((r) => r.text).join('\n'));
    assert.equal(refused.length, 5);
    assert.ok(refused.every((r) => r.body.key === 'gift_amount_exceeded'));
    assert.equal(((await t.sdk().vouchers.get('GC-RACE')) as Json).gift.balance, 0);
  });

  test('bad adjustments are refused precisely', async () => {
    await t.sdk().vouchers.create({ code: 'DISC-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 5 } } as never);
    await giftCard('GC-3');
    const cases: Array<[string, unknown, number, string]> = [
      ['GC-3', { amount: 0 }, 400, 'invalid_amount'],
      ['GC-3', { amount: 1.5 }, 400, 'invalid_payload'],
      ['GC-3', { amount: '100' }, 400, 'invalid_payload'],
      ['GC-3', {}, 400, 'invalid_payload'],
      ['DISC-1', { amount: 100 }, 400, 'invalid_voucher'],
      ['NOPE', { amount: 100 }, 404, 'not_found'],
    ];
    for (const [code, body, status, key] of cases) {
      const res = await t.request('POST', `/v1/vouchers/${code}/balance`, { json: body });
      assert.equal(res.status, status, `${code} ${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
    }
    assert.equal(((await t.sdk().vouchers.get('GC-3')) as Json).gift.balance, 1000);
  });

  test('transactions list newest first, with cursor paging, through the SDK', async () => {
    const card = await giftCard('GC-TX', 1000);
    await t.sdk().vouchers.balance.create('GC-TX', { amount: 100, source_id: 'a' } as never);
    await t.sdk().vouchers.balance.create('GC-TX', { amount: -40, source_id: 'b' } as never);
    await t.sdk().vouchers.balance.create('GC-TX', { amount: 60, source_id: 'c' } as never);
    const first: Json = await t.sdk().vouchers.listTransactions('GC-TX', { limit: 2 } as never);
    assert.equal(first.object, 'list');
    assert.equal(first.data_ref, 'data');
    assert.deepEqual(first.data.map((x: Json) => x.source_id), ['c', 'b']);
    assert.equal(first.has_more, true);
    assert.equal(first.more_starting_after, first.data[1].id);
    const [newest, removal] = first.data;
    assert.equal(newest.type, 'CREDITS_ADDITION');
    assert.equal(newest.voucher_id, card.id);
    assert.equal(newest.campaign_id, null);
    assert.equal(newest.source, 'API');
    assert.match(newest.id, /^vtx_/);
    assert.deepEqual(newest.details.balance, { amount: 60, total: 1120, balance: 1120, type: 'gift_voucher', object: 'balance', operation_type: 'MANUAL', related_object: { id: card.id, type: 'voucher' } });
    assert.equal(removal.type, 'CREDITS_REMOVAL');
    assert.equal(removal.details.balance.amount, -40);
    const second: Json = await t.sdk().vouchers.listTransactions('GC-TX', { limit: 2, starting_after_id: first.more_starting_after } as never);
    assert.deepEqual(second.data.map((x: Json) => x.source_id), ['a']);
    assert.equal(second.has_more, false);
    assert.equal(second.more_starting_after, undefined);
    const oldestFirst = await t.request('GET', '/v1/vouchers/GC-TX/transactions?order=id');
    assert.deepEqual(oldestFirst.body.data.map((x: Json) => x.source_id), ['a', 'b', 'c']);
    const discount = await t.request('GET', '/v1/vouchers/DISC-1/transactions');
    assert.deepEqual(discount.body.data, []);
    assert.equal((await t.request('GET', '/v1/vouchers/GC-TX/transactions?limit=0')).status, 400);
    assert.equal((await t.request('GET', '/v1/vouchers/NOPE/transactions')).status, 404);
  });

  test('campaign gift cards: the transactions carry the campaign; the card holder sees the top-up as an activity', async () => {
    const camp: Json = await t.sdk().campaigns.create({ name: 'Gift cards', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2000 } } } as never);
    const pub: Json = await t.sdk().distributions.publications.create({ campaign: { name: 'Gift cards' }, customer: { source_id: 'gift-holder' } } as never);
    const code = pub.voucher.code;
    await t.sdk().vouchers.balance.create(code, { amount: 500 } as never);
    const list: Json = await t.sdk().vouchers.listTransactions(code, {} as never);
    assert.equal(list.data[0].campaign_id, camp.id);
    const [added] = await eventsOf('voucher.gift.balance_added', code);
    assert.equal(added.data.campaign.id, camp.id);
    assert.equal(added.customer_id, pub.customer_id);
    assert.equal(added.activity_type, 'customer.voucher.gift.balance_added');
  });

  test('loyalty cards are adjusted through the same endpoint, once they have a holder', async () => {
    const program: Json = await t.sdk().loyalties.create({ name: 'Points', vouchers_count: 2, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const codes = (await t.request('GET', `/v1/vouchers?campaign_id=${program.id}`)).body.vouchers.map((v: Json) => v.code);
    const unheld = await t.request('POST', `/v1/vouchers/${codes[0]}/balance`, { json: { amount: 10 } });
    assert.equal(unheld.status, 400);
    assert.match(unheld.body.details, /holder/);
    await t.sdk().distributions.publications.create({ voucher: codes[0], customer: { source_id: 'points-holder' } } as never);
    const added: Json = await t.sdk().vouchers.balance.create(codes[0], { amount: 40 } as never);
    assert.equal(added.type, 'loyalty_card');
    assert.equal(added.amount, 40);
    assert.equal(added.balance, 40);
    const tooMany = await t.request('POST', `/v1/vouchers/${codes[0]}/balance`, { json: { amount: -41 } });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.key, 'loyalty_card_points_exceeded');
    const list: Json = await t.sdk().vouchers.listTransactions(codes[0], {} as never);
    assert.equal(list.data[0].type, 'POINTS_ADDITION');
    // A standalone card has no program, so no expiry rules: its points never expire.
    await t.sdk().vouchers.create({ code: 'SOLO-CARD', type: 'LOYALTY_CARD', loyalty_card: { points: 5 } } as never);
    await t.sdk().distributions.publications.create({ voucher: 'SOLO-CARD', customer: { source_id: 'points-holder' } } as never);
    const solo: Json = await t.sdk().vouchers.balance.create('SOLO-CARD', { amount: 10 } as never);
    assert.equal(solo.balance, 15);
    const removed: Json = await t.sdk().vouchers.balance.create('SOLO-CARD', { amount: -15 } as never);
    assert.equal(removed.balance, 0);
  });

  test("another project's keys cannot adjust or read a gift card", async () => {
    await giftCard('GC-MINE', 1000);
    const keys = t.serverHeaders(other);
    assert.equal((await t.request('POST', '/v1/vouchers/GC-MINE/balance', { headers: keys, json: { amount: -1000 } })).status, 404);
    assert.equal((await t.request('GET', '/v1/vouchers/GC-MINE/transactions', { headers: keys })).status, 404);
    assert.equal(((await t.sdk().vouchers.get('GC-MINE')) as Json).gift.balance, 1000);
  });
});
