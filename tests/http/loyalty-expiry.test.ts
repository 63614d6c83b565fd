import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction, type Actor } from '../../src/services/context.ts';
import { addPendingPoints } from '../../src/services/loyalty/pending-points.ts';
import { runLoyaltySchedule } from '../../src/services/loyalty/points-schedule.ts';
import { findLiveVoucherByCode } from '../../src/store/vouchers.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Points expiry and pending points (loyalty reference 2.8, 2.9): the worker's periodic run, driven by the
// injected clock, expires buckets exactly when the project's day ends, and activates pending points from
// the start of their day; the pending-points endpoints list, activate, adjust and cancel entries.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('loyalty points expiry and pending points', () => {
  let t: TestApp;
  let warsaw: KeyPairOut;
  let warsawProjectId: string;
  let serial = 0;
  before(async () => {
    t = await startTestApp({ clockStart: '2026-04-20T10:00:00.000Z' });
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Warsaw shop', case_sensitive_codes: true, timezone: 'Europe/Warsaw', currency: 'PLN' },
    });
    assert.equal(created.status, 200, created.text);
    warsaw = created.body.server_side_key;
    warsawProjectId = created.body.id;
  });
  after(async () => t.close());

  async function member(keys: KeyPairOut | undefined, name: string, extra: Record<string, unknown> = {}): Promise<{ program: Json; card: Json }> {
    const sdk = t.sdk(keys);
    const program: Json = await sdk.loyalties.create({ name, vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, ...extra } } } as never);
    const card: Json = await sdk.loyalties.createMember(program.id, { customer: { source_id: `${name}-${serial++}` } });
    return { program, card };
  }

  test('a bucket is usable all of its last day and gone at midnight in the project time zone', async () => {
    t.clock.set('2026-04-20T10:00:00.000Z');
    const local = await member(warsaw, 'Expiry Warsaw');
    const utc = await member(undefined, 'Expiry UTC');
    for (const [keys, { card }] of [[warsaw, local], [undefined, utc]] as const) {
      await t.sdk(keys).loyalties.addOrRemoveCardBalance(card.code, { points: 70, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-04-30' });
      await t.sdk(keys).loyalties.addOrRemoveCardBalance(card.code, { points: 5, expiration_type: 'NON_EXPIRING' });
    }
    const balance = async (keys: KeyPairOut | undefined, code: string): Promise<Json> => (await t.sdk(keys).loyalties.getMember(null, code)).loyalty_card;

    // 23:59:59 on 30 April in Warsaw (UTC+2): the last second the points can be used there.
    t.clock.set('2026-04-30T21:59:59.000Z');
    await t.worker.runPeriodic({ force: true });
    assert.equal((await balance(warsaw, local.card.code)).balance, 75);
    const stillListed: Json = await t.sdk(warsaw).loyalties.getPointsExpiration(local.program.id, local.card.code);
    assert.deepEqual(stillListed.data.map((b: Json) => b.expires_at ?? null), ['2026-04-30', null]);

    // Midnight in Warsaw: gone there, while in the UTC project it is still 30 April.
    t.clock.set('2026-04-30T22:00:00.000Z');
    await t.worker.runPeriodic({ force: true });
    const expired = await balance(warsaw, local.card.code);
    assert.equal(expired.balance, 5);
    assert.equal(expired.expired_points, 70);
    assert.equal(expired.points, 75);
    assert.equal(expired.next_expiration_date, undefined);
    assert.equal((await balance(undefined, utc.card.code)).balance, 75);
    const listed: Json = await t.sdk(warsaw).loyalties.getPointsExpiration(local.program.id, local.card.code);
    assert.deepEqual(listed.data.map((b: Json) => b.expires_at ?? null), [null], 'only usable buckets are listed');
    const [expiry] = (await t.sdk(warsaw).loyalties.listCardTransactions(local.card.code, null)).data as Json[];
    assert.equal(expiry.type, 'POINTS_EXPIRATION');
    assert.equal(expiry.details.balance.points, -70);
    assert.equal(expiry.details.balance.operation_type, 'AUTOMATIC');
    assert.equal(expiry.source, 'Automation');
    const activity: Json = await t.sdk(warsaw).loyalties.listMemberActivity(null, local.card.code, { limit: 1 });
    assert.equal(activity.data[0].type, 'customer.voucher.loyalty_card.points_expired');
    assert.equal(activity.data[0].data.points, 70);
    assert.deepEqual(activity.data[0].data.buckets.map((b: Json) => [b.expires_at, b.points]), [['2026-04-30', 70]]);

    // The UTC project's day ends two hours later.
    t.clock.set('2026-04-30T23:59:59.000Z');
    await t.worker.runPeriodic({ force: true });
    assert.equal((await balance(undefined, utc.card.code)).balance, 75);
    t.clock.set('2026-05-01T00:00:00.000Z');
    await t.worker.runPeriodic({ force: true });
    assert.equal((await balance(undefined, utc.card.code)).balance, 5);

    // Running again changes nothing: nothing is due twice.
    await t.worker.runPeriodic({ force: true });
    assert.equal((await balance(undefined, utc.card.code)).expired_points, 70);
    const expiries = await t.deps.db.selectFrom('voucher_transactions').select('id').where('voucher_id', '=', utc.card.id).where('type', '=', 'POINTS_EXPIRATION').execute();
    assert.equal(expiries.length, 1);
  });

  test('the periodic task runs on its own schedule by the injected clock', async () => {
    t.clock.set('2026-06-01T08:00:00.000Z');
    const { card } = await member(undefined, 'Expiry schedule');
    await t.sdk().loyalties.addOrRemoveCardBalance(card.code, { points: 9, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-06-01' });
    const expiredPoints = async () =>
      Number((await t.deps.db.selectFrom('vouchers').select('loyalty_expired_points').where('id', '=', card.id).executeTakeFirstOrThrow()).loyalty_expired_points);
    // Its last run was a month of clock time ago, so it is due: it runs, and nothing is due yet.
    t.clock.set('2026-06-01T23:59:30.000Z');
    await t.worker.runPeriodic();
    assert.equal(await expiredPoints(), 0);
    // Past midnight, but less than a minute of clock time since that run: the task is not due.
    t.clock.set('2026-06-02T00:00:05.000Z');
    await t.worker.runPeriodic();
    assert.equal(await expiredPoints(), 0);
    // A minute after the last run it comes round and expires the bucket.
    t.clock.advance(60_000);
    await t.worker.runPeriodic();
    assert.equal(await expiredPoints(), 9);
  });

  test('program rules set the expiry of added points, and the run expires them when due', async () => {
    t.clock.set('2026-01-31T12:00:00.000Z');
    const { program, card } = await member(undefined, 'Expiry rules', { expiration_rules: { period_type: 'MONTH', period_value: 1 } });
    await t.sdk().loyalties.addOrRemoveCardBalance(card.code, { points: 12 });
    const [bucket] = (await t.sdk().loyalties.getPointsExpiration(program.id, card.code)).data as Json[];
    assert.equal(bucket.expires_at, '2026-02-28', '31 Jan + 1 month clamps to 28 Feb');
    t.clock.set('2026-03-01T00:00:01.000Z');
    await t.worker.runPeriodic({ force: true });
    const after: Json = await t.sdk().loyalties.getMember(program.id, card.code);
    assert.equal(after.loyalty_card.expired_points, 12);
  });

  test('two runs at once expire a card once', async () => {
    t.clock.set('2026-07-01T10:00:00.000Z');
    const cards: Json[] = [];
    for (let i = 0; i < 5; i++) {
      const { card } = await member(undefined, `Expiry twice ${i}`);
      // Never-expiring points too, so a second expiry could not hide behind an empty balance.
      await t.sdk().loyalties.addOrRemoveCardBalance(card.code, { points: 50, expiration_type: 'NON_EXPIRING' });
      await t.sdk().loyalties.addOrRemoveCardBalance(card.code, { points: 30, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-07-01' });
      cards.push(card);
    }
    t.clock.set('2026-07-02T00:00:00.000Z');
    await Promise.all([runLoyaltySchedule(t.deps), runLoyaltySchedule(t.deps), runLoyaltySchedule(t.deps)]);
    for (const card of cards) {
      const row = await t.deps.db.selectFrom('vouchers').selectAll().where('id', '=', card.id).executeTakeFirstOrThrow();
      assert.equal(Number(row.loyalty_balance), 50);
      assert.equal(Number(row.loyalty_expired_points), 30);
      const expiries = await t.deps.db.selectFrom('voucher_transactions').select('id').where('voucher_id', '=', card.id).where('type', '=', 'POINTS_EXPIRATION').execute();
      assert.equal(expiries.length, 1);
    }
  });

  describe('pending points', () => {
    const actorFor = (projectId: string): Actor => ({ projectId, requestId: 'v-earning-rule', source: { channel: 'INTERNAL' } });

    async function pending(projectId: string, code: string, points: number, activatesAt: string, order = 'ord_1'): Promise<Json> {
      return inTransaction(t.deps, async (tx) => {
        const card = await findLiveVoucherByCode(tx, projectId, code);
        assert.ok(card);
        return addPendingPoints(tx, t.deps, actorFor(projectId), card, {
          points,
          activates_at: activatesAt,
          details: { order: { id: order, source_id: `src-${order}` }, event: { id: 'evcus_1', type: 'customer.order.paid' }, earning_rule: { id: 'ern_1', source: { banner: 'Order paid' } } },
        });
      });
    }

    test('entries are listed, adjusted, canceled and activated by hand, with state errors', async () => {
      t.clock.set('2026-08-10T09:00:00.000Z');
      const { program, card } = await member(undefined, 'Pending manual');
      const first = await pending(t.projectId, card.code, 40, '2026-08-20', 'ord_a');
      const second = await pending(t.projectId, card.code, 15, '2026-08-25', 'ord_b');
      assert.match(first.id, /^lopp_/);
      assert.equal(first.customer_id, card.holder_id);
      assert.equal(first.order_id, 'ord_a');
      const member1: Json = await t.sdk().loyalties.getMember(null, card.code);
      assert.equal(member1.loyalty_card.pending_points, 55);
      assert.equal(member1.loyalty_card.balance, 0, 'pending points are not spendable');

      const byCard = await t.request('GET', `/v1/loyalties/members/${card.code}/pending-points`);
      assert.equal(byCard.status, 200);
      assert.deepEqual(byCard.body.data.map((e: Json) => e.id), [second.id, first.id], 'newest first');
      assert.equal(byCard.body.data[1].details.order.id, 'ord_a');
      const inProgram = await t.request('GET', `/v1/loyalties/${program.id}/members/${card.code}/pending-points?order=id&limit=1`);
      assert.deepEqual(inProgram.body.data.map((e: Json) => e.id), [first.id]);
      assert.equal(inProgram.body.has_more, true);
      const rest = await t.request('GET', `/v1/loyalties/${program.id}/pending-points?order=id&starting_after_id=${inProgram.body.more_starting_after}`);
      assert.deepEqual(rest.body.data.map((e: Json) => e.id), [second.id]);
      assert.equal(rest.body.has_more, false);

      const base = `/v1/loyalties/members/${card.code}/pending-points`;
      const raised = await t.request('POST', `${base}/${first.id}/balance`, { json: { points: 10 } });
      assert.deepEqual(raised.body, { points: 10, total: 65, object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' });
      const tooLow = await t.request('POST', `${base}/${first.id}/balance`, { json: { points: -50 } });
      assert.equal(tooLow.status, 400);
      assert.equal(tooLow.body.key, 'invalid_amount');
      assert.match(tooLow.body.details, /valid positive number/);

      const canceled = await t.request('POST', `${base}/${second.id}/cancel`, { json: {} });
      assert.equal(canceled.status, 204);
      const afterCancel: Json = await t.sdk().loyalties.getMember(null, card.code);
      assert.equal(afterCancel.loyalty_card.pending_points, 50);
      for (const action of ['activate', 'cancel'] as const) {
        const again = await t.request('POST', `${base}/${second.id}/${action}`, { json: {} });
        assert.equal(again.status, 400);
        assert.equal(again.body.key, 'invalid_pending_points_state');
        assert.match(again.body.details, new RegExp(`can be ${action === 'activate' ? 'activated' : 'canceled'}. Current status: 'CANCELED'`));
      }
      const adjustCanceled = await t.request('POST', `${base}/${second.id}/balance`, { json: { points: 1 } });
      assert.equal(adjustCanceled.body.key, 'invalid_pending_points_state');
      assert.match(adjustCanceled.body.details, /can be updated/);

      const activated = await t.request('POST', `${base}/${first.id}/activate`, { json: {} });
      assert.equal(activated.status, 200);
      assert.deepEqual(activated.body, { points: 50, total: 50, balance: 50, type: 'loyalty_card', object: 'balance', operation_type: 'MANUAL', related_object: { id: card.id, type: 'voucher' } });
      const after1: Json = await t.sdk().loyalties.getMember(null, card.code);
      assert.equal(after1.loyalty_card.pending_points, 0);
      assert.equal(after1.loyalty_card.balance, 50);
      const [tx] = (await t.sdk().loyalties.listCardTransactions(card.code, null)).data as Json[];
      assert.equal(tx.type, 'PENDING_POINTS_ACTIVATION');
      assert.equal(tx.details.pending_points.id, first.id);
      assert.equal(tx.details.order.id, 'ord_a');
      const twice = await t.request('POST', `${base}/${first.id}/activate`, { json: {} });
      assert.equal(twice.body.key, 'invalid_pending_points_state');
      assert.match(twice.body.details, /Current status: 'ACTIVATED'/);
      assert.equal((await t.request('GET', base)).body.data.length, 0, 'activated and canceled entries leave the list');

      const types = (await t.sdk().loyalties.listMemberActivity(null, card.code, { limit: 10 })).data.map((a: Json) => a.type);
      for (const kind of ['added', 'updated', 'canceled', 'activated']) assert.ok(types.includes(`customer.voucher.loyalty_card.pending_points.${kind}`), kind);

      const missing = await t.request('POST', `${base}/lopp_missing/activate`, { json: {} });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.resource_type, 'pending_points');
      const otherCard = await member(undefined, 'Pending other card');
      const third = await pending(t.projectId, card.code, 5, '2026-09-01');
      const wrongCard = await t.request('POST', `/v1/loyalties/members/${otherCard.card.code}/pending-points/${third.id}/cancel`, { json: {} });
      assert.equal(wrongCard.status, 404, 'an entry is reached only through its own card');
      const zero = await t.request('POST', `${base}/${third.id}/balance`, { json: { points: 0 } });
      assert.equal(zero.body.key, 'invalid_amount');
      const foreign = await t.request('GET', `/v1/loyalties/${program.id}/pending-points`, { headers: t.serverHeaders(warsaw) });
      assert.equal(foreign.status, 404);
    });

    test('the run activates entries from the start of their day in the project time zone, with expiry from then', async () => {
      t.clock.set('2026-09-10T09:00:00.000Z');
      const { program, card } = await member(warsaw, 'Pending scheduled', { expiration_rules: { period_type: 'MONTH', period_value: 2 } });
      const entry = await pending(warsawProjectId, card.code, 25, '2026-09-15');
      // 23:59 on 14 September in Warsaw: not yet.
      t.clock.set('2026-09-14T21:59:00.000Z');
      await t.worker.runPeriodic({ force: true });
      const waiting: Json = await t.sdk(warsaw).loyalties.getMember(null, card.code);
      assert.equal(waiting.loyalty_card.pending_points, 25);
      // Midnight in Warsaw: activated, and the points last two months from the activation day.
      t.clock.set('2026-09-14T22:00:00.000Z');
      await t.worker.runPeriodic({ force: true });
      const after: Json = await t.sdk(warsaw).loyalties.getMember(program.id, card.code);
      assert.equal(after.loyalty_card.pending_points, 0);
      assert.equal(after.loyalty_card.balance, 25);
      assert.equal(after.loyalty_card.next_expiration_date, '2026-11-15');
      const [tx] = (await t.sdk(warsaw).loyalties.listCardTransactions(card.code, null)).data as Json[];
      assert.equal(tx.type, 'PENDING_POINTS_ACTIVATION');
      assert.equal(tx.source, 'Automation');
      assert.equal(tx.details.pending_points.id, entry.id);
      const listed = await t.request('GET', `/v1/loyalties/members/${card.code}/pending-points`, { headers: t.serverHeaders(warsaw) });
      assert.equal(listed.body.data.length, 0);
    });
  });
});
