import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Points balances (loyalty reference 2.5, 2.6, 2.7, 2.8.1; DECISIONS 16): manual additions and removals
// through the SDK, expiry of added points, the transaction lists, the bucket list, member activity, and
// the ledger invariants under random sequences and concurrent spending.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('loyalty balances', () => {
  let t: TestApp;
  let other: KeyPairOut;
  let serial = 0;
  before(async () => {
    // 2 March 2026, 10:00 UTC (the default project's time zone is UTC).
    t = await startTestApp({ clockStart: '2026-03-02T10:00:00.000Z' });
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    other = created.body.server_side_key;
  });
  after(async () => t.close());

  /** A program with `count` cards, each published to a new customer; answers the program and the cards. */
  async function members(name: string, count: number, extra: Record<string, unknown> = {}, points = 0): Promise<{ program: Json; cards: Json[] }> {
    const program: Json = await t.sdk().loyalties.create({ name, vouchers_count: count, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points, ...extra } } } as never);
    const cards: Json[] = [];
    for (let i = 0; i < count; i++) cards.push(await t.sdk().loyalties.createMember(program.id, { customer: { source_id: `${name}-${i}-${serial++}` } }));
    return { program, cards };
  }

  async function cardRow(id: string): Promise<Json> {
    return t.deps.db.selectFrom('vouchers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function transactionCount(voucherId: string): Promise<number> {
    const row = await t.deps.db.selectFrom('voucher_transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('voucher_id', '=', voucherId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test('points added and removed through the SDK, with transactions and the points_added activity', async () => {
    const { program, cards } = await members('Balance basic', 1, {}, 100);
    const card = cards[0];
    const added: Json = await t.sdk().loyalties.addOrRemoveCardBalance(card.code, { points: 50, reason: 'bonus', source_id: 'src-1' });
    assert.deepEqual(added, { points: 50, total: 150, balance: 150, type: 'loyalty_card', object: 'balance', operation_type: 'MANUAL', related_object: { id: card.id, type: 'voucher' } });
    const removed: Json = await t.sdk().loyalties.addOrRemoveCardBalance(card.code, { points: -30 }, program.id);
    assert.equal(removed.points, -30);
    assert.equal(removed.balance, 120);
    assert.equal(removed.total, 120, 'removals lower the total, as the vendor examples show');
    const viaAddPoints: Json = await t.sdk().loyalties.addPoints(program.id, card.code, { points: 5 });
    assert.equal(viaAddPoints.balance, 125);

    const member: Json = await t.sdk().loyalties.getMember(program.id, card.code);
    assert.deepEqual(
      { points: member.loyalty_card.points, balance: member.loyalty_card.balance, subtracted: member.loyalty_card.subtracted_points },
      { points: 155, balance: 125, subtracted: 30 },
    );

    const list: Json = await t.sdk().loyalties.listCardTransactions(card.code, null);
    assert.equal(list.object, 'list');
    assert.equal(list.data_ref, 'data');
    assert.equal(list.has_more, false);
    assert.deepEqual(list.data.map((x: Json) => [x.type, x.details.balance.points, x.details.balance.balance]), [
      ['POINTS_ADDITION', 5, 125],
      ['POINTS_REMOVAL', -30, 120],
      ['POINTS_ADDITION', 50, 150],
    ]);
    const first = list.data[2];
    assert.match(first.id, /^vtx_/);
    assert.equal(first.reason, 'bonus');
    assert.equal(first.source_id, 'src-1');
    assert.equal(first.source, 'API');
    assert.equal(first.voucher_id, card.id);
    assert.equal(first.campaign_id, program.id);
    assert.equal(first.related_transaction_id, null);
    assert.deepEqual(await t.sdk().loyalties.listCardTransactions(card.code, program.id), list);
    // The generic voucher endpoint answers the same list (one shared list function).
    assert.deepEqual(await t.sdk().vouchers.listTransactions(card.code), list);

    const activity: Json = await t.sdk().loyalties.listMemberActivity(null, card.code, { order: '-created_at' } as never);
    assert.deepEqual(activity.data.map((a: Json) => a.type), [
      'customer.voucher.loyalty_card.points_added',
      'customer.voucher.loyalty_card.points_added',
      'customer.publication.succeeded',
    ]);
    const latest = activity.data[0];
    assert.equal(latest.data.balance.points, 5);
    assert.equal(latest.data.voucher.code, card.code);
    assert.equal(latest.data.campaign.id, program.id);
    assert.equal(latest.data.customer.id, card.holder_id);
    assert.equal(latest.data.transaction.type, 'POINTS_ADDITION');
    assert.equal(latest.data.event_source.channel, 'API');
    // The customer sees the same activity.
    const customerActivity: Json = await t.sdk().customers.listActivity(card.holder_id, { limit: 10 } as never);
    assert.ok(customerActivity.data.some((a: Json) => a.type === 'customer.voucher.loyalty_card.points_added'));
  });

  test('added points expire by the program rules, a custom date, or never; the bucket list shows them', async () => {
    // Program rules: one month, rounded to the end of that month.
    const { program, cards } = await members('Balance expiry', 1, { expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } });
    const code = cards[0].code;
    await t.sdk().loyalties.addOrRemoveCardBalance(code, { points: 10 });
    await t.sdk().loyalties.addOrRemoveCardBalance(code, { points: 20, expiration_type: 'PROGRAM_RULES' });
    await t.sdk().loyalties.addOrRemoveCardBalance(code, { points: 30, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-03-15' });
    await t.sdk().loyalties.addOrRemoveCardBalance(code, { points: 40, expiration_type: 'NON_EXPIRING' });
    await t.sdk().loyalties.addOrRemoveCardBalance(code, { points: 1, expiration_date: '2026-03-02' } as never);
    const buckets: Json = await t.sdk().loyalties.getPointsExpiration(program.id, code, { limit: 10, page: 1 });
    assert.equal(buckets.object, 'list');
    assert.equal(buckets.data_ref, 'data');
    assert.equal(buckets.total, 5);
    assert.deepEqual(buckets.data.map((b: Json) => [b.expires_at, b.bucket.total_points]), [
      ['2026-03-02', 1],
      ['2026-03-15', 30],
      ['2026-04-30', 10],
      ['2026-04-30', 20],
      [undefined, 40],
    ]);
    for (const b of buckets.data) {
      assert.match(b.id, /^lopb_/);
      assert.equal(b.object, 'loyalty_points_bucket');
      assert.equal(b.status, 'ACTIVE');
      assert.equal(b.voucher_id, cards[0].id);
      assert.equal(b.campaign_id, program.id);
    }
    const page2: Json = await t.sdk().loyalties.getPointsExpiration(program.id, code, { limit: 2, page: 2 });
    assert.deepEqual(page2.data.map((b: Json) => b.bucket.total_points), [10, 20]);
    const member: Json = await t.sdk().loyalties.getMember(null, code);
    assert.equal(member.loyalty_card.next_expiration_date, '2026-03-02');
    assert.equal(member.loyalty_card.next_expiration_points, 1);

    // Removing takes the soonest-expiring points first: 1 (2 Mar), then 30 (15 Mar), then 4 of April's.
    await t.sdk().loyalties.addOrRemoveCardBalance(code, { points: -35 });
    const after: Json = await t.sdk().loyalties.getPointsExpiration(program.id, code);
    assert.deepEqual(after.data.map((b: Json) => [b.expires_at ?? null, b.bucket.total_points]), [
      ['2026-03-02', 0],
      ['2026-03-15', 0],
      ['2026-04-30', 6],
      ['2026-04-30', 20],
      [null, 40],
    ]);
  });

  test('bad balance requests are precise 400s and change nothing', async () => {
    const { program, cards } = await members('Balance errors', 1, {}, 100);
    const code = cards[0].code;
    const before = await cardRow(cards[0].id);
    const txBefore = await transactionCount(cards[0].id);
    const path = `/v1/loyalties/${program.id}/members/${code}/balance`;
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'invalid_payload', /points/],
      [{ points: 0 }, 'invalid_payload', /must not be 0/],
      [{ points: 1.5 }, 'invalid_payload', /points/],
      [{ points: '10' }, 'invalid_payload', /points/],
      [{ points: 10, expiration_type: 'CUSTOM_DATE' }, 'invalid_payload', /expiration_date is required/],
      [{ points: 10, expiration_type: 'SOMETIMES' }, 'invalid_payload', /expiration_type/],
      [{ points: 10, expiration_date: '2026-02-30' }, 'invalid_payload', /expiration_date/],
      [{ points: 10, expiration_date: 'tomorrow' }, 'invalid_payload', /expiration_date/],
      [{ points: 10, expiration_type: 'NON_EXPIRING', expiration_date: '2026-12-31' }, 'invalid_payload', /goes with expiration_type CUSTOM_DATE/],
      [{ points: -10, expiration_type: 'NON_EXPIRING' }, 'invalid_payload', /added points only/],
      [{ points: 10, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-03-01' }, 'invalid_expiration_date', /past/],
      [{ points: -101 }, 'loyalty_card_points_exceeded', /100 points/],
    ];
    for (const [json, key, details] of cases) {
      const res = await t.request('POST', path, { json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.key, key, JSON.stringify(json));
      assert.match(res.body.details, details);
    }
    assert.deepEqual(await cardRow(cards[0].id), before, 'nothing changed');
    assert.equal(await transactionCount(cards[0].id), txBefore);

    // Points belong to members: a card nobody holds is refused.
    const spare: Json = await t.sdk().loyalties.create({ name: 'Balance errors spare', vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const unheld = await t.deps.db.selectFrom('vouchers').select('code').where('campaign_id', '=', spare.id).executeTakeFirstOrThrow();
    const refused = await t.request('POST', `/v1/loyalties/members/${unheld.code}/balance`, { json: { points: 10 } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'invalid_payload');
    assert.match(refused.body.details, /no holder/);
    const unknown = await t.request('POST', '/v1/loyalties/members/NO-SUCH-CARD/balance', { json: { points: 10 } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'voucher');
    const otherProject = await t.request('POST', path, { headers: t.serverHeaders(other), json: { points: 10 } });
    assert.equal(otherProject.status, 404);
    assert.equal((await t.request('GET', `/v1/loyalties/members/${code}/transactions`, { headers: t.serverHeaders(other) })).status, 404);
    assert.equal((await t.request('GET', `/v1/loyalties/${program.id}/members/${code}/points-expiration`, { headers: t.serverHeaders(other) })).status, 404);
    assert.equal((await t.request('GET', `/v1/loyalties/${program.id}/transactions`, { headers: t.serverHeaders(other) })).status, 404);
  });

  test('adjustments are allowed on a disabled card (a correction), and recorded', async () => {
    const { cards } = await members('Balance disabled', 1);
    await t.deps.db.updateTable('vouchers').set({ active: false }).where('id', '=', cards[0].id).execute();
    const res = await t.request('POST', `/v1/loyalties/members/${cards[0].code}/balance`, { json: { points: 7 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.balance, 7);
  });

  test('transaction lists page by id: order, cursor, has_more; the program list spans its cards', async () => {
    const { program, cards } = await members('Balance paging', 2);
    for (let i = 1; i <= 5; i++) await t.sdk().loyalties.addOrRemoveCardBalance(cards[0].code, { points: i });
    await t.sdk().loyalties.addOrRemoveCardBalance(cards[1].code, { points: 100 });
    const newest: Json = await t.sdk().loyalties.listCardTransactions(cards[0].code, null, { limit: 2 });
    assert.deepEqual(newest.data.map((x: Json) => x.details.balance.points), [5, 4]);
    assert.equal(newest.has_more, true);
    assert.equal(newest.more_starting_after, newest.data[1].id);
    const next: Json = await t.sdk().loyalties.listCardTransactions(cards[0].code, null, { limit: 2, starting_after_id: newest.more_starting_after });
    assert.deepEqual(next.data.map((x: Json) => x.details.balance.points), [3, 2]);
    const last: Json = await t.sdk().loyalties.listCardTransactions(cards[0].code, null, { limit: 2, starting_after_id: next.more_starting_after });
    assert.deepEqual(last.data.map((x: Json) => x.details.balance.points), [1]);
    assert.equal(last.has_more, false);
    assert.equal(last.more_starting_after, undefined);
    const oldest: Json = await t.sdk().loyalties.listCardTransactions(cards[0].code, program.id, { order: 'id', limit: 3 });
    assert.deepEqual(oldest.data.map((x: Json) => x.details.balance.points), [1, 2, 3]);
    const whole = await t.request('GET', `/v1/loyalties/${program.name}/transactions?limit=100`);
    assert.equal(whole.status, 200);
    assert.equal(whole.body.data.length, 6);
    assert.deepEqual(whole.body.data.map((x: Json) => x.details.balance.points), [100, 5, 4, 3, 2, 1]);
    const bad = await t.request('GET', `/v1/loyalties/${program.id}/transactions?order=created_at`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_query_params');
  });

  test('member activity pages with a cursor; the deprecated list answers a total', async () => {
    const { program, cards } = await members('Balance activity', 1);
    for (let i = 1; i <= 3; i++) await t.sdk().loyalties.addOrRemoveCardBalance(cards[0].code, { points: i });
    const page: Json = await t.sdk().loyalties.listMemberActivity(program.id, cards[0].code, { limit: 2 });
    assert.equal(page.has_more, true);
    assert.deepEqual(page.data.map((a: Json) => a.data.balance.points), [3, 2]);
    const rest: Json = await t.sdk().loyalties.listMemberActivity(program.id, cards[0].code, { limit: 2, starting_after_id: page.more_starting_after });
    assert.deepEqual(rest.data.map((a: Json) => a.type), ['customer.voucher.loyalty_card.points_added', 'customer.publication.succeeded']);
    assert.equal(rest.has_more, false);
    const ascending: Json = await t.sdk().loyalties.listMemberActivity(null, cards[0].code, { order: 'created_at', limit: 1 });
    assert.equal(ascending.data[0].type, 'customer.publication.succeeded');
    const old: Json = await t.sdk().loyalties.getMemberActivities(null, cards[0].code);
    assert.equal(old.data_ref, 'activities');
    assert.equal(old.total, 4);
    assert.equal(old.activities.length, 4);
    assert.equal(old.activities[0].object, 'event');
    const withCampaign = await t.request('GET', `/v1/loyalties/${program.id}/members/${cards[0].code}/activities`);
    assert.equal(withCampaign.body.total, 4);
    const badCursor = await t.request('GET', `/v1/loyalties/members/${cards[0].code}/activity?starting_after_id=evcus_nope`);
    assert.equal(badCursor.status, 400);
    assert.equal(badCursor.body.key, 'invalid_query_params');
  });

  test('random additions, removals and transfers keep Σ ledger = Σ balances and no balance below zero (property test)', async () => {
    const a = await members('Balance property A', 3, {}, 20);
    const b = await members('Balance property B', 2, { expiration_rules: { period_type: 'MONTH', period_value: 0 } }, 0);
    const cards = [...a.cards, ...b.cards];
    const programOf = (card: Json) => (a.cards.includes(card) ? a.program : b.program);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const outcomes = new Map<string, number>();
    for (let step = 0; step < 120; step++) {
      const card = cards[rand(cards.length)];
      const points = 1 + rand(60);
      let res;
      switch (rand(3)) {
        case 0:
          res = await t.request('POST', `/v1/loyalties/members/${card.code}/balance`, { json: { points } });
          break;
        case 1:
          res = await t.request('POST', `/v1/loyalties/${programOf(card).id}/members/${card.code}/balance`, { json: { points: -points } });
          break;
        default: {
          const donors = [cards[rand(cards.length)], cards[rand(cards.length)]].filter((d) => d.id !== card.id);
          if (donors.length === 0) continue;
          res = await t.request('POST', `/v1/loyalties/${programOf(card).id}/members/${card.code}/transfers`, {
            json: donors.map((d) => ({ code: d.code, points: 1 + rand(40), source_id: `tr-${step}` })),
          });
        }
      }
      assert.ok(res.status === 200 || (res.status === 400 && res.body.key === 'loyalty_card_points_exceeded'), `step ${step}: ${res.status} ${res.text}`);
      outcomes.set(String(res.status), (outcomes.get(String(res.status)) ?? 0) + 1);
      // Move the clock a day now and then, so zero-month buckets of program B expire as the sequence runs.
      if (rand(10) === 0) {
        t.clock.advance(24 * 3600_000);
        await t.worker.runPeriodic({ force: true });
      }
    }
    assert.ok((outcomes.get('200') ?? 0) > 30 && (outcomes.get('400') ?? 0) > 5, `both outcomes happened: ${JSON.stringify([...outcomes])}`);
    let ledger = 0;
    let balances = 0;
    for (const card of cards) {
      const row = await cardRow(card.id);
      const balance = Number(row.loyalty_balance);
      assert.ok(balance >= 0);
      assert.equal(balance, Number(row.loyalty_points) - Number(row.loyalty_expired_points) - Number(row.loyalty_subtracted_points) - Number(row.redeemed_points));
      const txs = await t.deps.db.selectFrom('voucher_transactions').select(['amount', 'balance_after']).where('voucher_id', '=', card.id).orderBy('id').execute();
      const sum = txs.reduce((s, x) => s + Number(x.amount), 0);
      const starting = a.cards.includes(card) ? 20 : 0;
      assert.equal(starting + sum, balance, `card ${card.code}: its ledger explains its balance`);
      if (txs.length > 0) assert.equal(Number(txs.at(-1)?.balance_after), balance);
      const held = await t.deps.db.selectFrom('loyalty_buckets').select('points').where('voucher_id', '=', card.id).where('status', '=', 'ACTIVE').execute();
      assert.ok(held.reduce((s, x) => s + Number(x.points), 0) <= balance, 'buckets never hold more than the balance');
      ledger += starting + sum;
      balances += balance;
    }
    assert.equal(ledger, balances);
    // Transfers never create or destroy points: every OUT has its IN, for the same amount.
    const transfers = await t.deps.db.selectFrom('voucher_transactions').selectAll().where('type', 'in', ['POINTS_TRANSFER_OUT', 'POINTS_TRANSFER_IN']).execute();
    const byId = new Map(transfers.map((x) => [x.id, x]));
    for (const x of transfers) {
      const partner = byId.get(x.related_transaction_id ?? '');
      assert.ok(partner, `transaction ${x.id} has its partner`);
      assert.equal(Number(partner.amount), -Number(x.amount));
    }
  });

  test('50 concurrent removals against one card never overspend', async () => {
    const { program, cards } = await members('Balance race', 1, {}, 1000);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.request('POST', `/v1/loyalties/${program.id}/members/${cards[0].code}/balance`, { json: { points: -30, source_id: `race-${i}` } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.key, 'loyalty_card_points_exceeded');
    }
    assert.equal(ok.length, 33, '1000 / 30 = 33 removals fit');
    assert.deepEqual(ok.map((r) => r.body.balance).sort((x, y) => x - y), Array.from({ length: 33 }, (_, i) => 10 + 30 * i), 'each answer saw its own balance');
    const row = await cardRow(cards[0].id);
    assert.equal(Number(row.loyalty_balance), 10);
    assert.equal(await transactionCount(cards[0].id), 33);
  });
});
