import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addUser, ADMIN, createFirstAdmin, signIn } from '../helpers/console.ts';

// GET /v1/reports/daily?campaign_id=… (Punchcard extension): one campaign's redemptions and discount per
// day, its codes (published, redeemed) and its most redeemed codes, never another campaign's records.

describe('daily report of one campaign', () => {
  let t: TestApp;
  const codes: string[] = [];
  let campaignId = '';

  const redeem = async (code: string, amount: number) => {
    const answer = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: code }], order: { amount } } });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.redemptions[0].id as string;
  };
  const campaign = async (name: string, count: number, pattern: string) => {
    const created = await t.request('POST', '/v1/campaigns', {
      json: {
        name,
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        vouchers_count: count,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, code_config: { pattern, charset: '23456789ABCDEFGHJKLMNPQRSTUVWXYZ' } },
      },
    });
    assert.equal(created.status, 200, created.text);
    while (await t.worker.runOnce()) {
      // generation runs as an async action
    }
    const listed = await t.request('GET', `/v1/vouchers?campaign_id=${created.body.id}&limit=10`);
    return { id: created.body.id as string, codes: (listed.body.vouchers as Array<{ code: string }>).map((v) => v.code).sort() };
  };

  before(async () => {
    t = await startTestApp({ clockStart: '2026-03-02T10:00:00.000Z' });
    await createFirstAdmin(t);
    const a = await campaign('Spring coupons', 3, 'SP-####');
    const b = await campaign('Other coupons', 1, 'OT-####');
    campaignId = a.id;
    codes.push(...a.codes);
    const [first, second] = codes as [string, string];
    const published = await t.request('POST', '/v1/publications', { json: { customer: { source_id: 'ann' }, voucher: first } });
    assert.equal(published.status, 200, published.text);
    await redeem(first, 2000);
    await redeem(first, 3000);
    await redeem(b.codes[0] ?? '', 4000);
    t.clock.advance(24 * 3600 * 1000);
    const undone = await redeem(second, 2500);
    const rollback = await t.request('POST', `/v1/redemptions/${undone}/rollback`, { json: {} });
    assert.equal(rollback.status, 200, rollback.text);
  });
  after(async () => t?.close());

  test('generated codes follow the pattern with the given charset', () => {
    assert.equal(codes.length, 3);
    for (const code of codes) assert.match(code, /^SP-[2-9A-HJ-NP-Z]{4}$/);
  });

  test("counts only the campaign's records per day, its codes and its top codes", async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const report = await admin.request('GET', `/v1/reports/daily?start_date=2026-03-01&end_date=2026-03-03&campaign_id=${campaignId}`);
    assert.equal(report.status, 200, report.text);
    assert.deepEqual(
      report.body.data.map((d: Record<string, number>) => [d.date, d.redemptions, d.rollbacks, d.discount_amount]),
      [
        ['2026-03-01', 0, 0, 0],
        ['2026-03-02', 2, 0, 1000],
        ['2026-03-03', 1, 1, 0],
      ],
    );
    assert.equal(report.body.totals.redemptions, 3, "the other campaign's redemption is not counted");
    const [first, second] = codes as [string, string];
    assert.deepEqual(report.body.campaign, {
      id: campaignId,
      name: 'Spring coupons',
      codes: { total: 3, published: 1, redeemed: 1 },
      top_codes: [
        { code: first, redemptions: 2, discount_amount: 1000 },
        { code: second, redemptions: 1, discount_amount: 0 },
      ],
    });

    const byName = await admin.request('GET', `/v1/reports/daily?start_date=2026-03-02&end_date=2026-03-02&campaign_id=${encodeURIComponent('Spring coupons')}`);
    assert.equal(byName.status, 200, byName.text);
    assert.equal(byName.body.campaign.id, campaignId);
    assert.deepEqual(
      byName.body.campaign.top_codes.map((c: { code: string }) => c.code),
      [first],
      'top codes are those of the range',
    );

    const whole = await admin.request('GET', '/v1/reports/daily?start_date=2026-03-01&end_date=2026-03-03');
    assert.equal(whole.body.totals.redemptions, 4);
    assert.equal(whole.body.campaign, undefined, 'the project report has no campaign member');
  });

  test('an unknown campaign is a 404; a merchant may not read reports', async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const unknown = await admin.request('GET', '/v1/reports/daily?campaign_id=camp_nothing');
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.key, 'not_found');
    const empty = await admin.request('GET', '/v1/reports/daily?campaign_id=');
    assert.equal(empty.status, 400, empty.text);
    const merchant = await addUser(t, 'counter@shop.example.com', 'MERCHANT');
    const refused = await merchant.request('GET', `/v1/reports/daily?campaign_id=${campaignId}`);
    assert.equal(refused.status, 403, refused.text);
  });
});
