import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { buildWeb } from '../../scripts/build-web.ts';
import { WEB_DIST } from '../../src/http/routes/console/assets.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN, createFirstAdmin, signIn } from '../helpers/console.ts';

// The built console at /dashboard on the API's port, and the read-only figures of its home page.

describe('console pages and home figures', () => {
  let t: TestApp;
  before(async () => {
    buildWeb();
    t = await startTestApp({ clockStart: '2026-03-02T10:00:00.000Z' });
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('/dashboard serves the page (any console path, revalidated), hashed assets are cached for a year, the API is untouched', async () => {
    const page = await t.request('GET', '/dashboard', { headers: {} });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.text, readFileSync(`${WEB_DIST}index.html`, 'utf8'));
    const deep = await t.request('GET', '/dashboard/redemptions/r_123?x=1', { headers: {} });
    assert.equal(deep.status, 200);
    assert.equal(deep.text, page.text, 'the console routes in the browser');

    const asset = /\/dashboard\/assets\/[^"]+\.js/.exec(page.text)?.[0];
    assert.ok(asset, 'the page links its script');
    const script = await t.request('GET', asset, { headers: {} });
    assert.equal(script.status, 200);
    assert.match(script.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
    const missing = await t.request('GET', '/dashboard/assets/nothing-here.js', { headers: {} });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.key, 'not_found');

    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/dashboard/');
    const api = await t.request('GET', '/v1/customers', { headers: {} });
    assert.equal(api.status, 401, 'API routes still need credentials');
    assert.equal((await t.request('GET', '/v1/customers')).status, 200);
  });

  test('GET /v1/reports/daily counts redemptions, discount still granted, rollbacks and points per day of the range', async () => {
    const sdk = t.sdk();
    await t.request('POST', '/v1/vouchers', { json: { code: 'HOME-5', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, redemption: { quantity: null } } });
    const first = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: 'HOME-5' }], order: { amount: 2000 } } });
    assert.equal(first.status, 200, first.text);
    t.clock.advance(24 * 3600 * 1000);
    const second = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: 'HOME-5' }], order: { amount: 3000 } } });
    const rollback = await t.request('POST', `/v1/redemptions/${second.body.redemptions[0].id}/rollback`, { json: {} });
    assert.equal(rollback.status, 200, rollback.text);

    const program = await sdk.campaigns.create({ name: 'Home points', campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const member = await t.request('POST', `/v1/loyalties/${program.id}/members`, { json: { customer: { source_id: 'home-member' } } });
    assert.equal(member.status, 200, member.text);
    const added = await t.request('POST', `/v1/loyalties/members/${member.body.code}/balance`, { json: { points: 120 } });
    assert.equal(added.status, 200, added.text);

    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const report = await admin.request('GET', '/v1/reports/daily?start_date=2026-03-01&end_date=2026-03-04');
    assert.equal(report.status, 200, report.text);
    assert.equal(report.body.timezone, 'UTC');
    assert.deepEqual(
      report.body.data.map((d: Record<string, number>) => [d.date, d.redemptions, d.rollbacks, d.discount_amount, d.points_issued]),
      [
        ['2026-03-01', 0, 0, 0, 0],
        ['2026-03-02', 1, 0, 500, 0],
        ['2026-03-03', 1, 1, 0, 120],
        ['2026-03-04', 0, 0, 0, 0],
      ],
    );
    assert.equal(report.body.totals.redemptions, 2);
    assert.equal(report.body.totals.discount_amount, 500, 'the rolled back redemption grants nothing any more');
    assert.equal(report.body.active_campaigns, 1);

    const backwards = await admin.request('GET', '/v1/reports/daily?start_date=2026-03-04&end_date=2026-03-01');
    assert.equal(backwards.status, 400);
    assert.equal(backwards.body.key, 'invalid_query_params');
    const tooLong = await admin.request('GET', '/v1/reports/daily?start_date=2024-01-01&end_date=2026-03-01');
    assert.equal(tooLong.status, 400);
    const notADate = await admin.request('GET', '/v1/reports/daily?start_date=2026-02-30');
    assert.equal(notADate.status, 400);
  });
});
