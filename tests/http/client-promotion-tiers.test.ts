import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, TEST_ORIGIN, type TestApp } from '../helpers/app.ts';

// Client-side promotion tier list (seed 4.12, 5.3, 8): client keys and a trusted origin; the SDK has no
// call for it, so these requests are plain fetches with the client headers.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('client-side promotion tiers', () => {
  let t: TestApp;
  let tierIds: string[];

  before(async () => {
    t = await startTestApp();
    const created: Json = await t.sdk().promotions.create({
      name: 'Shop promo',
      campaign_type: 'PROMOTION',
      promotion: {
        tiers: [
          { name: 'Ten off', banner: 'Save 10', action: { discount: { type: 'AMOUNT', amount_off: 1000 } } },
          { name: 'Paused', active: false },
          { name: 'Next month', start_date: '2026-04-01T00:00:00Z' },
          { name: 'Fifteen percent', action: { discount: { type: 'PERCENT', percent_off: 15 } } },
        ],
      },
    } as never);
    tierIds = created.promotion.tiers.map((tier: Json) => tier.id);
  });
  after(async () => t.close());

  const list = (query = '', headers: Record<string, string> = t.clientHeaders()) => t.request('GET', `/client/v1/promotions/tiers${query}`, { headers });

  test('lists tiers with data_ref tiers, total and has_more', async () => {
    const res = await list();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.object, 'list');
    assert.equal(res.body.data_ref, 'tiers');
    assert.equal(res.body.total, 4);
    assert.equal(res.body.has_more, false);
    assert.deepEqual(
      res.body.tiers.map((tier: Json) => tier.id),
      tierIds,
    );
    const first = res.body.tiers[0];
    assert.equal(first.object, 'promotion_tier');
    assert.equal(first.banner, 'Save 10');
    assert.equal(first.action.discount.amount_off, 1000);
    assert.equal(first.hierarchy, 1);
    assert.ok(first.campaign);
    assert.ok(first.summary);
    assert.equal(first.validation_rule_assignments.total, 0);
  });

  test('is_available, limit, page and order', async () => {
    const available = await list('?is_available=true');
    assert.deepEqual(
      available.body.tiers.map((tier: Json) => tier.name),
      ['Ten off', 'Fifteen percent'],
    );
    assert.equal(available.body.total, 2);
    const notFiltered = await list('?is_available=false');
    assert.equal(notFiltered.body.total, 4);

    const firstPage = await list('?limit=3&page=1');
    assert.equal(firstPage.body.tiers.length, 3);
    assert.equal(firstPage.body.has_more, true);
    const secondPage = await list('?limit=3&page=2');
    assert.deepEqual(
      secondPage.body.tiers.map((tier: Json) => tier.id),
      [tierIds[3]],
    );
    assert.equal(secondPage.body.has_more, false);
    // The client list has no upper bound on page; past the end is an empty page.
    const far = await list('?limit=100&page=500');
    assert.equal(far.status, 200);
    assert.deepEqual(far.body.tiers, []);
    assert.equal(far.body.total, 4);

    await t.request('PUT', `/v1/promotions/tiers/${tierIds[1]}`, { json: { banner: 'changed last' } });
    const newest = await list('?order=-created_at&limit=1');
    assert.equal(newest.body.tiers[0].id, tierIds[3]);
    const lastChanged = await list('?order=-updated_at&limit=1');
    assert.equal(lastChanged.body.tiers[0].id, tierIds[1]);
    const oldest = await list('?order=created_at&limit=1');
    assert.equal(oldest.body.tiers[0].id, tierIds[0]);

    for (const query of ['?limit=0', '?limit=101', '?page=0', '?page=100000000000000000000', '?order=name', '?is_available=perhaps']) {
      const bad = await list(query);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.key, 'invalid_query_params', query);
    }
  });

  test('needs client keys and a trusted origin', async () => {
    const wrongOrigin = await list('', t.clientHeaders(undefined, 'https://evil.example.com'));
    assert.equal(wrongOrigin.status, 403);
    assert.equal(wrongOrigin.body.key, 'forbidden');
    const noOrigin = await list('', { 'X-Client-Application-Id': 'test-client-id-0001', 'X-Client-Token': 'test-client-secret-0001' });
    assert.equal(noOrigin.status, 403);
    const wrongToken = await list('', { 'X-Client-Application-Id': 'test-client-id-0001', 'X-Client-Token': 'nope', origin: TEST_ORIGIN });
    assert.equal(wrongToken.status, 401);
    // Server keys do not open the client API.
    const serverKeys = await list('', t.serverHeaders());
    assert.equal(serverKeys.status, 401);
  });

  test('a bearer token with client_promotions opens it; other scopes do not', async () => {
    const issue = (scope: string) => t.request('POST', '/v1/oauth/token', { form: { grant_type: 'client_credentials', scope } });
    const allowed = await issue('client_promotions');
    const res = await list('', { authorization: `Bearer ${allowed.body.access_token}` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total, 4);
    const other = await issue('client_vouchers');
    const refused = await list('', { authorization: `Bearer ${other.body.access_token}` });
    assert.equal(refused.status, 403);
  });

  test("another project's client keys see only that project's tiers", async () => {
    const project = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other shop', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD', client_trusted_domains: ['https://other.example.com'] },
    });
    assert.equal(project.status, 200, project.text);
    const headers = t.clientHeaders(project.body.client_side_key, 'https://other.example.com');
    const empty = await list('', headers);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.total, 0);
    assert.deepEqual(empty.body.tiers, []);
    await t.sdk(project.body.server_side_key).promotions.create({ name: 'Theirs', campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Their tier' }] } } as never);
    const theirs = await list('', headers);
    assert.deepEqual(
      theirs.body.tiers.map((tier: Json) => tier.name),
      ['Their tier'],
    );
    // Our origin is not trusted by their project.
    assert.equal((await list('', t.clientHeaders(project.body.client_side_key))).status, 403);
    assert.equal((await list()).body.total, 4);
  });
});
