import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';

// Redemptions under concurrency and session locks (ARCHITECTURE "Concurrency rules"; promotions
// reference 6.10): a voucher with quantity N redeemed by 30 concurrent requests succeeds exactly N
// times, a gift card spent concurrently never goes below zero, sessions reserve uses, credits and points
// and release them, and one order is processed by one request at a time (no lost discount).

describe('redemption concurrency and sessions', () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  before(async () => {
    t = await startTestApp();
    f = fixtures(t);
  });
  after(async () => t.close());

  const redeem = (body: Record<string, unknown>) => t.request('POST', '/v1/redemptions', { json: body });
  const validate = (body: Record<string, unknown>) => t.request('POST', '/v1/validations', { json: body });

  test('quantity 10, 100 concurrent redemptions: exactly 10 succeed, the rest fail with quantity_exceeded', async () => {
    const v = await f.amountVoucher(100, { redemption: { quantity: 10 } });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => redeem({ redeemables: [{ object: 'voucher', id: v.code }], order: { amount: 1000 }, customer: { source_id: `racer-${i}` } })),
    );
    const ok = results.filter((r) => r.status === 200);
    const failed = results.filter((r) => r.status !== 200);
    assert.equal(ok.length, 10, results.map((r) => r.status).join(','));
    for (const r of failed) {
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.key, 'quantity_exceeded');
    }
    const state = await f.voucherState(v.code);
    assert.equal(state.redemption.redeemed_quantity, 10);
    const list: Json = await t.sdk().redemptions.list({ limit: 100, page: 1 } as never);
    const mine = list.redemptions.filter((r: Json) => r.voucher?.code === v.code);
    assert.equal(mine.filter((e: Json) => e.result === 'SUCCESS').length, 10);
    assert.equal(mine.filter((e: Json) => e.result === 'FAILURE').length, 90);
  });

  test('a gift card spent by 20 concurrent requests never goes below zero', async () => {
    const gift = await f.giftCard(1000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => redeem({ redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 150 } }], order: { amount: 1000 } })),
    );
    const ok = results.filter((r) => r.status === 200).length;
    assert.equal(ok, 6, results.map((r) => `${r.status}:${r.body?.key ?? ''}`).join(','));
    for (const r of results.filter((x) => x.status !== 200)) assert.equal(r.body.key, 'gift_amount_exceeded');
    const state = await f.voucherState(gift.code);
    assert.equal(state.gift.balance, 100);
    assert.equal(state.redemption.redeemed_amount, 900);
  });

  test('one order at a time: 10 concurrent redemptions on one order add up without a lost update', async () => {
    const vouchers = await Promise.all(Array.from({ length: 10 }, () => f.amountVoucher(100)));
    const sourceId = f.unique('shared-order');
    await f.ok('POST', '/v1/orders', { source_id: sourceId, amount: 5000 });
    const results = await Promise.all(vouchers.map((v) => redeem({ redeemables: [{ object: 'voucher', id: v.code }], order: { source_id: sourceId } })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const order: Json = await t.sdk().orders.get(sourceId);
    assert.equal(order.discount_amount, 1000);
    assert.equal(order.total_amount, 4000);
    assert.equal(Object.keys(order.redemptions).length, 10);
    assert.deepEqual(results.map((r) => r.body.order.applied_discount_amount), Array(10).fill(100));
  });

  test('concurrent rollbacks of one redemption: exactly one restores, the others are already_rolled_back', async () => {
    const gift = await f.giftCard(1000);
    const res = await redeem({ redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 400 } }], order: { amount: 1000 } });
    const id = res.body.redemptions[0].id;
    const results = await Promise.all(Array.from({ length: 6 }, () => t.request('POST', `/v1/redemptions/${id}/rollback`, { json: {} })));
    assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join(','));
    for (const r of results.filter((x) => x.status !== 200)) assert.equal(r.body.key, 'already_rolled_back');
    const state = await f.voucherState(gift.code);
    assert.equal(state.gift.balance, 1000, 'the credits came back once');
    assert.equal(state.redemption.redeemed_quantity, 0);
  });

  describe('session locks', () => {
    test('LOCK sessions reserve uses; a redemption with the key uses its reservation; release by DELETE; expiry', async () => {
      const v = await f.amountVoucher(100, { redemption: { quantity: 2 } });
      const body = (session?: Record<string, unknown>) => ({ redeemables: [{ object: 'voucher', id: v.code }], order: { amount: 1000 }, ...(session ? { session } : {}) });
      const a: Json = await t.sdk().validations.validateStackable(body({ type: 'LOCK' }) as never);
      assert.equal(a.valid, true);
      assert.match(a.session.key, /^ssn_/);
      assert.deepEqual([a.session.type, a.session.ttl, a.session.ttl_unit], ['LOCK', 7, 'DAYS']);
      const b: Json = await t.sdk().validations.validateStackable(body({ type: 'LOCK', key: 'my-session-b', ttl: 1, ttl_unit: 'HOURS' }) as never);
      assert.equal(b.valid, true);
      assert.equal(b.session.key, 'my-session-b');
      const c = (await validate(body({ type: 'LOCK' }))).body;
      assert.equal(c.valid, false);
      assert.equal(c.redeemables[0].result.error.key, 'quantity_exceeded');
      // Without a session, the two reservations count against the quantity too.
      const plain = await redeem(body());
      assert.equal(plain.status, 400);
      assert.equal(plain.body.key, 'quantity_exceeded');
      // Repeating session A's validation keeps one reservation, not two.
      assert.equal((await validate(body({ type: 'LOCK', key: a.session.key }))).body.valid, true);

      const used = await redeem(body({ key: a.session.key }));
      assert.equal(used.status, 200, used.text);
      assert.equal(used.body.redemptions[0].session.key, a.session.key);
      assert.equal((await f.voucherState(v.code)).redemption.redeemed_quantity, 1);
      // A's lock is released; B still holds the second use.
      assert.equal((await redeem(body())).body.key, 'quantity_exceeded');

      await t.sdk().vouchers.releaseValidationSession(v.code, 'my-session-b');
      const released = await t.request('DELETE', `/v1/vouchers/${v.code}/sessions/my-session-b`);
      assert.equal(released.status, 404, 'an unknown (already released) session is 404');
      const d: Json = await t.sdk().validations.validateStackable(body({ type: 'LOCK', key: 'session-d', ttl: 30, ttl_unit: 'MINUTES' }) as never);
      assert.equal(d.valid, true);
      assert.equal((await redeem(body())).body.key, 'quantity_exceeded', "session D's reservation holds");
      t.clock.advance(31 * 60_000);
      assert.equal(await f.count('redemption_locks') > 0, true);
      await t.worker.runPeriodic({ force: true });
      assert.equal(await f.count('redemption_locks'), 0, 'the periodic purge deleted the expired lock');
      const last = await redeem(body());
      assert.equal(last.status, 200, 'an expired session no longer reserves');
      assert.equal((await f.voucherState(v.code)).redemption.redeemed_quantity, 2);
    });

    test('sessions reserve gift credits and loyalty points', async () => {
      const gift = await f.giftCard(1000);
      const g1 = (await validate({ redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 600 } }], order: { amount: 5000 }, session: { type: 'LOCK' } })).body;
      assert.equal(g1.valid, true);
      const g2 = (await validate({ redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 500 } }], order: { amount: 5000 } })).body;
      assert.equal(g2.valid, false);
      assert.equal(g2.redeemables[0].result.error.key, 'gift_amount_exceeded');
      const g3 = (await validate({ redeemables: [{ object: 'voucher', id: gift.code }], order: { amount: 5000 } })).body;
      assert.deepEqual(g3.redeemables[0].result, { gift: { balance: 400, credits: 400 } }, 'only what no session holds is available');
      const spent = await redeem({ redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: 600 } }], order: { amount: 5000 }, session: { key: g1.session.key } });
      assert.equal(spent.status, 200, spent.text);
      assert.equal((await f.voucherState(gift.code)).gift.balance, 400);

      const { card, reward, customer } = await f.payWithPoints(1000);
      const reserve = (points: number, session?: Record<string, unknown>) =>
        validate({ redeemables: [{ object: 'voucher', id: card.code, reward: { id: reward.id, points } }], order: { amount: 100000 }, customer: { id: customer.id }, ...(session ? { session } : {}) });
      assert.equal((await reserve(700, { type: 'LOCK' })).body.valid, true);
      const over = (await reserve(400)).body;
      assert.equal(over.valid, false);
      assert.equal(over.redeemables[0].result.error.key, 'loyalty_card_points_exceeded');
      assert.equal((await reserve(300)).body.valid, true);
    });

    test('concurrent LOCK validations never reserve more uses than the quantity', async () => {
      const v = await f.amountVoucher(100, { redemption: { quantity: 3 } });
      const results = await Promise.all(
        Array.from({ length: 12 }, () => validate({ redeemables: [{ object: 'voucher', id: v.code }], order: { amount: 1000 }, session: { type: 'LOCK' } })),
      );
      assert.equal(results.filter((r) => r.body.valid === true).length, 3, results.map((r) => r.text.slice(0, 80)).join('\n'));
    });
  });
});
