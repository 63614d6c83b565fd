import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { HttpClient, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { isObject } from '../../scripts/lib/json.ts';
import { clientHeaders, FIXED_KEYS, managementHeaders, serverHeaders } from '../../scripts/lib/keys.ts';
import { SKIPPED_ROW_MESSAGE } from '../../src/lib/unreadable-rows.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { loadOperations, type Operation } from '../reliability/helpers/openapi.ts';
import { fillPath, seedProject } from '../reliability/helpers/seed-project.ts';

// A stored JSON value that does not parse (only a damaged database holds one: every JSON column is
// written by JSON.stringify) must not take a whole list down. A list leaves the row out and reports it
// in the log; an answer about the damaged object alone is a 500 that says why. JSON columns are text on
// both databases (src/store/json.ts), so the damage is written the same way on SQLite and PostgreSQL.

/** Cut short, as a torn write leaves it. */
const DAMAGED = '{"tier": "gold", "since": 20';

interface LoggedSkip {
  msg: string;
  reqId?: string;
  unreadable_row: { project_id: string; object: string; id: string; column: string | null };
}

function skipsIn(lines: readonly string[]): LoggedSkip[] {
  return lines.flatMap((line) => line.split('\n')).filter((line) => line.includes(SKIPPED_ROW_MESSAGE)).map((line) => JSON.parse(line) as LoggedSkip);
}

async function damage(t: TestApp, table: string, column: string, id: string): Promise<void> {
  const { numAffectedRows } = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${DAMAGED} where project_id = ${t.projectId} and id = ${id}`.execute(t.db.db);
  assert.equal(Number(numAffectedRows), 1, `${table}.${column} of ${id} damaged`);
}

describe(`damaged stored JSON on ${testDialect()}: lists leave the row out and report it`, () => {
  let t: TestApp;
  const lines: string[] = [];

  before(async () => {
    t = await startTestApp({ log: { write: (line: string) => void lines.push(line) } });
  });
  after(async () => {
    await t?.close();
  });

  test('GET /v1/vouchers answers the healthy vouchers and logs the damaged one; GET of that voucher is a 500 saying why', async () => {
    const client = t.sdk();
    const codes = ['DAMAGE-A', 'DAMAGE-B', 'DAMAGE-C'];
    const ids: string[] = [];
    for (const code of codes) ids.push((await client.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { tier: 'gold' } } as never)).id);
    await damage(t, 'vouchers', 'metadata', ids[1] as string);
    lines.length = 0;

    const listed = await client.vouchers.list({ limit: 10 });
    assert.deepEqual(listed.vouchers.map((v) => v.code).sort(), ['DAMAGE-A', 'DAMAGE-C']);
    const [skip, ...more] = skipsIn(lines);
    assert.deepEqual(more, [], 'one report');
    assert.deepEqual(skip?.unreadable_row, { project_id: t.projectId, object: 'voucher', id: ids[1], column: 'metadata' });
    assert.ok(skip?.reqId, 'under the request id');
    assert.ok(!lines.join('').includes('since'), 'the damaged text itself is not logged');

    const single = await t.request('GET', '/v1/vouchers/DAMAGE-B');
    assert.equal(single.status, 500);
    assert.equal(single.body.key, 'internal_error');
    assert.equal(single.body.message, 'Stored data cannot be read');
    assert.match(single.body.details, /not valid JSON: the database holds damaged data/);
    assert.equal((await t.request('GET', '/v1/vouchers/DAMAGE-A')).status, 200, 'the others read as before');
  });

  test('GET /v1/customers answers the healthy customers and logs the damaged one (its address)', async () => {
    const client = t.sdk();
    const ids: string[] = [];
    for (const source_id of ['damage-a', 'damage-b', 'damage-c']) {
      const created = (await client.customers.create({ source_id, name: source_id, address: { city: 'Berlin' }, metadata: { tier: 'gold' } } as never)) as { id: string };
      ids.push(created.id);
    }
    await damage(t, 'customers', 'address', ids[1] as string);
    lines.length = 0;

    const listed = await client.customers.list({ limit: 10 });
    assert.deepEqual(listed.customers.map((c) => c.source_id).sort(), ['damage-a', 'damage-c']);
    assert.deepEqual(
      skipsIn(lines).map((s) => s.unreadable_row),
      [{ project_id: t.projectId, object: 'customer', id: ids[1], column: 'address' }],
    );
    assert.equal((await t.request('GET', `/v1/customers/${ids[1]}`)).status, 500);
  });

  test('a voucher export writes the healthy vouchers, leaves the damaged one out and reports it (the export ends DONE)', async () => {
    const ids: string[] = [];
    for (const code of ['EXPORT-A', 'EXPORT-B', 'EXPORT-C']) {
      ids.push((await t.request('POST', `/v1/vouchers/${code}`, { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { tier: 'gold' } } })).body.id);
    }
    await damage(t, 'vouchers', 'metadata', ids[1] as string);
    lines.length = 0;
    const created = await t.request('POST', '/v1/exports', { json: { exported_object: 'voucher', parameters: { fields: ['code', 'metadata.tier'], filters: { code: { conditions: { $starts_with: ['EXPORT-'] } } } } } });
    assert.equal(created.status, 200, created.text);
    while (await t.worker.runOnce()) {
      // Until no job is due.
    }
    const done = await t.request('GET', `/v1/exports/${created.body.id}`);
    assert.equal(done.body.status, 'DONE', done.text);
    const file = await (await fetch(done.body.result.url)).text();
    assert.deepEqual(file.trim().split(/\r?\n/).slice(1).sort(), ['EXPORT-A,gold', 'EXPORT-C,gold']);
    assert.deepEqual(
      skipsIn(lines).map((s) => s.unreadable_row),
      [{ project_id: t.projectId, object: 'voucher', id: ids[1], column: 'metadata' }],
    );
  });
});

/** Every column src/store/schema.ts types as JSON text, by table. */
function jsonColumns(): Map<string, string[]> {
  const schema = readFileSync(new URL('../../src/store/schema.ts', import.meta.url), 'utf8');
  const members = new Map<string, string[]>();
  for (const block of schema.matchAll(/export interface (\w+) \{([^}]*)\}/g)) {
    const columns = [...(block[2] as string).matchAll(/^\s+(\w+): Json(?: \| null)?;/gm)].map((m) => m[1] as string);
    members.set(block[1] as string, columns);
  }
  const tables = new Map<string, string[]>();
  const database = /export interface Database \{([^}]*)\}/.exec(schema)?.[1] ?? '';
  for (const [, table, type] of database.matchAll(/^\s+(\w+): (\w+);/gm)) {
    const columns = members.get(type as string) ?? [];
    if (columns.length > 0) tables.set(table as string, columns);
  }
  return tables;
}

/**
 * Left whole in the sweep: what the request needs before it can list anything. A project whose own
 * settings are damaged cannot be served at all; the queue and the installation rows are no object of a
 * list.
 */
const KEPT_TABLES = new Set(['projects', 'settings', 'jobs', 'idempotency_keys', 'webhook_dispatch_cursor', 'csv_import_rows']);

/** Damaged last: these lists price their items by the tier's points mappings, so they need the tier itself. */
const TIER_TABLE = 'loyalty_tiers';
const PRICED_BY_TIER = ['listLoyaltyTierEarningRules', 'listLoyaltyTierRewards', 'listMemberRewards'];

const UNREADABLE_ANSWER = 'Stored data cannot be read';

function headersFor(op: Operation): Record<string, string> {
  if (op.auth === 'management') return managementHeaders();
  if (op.auth === 'client') return clientHeaders();
  return serverHeaders();
}

function describeAnswer(res: HttpResponse): string {
  return `${res.status} ${res.text.slice(0, 200)}`;
}

function isUnreadableAnswer(res: HttpResponse): boolean {
  return res.status === 500 && isObject(res.body) && res.body.message === UNREADABLE_ANSWER;
}

describe(`every GET over a project whose every JSON value is damaged, on ${testDialect()}`, { timeout: 600_000 }, () => {
  let t: TestApp;
  let http: HttpClient;
  let operations: Operation[];
  let ids: Parameters<typeof fillPath>[1];
  const lines: string[] = [];

  async function damageTables(which: (table: string) => boolean): Promise<number> {
    let damaged = 0;
    for (const [table, columns] of jsonColumns()) {
      if (!which(table)) continue;
      for (const column of columns) {
        const { numAffectedRows } = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${DAMAGED} where project_id = ${t.projectId} and ${sql.ref(column)} is not null`.execute(t.db.db);
        damaged += Number(numAffectedRows);
      }
    }
    return damaged;
  }

  async function get(op: Operation): Promise<HttpResponse> {
    return http.request({ method: 'GET', path: fillPath(op.path, ids), headers: headersFor(op) });
  }

  before(async () => {
    t = await startTestApp({
      config: {
        defaultProject: { serverKey: FIXED_KEYS.server, clientKey: FIXED_KEYS.client, clientOrigins: [FIXED_KEYS.origin] },
        managementKey: FIXED_KEYS.management,
      },
      log: { write: (line: string) => void lines.push(line) },
    });
    http = new HttpClient(t.url, { maxSockets: 4 });
    ids = (await seedProject(http, t.projectId, { server: FIXED_KEYS.server, client: FIXED_KEYS.client }, 'damaged')).ids;
    operations = (await loadOperations(http)).filter((op) => op.method === 'GET' && op.auth !== 'public' && op.auth !== 'console' && op.auth !== 'cockpit');
    const damaged = await damageTables((table) => !KEPT_TABLES.has(table) && table !== TIER_TABLE);
    assert.ok(damaged > 100, `${damaged} values damaged`);
  });
  after(async () => {
    http?.close();
    await t?.close();
  });

  test('lists answer (leaving the damaged rows out), never a 5xx; a single object answers the 500 that says why; every answer is JSON', async () => {
    const failures: string[] = [];
    let lists = 0;
    lines.length = 0;
    for (const op of operations) {
      const res = await get(op);
      const json = (res.headers['content-type'] ?? '').startsWith('application/json');
      if (json && res.body === undefined) failures.push(`${op.operationId}: an answer that is not JSON: ${describeAnswer(res)}`);
      if (op.operationId.startsWith('list')) {
        lists++;
        if (res.status >= 500) failures.push(`${op.operationId}: ${describeAnswer(res)}`);
      } else if (res.status >= 500 && !isUnreadableAnswer(res)) {
        failures.push(`${op.operationId}: ${describeAnswer(res)}`);
      }
    }
    assert.ok(lists > 50, `${lists} lists swept`);
    assert.deepEqual(failures, []);
    const reported = new Set(skipsIn(lines).map((s) => s.unreadable_row.object));
    for (const object of ['voucher', 'customer', 'campaign', 'redemption', 'order', 'product', 'customer_activity', 'publication']) assert.ok(reported.has(object), `a ${object} left out is reported`);
  });

  test('with the tier damaged too, the lists it prices answer the 500 that says why; the tier lists leave it out', async () => {
    assert.ok((await damageTables((table) => table === TIER_TABLE)) > 0);
    const failures: string[] = [];
    for (const op of operations) {
      if (!op.path.includes('tier') && !PRICED_BY_TIER.includes(op.operationId)) continue;
      const res = await get(op);
      const expected = PRICED_BY_TIER.includes(op.operationId) ? isUnreadableAnswer(res) : op.operationId.startsWith('list') ? res.status < 500 : res.status < 500 || isUnreadableAnswer(res);
      if (!expected) failures.push(`${op.operationId}: ${describeAnswer(res)}`);
    }
    assert.deepEqual(failures, []);
  });
});
