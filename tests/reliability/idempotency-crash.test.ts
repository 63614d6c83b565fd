import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, HttpClient, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { preview, str } from '../../scripts/lib/json.ts';
import { serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import type { DbHandle } from '../../src/store/db.ts';
import { discountVoucher, type Card } from './helpers/api-builders.ts';
import { Random, suiteSeed } from './helpers/random.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { sized, testTimeout } from './helpers/scale.ts';

// Idempotency across a crash (the outside attack's first finding): redemptions sent with an
// `Idempotency-Key` each, the server killed with SIGKILL mid-load, restarted, and every key sent again
// with its request. Whatever the crash cut off — before the commit, or after it but before the answer
// left — the retry must end in exactly one redemption per key: the stored answer when the first attempt
// committed (also the ones nobody heard back from), a first run when it did not. A key held by the dead
// process must not block the retry for long (the old design answered 409 "in progress" for 5 minutes,
// then ran the request a second time).

const seed = suiteSeed();
const rounds = sized({ full: 4, ci: 2 });
const workers = sized({ full: 24, ci: 12 });
const perRound = sized({ full: { min: 200, max: 400 }, ci: { min: 40, max: 80 } });
/** How long a retry may still meet 409 in progress after the restart. */
const RELEASE_WITHIN_MS = 5_000;

interface Sent {
  key: string;
  json: unknown;
  /** The redemption id of the 2xx answer the client received before the kill, if any. */
  acknowledged: string | null;
}

describe(`idempotency on ${reliabilityDialect()}: kill -9 under keyed redemptions, every key runs exactly once (seed ${seed})`, { timeout: testTimeout() }, () => {
  let database: ThrowawayDatabase;
  let direct: DbHandle;
  let server: ServerProcess;
  let client: HttpClient;
  let vouchers: Card[];
  const rnd = new Random(seed);
  const sent: Sent[] = [];
  let serialNo = 0;

  before(async () => {
    database = await createRunDatabase('idem');
    server = await ServerProcess.start({ databaseUrl: database.url });
    client = new HttpClient(server.url, { maxSockets: workers * 2 });
    const api = new Api(client);
    vouchers = [];
    for (let i = 0; i < 4; i++) vouchers.push(await discountVoucher(api, null));
    direct = database.open();
  });

  after(async () => {
    client?.close();
    await server?.stop();
    await direct?.close();
    await database?.drop();
  });

  const keyed = (key: string, json: unknown): Promise<HttpResponse> =>
    client.request({
      method: 'POST',
      path: '/v1/redemptions',
      headers: { ...serverHeaders(), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(json),
    });

  async function load(worker: Random, stop: { crashed: boolean }, acknowledged: { count: number; target: number; reached: () => void }): Promise<string[]> {
    const problems: string[] = [];
    while (!stop.crashed) {
      const key = `idem-${seed}-${++serialNo}`;
      const voucher = worker.pick(vouchers);
      // The order's source_id is the key, so the records of one key can be counted in the database.
      const json = { redeemables: [{ object: 'voucher', id: voucher.code }], order: { source_id: key, amount: worker.between(1000, 5000) } };
      const entry: Sent = { key, json, acknowledged: null };
      sent.push(entry);
      let res: HttpResponse;
      try {
        res = await keyed(key, json);
      } catch (error) {
        if (!stop.crashed) problems.push(`${key}: connection failed while the server should be up: ${String(error)}`);
        break;
      }
      if (res.status === 200) {
        entry.acknowledged = str(res.body, 'redemptions', 0, 'id');
        if (++acknowledged.count >= acknowledged.target) acknowledged.reached();
      } else {
        problems.push(`${key} → ${res.status} ${preview(res.text)}`);
      }
    }
    return problems;
  }

  /** Sends a key again until it is not 409 in progress (which may last only while the dead holder is noticed). */
  async function retry(entry: Sent, deadline: number): Promise<HttpResponse> {
    for (;;) {
      const res = await keyed(entry.key, entry.json);
      if (res.status !== 409 || Date.now() > deadline) return res;
      await sleep(100);
    }
  }

  for (let round = 1; round <= rounds; round++) {
    test(`round ${round}: kill -9 mid-load, restart, a retry of every key finds one redemption`, async () => {
      const roundStart = sent.length;
      const stop = { crashed: false };
      let reached!: () => void;
      const target = new Promise<void>((resolve) => (reached = resolve));
      const acknowledged = { count: 0, target: rnd.between(perRound.min, perRound.max), reached };
      const running = Array.from({ length: workers }, () => load(rnd.fork(), stop, acknowledged));
      const ended = Promise.all(running);
      await Promise.race([target, ended]);
      stop.crashed = true;
      await server.kill9();
      const problems = (await Promise.all(running)).flat();
      assert.deepEqual(problems, [], 'every keyed redemption answered 200 before the kill');
      assert.ok(acknowledged.count >= acknowledged.target, 'the load reached the crash point');

      client.close();
      server = await ServerProcess.start({ databaseUrl: database.url });
      client = new HttpClient(server.url, { maxSockets: workers * 2 });

      const deadline = Date.now() + RELEASE_WITHIN_MS;
      const roundEntries = sent.slice(roundStart);
      let committedUnanswered = 0;
      let ranAfterCrash = 0;
      const failures: string[] = [];
      for (const entry of roundEntries) {
        const res = await retry(entry, deadline);
        if (res.status !== 200) {
          failures.push(`${entry.key}: retry → ${res.status} ${preview(res.text)}`);
          continue;
        }
        const id = str(res.body, 'redemptions', 0, 'id');
        const replayed = res.headers['idempotent-replayed'] === 'true';
        if (entry.acknowledged !== null && (!replayed || id !== entry.acknowledged)) {
          failures.push(`${entry.key}: acknowledged ${entry.acknowledged}, the retry answered ${replayed ? 'replayed' : 'fresh'} ${id}`);
        }
        if (entry.acknowledged === null && replayed) committedUnanswered++;
        if (!replayed) ranAfterCrash++;
      }
      assert.deepEqual(failures.slice(0, 20), [], `${failures.length} keys did not replay or run cleanly after the restart`);

      // Exactly one SUCCESS redemption per key: counted through the orders the keys named.
      const keys = roundEntries.map((e) => e.key);
      const counts = new Map<string, number>();
      for (let i = 0; i < keys.length; i += 400) {
        const rows = await direct.db
          .selectFrom('redemptions')
          .innerJoin('orders', (join) => join.onRef('orders.id', '=', 'redemptions.order_id').onRef('orders.project_id', '=', 'redemptions.project_id'))
          .select(['orders.source_id as source_id', (eb) => eb.fn.countAll<number>().as('count')])
          .where('orders.source_id', 'in', keys.slice(i, i + 400))
          .where('redemptions.result', '=', 'SUCCESS')
          .groupBy('orders.source_id')
          .execute();
        for (const row of rows) if (row.source_id !== null) counts.set(row.source_id, Number(row.count));
      }
      const wrong = keys.filter((k) => counts.get(k) !== 1).map((k) => `${k}: ${counts.get(k) ?? 0} redemptions`);
      assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} keys did not end in exactly one redemption`);
      process.stdout.write(
        `# round ${round}: ${roundEntries.length} keys sent, ${acknowledged.count} acknowledged before the kill; ` +
          `after the restart ${committedUnanswered} committed-but-unanswered keys replayed, ${ranAfterCrash} ran for the first time\n`,
      );
    });
  }
});
