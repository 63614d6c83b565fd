import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { prepareFirstAdmin } from '../../src/services/users/first-admin.ts';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { addUser, ADMIN, cookiesOf, createFirstAdmin, signIn, signInRequest } from '../helpers/console.ts';

// Console sign-in and sessions over HTTP: the first admin's one-time link, cookies, CSRF, roles enforced
// by the server on the public API, slowing down wrong passwords, expiry and signing out everywhere.

function assertErrorBody(response: TestResponse, status: number, key: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.code, status);
  assert.equal(response.body.key, key);
  assert.equal(typeof response.body.message, 'string');
  assert.equal(typeof response.body.details, 'string');
  assert.match(response.body.request_id, /^v-/);
}

describe('console: first admin', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('the setup link printed at start creates the first admin once; a later start retires an unused link', async () => {
    const status = await t.request('GET', '/console/v1/setup', { headers: {} });
    assert.deepEqual(status.body, { object: 'console_setup', needed: true });

    const first = await prepareFirstAdmin(t.deps);
    assert.equal(first.kind, 'link');
    const second = await prepareFirstAdmin(t.deps);
    assert.equal(second.kind, 'link');
    const tokenOf = (f: typeof first) => (f.kind === 'link' ? new URL(f.url).hash.replace('#token=', '') : '');
    const body = { email: 'Owner@Shop.example.com', password: 'owner-password-1', first_name: 'Olga' };

    const retired = await t.request('POST', '/console/v1/setup', { headers: {}, json: { ...body, token: tokenOf(first) } });
    assertErrorBody(retired, 401, 'unauthorized');
    const wrong = await t.request('POST', '/console/v1/setup', { headers: {}, json: { ...body, token: 'not-the-token' } });
    assertErrorBody(wrong, 401, 'unauthorized');

    const created = await t.request('POST', '/console/v1/setup', { headers: {}, json: { ...body, token: tokenOf(second) } });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.role, 'ADMIN');
    assert.equal(created.body.user.login, 'owner@shop.example.com');
    assert.equal(created.body.user.is_owner, true);
    assert.equal(created.body.project.id, t.projectId);

    const reused = await t.request('POST', '/console/v1/setup', { headers: {}, json: { ...body, email: 'thief@evil.example.com', token: tokenOf(second) } });
    assertErrorBody(reused, 401, 'unauthorized');
    const after = await t.request('GET', '/console/v1/setup', { headers: {} });
    assert.equal(after.body.needed, false);
    assert.equal((await prepareFirstAdmin(t.deps)).kind, 'exists', 'no link once a user exists');

    // The password is stored as a memory-hard hash only.
    const row = await t.db.db.selectFrom('users').select('password_hash').where('login', '=', 'owner@shop.example.com').executeTakeFirstOrThrow();
    assert.match(row.password_hash ?? '', /^scrypt\$15\$8\$3\$/);
    assert.ok(!(row.password_hash ?? '').includes('owner-password-1'));
  });
});

describe('console: sessions on the public API', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('sign-in sets an HttpOnly, SameSite=Strict session cookie (Secure behind HTTPS) and a readable CSRF cookie', async () => {
    const signedIn = await signInRequest(t, ADMIN.email, ADMIN.password);
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.headers.get('cache-control'), 'no-store');
    const [session, csrf] = signedIn.headers.getSetCookie();
    assert.match(session ?? '', /^punchcard_session=[^;]+;.*HttpOnly/);
    assert.match(session ?? '', /SameSite=Strict/);
    assert.match(session ?? '', /Path=\//);
    assert.doesNotMatch(session ?? '', /Secure/, 'plain http on localhost: a Secure cookie would never come back');
    assert.doesNotMatch(csrf ?? '', /HttpOnly/);
    assert.equal(cookiesOf(signedIn).punchcard_csrf, signedIn.body.csrf_token);
    assert.equal(signedIn.body.user.email, ADMIN.email);
    assert.deepEqual(signedIn.body.projects.map((p: { id: string; role: string }) => [p.id, p.role]), [[t.projectId, 'ADMIN']]);
    // The console writes every date in the project's time zone and, when it names one, its language.
    const project = await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() });
    assert.deepEqual(signedIn.body.project, { id: t.projectId, name: project.body.name, timezone: project.body.timezone, locale: null });

    const publicUrl = t.deps.config.publicUrl;
    t.deps.config.publicUrl = 'https://punchcard.example.com';
    try {
      const behindHttps = await signInRequest(t, ADMIN.email, ADMIN.password);
      for (const line of behindHttps.headers.getSetCookie()) assert.match(line, /; Secure/);
    } finally {
      t.deps.config.publicUrl = publicUrl;
    }
  });

  test('a session acts on /v1 as its user: the events and the redemption channel name the user', async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const created = await admin.request('POST', '/v1/customers', { json: { source_id: 'cust-by-console', name: 'Made in the console' } });
    assert.equal(created.status, 200, created.text);
    const event = await t.db.db.selectFrom('events').select('source').where('type', '=', 'customer.created').where('customer_id', '=', created.body.id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(event.source), { channel: 'USER_PORTAL', user: { id: admin.session.user.id } });

    const voucher = await admin.request('POST', '/v1/vouchers', { json: { code: 'CONSOLE-10', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } } });
    assert.equal(voucher.status, 200, voucher.text);
    const redeemed = await admin.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: 'CONSOLE-10' }], order: { amount: 5000 } } });
    assert.equal(redeemed.status, 200, redeemed.text);
    assert.deepEqual(redeemed.body.redemptions[0].channel, { channel_id: admin.session.user.id, channel_type: 'USER' });
  });

  test('changes without the CSRF token are refused and change nothing; reads need none', async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const none = await admin.request('POST', '/v1/customers', { json: { source_id: 'csrf-victim' }, csrf: false });
    assertErrorBody(none, 403, 'forbidden');
    assert.match(none.body.details, /x-csrf-token/);
    const forged = await admin.request('POST', '/v1/customers', { json: { source_id: 'csrf-victim' }, csrf: 'f'.repeat(64) });
    assertErrorBody(forged, 403, 'forbidden');
    const otherSession = await signIn(t, ADMIN.email, ADMIN.password);
    const borrowed = await admin.request('POST', '/v1/customers', { json: { source_id: 'csrf-victim' }, csrf: otherSession.csrf });
    assertErrorBody(borrowed, 403, 'forbidden');
    const signOut = await admin.request('DELETE', '/console/v1/sessions', { csrf: false });
    assertErrorBody(signOut, 403, 'forbidden');
    const read = await admin.request('GET', '/v1/customers/csrf-victim');
    assert.equal(read.status, 404, 'nothing was created');
    const ok = await admin.request('GET', '/v1/customers');
    assert.equal(ok.status, 200);
  });

  test('roles are enforced by the server: a VIEWER changes nothing, a MERCHANT only redeems, a USER not settings', async () => {
    const viewer = await addUser(t, 'viewer@shop.example.com', 'VIEWER');
    assert.equal((await viewer.request('GET', '/v1/customers')).status, 200);
    assert.equal((await viewer.request('GET', `/management/v1/projects/${t.projectId}`)).status, 200);
    for (const [method, path, json] of [
      ['POST', '/v1/customers', { source_id: 'viewer-made' }],
      ['PUT', '/v1/customers/cust-by-console', { name: 'Renamed' }],
      ['DELETE', '/v1/customers/cust-by-console', undefined],
      ['POST', '/v1/campaigns', { name: 'Viewer campaign', campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } }],
      ['POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: 'CONSOLE-10' }] }],
      ['PUT', `/management/v1/projects/${t.projectId}`, { name: 'Taken over' }],
      ['POST', '/management/v1/projects/users/invite', { email: 'friend@shop.example.com', projects: { [t.projectId]: 'ADMIN' } }],
    ] as const) {
      const refused = await viewer.request(method, path, json === undefined ? {} : { json });
      assertErrorBody(refused, 403, 'missing_required_permission');
      assert.match(refused.body.details, /Your role VIEWER may not/);
    }
    assert.equal((await viewer.request('GET', '/v1/customers/viewer-made')).status, 404);
    assert.equal((await viewer.request('GET', '/v1/customers/cust-by-console')).body.name, 'Made in the console');
    assert.equal((await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() })).body.name !== 'Taken over', true);

    const merchant = await addUser(t, 'till@shop.example.com', 'MERCHANT');
    assert.equal((await merchant.request('POST', '/v1/customers', { json: { source_id: 'walk-in' } })).status, 200);
    assert.equal((await merchant.request('POST', '/v1/validations', { json: { redeemables: [{ object: 'voucher', id: 'CONSOLE-10' }], order: { amount: 100 } } })).status, 200);
    assertErrorBody(await merchant.request('POST', '/v1/vouchers', { json: { code: 'MERCHANT-MADE', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } }), 403, 'missing_required_permission');
    assertErrorBody(await merchant.request('GET', '/v1/exports'), 403, 'missing_required_permission');

    const user = await addUser(t, 'marketer@shop.example.com', 'USER');
    assert.equal((await user.request('POST', '/v1/vouchers', { json: { code: 'USER-MADE', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } })).status, 200);
    assertErrorBody(await user.request('POST', '/v1/customers/walk-in/permanent-deletion'), 403, 'missing_required_permission');
    assertErrorBody(await user.request('PUT', `/management/v1/projects/${t.projectId}`, { json: { name: 'x' } }), 403, 'missing_required_permission');
    assertErrorBody(await user.request('POST', '/v1/oauth/token', { json: { grant_type: 'client_credentials', scope: 'api' } }), 401, 'unauthorized');

    // A role change applies to the open session at once.
    const promoted = await t.request('PUT', `/management/v1/projects/${t.projectId}/users/viewer@shop.example.com`, { headers: t.managementHeaders(), json: { role: 'USER' } });
    assert.equal(promoted.status, 200);
    assert.equal((await viewer.request('POST', '/v1/customers', { json: { source_id: 'viewer-made' } })).status, 200);
  });

  test('API keys keep working beside a session cookie, and a cookie is not a credential on the client API', async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const withKeys = await t.request('GET', '/v1/customers', { headers: { ...t.serverHeaders(), cookie: admin.cookie } });
    assert.equal(withKeys.status, 200);
    const client = await t.request('POST', '/client/v1/validations', { headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf }, json: { redeemables: [] } });
    assert.equal(client.status, 401);
  });

  test('sign-in from another site is refused (login CSRF)', async () => {
    const crossSite = await signInRequest(t, ADMIN.email, ADMIN.password, { origin: 'https://evil.example.com' });
    assertErrorBody(crossSite, 403, 'forbidden');
    const fetchSite = await signInRequest(t, ADMIN.email, ADMIN.password, { 'sec-fetch-site': 'cross-site' });
    assertErrorBody(fetchSite, 403, 'forbidden');
    const sameSite = await signInRequest(t, ADMIN.email, ADMIN.password, { origin: t.url, 'sec-fetch-site': 'same-origin' });
    assert.equal(sameSite.status, 200);
  });

  test('sessions expire; signing out ends one session, signing out everywhere ends them all', async () => {
    const phone = await signIn(t, ADMIN.email, ADMIN.password);
    const laptop = await signIn(t, ADMIN.email, ADMIN.password);
    const desktop = await signIn(t, ADMIN.email, ADMIN.password);

    const out = await phone.request('DELETE', '/console/v1/session');
    assert.equal(out.status, 204);
    assert.match(out.headers.getSetCookie()[0] ?? '', /punchcard_session=;.*Max-Age=0/);
    assertErrorBody(await phone.request('GET', '/console/v1/session'), 401, 'unauthorized');
    assert.equal((await laptop.request('GET', '/console/v1/session')).status, 200);

    const everywhere = await laptop.request('DELETE', '/console/v1/sessions');
    assert.equal(everywhere.status, 200);
    assert.ok(everywhere.body.revoked >= 2);
    assertErrorBody(await laptop.request('GET', '/v1/customers'), 401, 'unauthorized');
    assertErrorBody(await desktop.request('GET', '/v1/customers'), 401, 'unauthorized');

    const fresh = await signIn(t, ADMIN.email, ADMIN.password);
    assert.equal((await fresh.request('GET', '/v1/customers')).status, 200);
    t.clock.advance(12 * 3600 * 1000 + 1000);
    assertErrorBody(await fresh.request('GET', '/v1/customers'), 401, 'unauthorized');
  });

  test('a user removed from a project loses their session there; a session switches between the user\'s projects', async () => {
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Outlet', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    const outlet = created.body.id as string;
    const agent = await addUser(t, 'agent@shop.example.com', 'USER');
    const assigned = await t.request('POST', `/management/v1/projects/${outlet}/users`, { headers: t.managementHeaders(), json: { login: 'agent@shop.example.com', role: 'VIEWER' } });
    assert.equal(assigned.status, 200);

    const refused = await agent.request('PUT', '/console/v1/session', { json: { project_id: 'proj_not_mine' } });
    assertErrorBody(refused, 403, 'forbidden');
    const switched = await agent.request('PUT', '/console/v1/session', { json: { project_id: outlet } });
    assert.equal(switched.status, 200);
    assert.equal(switched.body.role, 'VIEWER');
    assertErrorBody(await agent.request('POST', '/v1/customers', { json: { source_id: 'outlet-1' } }), 403, 'missing_required_permission');
    await agent.request('PUT', '/console/v1/session', { json: { project_id: t.projectId } });
    assert.equal((await agent.request('POST', '/v1/customers', { json: { source_id: 'main-1' } })).status, 200);

    const removed = await t.request('DELETE', `/management/v1/projects/${t.projectId}/users/agent@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(removed.status, 204);
    assertErrorBody(await agent.request('GET', '/v1/customers'), 401, 'unauthorized');
  });
});

describe('console: wrong passwords are slowed down', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('after five failures an account must wait, longer after each further failure, even with the right password', async () => {
    for (let i = 0; i < 5; i++) {
      const wrong = await signInRequest(t, ADMIN.email, `wrong-password-${i}`);
      assertErrorBody(wrong, 401, 'unauthorized');
      assert.equal(wrong.body.details, 'Wrong e-mail or password');
    }
    const blocked = await signInRequest(t, ADMIN.email, ADMIN.password);
    assertErrorBody(blocked, 429, 'too_many_requests');
    assert.equal(blocked.headers.get('retry-after'), '1');
    assert.equal(blocked.body.retry_after, 1);
    const otherCase = await signInRequest(t, ADMIN.email.toUpperCase(), ADMIN.password);
    assert.equal(otherCase.status, 429, 'the same account, however the e-mail is spelled');

    t.clock.advance(1000);
    assertErrorBody(await signInRequest(t, ADMIN.email, 'wrong-password-5'), 401, 'unauthorized');
    const longer = await signInRequest(t, ADMIN.email, ADMIN.password);
    assert.equal(longer.status, 429);
    assert.equal(longer.headers.get('retry-after'), '2', 'the wait doubles with each failure');

    t.clock.advance(2000);
    const ok = await signInRequest(t, ADMIN.email, ADMIN.password);
    assert.equal(ok.status, 200, 'the right password works once the wait is over');
    assertErrorBody(await signInRequest(t, ADMIN.email, 'wrong-again'), 401, 'unauthorized');
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password)).status, 200, 'a success starts the count again');
  });

  test('one address guessing many accounts is slowed down too; an unknown account answers like a wrong password', async () => {
    t.clock.advance(16 * 60 * 1000);
    for (let i = 0; i < 20; i++) {
      const wrong = await signInRequest(t, `nobody-${i}@shop.example.com`, 'some-password');
      assertErrorBody(wrong, 401, 'unauthorized');
      assert.equal(wrong.body.details, 'Wrong e-mail or password');
    }
    const blocked = await signInRequest(t, ADMIN.email, ADMIN.password);
    assertErrorBody(blocked, 429, 'too_many_requests');
    t.clock.advance(1000);
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password)).status, 200);
  });
});

