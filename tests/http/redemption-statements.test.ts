import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';

// How much database work one stackable redemption costs — a count, not a time, so it does not wobble:
// statements on SQLite (each runs in-process), round trips on PostgreSQL (each waits for the server).
// Issue 18 allows at most 15 statements on SQLite and 10 round trips on PostgreSQL for a voucher and a
// promotion tier redeemed with a 5-item order by a known customer. The request needs 14 statements since
// the customer's statement reads the definitions version, and 7 statements on PostgreSQL since the tier's
// summary is read with the vouchers' reservations and the order's products with the customer's lock
// (src/store/combined-reads.ts); of those, BEGIN and the held writes go out without waiting for an answer
// (src/store/pipelining.ts), so the request waits for the server 5 times, and each of them goes out in
// the same write as the statement after it: 5 writes to the server. The budgets hold it there.

const require = createRequire(import.meta.url);
const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
const Sqlite = require('better-sqlite3') as { prototype: { prepare: (sql: string) => Record<string, unknown> } };

const sent: string[] = [];
/** The statements of `sent` that waited for the server: sent while the connection had no other in flight. */
const waited = new Set<number>();
let counting = false;
const pgQuery = pg.Client.prototype.query;
/**
 * Writes to PostgreSQL's sockets from the transaction's BEGIN on, as round trips are counted: statements
 * sent ahead go out with the next one (src/store/pipelining.ts). The credential check before it is cached
 * for a second and, on a loaded machine, its reads fell into the counted request (7 writes for 5 round trips).
 */
let writes = 0;
let begun = false;
const pgSockets = new WeakSet<object>();
for (const method of ['_write', '_writev'] as const) {
  const original = net.Socket.prototype[method] as (...a: unknown[]) => unknown;
  (net.Socket.prototype as unknown as Record<string, unknown>)[method] = function write(this: net.Socket, ...a: unknown[]) {
    if (counting && begun && pgSockets.has(this)) writes += 1;
    return original.apply(this, a);
  };
}
pg.Client.prototype.query = function query(this: { _activeQuery?: unknown; _sentQueryQueue?: unknown[]; connection?: { stream?: object } }, ...args: unknown[]) {
  if (this.connection?.stream) pgSockets.add(this.connection.stream);
  if (counting) {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
    if (/^begin/i.test(text)) begun = true;
    // A statement written behind another one's unread answer (src/store/pipelining.ts) shares its round trip.
    if (!this._activeQuery && (this._sentQueryQueue?.length ?? 0) === 0) waited.add(sent.length);
    sent.push(text);
  }
  return pgQuery.apply(this, args);
};
const sqlitePrepare = Sqlite.prototype.prepare;
Sqlite.prototype.prepare = function prepare(this: unknown, text: string) {
  const statement = sqlitePrepare.call(this, text);
  for (const method of ['all', 'run', 'get', 'iterate']) {
    const original = statement[method] as (...a: unknown[]) => unknown;
    statement[method] = (...a: unknown[]) => {
      if (counting) sent.push(text);
      return original.apply(statement, a);
    };
  }
  return statement;
};

// The credential checks (the key and its project) are cached for a second per process
// (src/services/auth/authenticator.ts), so their reads may fall into any request: they are not the route's.
const CREDENTIAL_READ = /api_keys|management_keys|^select \* from "projects" where "id" = \S+ and "deleted_at" is null$/i;

function ownStatements(statements: readonly string[]): string[] {
  return statements.filter((text) => !CREDENTIAL_READ.test(text));
}

describe('database work of one redemption', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('a stacked redemption stays within its statement and round-trip budget', async (context) => {
    const f = fixtures(t);
    const products: Json[] = [];
    for (let i = 0; i < 5; i++) products.push(await f.product(1000 + i));
    const promotion = await f.promotion([{ name: 'tier', banner: 'b', action: { discount: { type: 'PERCENT', percent_off: 5 } } }]);
    const campaign = await f.ok('POST', '/v1/campaigns', {
      name: f.unique('Coupons'),
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    const customer = await f.customer();
    // Codes first: adding one changes the definitions, which the next redemption would load again.
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await f.ok('POST', `/v1/campaigns/${campaign.id}/vouchers`, {})).code as string);
    const redeem = async () => {
      const code = codes.shift();
      sent.length = 0;
      waited.clear();
      writes = 0;
      begun = false;
      counting = true;
      const res = await t.request('POST', '/v1/redemptions', {
        json: {
          redeemables: [{ object: 'voucher', id: code }, { object: 'promotion_tier', id: promotion.promotion.tiers[0].id }],
          customer: { source_id: customer.source_id },
          order: { items: products.map((p) => ({ product_id: p.id, quantity: 1 })) },
        },
      });
      counting = false;
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.redemptions.length, 2);
      // The redemption's work is its transaction; the key check before it is cached for a second per
      // process (src/services/auth/authenticator.ts) and may fall into any request.
      const begin = sent.findIndex((text) => /^begin/i.test(text));
      assert.ok(begin >= 0, sent.join('\n'));
      const roundTrips = [...waited].filter((i) => i >= begin).length;
      return { statements: sent.slice(begin), roundTrips, writes, body: res.body as Json };
    };
    // The first redemptions fill the definitions cache and prepare statements; count a warm one.
    await redeem();
    await redeem();
    const { statements, roundTrips, writes: written, body } = await redeem();
    // The tier's record shows its summary with this redemption counted: the two before it and this one.
    const tierRecord = (body.redemptions as Json[]).find((r) => r.related_object_type === 'promotion_tier') as Json;
    assert.equal(tierRecord.promotion_tier.summary.redemptions.total_redeemed, 3);
    const stored = await f.ok('GET', `/v1/promotions/tiers/${promotion.promotion.tiers[0].id}`);
    assert.deepEqual(tierRecord.promotion_tier.summary, stored.summary);
    // PRINT_STATEMENTS=1 shows the trace (README, Benchmarks: "Where a redemption's time goes").
    if (process.env.PRINT_STATEMENTS) statements.forEach((text, i) => context.diagnostic(`${t.db.dialect} ${i + 1}/${statements.length}: ${text}`));
    const budget = t.db.dialect === 'postgres' ? 7 : 14;
    assert.ok(statements.length <= budget, `${statements.length} statements (budget ${budget}):\n${statements.join('\n')}`);
    // PostgreSQL: BEGIN goes out with the first read, the held writes with the COMMIT.
    if (t.db.dialect === 'postgres') assert.ok(roundTrips <= 5, `${roundTrips} round trips (budget 5):\n${statements.join('\n')}`);
    // …in one write each: a statement sent ahead waits for the next one (one wake-up of the server for both).
    if (t.db.dialect === 'postgres') assert.ok(written <= roundTrips, `${written} writes to PostgreSQL for ${roundTrips} round trips`);
    assert.ok(!statements.some((text) => /^select "definitions_version" from "projects"/i.test(text)), `no read of the version alone:\n${statements.join('\n')}`);
    assert.equal(statements.filter((text) => /from "customers"/i.test(text) && /"definitions_version"/.test(text)).length, 1, statements.join('\n'));
  });

  test('GET customer reads the customer with its cockpit link generation, then its holdings and referrals', async () => {
    const f = fixtures(t);
    const customer = await f.customer();
    await f.ok('POST', `/v1/customers/${customer.id}/cockpit/rotate`, {});
    const read = async (key: string) => {
      sent.length = 0;
      counting = true;
      const res = await t.request('GET', `/v1/customers/${encodeURIComponent(key)}`);
      counting = false;
      assert.equal(res.status, 200, res.text);
      return { body: res.body, statements: [...sent] };
    };
    await read(customer.id);
    const { body, statements } = await read(customer.id);
    assert.match(body.assets.cockpit_url, /#token=/);
    const own = ownStatements(statements);
    assert.equal(own.length, 3, own.join('\n'));
    // By source_id: a value that is not a customer id (`cust_…`) is looked up as a source_id only.
    const bySourceId = await read(customer.source_id);
    assert.equal(bySourceId.body.id, customer.id);
    assert.equal(ownStatements(bySourceId.statements).length, 3, ownStatements(bySourceId.statements).join('\n'));
  });

  test('a source_id that looks like a customer id still finds its customer; an id wins over a source_id', async () => {
    const f = fixtures(t);
    const other = await f.customer();
    const lookalike = await f.ok('POST', '/v1/customers', { source_id: 'cust_not_an_id_but_a_source', name: 'Lookalike' });
    assert.equal((await t.request('GET', '/v1/customers/cust_not_an_id_but_a_source')).body.id, lookalike.id);
    const shadow = await f.ok('POST', '/v1/customers', { source_id: other.id, name: 'Shadow' });
    assert.notEqual(shadow.id, other.id);
    assert.equal((await t.request('GET', `/v1/customers/${other.id}`)).body.id, other.id, 'the id wins');
  });

  test('GET voucher and a validation read the definitions version in the statement that reads the voucher or the customer', async () => {
    const f = fixtures(t);
    const customer = await f.customer();
    const voucher = await f.amountVoucher(100);
    const run = async (method: string, path: string, json?: unknown) => {
      sent.length = 0;
      counting = true;
      const res = await t.request(method, path, json === undefined ? {} : { json });
      counting = false;
      assert.equal(res.status, 200, res.text);
      return ownStatements(sent);
    };
    const getVoucher = () => run('GET', `/v1/vouchers/${voucher.code}`);
    await getVoucher();
    const read = await getVoucher();
    assert.deepEqual(read.length, 1, read.join('\n'));
    assert.match(read[0] as string, /from "vouchers"/);
    assert.match(read[0] as string, /"definitions_version"/);

    const validate = () =>
      run('POST', '/v1/validations', { redeemables: [{ object: 'voucher', id: voucher.code }], customer: { source_id: customer.source_id }, order: { amount: 1000 } });
    await validate();
    const statements = await validate();
    assert.ok(!statements.some((text) => /^select "definitions_version" from "projects"/i.test(text)), `no read of the version alone:\n${statements.join('\n')}`);
    assert.equal(statements.filter((text) => /from "customers"/i.test(text) && /"definitions_version"/.test(text)).length, 1, statements.join('\n'));
    // A validation locks nothing: its voucher and the reservations other sessions hold on it come from one
    // statement on both databases (a redemption on PostgreSQL reads the reservations after its row lock).
    assert.deepEqual(
      statements.map((text) => (/from "customers"/i.test(text) ? 'customer' : /from "vouchers"/i.test(text) && /redemption_locks/.test(text) ? 'voucher and reservations' : text)),
      ['customer', 'voucher and reservations'],
    );
  });

  test('creating a customer renders it from the inserted row: no re-read, no holdings or referrals query', async () => {
    const create = async (sourceId: string) => {
      sent.length = 0;
      counting = true;
      const res = await t.request('POST', '/v1/customers', { json: { source_id: sourceId, name: 'New', metadata: { note: 'n' } } });
      counting = false;
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.summary.redemptions.gift, res.body.loyalty, res.body.referrals], [
        { redeemed_amount: 0, amount_to_go: 0 },
        { points: 0, referred_customers: 0, campaigns: {} },
        { total: 0, campaigns: [] },
      ]);
      return ownStatements(sent);
    };
    await create(`stmt-warm-${Date.now()}`);
    const statements = await create(`stmt-${Date.now()}`);
    const customerReads = statements.filter((text) => /from "customers"/i.test(text));
    assert.equal(customerReads.length, 1, `only the source_id lookup reads customers:\n${statements.join('\n')}`);
    assert.ok(!statements.some((text) => /"referrals"|"vouchers"/i.test(text)), statements.join('\n'));
    // Begin, the source_id lookup, the definitions version (the metadata schema is cached), the insert, its
    // name's words for the search (one statement, src/store/customer-search.ts), (PostgreSQL: the segment lock,)
    // the auto-update segments, the event, the answer's cockpit link, commit.
    assert.equal(statements.length, t.db.dialect === 'postgres' ? 10 : 9, statements.join('\n'));
  });

  test('updating a customer takes the changed row from the update itself: no re-read', async () => {
    const created = await t.request('POST', '/v1/customers', { json: { source_id: `stmt-upd-${Date.now()}`, name: 'Before' } });
    assert.equal(created.status, 200, created.text);
    const update = async (name: string) => {
      sent.length = 0;
      counting = true;
      const res = await t.request('PUT', `/v1/customers/${created.body.id}`, { json: { name } });
      counting = false;
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, name);
      return ownStatements(sent);
    };
    await update('Warm');
    const statements = await update('After');
    const customerReads = statements.filter((text) => /^select .* from "customers"/i.test(text));
    assert.equal(customerReads.length, 1, `only the lookup by id reads customers:\n${statements.join('\n')}`);
  });
});
