import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addUser, ADMIN, createFirstAdmin, signIn, type ConsoleClient } from '../helpers/console.ts';

// The console session lists what its role may call (`permissions`, `METHOD /route/:pattern`), worked out
// by the server from the table it enforces; the console shows an action only when its route is listed.
// Here: every route the console's source asks about is a real route (an ADMIN gets each of them), the
// lists follow the roles, and the server still refuses what a role's list leaves out.

const WEB = join(import.meta.dirname, '..', '..', 'web', 'src');

/** `METHOD /route` for every literal the console passes to `can(…)`, a screen's `needs` or a navigation entry. */
function routesTheConsoleAsksAbout(): string[] {
  const found = new Set<string>();
  const files = readdirSync(WEB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tsx') || f.endsWith('.ts'));
  for (const file of files) {
    const text = readFileSync(join(WEB, file), 'utf8');
    for (const m of text.matchAll(/can\(\s*'(GET|POST|PUT|DELETE)',\s*'([^']+)'\s*\)/g)) found.add(`${m[1]} ${m[2]}`);
    for (const m of text.matchAll(/needs: \['(GET|POST)', '([^']+)'\]/g)) found.add(`${m[1]} ${m[2]}`);
    for (const m of text.matchAll(/\['(GET|POST)', '(\/[^']+)'\] as const/g)) found.add(`${m[1]} ${m[2]}`);
    for (const m of text.matchAll(/route: '(\/[^']+)' \}/g)) found.add(`GET ${m[1]}`);
  }
  return [...found].sort();
}

describe('console session: what the role may call', () => {
  let t: TestApp;
  const as: Record<string, ConsoleClient> = {};

  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
    as.ADMIN = await signIn(t, ADMIN.email, ADMIN.password);
    for (const role of ['USER', 'VIEWER', 'MERCHANT']) as[role] = await addUser(t, `${role.toLowerCase()}@shop.example.com`, role);
  });
  after(async () => t.close());

  const permissionsOf = (role: string) => as[role]?.session.permissions as string[];

  test('every route the console asks about is a route the server has (an ADMIN may call each)', () => {
    const asked = routesTheConsoleAsksAbout();
    assert.ok(asked.length > 30, `found only ${asked.length} routes in web/src: has the way the console asks changed?`);
    const admin = new Set(permissionsOf('ADMIN'));
    assert.deepEqual(
      asked.filter((entry) => !admin.has(entry)),
      [],
      'routes web/src asks about that the server does not list (misspelt, or not the registered pattern)',
    );
  });

  test('sign-in, an accepted invitation and GET answer the list; it follows the role', async () => {
    const again = await as.VIEWER!.request('GET', '/console/v1/session');
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.permissions, permissionsOf('VIEWER'));

    const viewer = permissionsOf('VIEWER');
    assert.ok(viewer.includes('GET /v1/campaigns/:campaignId'));
    assert.deepEqual(
      viewer.filter((entry) => !entry.startsWith('GET ') && !entry.includes(' /console/v1/')),
      [],
      'a VIEWER changes nothing',
    );
    const merchant = permissionsOf('MERCHANT');
    for (const entry of ['POST /v1/redemptions', 'POST /v1/customers', 'PUT /v1/customers/:customerId', 'GET /v1/vouchers/:code']) assert.ok(merchant.includes(entry), entry);
    for (const entry of ['POST /v1/campaigns/:campaignId/disable', 'GET /v1/exports', 'GET /v1/reports/daily', 'POST /v1/redemptions/:redemptionId/rollback', 'GET /management/v1/projects/:projectId/webhooks']) {
      assert.ok(!merchant.includes(entry), entry);
    }
    const user = permissionsOf('USER');
    assert.ok(user.includes('POST /v1/campaigns/:campaignId/disable'));
    assert.ok(!user.includes('POST /management/v1/projects/:projectId/webhooks'));
    assert.ok(!user.includes('GET /management/v1/projects/:projectId/api-keys'));
    assert.ok(permissionsOf('ADMIN').includes('POST /management/v1/projects/:projectId/api-keys/:keyId/rotate'));
    assert.ok(!permissionsOf('ADMIN').some((entry) => entry.includes('/client/v1/') || entry.includes('/v1/oauth')), 'no route a session cannot use');
  });

  test('a route the list leaves out is still refused by the server', async () => {
    const campaign = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Ten off', campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } },
    });
    assert.equal(campaign.status, 200, campaign.text);
    assert.ok(!permissionsOf('MERCHANT').includes('POST /v1/campaigns/:campaignId/disable'));
    const refused = await as.MERCHANT!.request('POST', `/v1/campaigns/${campaign.body.id}/disable`);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.key, 'missing_required_permission');
    assert.equal((await t.request('GET', `/v1/campaigns/${campaign.body.id}`)).body.active, true);
  });
});
