import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// CSV files written the way the vendor's import templates write them (docs/csv-imports.md): its column
// headers in its spellings (`Voucher Type`, `Source_id`, `Address_Postal_Code`, `image_url`) and in
// other cases and spacings, dates in each ISO 8601 form it lists, undocumented columns as metadata.
// Each kind of import is uploaded with the SDK's importCSV call and its objects read back with the SDK.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The date forms the vendor lists for import files, and the instant each stands for here. */
const DATE_FORMS: Array<[written: string, instant: string]> = [
  ['2026-04-01', '2026-04-01T00:00:00.000Z'],
  ['2026-04-01T09', '2026-04-01T09:00:00.000Z'],
  ['2026-04-01T09:30', '2026-04-01T09:30:00.000Z'],
  ['2026-04-01T09:30:15', '2026-04-01T09:30:15.000Z'],
  ['2026-04-01T09:30:15Z', '2026-04-01T09:30:15.000Z'],
  ['2026-04-01T09:30:15+02:00', '2026-04-01T07:30:15.000Z'],
  ['2026-04-01T09:30:15.250Z', '2026-04-01T09:30:15.250Z'],
];

describe('CSV imports in the vendor template style', () => {
  let t: TestApp;
  let dir: string;
  let files = 0;

  before(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'punchcard-csv-templates-'));
    for (const [relatedObject, properties] of [
      ['voucher', { issued: { type: 'datetime' }, batch: { type: 'number' } }],
      ['customer', { joined: { type: 'datetime' }, first_order: { type: 'date' } }],
      ['product', { launch: { type: 'date' } }],
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

  function csvFile(lines: string[]): string {
    const path = join(dir, `template-${++files}.csv`);
    writeFileSync(path, `${lines.join('\r\n')}\r\n`);
    return path;
  }

  /** Runs the worker until the import is done; answers its result. */
  async function finished(started: Json): Promise<Json> {
    while (await t.worker.runOnce()) {
      /* until the queue is empty */
    }
    const res = await t.request('GET', `/v1/async-actions/${started.async_action_id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'DONE', res.text);
    return res.body.result;
  }

  /** The rejected rows as `code or source_id → reason`. */
  function rejected(result: Json): Record<string, string> {
    return Object.fromEntries(result.failed.map((f: Json) => [f.code ?? f.source_id ?? `row ${f.row}`, f.reason]));
  }

  async function absent(path: string): Promise<void> {
    assert.equal((await t.request('GET', path)).status, 404, `${path} exists`);
  }

  test("standalone vouchers: the vendor's header as its page lists it, every voucher type and discount type, dates in every listed form", async () => {
    const sdk = t.sdk();
    await sdk.categories.create({ name: 'Summer', hierarchy: 1 } as never);
    await sdk.vouchers.create({ code: 'TPL-TAKEN', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
    // The vendor's list, a space after one of its commas included, and a custom metadata property.
    const header = 'Code,Voucher Type,Value,Discount Type,Category,Start Date,Expiration Date,Redemption Limit,Redeemed Quantity, Redeemed Amount,Active,Additional Info,issued,season';
    const rows = [
      `TPL-AMOUNT,DISCOUNT_VOUCHER,1500,AMOUNT,Summer,${DATE_FORMS[0]![0]},${DATE_FORMS[1]![0]},5,0,0,TRUE,"Ten off, for VIPs",${DATE_FORMS[2]![0]},spring`,
      `TPL-PERCENT,DISCOUNT_VOUCHER,12.5,PERCENT,,${DATE_FORMS[3]![0]},${DATE_FORMS[4]![0]},,,,false,,${DATE_FORMS[5]![0]},`,
      `TPL-FIXED,DISCOUNT_VOUCHER,4900,FIXED,New,${DATE_FORMS[6]![0]},,1,,,,,${DATE_FORMS[6]![0]},`,
      'TPL-UNIT,discount_voucher,2,unit,,,,,,,,,,',
      'TPL-GIFT,GIFT_VOUCHER,5000,,Gift cards,,,,0,0.00,true,,,',
      'TPL-CARD,LOYALTY_CARD,300,,,,,,,,,,,',
      // Rejected, each for its own reason, in the standard shape: row, line, code, reason.
      'TPL-TAKEN,DISCOUNT_VOUCHER,10,AMOUNT,Doomed,,,,,,,,,',
      'TPL-CENTS,DISCOUNT_VOUCHER,10.50,AMOUNT,,,,,,,,,,',
      'TPL-KIND,COUPON,10,AMOUNT,,,,,,,,,,',
      'TPL-NOTYPE,DISCOUNT_VOUCHER,10,,,,,,,,,,,',
      'TPL-DATE,DISCOUNT_VOUCHER,10,PERCENT,,11/03/2026,,,,,,,,',
      'TPL-LIMIT,DISCOUNT_VOUCHER,10,PERCENT,,,,many,,,,,,',
      'TPL-USED,DISCOUNT_VOUCHER,10,PERCENT,,,,,2,,,,,',
      'TPL-SPENT,GIFT_VOUCHER,5000,,,,,,,1200,,,,',
      'TPL-ACTIVE,DISCOUNT_VOUCHER,10,PERCENT,,,,,,,yes,,,',
      'TPL-MIXED,GIFT_VOUCHER,10,PERCENT,,,,,,,,,,',
      'TPL-ISSUED,DISCOUNT_VOUCHER,10,PERCENT,,,,,,,,,yesterday,',
    ];
    const result = await finished(await sdk.vouchers.importCSV(csvFile([header, ...rows])));
    assert.deepEqual([result.done_count, result.failed_count], [5, 12], JSON.stringify(result.failed));
    const reasons = rejected(result);
    assert.match(reasons['TPL-UNIT']!, /unit_type/, 'a UNIT discount needs the product its units are of');
    assert.match(reasons['TPL-TAKEN']!, /Duplicated voucher exists with code TPL-TAKEN/);
    assert.match(reasons['TPL-CENTS']!, /^Column Value: '10\.50' is not a whole number: amounts are in the smallest currency unit/);
    assert.match(reasons['TPL-KIND']!, /^Column Voucher Type: 'COUPON' should be DISCOUNT_VOUCHER, GIFT_VOUCHER, LOYALTY_CARD$/);
    assert.match(reasons['TPL-NOTYPE']!, /^Column Discount Type is required for DISCOUNT_VOUCHER vouchers/);
    assert.match(reasons['TPL-DATE']!, /start_date/);
    assert.match(reasons['TPL-LIMIT']!, /redemption\.quantity/);
    assert.match(reasons['TPL-USED']!, /^Column Redeemed Quantity: importing redemption history is not supported/);
    assert.match(reasons['TPL-SPENT']!, /^Column Redeemed Amount: importing redemption history is not supported; leave it empty or 0 \(import a gift card with the balance left/);
    assert.match(reasons['TPL-ACTIVE']!, /^Column Active: 'yes' should be true or false$/);
    assert.match(reasons['TPL-MIXED']!, /^Column Discount Type does not apply to GIFT_VOUCHER vouchers$/);
    assert.match(reasons['TPL-ISSUED']!, /issued/);
    assert.deepEqual(
      result.failed.map((f: Json) => [f.row, f.line]).slice(0, 2),
      [
        [4, 5],
        [7, 8],
      ],
    );

    const amount: Json = await sdk.vouchers.get('TPL-AMOUNT');
    assert.deepEqual([amount.type, amount.discount.type, amount.discount.amount_off], ['DISCOUNT_VOUCHER', 'AMOUNT', 1500]);
    assert.deepEqual([amount.category, amount.start_date, amount.expiration_date], ['Summer', DATE_FORMS[0]![1], DATE_FORMS[1]![1]]);
    assert.deepEqual([amount.redemption.quantity, amount.active, amount.additional_info], [5, true, 'Ten off, for VIPs']);
    assert.deepEqual(amount.metadata, { issued: DATE_FORMS[2]![1], season: 'spring' });
    assert.equal(amount.campaign, null);
    const percent: Json = await sdk.vouchers.get('TPL-PERCENT');
    assert.deepEqual([percent.discount.type, percent.discount.percent_off, percent.active], ['PERCENT', 12.5, false]);
    assert.deepEqual([percent.start_date, percent.expiration_date, percent.redemption.quantity], [DATE_FORMS[3]![1], DATE_FORMS[4]![1], null]);
    assert.deepEqual(percent.metadata, { issued: DATE_FORMS[5]![1] });
    const fixed: Json = await sdk.vouchers.get('TPL-FIXED');
    assert.deepEqual([fixed.discount.type, fixed.discount.fixed_amount, fixed.start_date], ['FIXED', 4900, DATE_FORMS[6]![1]]);
    const gift: Json = await sdk.vouchers.get('TPL-GIFT');
    assert.deepEqual([gift.type, gift.gift.amount, gift.gift.balance, gift.category], ['GIFT_VOUCHER', 5000, 5000, 'Gift cards']);
    const card: Json = await sdk.vouchers.get('TPL-CARD');
    assert.deepEqual([card.type, card.loyalty_card.points], ['LOYALTY_CARD', 300]);

    // A Category the project did not have is created with the row, and a rejected row's goes with it.
    const categories: Json = await sdk.categories.list();
    const names = categories.data.map((c: Json) => c.name).sort();
    assert.deepEqual(names, ['Gift cards', 'New', 'Summer']);
    assert.equal(fixed.category, 'New');
    for (const code of ['TPL-UNIT', 'TPL-CENTS', 'TPL-KIND', 'TPL-USED', 'TPL-SPENT', 'TPL-MIXED']) await absent(`/v1/vouchers/${code}`);
  });

  test('voucher headers in any case and spacing; Punchcard’s own Discount Effect and Discount Unit Type columns', async () => {
    const sdk = t.sdk();
    const product: Json = await sdk.products.create({ source_id: 'tpl-unit-product', name: 'Free item' });
    const header = 'CODE,voucher type,VALUE,discount_type,DiscountEffect,Discount Unit Type,START DATE,expiration_date,redemption limit,Additional_Info';
    const rows = [
      `TPL-CASE-1,Discount_Voucher,20,percent,apply_to_order,,2026-05-01,2026-06-01T12,3,first`,
      `TPL-CASE-2,DISCOUNT_VOUCHER,1,UNIT,ADD_MISSING_ITEMS,${product.id},,,,`,
      'TPL-CASE-3,DISCOUNT_VOUCHER,10,PERCENT,,tpl-unit-product,,,,',
    ];
    const result = await finished(await sdk.vouchers.importCSV(csvFile([header, ...rows])));
    assert.deepEqual([result.done_count, result.failed_count], [2, 1], JSON.stringify(result.failed));
    assert.match(rejected(result)['TPL-CASE-3']!, /^Column Discount Unit Type applies to UNIT discounts only$/);
    const first: Json = await sdk.vouchers.get('TPL-CASE-1');
    assert.deepEqual([first.discount.type, first.discount.percent_off, first.discount.effect], ['PERCENT', 20, 'APPLY_TO_ORDER']);
    assert.deepEqual([first.start_date, first.expiration_date, first.redemption.quantity, first.additional_info], ['2026-05-01T00:00:00.000Z', '2026-06-01T12:00:00.000Z', 3, 'first']);
    assert.deepEqual(first.metadata, {});
    const unit: Json = await sdk.vouchers.get('TPL-CASE-2');
    assert.deepEqual([unit.discount.type, unit.discount.unit_off, unit.discount.unit_type, unit.discount.effect], ['UNIT', 1, product.id, 'ADD_MISSING_ITEMS']);
  });

  test('campaign vouchers: the same template; the campaign decides type and discount, the rest may be the voucher’s own', async () => {
    const sdk = t.sdk();
    const coupons: Json = await sdk.campaigns.create({
      name: 'TPL coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 20 }, redemption: { quantity: 1 } },
    } as never);
    const header = 'Code,Voucher Type,Value,Discount Type,Category,Start Date,Expiration Date,Redemption Limit,Redeemed Quantity,Redeemed Amount,Active,Additional Info,season';
    const rows = [
      'TPL-C-1,DISCOUNT_VOUCHER,20,PERCENT,Campaign codes,2026-03-01,2026-09-30T23:59:59Z,3,0,0,true,printed,autumn',
      'TPL-C-2,,,,,,,,,,false,,',
      'TPL-C-3,DISCOUNT_VOUCHER,30,PERCENT,,,,,,,,,',
      'TPL-C-4,DISCOUNT_VOUCHER,20,AMOUNT,,,,,,,,,',
      'TPL-C-5,GIFT_VOUCHER,20,,,,,,,,,,',
      'TPL-C-6,DISCOUNT_VOUCHER,20,PERCENT,,,,,4,,,,',
      'TPL-C-7,,,,,2026-10-01,2026-09-01,,,,,,',
      'TPL-C-2,,,,Doomed,,,,,,,,',
    ];
    const result = await finished(await sdk.campaigns.importVouchersCSV(coupons.id, csvFile([header, ...rows])));
    assert.deepEqual([result.done_count, result.failed_count], [2, 6], JSON.stringify(result.failed));
    const reasons = rejected(result);
    assert.match(reasons['TPL-C-3']!, /^Column Value: 30, but the campaign's vouchers take its discount \(PERCENT 20\)/);
    assert.match(reasons['TPL-C-4']!, /^Column Discount Type: 'AMOUNT', but the campaign's vouchers take its discount \(PERCENT 20\)/);
    assert.match(reasons['TPL-C-5']!, /^Column Voucher Type: GIFT_VOUCHER, but the campaign holds DISCOUNT_VOUCHER vouchers$/);
    assert.match(reasons['TPL-C-6']!, /^Column Redeemed Quantity: importing redemption history is not supported/);
    assert.match(reasons['TPL-C-7']!, /expiration_date|start_date/);
    assert.match(reasons['TPL-C-2']!, /Duplicated voucher exists with code TPL-C-2/);

    const own: Json = await sdk.vouchers.get('TPL-C-1');
    assert.equal(own.campaign_id, coupons.id);
    assert.deepEqual([own.discount.type, own.discount.percent_off], ['PERCENT', 20]);
    assert.deepEqual([own.start_date, own.expiration_date, own.redemption.quantity], ['2026-03-01T00:00:00.000Z', '2026-09-30T23:59:59.000Z', 3]);
    assert.deepEqual([own.category, own.active, own.additional_info, own.metadata], ['Campaign codes', true, 'printed', { season: 'autumn' }]);
    const inherited: Json = await sdk.vouchers.get('TPL-C-2');
    assert.deepEqual([inherited.start_date, inherited.expiration_date, inherited.redemption.quantity, inherited.active], [null, null, 1, false]);
    const categories: Json = await sdk.categories.list();
    assert.ok(!categories.data.some((c: Json) => c.name === 'Doomed'), 'a rejected row left its new category');

    // Gift cards: Value is the card's amount, as Gift Amount (the vendor's name for it in campaign imports).
    const gifts: Json = await sdk.campaigns.create({ name: 'TPL gifts', campaign_type: 'GIFT_VOUCHERS', type: 'STATIC', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } as never);
    const giftResult = await finished(
      await sdk.campaigns.importVouchersCSV(
        gifts.id,
        csvFile(['Code,Voucher Type,Value,Gift Amount,Redeemed Amount,Discount Type', 'TPL-G-1,GIFT_VOUCHER,2500,,0,', 'TPL-G-2,,,3000,,', 'TPL-G-3,,,,,', 'TPL-G-4,,100,200,,', 'TPL-G-5,,25.50,,,', 'TPL-G-6,,100,,,AMOUNT']),
      ),
    );
    assert.deepEqual([giftResult.done_count, giftResult.failed_count], [3, 3], JSON.stringify(giftResult.failed));
    const giftReasons = rejected(giftResult);
    assert.match(giftReasons['TPL-G-4']!, /^Columns Value \(100\) and Gift Amount \(200\) disagree: fill one of them$/);
    assert.match(giftReasons['TPL-G-5']!, /^Column Value: '25\.50' is not a whole number/);
    assert.match(giftReasons['TPL-G-6']!, /^Column Discount Type does not apply to GIFT_VOUCHER vouchers$/);
    for (const [code, balance] of [
      ['TPL-G-1', 2500],
      ['TPL-G-2', 3000],
      ['TPL-G-3', 1000],
    ] as const) {
      const card: Json = await sdk.vouchers.get(code);
      assert.deepEqual([card.campaign_id, card.gift.amount, card.gift.balance], [gifts.id, balance, balance], code);
    }

    // Loyalty cards: Value is the card's points, as Loyalty Points.
    const program: Json = await sdk.campaigns.create({ name: 'TPL points', campaign_type: 'LOYALTY_PROGRAM', type: 'STATIC', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const pointsResult = await finished(await sdk.campaigns.importVouchersCSV(program.id, csvFile(['code,loyalty points,value', 'TPL-L-1,120,', 'TPL-L-2,,80', 'TPL-L-3,,'])));
    assert.deepEqual([pointsResult.done_count, pointsResult.failed_count], [3, 0], JSON.stringify(pointsResult.failed));
    for (const [code, points] of [
      ['TPL-L-1', 120],
      ['TPL-L-2', 80],
      ['TPL-L-3', 0],
    ] as const) {
      const card: Json = await sdk.vouchers.get(code);
      assert.deepEqual([card.campaign_id, card.loyalty_card.points], [program.id, points], code);
    }
  });

  test("customers: the vendor's header, the same with spaces and other cases, dates in every listed form", async () => {
    const sdk = t.sdk();
    const vendor = 'Id,Name,Email,Phone,Birthdate,Source_id,Address_line_1,Address_line_2,Address_Postal_Code,Address_City,Address_State,Address_Country,Description,joined,favourite_colour';
    const result = await finished(
      await sdk.customers.importCSV(
        csvFile([
          vendor,
          `,Ann Vendor,ann@example.com,+48 600 000 001,1985-07-14,tpl-ann,Long St 5,flat 1,00-950,Warsaw,Mazovia,PL,Imported,${DATE_FORMS[4]![0]},green`,
          ',Bad Date,,,1985-13-01,tpl-bad-date,,,,,,,,,',
          ',Bad Form,,,14/07/1985,tpl-bad-form,,,,,,,,,',
        ]),
      ),
    );
    assert.deepEqual([result.done_count, result.failed_count], [1, 2], JSON.stringify(result.failed));
    assert.match(rejected(result)['tpl-bad-date']!, /birthdate/);
    assert.match(rejected(result)['tpl-bad-form']!, /birthdate/);
    const ann: Json = await sdk.customers.get('tpl-ann');
    assert.deepEqual([ann.name, ann.email, ann.phone, ann.birthdate, ann.description], ['Ann Vendor', 'ann@example.com', '+48 600 000 001', '1985-07-14', 'Imported']);
    assert.deepEqual(ann.address, { line_1: 'Long St 5', line_2: 'flat 1', postal_code: '00-950', city: 'Warsaw', state: 'Mazovia', country: 'PL' });
    assert.deepEqual(ann.metadata, { joined: DATE_FORMS[4]![1], favourite_colour: 'green' });
    await absent('/v1/customers/tpl-bad-date');

    // The same columns in other spellings; a birthdate or date metadata written as a date-time keeps its day.
    const spaced = 'SOURCE ID,name,E-mail,address line 1,ADDRESS POSTAL CODE,Address City,address country,BirthDate,joined,first_order';
    const forms = DATE_FORMS.map(([written, instant], i) => ({ sourceId: `tpl-form-${i}`, written, instant }));
    const second = await finished(
      await sdk.customers.importCSV(csvFile([spaced, ...forms.map((f) => `${f.sourceId},Form ${f.written},x@example.com,Main 1,11-111,Gdansk,PL,${f.written},${f.written},${f.written}`)])),
    );
    assert.deepEqual([second.done_count, second.failed_count], [forms.length, 0], JSON.stringify(second.failed));
    for (const form of forms) {
      const customer: Json = await sdk.customers.get(form.sourceId);
      assert.equal(customer.birthdate, '2026-04-01', form.written);
      assert.deepEqual(customer.address, { line_1: 'Main 1', line_2: null, postal_code: '11-111', city: 'Gdansk', state: null, country: 'PL' });
      // `E-mail` is no column of the template: it is metadata, as the vendor maps unknown columns.
      assert.deepEqual(customer.metadata, { 'E-mail': 'x@example.com', joined: form.instant, first_order: '2026-04-01' }, form.written);
      assert.equal(customer.email, null);
    }
  });

  test("products and SKUs: the vendor's headers, and the same in other spellings", async () => {
    const sdk = t.sdk();
    const products = await finished(
      await sdk.products.importCSV(
        csvFile([
          'name,source_id,price,attributes,image_url,launch,Metadata_property_name',
          `Tee,tpl-tee,2500,"color,size",https://example.com/tee.png,${DATE_FORMS[6]![0]},cotton`,
          'Mug,tpl-mug,12.5,,,,',
        ]),
      ),
    );
    assert.deepEqual([products.done_count, products.failed_count], [1, 1], JSON.stringify(products.failed));
    assert.match(rejected(products)['tpl-mug']!, /^Column price: '12\.5' is not a whole number/);
    const tee: Json = await sdk.products.get('tpl-tee');
    assert.deepEqual([tee.name, tee.price, tee.attributes, tee.image_url], ['Tee', 2500, ['color', 'size'], 'https://example.com/tee.png']);
    assert.deepEqual(tee.metadata, { launch: '2026-04-01', Metadata_property_name: 'cotton' });
    const spaced = await finished(await sdk.products.importCSV(csvFile(['Name,Source Id,PRICE,Attributes,Image URL', 'Cap,tpl-cap,900,"color",https://example.com/cap.png'])));
    assert.equal(spaced.done_count, 1, JSON.stringify(spaced.failed));
    const cap: Json = await sdk.products.get('tpl-cap');
    assert.deepEqual([cap.name, cap.price, cap.attributes, cap.image_url], ['Cap', 900, ['color'], 'https://example.com/cap.png']);

    const skus = await finished(
      await sdk.products.importSkusCSV(
        csvFile([
          'product_id,sku,source_id,price,image_url,attributes,fabric',
          `tpl-tee,Tee red S,tpl-tee-red-s,2600,https://example.com/red.png,"{'color':'red','size':'S'}",jersey`,
          'tpl-none,Lost,tpl-lost,100,,,',
          'tpl-tee,Half,tpl-half,99.99,,,',
        ]),
      ),
    );
    assert.deepEqual([skus.done_count, skus.failed_count], [1, 2], JSON.stringify(skus.failed));
    assert.match(skus.failed[0].reason, /Cannot find product with id tpl-none/);
    assert.match(skus.failed[1].reason, /^Column price: '99\.99' is not a whole number/);
    const red: Json = await sdk.products.getSku('tpl-tee-red-s');
    assert.deepEqual([red.sku, red.price, red.attributes, red.image_url, red.metadata], ['Tee red S', 2600, { color: 'red', size: 'S' }, 'https://example.com/red.png', { fabric: 'jersey' }]);
    const spacedSkus = await finished(await sdk.products.importSkusCSV(csvFile(['Product ID,SKU,Source ID,Price,Currency,Image URL,Attributes', 'tpl-tee,Tee blue M,tpl-tee-blue-m,2700,EUR,,"{""color"":""blue""}"'])));
    assert.equal(spacedSkus.done_count, 1, JSON.stringify(spacedSkus.failed));
    const blue: Json = await sdk.products.getSku('tpl-tee-blue-m');
    assert.deepEqual([blue.sku, blue.price, blue.currency, blue.attributes], ['Tee blue M', 2700, 'EUR', { color: 'blue' }]);
  });
});
