import assert from 'node:assert/strict';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Api, HttpClient } from '../../scripts/lib/http-client.ts';
import { isObject, preview, str } from '../../scripts/lib/json.ts';
import { serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import { until } from '../../scripts/lib/until.ts';
import type { DbHandle } from '../../src/store/db.ts';
import { loadOperations } from './helpers/openapi.ts';
import { Random, suiteSeed } from './helpers/random.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { sized, testTimeout } from './helpers/scale.ts';

// Slow and interrupted CSV uploads (README "CSV imports") against a real `punchcard start`, on every
// importCSV route its OpenAPI document lists, many at once: files whose header is refused while the
// form is still arriving (the closing boundary after 0 to 300 ms, or never), uploads the client breaks
// off in the middle of the file, and good files trickled in small pieces. A refusal must be a 400 in the
// standard error body, at once, whatever the timing; a broken-off upload must leave nothing staged and
// enqueue nothing; a trickled file must be imported whole; /health must answer throughout; and the
// server must log no error (every 5xx is logged at level error) and stay up.

const seed = suiteSeed();
const ROUNDS = sized({ full: 12, ci: 2 });
const PARALLEL = sized({ full: 12, ci: 6 });
const BOUNDARY = 'reliability-slow-upload';

type Attack =
  | { kind: 'refused'; route: string; pauseMs: number | null }
  | { kind: 'broken-off'; route: string; rows: number }
  | { kind: 'trickled'; route: string; pieces: number };

interface Outcome {
  status: number | null;
  body: unknown;
  ms: number;
}

/** Columns a route's file needs besides metadata, and one good row for them. */
function goodFile(route: string, tag: string, rows: number): string {
  const lines: string[] = [];
  if (route.includes('/products/')) {
    lines.push('Name,Source Id,Price,colour');
    for (let i = 0; i < rows; i++) lines.push(`Product ${i},${tag}-${i},100,blue`);
  } else if (route.includes('/skus/')) {
    lines.push('Product Id,Source Id,SKU,Price,colour');
    for (let i = 0; i < rows; i++) lines.push(`slow-product,${tag}-${i},Size ${i},100,blue`);
  } else if (route.includes('/customers/')) {
    lines.push('Source_id,Name,Email,colour');
    for (let i = 0; i < rows; i++) lines.push(`${tag}-${i},"Slow, ${i}",c${i}@example.com,blue`);
  } else if (route.includes('/campaigns/')) {
    lines.push('Code,Category,Active,colour');
    for (let i = 0; i < rows; i++) lines.push(`${tag}-${i},Slow,true,blue`);
  } else {
    lines.push('Code,Voucher Type,Value,Discount Type,colour');
    for (let i = 0; i < rows; i++) lines.push(`${tag}-${i},DISCOUNT_VOUCHER,10,PERCENT,blue`);
  }
  return `${lines.join('\n')}\n`;
}

const partHead = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\nContent-Type: text/csv\r\n\r\n`;
const closing = `\r\n--${BOUNDARY}--\r\n`;

describe(`slow and interrupted CSV uploads on ${reliabilityDialect()} (seed ${seed})`, { timeout: testTimeout() }, () => {
  let database: ThrowawayDatabase;
  let direct: DbHandle;
  let server: ServerProcess;
  let client: HttpClient;
  let api: Api;
  let routes: string[];

  before(async () => {
    database = await createRunDatabase('slowcsv');
    server = await ServerProcess.start({ databaseUrl: database.url });
    client = new HttpClient(server.url, { maxSockets: 8 });
    api = new Api(client);
    direct = database.open();
    const campaign = await api.ok('POST', '/v1/campaigns', {
      name: 'Slow uploads',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } },
    });
    await api.ok('POST', '/v1/products', { source_id: 'slow-product', name: 'Slow product' });
    routes = (await loadOperations(client)).filter((op) => op.path.endsWith('/importCSV')).map((op) => op.path.replace('{campaignId}', str(campaign, 'id')));
    assert.equal(routes.length, 5, routes.join(', '));
  });

  after(async () => {
    client?.close();
    await server?.stop();
    await direct?.close();
    await database?.drop();
  });

  /**
   * One upload on a connection of its own: `pieces` written `gapMs` apart, then the closing boundary
   * after `pauseMs` (never when null). `breakOff` destroys the connection instead of finishing.
   */
  function upload(route: string, pieces: string[], gapMs: number, pauseMs: number | null, breakOff = false): Promise<Outcome> {
    const started = performance.now();
    return new Promise((resolve) => {
      const req = http.request(`${server.url}${route}`, {
        method: 'POST',
        agent: false,
        headers: { ...serverHeaders(), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      });
      let settled = false;
      const settle = (outcome: Omit<Outcome, 'ms'>) => {
        if (settled) return;
        settled = true;
        req.destroy();
        resolve({ ...outcome, ms: performance.now() - started });
      };
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON: kept as text for the report */
          }
          settle({ status: res.statusCode ?? 0, body });
        });
        res.on('error', () => settle({ status: res.statusCode ?? 0, body: text }));
      });
      // After the answer (or the break) the connection may go under the rest of the body.
      req.on('error', () => settle({ status: null, body: null }));
      void (async () => {
        req.write(partHead);
        for (const piece of pieces) {
          if (settled) return;
          req.write(piece);
          if (gapMs > 0) await sleep(gapMs);
        }
        if (breakOff) {
          await sleep(50);
          settle({ status: null, body: null });
          return;
        }
        if (pauseMs === null) return;
        await sleep(pauseMs);
        if (!settled) req.end(closing);
      })();
    });
  }

  async function count(table: 'csv_import_rows' | 'csv_uploads'): Promise<number> {
    const row = await direct.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function importJobs(): Promise<number> {
    const row = await direct.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', 'like', '%IMPORT_CSV').executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test('refusals are 400s at once, broken-off uploads leave nothing, trickled files import whole, /health answers', async () => {
    const rnd = new Random(seed);
    const attacks: Attack[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of routes) {
        for (const pauseMs of [0, 5, 50, 300, null]) attacks.push({ kind: 'refused', route, pauseMs });
        attacks.push({ kind: 'broken-off', route, rows: rnd.between(1, 2000) });
        attacks.push({ kind: 'trickled', route, pieces: rnd.between(5, 30) });
      }
    }
    for (let i = attacks.length - 1; i > 0; i--) {
      const j = rnd.int(i + 1);
      [attacks[i], attacks[j]] = [attacks[j] as Attack, attacks[i] as Attack];
    }
    const jobsBefore = await importJobs();

    const findings: string[] = [];
    const imports: Array<{ id: string; route: string; rows: number }> = [];
    let brokenOff = 0;
    let next = 0;
    let tag = 0;
    const lane = async () => {
      while (next < attacks.length) {
        const attack = attacks[next++] as Attack;
        const label = `${attack.kind} ${attack.route} ${JSON.stringify(attack)}`;
        if (attack.kind === 'refused') {
          // A metadata column with white space in its name: refused for every kind, on the header line.
          const header = 'Code,Source_id,favourite brand\n';
          const outcome = await upload(attack.route, [header, 'A-1,s-1,blue\n'], 0, attack.pauseMs);
          const body = outcome.body;
          if (outcome.status !== 400 || !isObject(body) || body.code !== 400 || body.key !== 'invalid_payload' || typeof body.request_id !== 'string') {
            findings.push(`${label}: ${outcome.status} ${preview(JSON.stringify(body), 300)}`);
          } else if (!/cannot contain white space/.test(String(body.details))) {
            findings.push(`${label}: refused for another reason: ${String(body.details)}`);
          } else if (outcome.ms > 5_000) {
            findings.push(`${label}: the refusal took ${Math.round(outcome.ms)} ms`);
          }
        } else if (attack.kind === 'broken-off') {
          const file = goodFile(attack.route, `broken-${++tag}`, attack.rows);
          const pieces = file.match(/[^]{1,16384}/g) ?? [];
          const outcome = await upload(attack.route, pieces, 1, null, true);
          if (outcome.status !== null && outcome.status >= 500) findings.push(`${label}: ${outcome.status} ${preview(JSON.stringify(outcome.body), 300)}`);
          brokenOff++;
        } else {
          const rows = 20;
          const file = goodFile(attack.route, `trickled-${++tag}`, rows);
          const size = Math.ceil(file.length / attack.pieces);
          const pieces = Array.from({ length: attack.pieces }, (_, i) => file.slice(i * size, (i + 1) * size)).filter((piece) => piece !== '');
          const outcome = await upload(attack.route, pieces, 10, 100);
          if ((outcome.status !== 200 && outcome.status !== 202) || !isObject(outcome.body) || typeof outcome.body.async_action_id !== 'string') {
            findings.push(`${label}: ${outcome.status} ${preview(JSON.stringify(outcome.body), 300)}`);
          } else {
            imports.push({ id: outcome.body.async_action_id, route: attack.route, rows });
          }
        }
      }
    };
    let probing = true;
    const healthFailures: string[] = [];
    const prober = (async () => {
      while (probing) {
        const started = performance.now();
        const health = await client.request({ method: 'GET', path: '/health' }).catch((error: unknown) => ({ status: 0, text: String(error) }));
        const ms = performance.now() - started;
        if (health.status !== 200) healthFailures.push(`/health → ${health.status} ${preview(health.text)}`);
        else if (ms > 2_000) healthFailures.push(`/health took ${Math.round(ms)} ms`);
        await sleep(100);
      }
    })();
    await Promise.all(Array.from({ length: PARALLEL }, () => lane()));
    probing = false;
    await prober;

    process.stdout.write(`# ${attacks.length} uploads on ${routes.length} routes: ${brokenOff} broken off, ${imports.length} trickled in; ${findings.length} findings\n`);
    assert.deepEqual(findings, []);
    assert.deepEqual(healthFailures, []);

    // Every trickled file is imported whole (the SKU rows name the product made above).
    for (const { id, route, rows } of imports) {
      const action = await until(`import ${id}`, 120_000, async () => {
        const res = await api.call('GET', `/v1/async-actions/${id}`);
        const body = res.body;
        if (!isObject(body)) throw new Error(`GET /v1/async-actions/${id} → ${res.status} ${preview(res.text)}`);
        if (body.status === 'FAILED') throw new Error(`import ${id} failed: ${preview(JSON.stringify(body.result))}`);
        return body.status === 'DONE' ? body : null;
      });
      const result = action.result as { done_count: number; failed_count: number; failed: unknown[] };
      assert.equal(result.done_count, rows, `${route}: ${preview(JSON.stringify(result.failed), 500)}`);
    }
    // Nothing of a refused or broken-off upload stays, and only the trickled files became jobs.
    await until('refused and broken-off uploads discarded', 60_000, async () => ((await count('csv_import_rows')) === 0 && (await count('csv_uploads')) === 0 ? true : null));
    assert.equal((await importJobs()) - jobsBefore, imports.length, 'a refused or broken-off upload enqueued a job');
    assert.ok(server.alive(), server.logTail());
    assert.deepEqual(server.errorLines(), []);
  });
});
