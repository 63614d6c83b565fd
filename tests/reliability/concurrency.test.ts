import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Api, HttpClient, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import type { DbHandle } from '../../src/store/db.ts';
import { assignReward, coinReward, discountVoucher, giftCard, loyaltyProgram, materialReward, member, type Member } from './helpers/api-builders.ts';
import { findViolations } from './helpers/invariants.ts';
import { successesRefusedOnlyBy, tally } from './helpers/outcomes.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { sized, testTimeout } from './helpers/scale.ts';

// Concurrency attacks (issue 7; ARCHITECTURE "Concurrency rules"): many requests at once against one
// limited voucher, one gift card, one loyalty card, one reward's stock — on one server per database, and
// with two server processes sharing one PostgreSQL database, where no in-process lock can help. Each
// attack knows the exact number of successes a correct server gives, and every refusal must be the
// business refusal (never a 5xx or a deadlock). Afterwards the ledger must explain every balance.

const dialect = reliabilityDialect();

interface Setup {
  name: string;
  servers: number;
}

const setups: Setup[] = [
  { name: `one server on ${dialect}`, servers: 1 },
  { name: 'two server processes on one PostgreSQL database', servers: 2 },
];

for (const setup of setups) {
  const skip = setup.servers > 1 && dialect !== 'postgres' ? 'several processes share a database only on PostgreSQL (run with PUNCHCARD_TEST_DB=postgres)' : false;
  describe(`concurrency attacks: ${setup.name}`, { skip, timeout: testTimeout() }, () => {
    let database: ThrowawayDatabase;
    let direct: DbHandle;
    const servers: ServerProcess[] = [];
    const clients: HttpClient[] = [];
    let api: Api;
    const startingBalances = new Map<string, number>();
    const rewardStock = new Map<string, number>();

    before(async () => {
      database = await createRunDatabase('concurrency');
      // One after the other: the first start migrates the fresh database.
      for (let i = 0; i < setup.servers; i++) servers.push(await ServerProcess.start({ databaseUrl: database.url }));
      for (const server of servers) clients.push(new HttpClient(server.url, { maxSockets: 256 }));
      api = new Api(clients[0] as HttpClient);
      direct = database.open();
    });

    after(async () => {
      for (const client of clients) client.close();
      for (const server of servers) await server.stop();
      await direct?.close();
      await database?.drop();
    });

    /** Sends all requests at once, spread round-robin over the server processes. */
    function storm(count: number, build: (i: number) => { method: string; path: string; json: unknown }): Promise<HttpResponse[]> {
      return Promise.all(
        Array.from({ length: count }, (_, i) => {
          const { method, path, json } = build(i);
          const client = clients[i % clients.length] as HttpClient;
          return client.json(method, path, serverHeaders(), json);
        }),
      );
    }

    async function voucherRow(id: string) {
      return direct.db.selectFrom('vouchers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }

    test('a voucher with redemption.quantity N redeemed by many concurrent requests succeeds exactly N times', async () => {
      const quantity = sized({ full: 10, ci: 5 });
      const attempts = sized({ full: 150, ci: 40 });
      const voucher = await discountVoucher(api, quantity);
      const results = await storm(attempts, (i) => ({
        method: 'POST',
        path: '/v1/redemptions',
        json: { redeemables: [{ object: 'voucher', id: voucher.code }], order: { amount: 1000 }, customer: { source_id: `racer-${i}` } },
      }));
      assert.equal(successesRefusedOnlyBy(results, ['quantity_exceeded']), quantity, tally(results));
      const row = await voucherRow(voucher.id);
      assert.equal(Number(row.redeemed_quantity), quantity);
      const records = await direct.db.selectFrom('redemptions').select(['result']).where('voucher_id', '=', voucher.id).execute();
      assert.equal(records.filter((r) => r.result === 'SUCCESS').length, quantity, 'one SUCCESS record per use');
      assert.equal(records.filter((r) => r.result === 'FAILURE').length, attempts - quantity, 'every refusal is recorded (DECISIONS 10)');
    });

    test('a gift card spent at once through redemptions and balance removals never goes below zero', async () => {
      const credits = 10_000;
      const spend = 300;
      const attempts = sized({ full: 160, ci: 60 });
      const card = await giftCard(api, credits);
      startingBalances.set(card.id, credits);
      const results = await storm(attempts, (i) =>
        i % 2 === 0
          ? { method: 'POST', path: '/v1/redemptions', json: { redeemables: [{ object: 'voucher', id: card.code, gift: { credits: spend } }], order: { amount: 1000 } } }
          : { method: 'POST', path: `/v1/vouchers/${card.code}/balance`, json: { amount: -spend, source_id: `removal-${i}` } },
      );
      const expected = Math.floor(credits / spend);
      assert.equal(successesRefusedOnlyBy(results, ['gift_amount_exceeded']), expected, tally(results));
      const redeemedOk = results.filter((r, i) => i % 2 === 0 && r.status === 200).length;
      const removedOk = expected - redeemedOk;
      const row = await voucherRow(card.id);
      assert.equal(Number(row.gift_balance), credits - expected * spend);
      assert.equal(Number(row.redeemed_amount), redeemedOk * spend);
      assert.equal(Number(row.gift_subtracted_amount), removedOk * spend);
      const ledger = await direct.db.selectFrom('voucher_transactions').select(['amount']).where('voucher_id', '=', card.id).execute();
      assert.equal(ledger.length, expected, 'one transaction per success, none for a refusal');
      assert.equal(credits + ledger.reduce((s, x) => s + Number(x.amount), 0), Number(row.gift_balance), 'the ledger sums to the balance');
    });

    test('one loyalty card drained at once by removals, reward redemptions, pay-with-points and transfers: exact count, no overdraft', async () => {
      const points = sized({ full: 2000, ci: 600 });
      const price = 10;
      const attempts = sized({ full: 320, ci: 100 });
      const program = await loyaltyProgram(api);
      const material = await materialReward(api, null);
      await assignReward(api, material, program, price);
      const coin = await coinReward(api);
      await assignReward(api, coin, program);
      const source = await member(api, program, points);
      const sink = await member(api, program, 0);
      startingBalances.set(source.id, 0);
      startingBalances.set(sink.id, 0);
      const kinds = ['removal', 'reward', 'pay-with-points', 'transfer'] as const;
      const results = await storm(attempts, (i) => {
        switch (kinds[i % kinds.length]) {
          case 'removal':
            return { method: 'POST', path: `/v1/loyalties/members/${source.code}/balance`, json: { points: -price, source_id: `removal-${i}` } };
          case 'reward':
            return { method: 'POST', path: `/v1/loyalties/members/${source.code}/redemption`, json: { reward: { id: material } } };
          case 'pay-with-points':
            return {
              method: 'POST',
              path: '/v1/redemptions',
              json: { redeemables: [{ object: 'voucher', id: source.code, reward: { id: coin, points: price } }], order: { amount: 100_000 }, customer: { id: source.holderId } },
            };
          default:
            return { method: 'POST', path: `/v1/loyalties/${program}/members/${sink.code}/transfers`, json: [{ code: source.code, points: price, source_id: `transfer-${i}` }] };
        }
      });
      assert.equal(successesRefusedOnlyBy(results, ['loyalty_card_points_exceeded']), points / price, tally(results));
      const transferred = results.filter((r, i) => i % kinds.length === 3 && r.status === 200).length;
      assert.equal(Number((await voucherRow(source.id)).loyalty_balance), 0);
      assert.equal(Number((await voucherRow(sink.id)).loyalty_balance), transferred * price);
      const ledger = await direct.db.selectFrom('voucher_transactions').select(['amount']).where('voucher_id', '=', source.id).execute();
      assert.equal(ledger.reduce((s, x) => s + Number(x.amount), 0), 0, 'the seed addition and every debit sum to zero');
    });

    test('transfers in both directions between three cards, with removals, never deadlock, overdraw or make points', async () => {
      const start = 500;
      const attempts = sized({ full: 300, ci: 90 });
      const program = await loyaltyProgram(api);
      const cards: Member[] = [];
      for (let i = 0; i < 3; i++) {
        const card = await member(api, program, start);
        startingBalances.set(card.id, 0);
        cards.push(card);
      }
      const results = await storm(attempts, (i) => {
        const from = cards[i % 3] as Member;
        const to = cards[(i + 1 + (Math.floor(i / 3) % 2)) % 3] as Member;
        if (i % 10 === 9) return { method: 'POST', path: `/v1/loyalties/members/${from.code}/balance`, json: { points: -7, source_id: `cut-${i}` } };
        // Two donors in one request in alternating order, so lock ordering between cards matters.
        const third = cards.find((c) => c !== from && c !== to) as Member;
        const items = i % 2 === 0 ? [{ code: from.code, points: 37 }] : [{ code: third.code, points: 11 }, { code: from.code, points: 23 }];
        return { method: 'POST', path: `/v1/loyalties/${program}/members/${to.code}/transfers`, json: items.map((item, k) => ({ ...item, source_id: `move-${i}-${k}` })) };
      });
      successesRefusedOnlyBy(results, ['loyalty_card_points_exceeded']);
      const removed = results.filter((r, i) => i % 10 === 9 && r.status === 200).length * 7;
      let total = 0;
      for (const card of cards) {
        const balance = Number((await voucherRow(card.id)).loyalty_balance);
        assert.ok(balance >= 0, `${card.code} balance ${balance}`);
        total += balance;
      }
      assert.equal(total, 3 * start - removed, `transfers only move points (${tally(results)})`);
    });

    test('a material reward with limited stock redeemed by many cards at once: exactly `stock` succeed', async () => {
      const stock = sized({ full: 10, ci: 4 });
      const holders = sized({ full: 60, ci: 16 });
      const program = await loyaltyProgram(api);
      const reward = await materialReward(api, stock);
      rewardStock.set(reward, stock);
      await assignReward(api, reward, program, 10);
      const cards: Member[] = [];
      for (let i = 0; i < holders; i++) {
        const card = await member(api, program, 100);
        startingBalances.set(card.id, 0);
        cards.push(card);
      }
      // Two requests per card, so a card's own lock cannot serialise the whole attack.
      const results = await storm(holders * 2, (i) => ({
        method: 'POST',
        path: `/v1/loyalties/${program}/members/${(cards[i % holders] as Member).code}/redemption`,
        json: { reward: { id: reward } },
      }));
      assert.equal(successesRefusedOnlyBy(results, ['reward_out_of_stock']), stock, tally(results));
      const row = await direct.db.selectFrom('rewards').select(['stock', 'redeemed']).where('id', '=', reward).executeTakeFirstOrThrow();
      assert.equal(Number(row.stock), 0);
      assert.equal(Number(row.redeemed), stock);
      let spent = 0;
      for (const card of cards) spent += 100 - Number((await voucherRow(card.id)).loyalty_balance);
      assert.equal(spent, stock * 10, 'only the redemptions that got a unit paid for it');
    });

    test('afterwards every invariant holds, the servers are alive and logged no error', async () => {
      assert.deepEqual(await findViolations(direct.db, { startingBalances, rewardStock }), []);
      for (const server of servers) {
        assert.ok(server.alive(), `server exited: ${JSON.stringify(server.exitStatus())}\n${server.logTail()}`);
        assert.deepEqual(server.errorLines(), [], 'the server logged errors');
      }
      assert.equal((await api.call('GET', '/health')).status, 200);
    });
  });
}
