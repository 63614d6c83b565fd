import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { InsertQueryNode, SelectQueryNode, TableNode, type KyselyPlugin } from 'kysely';
import { runCsvImport } from '../../src/services/csv-imports/run-import.ts';
import { purgeAbandonedUploads } from '../../src/services/csv-imports/abandoned-uploads.ts';
import type { CsvImportKind, CsvImportPayload } from '../../src/services/csv-imports/kinds.ts';
import { CsvUpload } from '../../src/services/csv-imports/upload.ts';
import { checkpointJob, claimNextJob, toJob } from '../../src/store/jobs.ts';
import { inTransaction, internalActor } from '../../src/services/context.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';

// CSV imports (`POST …/importCSV`): multipart uploads parsed as they arrive into staged rows, imported by
// the worker in slices through the same services and checks as the JSON API; the async action lists
// every rejected row with its row number, file line and reason.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The multipart boundary of the uploads this file writes by hand. */
const BOUNDARY = 'punchcard-test-boundary';

describe('CSV imports', () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    // The 100 MiB upload below must not meet the 30 s receive deadline on a busy machine.
    t = await startTestApp({ config: { server: { ...testConfig().server, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 72_000, maxConnections: 1024 } } });
    dir = mkdtempSync(join(tmpdir(), 'punchcard-csv-'));
    for (const [relatedObject, properties] of [
      ['customer', { vip: { type: 'boolean' }, visits: { type: 'number' }, tags: { type: 'string', array: true } }],
      ['product', { weight: { type: 'number' } }],
      ['voucher', { batch: { type: 'number' } }],
    ] as const) {
      const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/metadata-schemas`, {
        headers: t.managementHeaders(),
        json: { related_object: relatedObject, properties },
      });
      assert.equal(schema.status, 200, schema.text);
    }
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let files = 0;
  function csvFile(text: string): string {
    const path = join(dir, `import-${++files}.csv`);
    writeFileSync(path, text);
    return path;
  }

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      /* until the queue is empty */
    }
  }

  async function action(id: string): Promise<Json> {
    const res = await t.request('GET', `/v1/async-actions/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function stagedRows(): Promise<number> {
    const row = await t.db.db.selectFrom('csv_import_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Sends a multipart upload whose file part is `size` bytes of `filler`, its length announced up front. */
  function announcedUpload(path: string, size: number, filler: Buffer): Promise<{ status: number; text: string }> {
    const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="huge.csv"\r\nContent-Type: text/csv\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = httpRequest(`${t.url}${path}`, {
        method: 'POST',
        headers: { ...t.serverHeaders(), 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(head.length + size + tail.length) },
      });
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
          req.destroy();
        });
        res.on('error', reject);
      });
      // Writing after the server answered and closed fails with EPIPE or a reset: expected then.
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      let left = size;
      const writeMore = () => {
        while (!answered && left > 0) {
          const piece = filler.subarray(0, Math.min(left, filler.length));
          left -= piece.length;
          if (!req.write(piece)) return void req.once('drain', writeMore);
        }
        if (!answered) req.end(tail);
      };
      req.write(head);
      writeMore();
    });
  }

  function multipart(path: string, body: RequestInit['body'], headers: Record<string, string> = {}) {
    return fetch(`${t.url}${path}`, { method: 'POST', headers: { ...t.serverHeaders(), ...headers }, body });
  }

  function form(csv: string, name = 'file'): FormData {
    const data = new FormData();
    data.append(name, new Blob([csv], { type: 'text/csv' }), 'import.csv');
    return data;
  }

  test('customers: standard columns as the vendor names them, quoted fields, typed metadata, rejected rows with line numbers', async () => {
    const sdk = t.sdk();
    const existing: Json = await sdk.customers.create({ source_id: 'csv-c-2', name: 'Before', email: 'before@example.com' });
    const csv = [
      'Id,Name,Email,Phone,Birthdate,Source_id,Address_line_1,Address_line_2,Address_Postal_Code,Address_City,Address_State,Address_Country,Description,vip,visits,tags,favourite_brand',
      ',"Doe, Jane",jane@example.com,+48 600 100 200,1990-04-01,csv-c-1,"Main St 1, flat 2",,00-001,Warsaw,,PL,"Likes ""quotes""\nand two lines",true,12,"premium,newsletter",Acme',
      `${existing.id},After,,,,,,,,,,,,false,,,`,
      ',No Birthday,,,1990-02-30,csv-c-3,,,,,,,,,,,',
      ',Bad Metadata,,,,csv-c-4,,,,,,,,sometimes,,,',
      ',Ghost,,,,,,,,,,,,,,,',
      'cust_unknown,Nobody,,,,,,,,,,,,,,,',
      '',
      ',Too Many Cells,,,,csv-c-5,,,,,,,,,,,,surplus',
    ].join('\r\n');
    const started: Json = await sdk.customers.importCSV(csvFile(csv));
    assert.match(started.async_action_id, /^aa_/);
    const queued = await action(started.async_action_id);
    assert.equal(queued.type, 'CUSTOMERS.IMPORT_CSV');
    assert.equal(queued.status, 'ENQUEUED');

    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.status, 'DONE');
    assert.equal(done.progress, 100);
    assert.equal(done.result.done_count, 3);
    assert.equal(done.result.failed_count, 4);
    assert.equal(done.result.message, '3 customer(s) imported successfully, 4 failed.');
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.row, f.line, f.source_id]),
      [
        [3, 5, 'csv-c-3'],
        [4, 6, 'csv-c-4'],
        [6, 8, 'cust_unknown'],
        [7, 10, 'csv-c-5'],
      ],
    );
    const reasons = done.result.failed.map((f: Json) => f.reason);
    assert.match(reasons[0], /birthdate/);
    assert.match(reasons[1], /vip/);
    assert.match(reasons[2], /Cannot find customer with id cust_unknown/);
    assert.match(reasons[3], /18 cells, but the header names 17 columns/);

    const jane: Json = await sdk.customers.get('csv-c-1');
    assert.equal(jane.name, 'Doe, Jane');
    assert.equal(jane.email, 'jane@example.com');
    assert.equal(jane.phone, '+48 600 100 200');
    assert.equal(jane.birthdate, '1990-04-01');
    assert.equal(jane.description, 'Likes "quotes"\nand two lines');
    assert.deepEqual(jane.address, { city: 'Warsaw', state: null, line_1: 'Main St 1, flat 2', line_2: null, country: 'PL', postal_code: '00-001' });
    assert.deepEqual(jane.metadata, { vip: true, visits: 12, tags: ['premium', 'newsletter'], favourite_brand: 'Acme' });
    // A row naming an existing customer by id updates the members it gives; empty cells change nothing.
    const updated: Json = await sdk.customers.get(existing.id);
    assert.equal(updated.name, 'After');
    assert.equal(updated.email, 'before@example.com');
    assert.deepEqual(updated.metadata, { vip: false });
    // A row with neither id nor source_id creates a customer, as POST /v1/customers does.
    const ghosts: Json = await sdk.customers.list({ limit: 100 } as never);
    assert.equal(ghosts.customers.filter((c: Json) => c.name === 'Ghost').length, 1);
    for (const refused of ['csv-c-3', 'csv-c-4', 'csv-c-5']) {
      assert.equal((await t.request('GET', `/v1/customers/${refused}`)).status, 404, `${refused} was imported`);
    }
    assert.equal(await stagedRows(), 0, 'staged rows are deleted once imported');
  });

  test('products: attributes as a quoted list, an existing product only renamed, rows without a name or with a bad price rejected', async () => {
    const sdk = t.sdk();
    await sdk.products.create({ source_id: 'csv-p-1', name: 'Old name', price: 100, metadata: { weight: 1 } });
    const csv = [
      'name,source_id,price,attributes,image_url,weight,Material',
      'Renamed,csv-p-1,999,"color,size",,5,wool',
      '"Shoe, running",csv-p-2,12900,"color,size",https://example.com/shoe.png,1.5,"mesh, rubber"',
      ',csv-p-3,100,,,,',
      'Cheap,csv-p-4,12.50,,,,',
      'Heavy,csv-p-5,100,,,heavy,',
    ].join('\n');
    const started: Json = await sdk.products.importCSV(csvFile(csv));
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.type, 'PRODUCTS.IMPORT_CSV');
    assert.deepEqual([done.result.done_count, done.result.failed_count], [2, 3]);
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.row, f.line, f.source_id]),
      [
        [3, 4, 'csv-p-3'],
        [4, 5, 'csv-p-4'],
        [5, 6, 'csv-p-5'],
      ],
    );
    assert.match(done.result.failed[0].reason, /Column name is required/);
    assert.match(done.result.failed[1].reason, /Column price: '12\.50' is not a whole number: amounts are in the smallest currency unit/);
    assert.match(done.result.failed[2].reason, /weight/);

    const renamed: Json = await sdk.products.get('csv-p-1');
    assert.equal(renamed.name, 'Renamed');
    assert.equal(renamed.price, 100, 'the vendor updates only the name of an existing product');
    assert.deepEqual(renamed.metadata, { weight: 1 });
    const shoe: Json = await sdk.products.get('csv-p-2');
    assert.equal(shoe.name, 'Shoe, running');
    assert.equal(shoe.price, 12900);
    assert.deepEqual(shoe.attributes, ['color', 'size']);
    assert.equal(shoe.image_url, 'https://example.com/shoe.png');
    assert.deepEqual(shoe.metadata, { weight: 1.5, Material: 'mesh, rubber' });
  });

  test('SKUs: attributes as JSON (also single-quoted, as the vendor writes them), existing SKUs get name and price, conflicts rejected', async () => {
    const sdk = t.sdk();
    await sdk.products.create({ source_id: 'csv-sku-prod', name: 'Tee', attributes: ['color', 'size'] });
    await sdk.products.create({ source_id: 'csv-sku-other', name: 'Other' });
    await sdk.products.createSku('csv-sku-other', { source_id: 'csv-sku-taken', sku: 'Taken' });
    await sdk.products.createSku('csv-sku-prod', { source_id: 'csv-sku-3', sku: 'Old', price: 1, attributes: { color: 'green' } });
    const csv = [
      'product_id,sku,source_id,price,image_url,attributes,season',
      `csv-sku-prod,Red S,csv-sku-1,1500,,"{'color':'red','size':'S'}",summer`,
      'csv-sku-prod,Blue M,csv-sku-2,1600,,"{""color"":""blue"",""size"":""M""}",',
      'csv-sku-prod,New name,csv-sku-3,2500,,"{""color"":""black""}",',
      'csv-sku-prod,Stolen,csv-sku-taken,100,,,',
      'no-such-product,Lost,csv-sku-4,100,,,',
      'csv-sku-prod,Broken,csv-sku-5,100,,{color,',
      'csv-sku-prod,Nameless,,100,,,',
    ].join('\n');
    const started: Json = await sdk.products.importSkusCSV(csvFile(csv));
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.type, 'SKUS.IMPORT_CSV');
    assert.deepEqual([done.result.done_count, done.result.failed_count], [3, 4]);
    assert.deepEqual(
      done.result.failed.map((f: Json) => f.row),
      [4, 5, 6, 7],
    );
    assert.match(done.result.failed[0].reason, /Duplicated sku exists with source_id csv-sku-taken/);
    assert.match(done.result.failed[1].reason, /Cannot find product with id no-such-product/);
    assert.match(done.result.failed[2].reason, /Column attributes: .* is not valid JSON/);
    assert.match(done.result.failed[3].reason, /Column source_id is required/);

    const red: Json = await sdk.products.getSku('csv-sku-1');
    assert.deepEqual([red.sku, red.price, red.attributes, red.metadata], ['Red S', 1500, { color: 'red', size: 'S' }, { season: 'summer' }]);
    const blue: Json = await sdk.products.getSku('csv-sku-2');
    assert.deepEqual(blue.attributes, { color: 'blue', size: 'M' });
    const renamed: Json = await sdk.products.getSku('csv-sku-3');
    assert.deepEqual([renamed.sku, renamed.price, renamed.attributes], ['New name', 2500, { color: 'green' }]);
  });

  test('standalone vouchers: discount, gift and loyalty rows, categories, dates, limits; duplicates and history rejected', async () => {
    const sdk = t.sdk();
    await sdk.categories.create({ name: 'Summer', hierarchy: 1 } as never);
    await sdk.vouchers.create({ code: 'CSV-TAKEN', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
    const csv = [
      'Code,Voucher Type,Value,Discount Type,Category,Start Date,Expiration Date,Redemption Limit,Redeemed Quantity,Active,Additional Info,batch',
      'CSV-AMOUNT,DISCOUNT_VOUCHER,1000,AMOUNT,Summer,2026-01-01,2026-12-31T23:59,5,0,true,"For VIPs, only",7',
      'CSV-PERCENT,DISCOUNT_VOUCHER,15,PERCENT,,,,,,false,,',
      'CSV-GIFT,GIFT_VOUCHER,5000,,,,,,,,,',
      'CSV-CARD,LOYALTY_CARD,300,,,,,,,,,',
      'CSV-TAKEN,DISCOUNT_VOUCHER,10,AMOUNT,,,,,,,,',
      'CSV-AMOUNT,DISCOUNT_VOUCHER,10,AMOUNT,,,,,,,,',
      'CSV-USED,DISCOUNT_VOUCHER,10,AMOUNT,,,,,3,,,',
      'CSV-NEWCAT,DISCOUNT_VOUCHER,10,AMOUNT,Winter,,,,,,,',
      'CSV-DATE,DISCOUNT_VOUCHER,10,AMOUNT,,next week,,,,,,',
      'CSV-WHAT,DISCOUNT_VOUCHER,10,BOGUS,,,,,,,,',
    ].join('\n');
    const started: Json = await sdk.vouchers.importCSV(csvFile(csv));
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.type, 'VOUCHERS.IMPORT_CSV');
    assert.deepEqual([done.result.done_count, done.result.failed_count], [5, 5]);
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.row, f.code]),
      [
        [5, 'CSV-TAKEN'],
        [6, 'CSV-AMOUNT'],
        [7, 'CSV-USED'],
        [9, 'CSV-DATE'],
        [10, 'CSV-WHAT'],
      ],
    );
    const reasons = done.result.failed.map((f: Json) => f.reason);
    assert.match(reasons[0], /Duplicated voucher exists with code CSV-TAKEN/);
    assert.match(reasons[1], /Duplicated voucher exists with code CSV-AMOUNT/);
    assert.match(reasons[2], /redemption history is not supported/);
    assert.match(reasons[3], /start_date/);
    assert.match(reasons[4], /Column Discount Type: 'BOGUS' should be AMOUNT, PERCENT, FIXED or UNIT/);

    const amount: Json = await sdk.vouchers.get('CSV-AMOUNT');
    assert.equal(amount.type, 'DISCOUNT_VOUCHER');
    assert.deepEqual([amount.discount.type, amount.discount.amount_off], ['AMOUNT', 1000]);
    assert.equal(amount.category, 'Summer');
    assert.equal(amount.start_date, '2026-01-01T00:00:00.000Z');
    assert.equal(amount.expiration_date, '2026-12-31T23:59:00.000Z');
    assert.equal(amount.redemption.quantity, 5);
    assert.equal(amount.active, true);
    assert.equal(amount.additional_info, 'For VIPs, only');
    assert.deepEqual(amount.metadata, { batch: 7 });
    assert.equal(amount.campaign, null);
    const percent: Json = await sdk.vouchers.get('CSV-PERCENT');
    assert.deepEqual([percent.discount.type, percent.discount.percent_off, percent.active], ['PERCENT', 15, false]);
    const gift: Json = await sdk.vouchers.get('CSV-GIFT');
    assert.deepEqual([gift.type, gift.gift.amount, gift.gift.balance], ['GIFT_VOUCHER', 5000, 5000]);
    const card: Json = await sdk.vouchers.get('CSV-CARD');
    assert.deepEqual([card.type, card.loyalty_card.points], ['LOYALTY_CARD', 300]);
    // A Category the project does not have yet is created, as `category` in POST /v1/vouchers is.
    const newCategory: Json = await sdk.vouchers.get('CSV-NEWCAT');
    assert.equal(newCategory.category, 'Winter');
    assert.equal(newCategory.categories[0].hierarchy, 1);
    for (const code of ['CSV-USED', 'CSV-DATE', 'CSV-WHAT']) {
      assert.equal((await t.request('GET', `/v1/vouchers/${code}`)).status, 404, `${code} was imported`);
    }
  });

  test('campaign vouchers: codes join the campaign and take its template; gift amounts, categories, metadata; bad rows rejected', async () => {
    const sdk = t.sdk();
    const coupons: Json = await sdk.campaigns.create({
      name: 'CSV coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 20 } },
    } as never);
    const gifts: Json = await sdk.campaigns.create({
      name: 'CSV gifts',
      campaign_type: 'GIFT_VOUCHERS',
      type: 'STATIC',
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } },
    } as never);

    const couponCsv = ['Code,Category,Active,batch', 'CSV-CAMP-1,Summer,true,1', 'CSV-CAMP-2,,false,', 'CSV-CAMP-1,,,', 'CSV-CAMP-3,,maybe,'].join('\n');
    const started: Json = await sdk.campaigns.importVouchersCSV(coupons.id, csvFile(couponCsv));
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.type, 'CAMPAIGN.VOUCHERS_IMPORT_CSV');
    assert.deepEqual([done.result.done_count, done.result.failed_count], [2, 2]);
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.row, f.line, f.code]),
      [
        [3, 4, 'CSV-CAMP-1'],
        [4, 5, 'CSV-CAMP-3'],
      ],
    );
    assert.match(done.result.failed[1].reason, /Column Active: 'maybe' should be true or false/);
    const first: Json = await sdk.vouchers.get('CSV-CAMP-1');
    assert.equal(first.campaign_id, coupons.id);
    assert.deepEqual([first.discount.type, first.discount.percent_off], ['PERCENT', 20]);
    assert.deepEqual([first.category, first.metadata, first.active], ['Summer', { batch: 1 }, true]);
    const second: Json = await sdk.vouchers.get('CSV-CAMP-2');
    assert.equal(second.active, false);
    const campaign: Json = await sdk.campaigns.get(coupons.id);
    assert.equal(campaign.vouchers_count, 2);

    // By name, as the vendor's path allows; gift cards take their balance from `Gift Amount`.
    const giftCsv = ['Code,Gift Amount,Redeemed Amount', 'CSV-GC-1,2500,', 'CSV-GC-2,,0', 'CSV-GC-3,100,50'].join('\n');
    const res = await multipart(`/v1/campaigns/${encodeURIComponent(gifts.name)}/importCSV`, form(giftCsv));
    assert.equal(res.status, 200);
    const giftAction = (await res.json()) as Json;
    await runJobs();
    const giftDone = await action(giftAction.async_action_id);
    assert.deepEqual([giftDone.result.done_count, giftDone.result.failed_count], [2, 1]);
    assert.match(giftDone.result.failed[0].reason, /Redeemed Amount|redeemed_amount/);
    assert.deepEqual((await sdk.vouchers.get('CSV-GC-1') as Json).gift.balance, 2500);
    assert.deepEqual((await sdk.vouchers.get('CSV-GC-2') as Json).gift.balance, 1000);

    // Gift amounts do not apply to a discount campaign: the same rule as POST /v1/vouchers.
    const wrong = await multipart(`/v1/campaigns/${coupons.id}/importCSV`, form('Code,Gift Amount\nCSV-CAMP-9,100\n'));
    await runJobs();
    const wrongDone = await action(((await wrong.json()) as Json).async_action_id);
    assert.match(wrongDone.result.failed[0].reason, /Column Gift Amount does not apply to DISCOUNT_VOUCHER vouchers/);
  });

  test('an unknown campaign is 404 before the body is looked at', async () => {
    for (const [body, headers] of [
      [form('Code\nX-1\n'), {}],
      ['{"file":"x"}', { 'content-type': 'application/json' }],
    ] as const) {
      const res = await multipart('/v1/campaigns/no-such-campaign/importCSV', body, headers);
      assert.equal(res.status, 404);
      const answer = (await res.json()) as Json;
      assert.equal(answer.key, 'not_found');
      assert.equal(answer.resource_type, 'campaign');
    }
    assert.equal(await stagedRows(), 0);
  });

  test('refused uploads answer 400 (413 when too large) in the standard body and leave nothing behind', async () => {
    const jobsBefore = await t.db.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const expectError = async (res: Response, status: number, details: RegExp) => {
      const body = (await res.json()) as Json;
      assert.equal(res.status, status, JSON.stringify(body));
      assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'key', 'message', 'request_id']);
      assert.equal(body.code, status);
      assert.match(body.details, details);
    };
    // Not multipart at all: JSON, a bare CSV body, a form; and no body.
    await expectError(await multipart('/v1/customers/importCSV', JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' }), 400, /multipart\/form-data/);
    await expectError(await multipart('/v1/products/importCSV', 'name\nA\n', { 'content-type': 'text/csv' }), 400, /multipart\/form-data/);
    await expectError(await multipart('/v1/skus/importCSV', 'file=x', { 'content-type': 'application/x-www-form-urlencoded' }), 400, /multipart\/form-data/);
    await expectError(await fetch(`${t.url}/v1/vouchers/importCSV`, { method: 'POST', headers: t.serverHeaders() }), 400, /multipart\/form-data/);
    // Multipart without a file part, or with two files.
    const fieldsOnly = new FormData();
    fieldsOnly.append('webhooks_enable', 'true');
    await expectError(await multipart('/v1/vouchers/importCSV', fieldsOnly), 400, /file part/);
    const twoFiles = form('Source_id\na\n');
    twoFiles.append('other', new Blob(['Source_id\nb\n']), 'other.csv');
    await expectError(await multipart('/v1/customers/importCSV', twoFiles), 400, /one file/);
    // A broken multipart body.
    await expectError(await multipart('/v1/customers/importCSV', 'garbage', { 'content-type': 'multipart/form-data; boundary=xyz' }), 400, /multipart/);
    // Files that cannot be imported at all.
    await expectError(await multipart('/v1/customers/importCSV', form('')), 400, /empty/);
    await expectError(await multipart('/v1/customers/importCSV', form('Source_id,name\n"unclosed,x\n')), 400, /not valid CSV/);
    await expectError(await multipart('/v1/customers/importCSV', form('Source_id,favourite brand\na,b\n')), 400, /cannot contain white space/);
    await expectError(await multipart('/v1/customers/importCSV', form('Source_id,Name,source_id\na,b,c\n')), 400, /both name source_id/);
    await expectError(await multipart('/v1/products/importCSV', form('source_id,price\na,1\n')), 400, /must name the column name/);
    await expectError(await multipart('/v1/skus/importCSV', form('sku,source_id\na,b\n')), 400, /must name the column product_id/);

    // Larger than the limit: a body announced larger is refused before it is read; a body sent without a
    // length (chunked, as the SDK streams files) is cut off as soon as the file passes the limit. The
    // filler is blank lines, the cheapest text to parse.
    const limit = 100 * 1024 * 1024;
    const filler = Buffer.alloc(1024 * 1024, '\n');
    const fillerStream = (bytes: number) => {
      let left = bytes;
      return new ReadableStream({
        pull(controller) {
          if (left <= 0) return controller.close();
          const piece = filler.subarray(0, Math.min(left, filler.length));
          left -= piece.length;
          controller.enqueue(new Uint8Array(piece));
        },
      });
    };
    // The announced size goes out as Content-Length through node:http (fetch's FormData takes only real
    // Blobs, and a 104 MiB one would sit in memory); the server answers before the body has been sent.
    const size = limit + 4 * filler.length;
    const announced = await announcedUpload('/v1/customers/importCSV', size, filler);
    assert.equal(announced.status, 413, announced.text);
    await expectError(new Response(announced.text, { status: announced.status }), 413, /larger than the 104857600 bytes/);
    let sent = 0;
    const boundary = BOUNDARY;
    const chunked = new ReadableStream({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.csv"\r\nContent-Type: text/csv\r\n\r\nSource_id\n`));
        if (sent > limit) {
          controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
          return controller.close();
        }
        sent += filler.length;
        controller.enqueue(new Uint8Array(filler));
      },
    });
    const streamed = await fetch(`${t.url}/v1/customers/importCSV`, {
      method: 'POST',
      headers: { ...t.serverHeaders(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    await expectError(streamed, 413, /larger than the 104857600 bytes/);

    assert.equal(await stagedRows(), 0, 'refused uploads left staged rows');
    const uploads = await t.db.db.selectFrom('csv_uploads').selectAll().execute();
    assert.deepEqual(uploads, []);
    const jobsAfter = await t.db.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(jobsAfter.n), Number(jobsBefore.n), 'a refused upload enqueued a job');
  });

  test('an upload broken off by the client leaves nothing; a mark left by a dead process is purged with its rows', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `broken-${i},Name ${i}\n`);
    const controller = new AbortController();
    let pushed = 0;
    const encode = (text: string) => new TextEncoder().encode(text);
    const body = new ReadableStream({
      async pull(stream) {
        if (pushed === 0) stream.enqueue(encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="broken.csv"\r\nContent-Type: text/csv\r\n\r\nSource_id,Name\n`));
        if (pushed >= rows.length) {
          // Stop sending and go away mid-file: the closing boundary never comes.
          await new Promise((resolve) => setTimeout(resolve, 200));
          controller.abort();
          return;
        }
        stream.enqueue(encode(rows.slice(pushed, pushed + 500).join('')));
        pushed += 500;
      },
    });
    await assert.rejects(
      fetch(`${t.url}/v1/customers/importCSV`, {
        method: 'POST',
        headers: { ...t.serverHeaders(), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body,
        duplex: 'half',
        signal: controller.signal,
      } as RequestInit),
    );
    // The server learns of the abort and deletes what it staged in slices, one commit each: on a loaded
    // PostgreSQL that took more than 5 s in CI, so the test waits up to 30 s (it checks what is left, not how fast).
    for (let i = 0; i < 300 && ((await stagedRows()) > 0 || (await t.db.db.selectFrom('csv_uploads').selectAll().execute()).length > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await stagedRows(), 0);
    assert.deepEqual(await t.db.db.selectFrom('csv_uploads').selectAll().execute(), []);
    assert.equal((await t.request('GET', '/v1/customers/broken-0')).status, 404);

    // A process that died mid-upload leaves its mark and rows; housekeeping removes them a day later.
    await t.db.db.insertInto('csv_uploads').values({ id: 'aa_dead', project_id: t.projectId, kind: 'CUSTOMERS.IMPORT_CSV', created_at: t.clock.now().toISOString() }).execute();
    await t.db.db
      .insertInto('csv_import_rows')
      .values([1, 2].map((n) => ({ project_id: t.projectId, import_id: 'aa_dead', row_no: n, line: n + 1, cells: '["x"]' })))
      .execute();
    assert.equal(await purgeAbandonedUploads(t.deps), 0, 'a fresh upload was purged');
    t.clock.advance(25 * 3600_000);
    assert.equal(await purgeAbandonedUploads(t.deps), 1);
    assert.equal(await stagedRows(), 0);
  });

  test('a file that fails while a batch is being inserted leaves nothing once discarded', async () => {
    // The file breaks off at the moment its first batch goes to the database. pipeline() rejects at once,
    // while that insert is still on its way; stage() must wait for it, or the batch lands after discard().
    const rows = ['Source_id,Name', ...Array.from({ length: 600 }, (_, i) => `mid-insert-${i},Name ${i}`)].join('\n');
    const file = new PassThrough();
    const breakOffAtInsert: KyselyPlugin = {
      transformQuery({ node }) {
        if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'csv_import_rows') {
          file.destroy(new Error('the client went away'));
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const deps = { ...t.deps, db: t.deps.db.withPlugin(breakOffAtInsert) };
    const upload = await CsvUpload.open(deps, internalActor(t.projectId, 'req_mid_insert'), 'CUSTOMERS.IMPORT_CSV');
    file.write(`${rows}\n`); // and never ends: only the failure stops it
    await assert.rejects(upload.stage(file), /the client went away/);
    await upload.discard();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await stagedRows(), 0, 'a batch inserted after the discard stayed');
    assert.deepEqual(await t.db.db.selectFrom('csv_uploads').selectAll().execute(), []);
  });

  test('every other route still refuses multipart/form-data with 415', async () => {
    for (const path of ['/v1/customers', '/v1/products/bulk/async', '/v1/vouchers/import', '/v1/campaigns/x/import', '/v1/orders']) {
      const res = await multipart(path, form('Source_id\na\n'));
      const body = (await res.json()) as Json;
      assert.equal(res.status, 415, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.key, 'unsupported_media_type');
      assert.equal(typeof body.request_id, 'string');
    }
  });

  test('Idempotency-Key is accepted on an upload and does not hold the request in one transaction', async () => {
    const res = await multipart('/v1/customers/importCSV', form('Source_id,Name\nidem-1,Idem\n'), { 'Idempotency-Key': 'csv-upload-1' });
    assert.equal(res.status, 202);
    await runJobs();
    assert.equal((await t.request('GET', '/v1/customers/idem-1')).status, 200);
  });

  test('imported customers enter the auto-update segments they match; a slice reads the segments once', async () => {
    const created = await t.request('POST', '/v1/segments', {
      json: { name: 'CSV Gdansk', type: 'auto-update', filter: { junction: 'AND', 'address.city': { conditions: { $in: ['Gdansk'] } } } },
    });
    assert.equal(created.status, 200, created.text);
    const segmentId = created.body.id as string;
    const lines = ['Source_id,Address_City'];
    for (let i = 1; i <= 40; i++) lines.push(`seg-${i},${i % 4 === 0 ? 'Gdansk' : 'Warsaw'}`);
    const res = await multipart('/v1/customers/importCSV', form(lines.join('\n')));
    assert.equal(res.status, 202);
    const id = ((await res.json()) as Json).async_action_id as string;

    // The job runs here, through a database handle that counts the reads of segments and the slices.
    let segmentReads = 0;
    let slices = 0;
    const counting: KyselyPlugin = {
      transformQuery({ node }) {
        if (SelectQueryNode.is(node) && node.from?.froms.some((from) => TableNode.is(from) && from.table.identifier.name === 'segments')) segmentReads++;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const deps = { ...t.deps, db: t.deps.db.withPlugin(counting) };
    const now = t.clock.now();
    const leaseUntil = new Date(now.getTime() + 60_000).toISOString();
    const claimed = await inTransaction(t.deps, (tx) => claimNextJob(tx, t.deps.dialect, 'w-count', now.toISOString(), leaseUntil, ['CUSTOMERS.IMPORT_CSV']));
    assert.equal(claimed?.id, id);
    const job = toJob<CsvImportPayload>(claimed);
    const result = await runCsvImport(deps, { ...job, kind: job.kind as CsvImportKind }, async (tx, progress, percent) => {
      slices++;
      await checkpointJob(tx, { id, workerId: 'w-count', result: progress, progress: percent, leaseUntil, at: now.toISOString() });
    });
    assert.deepEqual([result.done_count, result.failed_count], [40, 0]);
    assert.ok(slices >= 1 && segmentReads === slices, `${segmentReads} reads of segments in ${slices} slices`);

    const members = await t.db.db.selectFrom('segment_members').innerJoin('customers', 'customers.id', 'segment_members.customer_id').select('customers.source_id').where('segment_members.segment_id', '=', segmentId).execute();
    assert.deepEqual(members.map((m) => m.source_id).sort(), Array.from({ length: 10 }, (_, i) => `seg-${4 * (i + 1)}`).sort());
    const entered = await t.db.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', t.projectId)
      .where('type', '=', 'customer.segment.entered')
      .where('entity_id', '=', segmentId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(entered.n), 10);
  });

  test('a job interrupted between slices resumes after the last committed slice: every row applied exactly once', async () => {
    const ROWS = 1000;
    const lines = ['Source_id,Name,visits'];
    for (let i = 1; i <= ROWS; i++) lines.push(`resume-${i},"Name, ${i}",${i % 250 === 0 ? 'many' : i}`);
    const res = await multipart('/v1/customers/importCSV', form(lines.join('\n')));
    assert.equal(res.status, 202);
    const id = ((await res.json()) as Json).async_action_id as string;

    // A worker claims the job and dies during its fourth slice: that slice's transaction never commits.
    const now = t.clock.now();
    const claimed = await inTransaction(t.deps, (tx) =>
      claimNextJob(tx, t.deps.dialect, 'w-doomed', now.toISOString(), new Date(now.getTime() + 60_000).toISOString(), ['CUSTOMERS.IMPORT_CSV']),
    );
    assert.ok(claimed);
    assert.equal(claimed.id, id);
    const job = toJob<CsvImportPayload>(claimed);
    let slices = 0;
    await assert.rejects(
      runCsvImport(t.deps, { ...job, kind: job.kind as CsvImportKind }, async (tx, result, percent) => {
        if (++slices === 4) throw new Error('the process died');
        await checkpointJob(tx, { id, workerId: 'w-doomed', result, progress: percent, leaseUntil: new Date(now.getTime() + 60_000).toISOString(), at: now.toISOString() });
      }),
      /the process died/,
    );
    const stalled = await t.db.db.selectFrom('jobs').select(['status', 'result']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(stalled.status, 'IN_PROGRESS');
    const partial = JSON.parse(stalled.result ?? 'null') as Json;
    const committed = partial.done_count + partial.failed_count;
    assert.ok(committed > 0 && committed < ROWS, `committed ${committed} rows before the crash`);
    assert.equal(partial.next_row, committed + 1);
    const imported = await t.db.db.selectFrom('customers').select('source_id').where('source_id', 'like', 'resume-%').execute();
    assert.equal(imported.length, partial.done_count, 'rows of the slice that died were kept');
    assert.equal(await stagedRows(), ROWS - committed);

    // Its lease runs out; the worker takes the job over and finishes it.
    t.clock.advance(120_000);
    await runJobs();
    const done = await action(id);
    assert.equal(done.status, 'DONE');
    assert.deepEqual([done.result.done_count, done.result.failed_count], [ROWS - 4, 4]);
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.row, f.line, f.source_id]),
      [250, 500, 750, 1000].map((n) => [n, n + 1, `resume-${n}`]),
    );
    const customers = await t.db.db.selectFrom('customers').select('source_id').where('source_id', 'like', 'resume-%').execute();
    assert.equal(customers.length, ROWS - 4);
    assert.equal(new Set(customers.map((c) => c.source_id)).size, ROWS - 4);
    const created = await t.db.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', t.projectId)
      .where('type', '=', 'customer.created')
      .where('group_id', '=', done.request_id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(created.n), ROWS - 4, 'one customer.created per row, none twice');
    assert.equal(await stagedRows(), 0);
  });
});
