import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseCsv } from '../../src/domain/exports/csv.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { assertVendorResponse, vendorRequestExamples, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// The exports one area's routes schedule (vendor: export-campaign-transactions, export-voucher-transactions,
// export-loyalty-campaign-transactions, export-loyalty-card-transactions(-1), create-points-expiration-export,
// create-order-export) and the campaign transaction list: ordinary exports, limited to the path's campaign
// or card, whose file downloads like any other export's. Each is driven with the vendor's example request
// and its answer checked against the vendor's response schema.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('transaction, points and order exports; campaign transactions', () => {
  let t: TestApp;
  let other: KeyPairOut;
  let gift: Json;
  let giftCards: Json[];
  let otherGift: Json;
  let program: Json;
  let members: Json[];
  let otherCampaignOfOtherProject: Json;

  before(async () => {
    t = await startTestApp();
    other = (
      await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      })
    ).body.server_side_key;
    const sdk = t.sdk();
    gift = await sdk.campaigns.create({ name: 'Gift cards', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 2, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } as never);
    giftCards = ((await sdk.vouchers.list({ campaign: gift.id } as never)) as Json).vouchers;
    otherGift = await sdk.campaigns.create({ name: 'Other gift cards', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 500 } } } as never);
    const otherGiftCard = ((await sdk.vouchers.list({ campaign: otherGift.id } as never)) as Json).vouchers[0];
    for (const [i, card] of giftCards.entries()) {
      await sdk.vouchers.balance.create(card.code, { amount: 100 * (i + 1), source_id: `top-${i}`, reason: 'top-up' } as never);
    }
    await sdk.vouchers.balance.create(otherGiftCard.code, { amount: 7, reason: 'elsewhere' } as never);
    program = await sdk.loyalties.create({ name: 'Points', vouchers_count: 2, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    members = [];
    for (const i of [0, 1]) members.push(await sdk.loyalties.createMember(program.id, { customer: { source_id: `member-${i}` } } as never));
    for (const [i, member] of members.entries()) await sdk.loyalties.addOrRemoveCardBalance(member.code, { points: 10 * (i + 1), reason: 'bonus' } as never);
    otherCampaignOfOtherProject = await t
      .sdk(other)
      .campaigns.create({ name: 'Theirs', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1 } } } as never);
  });
  after(async () => t.close());

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // Until no job is due.
    }
  }

  /** Runs the scheduled export and downloads its file through the link of its result. */
  async function fileOf(exportId: string): Promise<string[][]> {
    await runJobs();
    const done = await t.request('GET', `/v1/exports/${exportId}`);
    assert.equal(done.body.status, 'DONE', done.text);
    const file = await fetch(done.body.result.url);
    assert.equal(file.status, 200);
    return parseCsv(await file.text());
  }

  // The echoed filter keeps each operand as an array, as the vendor's example answers show it; the vendor's
  // schemas type some operands (`$after`, `$is`) as single values, which their own examples contradict.
  const FILTER_ECHO = ['/parameters/filters/'];

  function checked(method: string, path: string, body: unknown): void {
    if (vendorSchemasAvailable) assertVendorResponse(method, path, body, { ignoring: FILTER_ECHO });
  }

  const examples = (method: string, path: string): Record<string, unknown> => (vendorSchemasAvailable ? vendorRequestExamples(method, path) : {});

  test("a campaign's transactions export: the vendor's example, only the campaign's cards, as CSV", async () => {
    const path = '/v1/campaigns/{campaignId}/transactions/export';
    const bodies = { ...examples('POST', path), 'no body': undefined };
    for (const [name, body] of Object.entries(bodies)) {
      const res = await t.request('POST', `/v1/campaigns/${gift.id}/transactions/export`, body === undefined ? {} : { json: body });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      checked('POST', path, res.body);
      assert.equal(res.body.exported_object, 'voucher_transactions');
      assert.equal(res.body.status, 'SCHEDULED');
      assert.equal(res.body.parameters.campaign_id, gift.id);
      const rows = await fileOf(res.body.id);
      const header = rows[0] ?? [];
      const ids = rows.slice(1).map((r) => r[header.indexOf('id')]);
      const expected = await t.deps.db.selectFrom('voucher_transactions').select('id').where('campaign_id', '=', gift.id).execute();
      assert.equal(expected.length, 2);
      assert.deepEqual(new Set(ids), new Set(expected.map((e) => e.id)), name);
    }
  });

  test("a gift card's transactions export through the SDK holds that card's transactions only", async () => {
    const path = '/v1/vouchers/{code}/transactions/export';
    const body = examples('POST', path).Example ?? { parameters: { order: '-created_at', fields: ['id', 'type', 'amount', 'balance', 'voucher_id', 'campaign_id'] } };
    const created: Json = await t.sdk().vouchers.exportTransactions(giftCards[1].code, body as never);
    checked('POST', path, created);
    assert.equal(created.parameters.voucher_id, giftCards[1].id);
    const rows = await fileOf(created.id);
    const header = rows[0] ?? [];
    const data = rows.slice(1);
    assert.equal(data.length, 1);
    assert.equal(data[0]?.[header.indexOf('voucher_id')], giftCards[1].id);
    assert.equal(data[0]?.[header.indexOf('amount')], '200');
    assert.equal(data[0]?.[header.indexOf('type')], 'CREDITS_ADDITION');
  });

  test("a loyalty program's transactions, a card's (both paths) and the points buckets export", async () => {
    const sdk = t.sdk();
    const programExport = await t.request('POST', `/v1/loyalties/${program.id}/transactions/export`, {
      json: examples('POST', '/v1/loyalties/{campaignId}/transactions/export').Example ?? {},
    });
    assert.equal(programExport.status, 200, programExport.text);
    checked('POST', '/v1/loyalties/{campaignId}/transactions/export', programExport.body);
    const programRows = await fileOf(programExport.body.id);
    assert.equal(programRows.length - 1, 2, 'both cards of the program, nothing of the gift campaigns');

    const byCode: Json = await sdk.loyalties.exportCardTransactions(members[1].code, null, { parameters: { fields: ['id', 'type', 'amount', 'voucher_id'] } } as never);
    checked('POST', '/v1/loyalties/members/{memberId}/transactions/export', byCode);
    const cardRows = await fileOf(byCode.id);
    assert.deepEqual(cardRows[0], ['id', 'type', 'amount', 'voucher_id']);
    assert.deepEqual(
      cardRows.slice(1).map((r) => [r[1], r[2], r[3]]),
      [['POINTS_ADDITION', '20', members[1].id]],
    );
    const inProgram: Json = await sdk.loyalties.exportCardTransactions(members[0].code, program.id, {} as never);
    checked('POST', '/v1/loyalties/{campaignId}/members/{memberId}/transactions/export', inProgram);
    assert.equal((await fileOf(inProgram.id)).length - 1, 1);
    // The vendor's example body on both member paths.
    for (const [vendorPath, path] of [
      ['/v1/loyalties/members/{memberId}/transactions/export', `/v1/loyalties/members/${members[0].code}/transactions/export`],
      ['/v1/loyalties/{campaignId}/members/{memberId}/transactions/export', `/v1/loyalties/${program.id}/members/${members[0].code}/transactions/export`],
    ] as const) {
      const body = examples('POST', vendorPath).Example ?? { parameters: { order: '-created_at', fields: ['id', 'type', 'voucher_id'] } };
      const res = await t.request('POST', path, { json: body });
      assert.equal(res.status, 200, res.text);
      checked('POST', vendorPath, res.body);
      const rows = await fileOf(res.body.id);
      const header = rows[0] ?? [];
      assert.deepEqual(rows.slice(1).map((r) => r[header.indexOf('voucher_id')]), [members[0].id], vendorPath);
    }

    const bucketsPath = '/v1/loyalties/{campaignId}/points-expiration/export';
    for (const [name, body] of Object.entries({ ...examples('POST', bucketsPath), 'no body': undefined })) {
      const res = await t.request('POST', `/v1/loyalties/${program.id}/points-expiration/export`, body === undefined ? {} : { json: body });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      checked('POST', bucketsPath, res.body);
      assert.equal(res.body.exported_object, 'points_expiration');
      const rows = await fileOf(res.body.id);
      const header = rows[0] ?? [];
      const campaigns = rows.slice(1).map((r) => r[header.indexOf('campaign_id')]);
      // The vendor's examples name other programs' ids in their filters: nothing of this one matches them.
      if (name === 'no body') assert.deepEqual(new Set(campaigns), new Set([program.id]), name);
      else assert.ok(campaigns.every((c) => c === program.id), name);
    }
  });

  test('orders export: the vendor examples are accepted and the file holds the orders', async () => {
    await t.sdk().orders.create({ source_id: 'exp-order-1', amount: 150000, discount_amount: 120000, status: 'PAID', metadata: { payment_mean: 'card' } } as never);
    await t.sdk().orders.create({ source_id: 'exp-order-2', amount: 500 } as never);
    const path = '/v1/orders/export';
    const bodies = examples('POST', path);
    for (const [name, body] of Object.entries({ ...bodies, 'no body': undefined })) {
      const res = await t.request('POST', '/v1/orders/export', body === undefined ? {} : { json: body });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      checked('POST', path, res.body);
      assert.equal(res.body.exported_object, 'order');
      const rows = await fileOf(res.body.id);
      const header = rows[0] ?? [];
      const sourceIds = rows.slice(1).map((r) => r[header.indexOf('source_id')]);
      if (name === 'Using fields and filters') {
        assert.deepEqual(sourceIds, ['exp-order-1'], 'discount_amount above 100000 only');
        assert.equal(rows[1]?.[header.indexOf('metadata.payment_mean')], 'card');
      } else {
        assert.deepEqual(new Set(sourceIds), new Set(['exp-order-1', 'exp-order-2']), name);
      }
    }
  });

  test('bad export requests are 400 in the standard body and schedule nothing; unknown and foreign scopes are 404', async () => {
    const count = async () => Number((await t.deps.db.selectFrom('exports').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', `/v1/campaigns/${gift.id}/transactions/export`, { parameters: { fields: ['id', 'nope'] } }, 400, 'invalid_export_fields'],
      ['POST', `/v1/campaigns/${gift.id}/transactions/export`, { parameters: { order: 'code' } }, 400, 'invalid_payload'],
      ['POST', `/v1/campaigns/${gift.id}/transactions/export`, { parameters: 'all' }, 400, 'invalid_payload'],
      ['POST', `/v1/campaigns/${gift.id}/transactions/export`, [1], 400, 'invalid_payload'],
      ['POST', '/v1/orders/export', { parameters: { filters: { nope: { conditions: { $is: ['x'] } } } } }, 400, 'invalid_payload'],
      ['POST', `/v1/loyalties/${program.id}/points-expiration/export`, { parameters: { fields: ['points', 'amount'] } }, 400, 'invalid_export_fields'],
      ['POST', '/v1/campaigns/camp_unknown/transactions/export', {}, 404, 'not_found'],
      ['POST', `/v1/campaigns/${otherCampaignOfOtherProject.id}/transactions/export`, {}, 404, 'not_found'],
      ['POST', '/v1/vouchers/NO-SUCH-CODE/transactions/export', {}, 404, 'not_found'],
      ['POST', `/v1/loyalties/${gift.id}/transactions/export`, {}, 404, 'not_found'],
      ['POST', `/v1/loyalties/${program.id}/members/${giftCards[0].code}/transactions/export`, {}, 404, 'not_found'],
    ];
    for (const [method, path, json, status, key] of cases) {
      const res = await t.request(method, path, { json });
      assert.equal(res.status, status, `${path} ${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.equal(res.body.code, status);
      assert.ok(res.body.request_id);
    }
    assert.equal(await count(), before);
  });

  test("GET /v1/campaigns/{id}/transactions lists the campaign's card transactions, pages by id and filters", async () => {
    const path = '/v1/campaigns/{campaignId}/transactions';
    const first = await t.request('GET', `/v1/campaigns/${gift.id}/transactions?limit=1`);
    assert.equal(first.status, 200, first.text);
    checked('GET', path, first.body);
    assert.equal(first.body.data.length, 1);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.data[0].voucher_id, giftCards[1].id, 'newest first');
    const second = await t.request('GET', `/v1/campaigns/${encodeURIComponent(gift.name)}/transactions?limit=1&starting_after_id=${first.body.more_starting_after}`);
    assert.equal(second.body.data[0].voucher_id, giftCards[0].id, 'by name, after the cursor');
    assert.equal(second.body.has_more, false);
    const filtered = await t.request('GET', `/v1/campaigns/${gift.id}/transactions?filters[voucher_id][conditions][$in][0]=${giftCards[0].id}`);
    assert.deepEqual(
      filtered.body.data.map((d: Json) => d.voucher_id),
      [giftCards[0].id],
    );
    const loyaltyList = await t.request('GET', `/v1/loyalties/${program.id}/transactions?order=id`);
    assert.deepEqual(
      loyaltyList.body.data.map((d: Json) => d.voucher_id),
      members.map((m) => m.id),
    );
    assert.equal((await t.request('GET', `/v1/campaigns/${otherGift.id}/transactions`)).body.data.length, 1);

    const bad = await t.request('GET', `/v1/campaigns/${gift.id}/transactions?filters[amount][conditions][$is]=1`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.key, 'invalid_query_params');
    assert.equal((await t.request('GET', `/v1/campaigns/${gift.id}/transactions?order=amount`)).body.key, 'invalid_query_params');
    assert.equal((await t.request('GET', '/v1/campaigns/camp_unknown/transactions')).status, 404);
    const foreign = await t.request('GET', `/v1/campaigns/${gift.id}/transactions`, { headers: t.serverHeaders(other) });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.key, 'not_found');
  });
});
