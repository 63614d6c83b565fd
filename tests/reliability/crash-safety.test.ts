import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Api, HttpClient, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { list, preview, str } from '../../scripts/lib/json.ts';
import { serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import type { DbHandle } from '../../src/store/db.ts';
import { assignReward, coinReward, discountVoucher, giftCard, loyaltyProgram, materialReward, member, type Card, type Member } from './helpers/api-builders.ts';
import { findViolations } from './helpers/invariants.ts';
import { Random, suiteSeed } from './helpers/random.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { sized, testTimeout } from './helpers/scale.ts';

// Crash safety (issue 7; ARCHITECTURE "Everything one request changes commits in one transaction"): a
// mixed write load runs against a real server process, which is killed with SIGKILL mid-load — no
// shutdown hook, transactions cut off wherever they are. After a restart on the same database, every
// write whose 2xx answer reached the client must be there, and every invariant must hold. Writes that
// were in flight may have happened or not; the invariants prove they did so completely or not at all.

const seed = suiteSeed();
const rounds = sized({ full: 6, ci: 2 });
const workers = sized({ full: 16, ci: 8 });
/** How many more acknowledged writes a round lets through before the kill (a range, drawn per round). */
const perRound = sized({ full: { min: 150, max: 400 }, ci: { min: 40, max: 90 } });

interface World {
  gifts: Card[];
  limited: Card[];
  unlimited: Card[];
  program: string;
  members: Member[];
  material: string;
  coin: string;
}

interface Rollbackable {
  id: string;
  /** The children of a stacked parent, rolled back with it. */
  children: string[];
}

/** Everything the clients were told succeeded. */
class Acknowledged {
  readonly redemptions = new Set<string>();
  /** Single redemptions (`/rollback`) and stacked parents (`/rollbacks`) that may still be rolled back. */
  readonly rollbackable: Rollbackable[] = [];
  readonly rolledBack = new Set<string>();
  readonly rollbacks = new Set<string>();
  /** Ledger `source_id`s: one transaction each; transfers two. */
  readonly transactions = new Map<string, number>();
  readonly orders = new Set<string>();
  total = 0;
  #waiters: Array<{ target: number; resolve: () => void }> = [];

  count(): void {
    this.total++;
    this.#waiters = this.#waiters.filter((w) => {
      if (this.total < w.target) return true;
      w.resolve();
      return false;
    });
  }

  reached(target: number): Promise<void> {
    if (this.total >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ target, resolve }));
  }
}

interface Operation {
  name: string;
  method: string;
  path: string;
  json: unknown;
  /** Records what the 2xx answer promised. */
  ack(res: HttpResponse): void;
}

function operation(rnd: Random, world: World, acks: Acknowledged, serial: () => string): Operation {
  const roll = rnd.int(17);
  const customer = { source_id: `crash-customer-${rnd.int(25)}` };
  const single = (res: HttpResponse, rollbackable: boolean) => {
    const id = str(res.body, 'redemptions', 0, 'id');
    acks.redemptions.add(id);
    acks.orders.add(str(res.body, 'order', 'id'));
    if (rollbackable) acks.rollbackable.push({ id, children: [] });
  };
  // A rollback needs an acknowledged redemption first, so at CI scale (about a hundred operations) chance
  // alone sometimes sent none; until one is acknowledged, any worker that has something to roll back does.
  if (acks.rollbackable.length > 0 && (roll === 13 || acks.rollbacks.size === 0)) {
    // Taken out of the pool before sending: a rollback cut off by the crash is never retried, so an
    // unacknowledged one may or may not have happened and nothing expects either.
    const target = acks.rollbackable.splice(rnd.int(acks.rollbackable.length), 1)[0] as Rollbackable;
    const stacked = target.children.length > 0;
    return {
      name: stacked ? 'roll back a stacked redemption' : 'roll back a redemption',
      method: 'POST',
      path: `/v1/redemptions/${target.id}/${stacked ? 'rollbacks' : 'rollback'}`,
      json: { reason: 'crash test' },
      ack: (res) => {
        acks.rolledBack.add(target.id);
        for (const child of target.children) acks.rolledBack.add(child);
        if (stacked) {
          acks.rollbacks.add(str(res.body, 'parent_rollback', 'id'));
          for (const child of list(res.body, 'rollbacks')) acks.rollbacks.add(str(child, 'id'));
        } else {
          acks.rollbacks.add(str(res.body, 'id'));
        }
      },
    };
  }
  if (roll < 3) {
    const voucher = rnd.pick(rnd.chance(0.7) ? world.limited : world.unlimited);
    return {
      name: 'redeem a voucher',
      method: 'POST',
      path: '/v1/redemptions',
      json: { redeemables: [{ object: 'voucher', id: voucher.code }], order: { source_id: `crash-order-${serial()}`, amount: 2000 }, customer },
      ack: (res) => single(res, true),
    };
  }
  if (roll < 4) {
    const [a, b] = [rnd.pick(world.unlimited), rnd.pick(world.limited)];
    return {
      name: 'redeem two vouchers stacked',
      method: 'POST',
      path: '/v1/redemptions',
      json: { redeemables: [{ object: 'voucher', id: a.code }, { object: 'voucher', id: b.code }], order: { amount: 5000 }, customer },
      ack: (res) => {
        const parent = str(res.body, 'parent_redemption', 'id');
        acks.redemptions.add(parent);
        const children = list(res.body, 'redemptions').map((child) => str(child, 'id'));
        for (const child of children) acks.redemptions.add(child);
        acks.orders.add(str(res.body, 'order', 'id'));
        acks.rollbackable.push({ id: parent, children });
      },
    };
  }
  if (roll < 6) {
    const gift = rnd.pick(world.gifts);
    return {
      name: 'spend gift credits',
      method: 'POST',
      path: '/v1/redemptions',
      json: { redeemables: [{ object: 'voucher', id: gift.code, gift: { credits: rnd.between(100, 500) } }], order: { amount: 1000 } },
      ack: (res) => single(res, true),
    };
  }
  if (roll < 8) {
    const gift = rnd.pick(world.gifts);
    const source = `crash-gift-${serial()}`;
    const amount = rnd.chance(0.4) ? rnd.between(200, 1000) : -rnd.between(100, 800);
    return {
      name: 'change a gift balance',
      method: 'POST',
      path: `/v1/vouchers/${gift.code}/balance`,
      json: { amount, source_id: source },
      ack: () => acks.transactions.set(source, 1),
    };
  }
  if (roll < 10) {
    const card = rnd.pick(world.members);
    const source = `crash-points-${serial()}`;
    const points = rnd.chance(0.4) ? rnd.between(10, 200) : -rnd.between(10, 200);
    return {
      name: 'change a points balance',
      method: 'POST',
      path: `/v1/loyalties/members/${card.code}/balance`,
      json: points > 0 ? { points, source_id: source, expiration_type: 'NON_EXPIRING' } : { points, source_id: source },
      ack: () => acks.transactions.set(source, 1),
    };
  }
  if (roll < 12) {
    const from = rnd.pick(world.members);
    const to = rnd.pick(world.members.filter((m) => m !== from));
    const source = `crash-transfer-${serial()}`;
    return {
      name: 'transfer points',
      method: 'POST',
      path: `/v1/loyalties/${world.program}/members/${to.code}/transfers`,
      json: [{ code: from.code, points: rnd.between(10, 150), source_id: source }],
      ack: () => acks.transactions.set(source, 2),
    };
  }
  if (roll < 13) {
    return {
      name: 'create an order',
      method: 'POST',
      path: '/v1/orders',
      json: { source_id: `crash-order-${serial()}`, amount: rnd.between(100, 10_000), status: rnd.pick(['CREATED', 'PAID']), customer },
      ack: (res) => acks.orders.add(str(res.body, 'id')),
    };
  }
  if (roll < 15) {
    const card = rnd.pick(world.members);
    return {
      name: 'redeem a material reward',
      method: 'POST',
      path: `/v1/loyalties/members/${card.code}/redemption`,
      json: { reward: { id: world.material } },
      ack: (res) => acks.redemptions.add(str(res.body, 'id')),
    };
  }
  const card = rnd.pick(world.members);
  return {
    name: 'pay with points',
    method: 'POST',
    path: '/v1/redemptions',
    json: { redeemables: [{ object: 'voucher', id: card.code, reward: { id: world.coin, points: rnd.between(10, 100) } }], order: { amount: 100_000 }, customer: { id: card.holderId } },
    ack: (res) => single(res, true),
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

describe(`crash safety on ${reliabilityDialect()}: kill -9 under a mixed write load (seed ${seed})`, { timeout: testTimeout() }, () => {
  let database: ThrowawayDatabase;
  let direct: DbHandle;
  let server: ServerProcess;
  let client: HttpClient;
  let world: World;
  const acks = new Acknowledged();
  const rnd = new Random(seed);
  const startingBalances = new Map<string, number>();
  const rewardStock = new Map<string, number>();
  let serialNo = 0;
  const serial = () => `${seed}-${++serialNo}`;

  before(async () => {
    database = await createRunDatabase('crash');
    server = await ServerProcess.start({ databaseUrl: database.url });
    client = new HttpClient(server.url, { maxSockets: workers * 2 });
    const api = new Api(client);
    const gifts: Card[] = [];
    for (let i = 0; i < 4; i++) gifts.push(await giftCard(api, 50_000));
    for (const g of gifts) startingBalances.set(g.id, 50_000);
    const limited: Card[] = [];
    for (let i = 0; i < 6; i++) limited.push(await discountVoucher(api, 40));
    const unlimited: Card[] = [];
    for (let i = 0; i < 3; i++) unlimited.push(await discountVoucher(api, null));
    const program = await loyaltyProgram(api);
    const members: Member[] = [];
    for (let i = 0; i < 6; i++) members.push(await member(api, program, 5000));
    for (const m of members) startingBalances.set(m.id, 0);
    const material = await materialReward(api, 80);
    rewardStock.set(material, 80);
    await assignReward(api, material, program, 25);
    const coin = await coinReward(api);
    await assignReward(api, coin, program);
    world = { gifts, limited, unlimited, program, members, material, coin };
    direct = database.open();
  });

  after(async () => {
    client?.close();
    await server?.stop();
    await direct?.close();
    await database?.drop();
  });

  /** Runs the load until `stop.crashed`; answers the 5xx and unexpected failures it met. */
  async function load(worker: Random, stop: { crashed: boolean }, sent: { count: number }): Promise<string[]> {
    const problems: string[] = [];
    while (!stop.crashed) {
      const op = operation(worker, world, acks, serial);
      sent.count++;
      let res: HttpResponse;
      try {
        res = await client.json(op.method, op.path, serverHeaders(), op.json);
      } catch (error) {
        // A connection cut by the kill: the outcome is unknown, and that is allowed.
        if (!stop.crashed) problems.push(`${op.name}: connection failed while the server should be up: ${String(error)}`);
        break;
      }
      if (res.status >= 200 && res.status < 300) {
        op.ack(res);
        acks.count();
      } else if (res.status >= 500 || res.status === 409) {
        problems.push(`${op.name}: ${op.method} ${op.path} ${preview(op.json)} → ${res.status} ${preview(res.text)}`);
      }
    }
    return problems;
  }

  async function verify(): Promise<void> {
    const db = direct.db;
    const missing: string[] = [];
    const redemptionIds = [...acks.redemptions, ...acks.rollbacks];
    const found = new Map<string, { result: string; status: string; object: string }>();
    for (const ids of chunks(redemptionIds, 400)) {
      for (const row of await db.selectFrom('redemptions').select(['id', 'result', 'status', 'object']).where('id', 'in', ids).execute()) found.set(row.id, row);
    }
    for (const id of acks.redemptions) {
      const row = found.get(id);
      if (!row) missing.push(`acknowledged redemption ${id}`);
      else if (row.result !== 'SUCCESS') missing.push(`redemption ${id} is ${row.result}`);
      else if (acks.rolledBack.has(id) && row.status !== 'ROLLED_BACK') missing.push(`redemption ${id}: rollback acknowledged, status ${row.status}`);
    }
    for (const id of acks.rollbacks) {
      const row = found.get(id);
      if (!row || row.object !== 'redemption_rollback' || row.result !== 'SUCCESS') missing.push(`acknowledged rollback ${id}`);
    }
    const sources = [...acks.transactions.keys()];
    const seen = new Map<string, number>();
    for (const ids of chunks(sources, 400)) {
      const rows = await db
        .selectFrom('voucher_transactions')
        .select(['source_id', (eb) => eb.fn.countAll<number>().as('count')])
        .where('source_id', 'in', ids)
        .groupBy('source_id')
        .execute();
      for (const row of rows) if (row.source_id !== null) seen.set(row.source_id, Number(row.count));
    }
    for (const [source, expected] of acks.transactions) {
      if (seen.get(source) !== expected) missing.push(`ledger ${source}: ${seen.get(source) ?? 0} transactions, ${expected} acknowledged`);
    }
    const orders = new Set<string>();
    for (const ids of chunks([...acks.orders], 400)) {
      for (const row of await db.selectFrom('orders').select('id').where('id', 'in', ids).execute()) orders.add(row.id);
    }
    for (const id of acks.orders) if (!orders.has(id)) missing.push(`acknowledged order ${id}`);
    assert.deepEqual(missing.slice(0, 50), [], `${missing.length} acknowledged writes are missing after the restart`);
    assert.deepEqual(await findViolations(db, { startingBalances, rewardStock }), []);
    // The restarted server serves what was acknowledged before the crash.
    const api = new Api(client);
    for (const id of [...acks.redemptions].slice(-10)) assert.equal((await api.call('GET', `/v1/redemptions/${id}`)).status, 200, id);
  }

  for (let round = 1; round <= rounds; round++) {
    test(`round ${round}: kill -9 mid-load, restart, every acknowledged write is there and every invariant holds`, async () => {
      const target = acks.total + rnd.between(perRound.min, perRound.max);
      const stop = { crashed: false };
      const sent = { count: 0 };
      const running = Array.from({ length: workers }, () => load(rnd.fork(), stop, sent));
      const progress = acks.reached(target).then(() => 'reached' as const);
      // If every worker ends early (the server died on its own), the target is never reached.
      const ended = Promise.all(running).then(() => 'ended' as const);
      const outcome = await Promise.race([progress, ended]);
      stop.crashed = true;
      const before = acks.total;
      await server.kill9();
      const problems = (await Promise.all(running)).flat();
      assert.equal(outcome, 'reached', `the load stopped before the crash point: ${problems.join('\n')}\n${server.logTail()}`);
      assert.deepEqual(problems, [], 'no 5xx or conflict during the load');
      assert.deepEqual(server.errorLines(), [], 'the server logged no error before the kill');
      process.stdout.write(
        `# round ${round}: killed after ${before} acknowledged writes (${sent.count} sent this round, ${acks.total - before} answered while dying)\n`,
      );

      client.close();
      server = await ServerProcess.start({ databaseUrl: database.url });
      client = new HttpClient(server.url, { maxSockets: workers * 2 });
      await verify();
    });
  }

  test('a clean stop after the last round keeps everything too', async () => {
    await server.stop();
    client.close();
    server = await ServerProcess.start({ databaseUrl: database.url });
    client = new HttpClient(server.url, { maxSockets: workers * 2 });
    await verify();
    assert.ok(acks.redemptions.size > 0 && acks.transactions.size > 0 && acks.orders.size > 0, 'the load wrote every kind of record');
    assert.ok(acks.rollbacks.size > 0, 'and rolled some back');
  });
});
