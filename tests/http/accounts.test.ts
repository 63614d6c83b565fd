import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { addUser, ADMIN, clientFor, createFirstAdmin, signIn, signInRequest, type ConsoleClient } from '../helpers/console.ts';

// Accounts: a signed-in user changes their own password; an ADMIN (or the management key) issues a
// one-time password reset link for an active member; the team list tells invited members from active ones.

function assertError(response: TestResponse, status: number, key: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.key, key, response.text);
  assert.equal(typeof response.body.details, 'string');
}

const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');
const users = (projectId: string) => `/management/v1/projects/${projectId}/users`;

describe('console: changing your own password', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('needs the current password and the same rules as a new one; other sessions end, this one stays', async () => {
    const here = await addUser(t, 'changer@shop.example.com', 'USER', 'first-password-1');
    const elsewhere = await signIn(t, 'changer@shop.example.com', 'first-password-1');
    const change = (client: ConsoleClient, current: string, next: string, options: { csrf?: boolean } = {}) =>
      client.request('PUT', '/console/v1/password', { json: { current_password: current, new_password: next }, ...options });

    const wrong = await change(here, 'not-my-password', 'second-password-2');
    assertError(wrong, 403, 'forbidden');
    assert.match(wrong.body.details, /^Property \.current_password /, 'the form shows it at the current password');
    assertError(await change(here, 'first-password-1', 'short'), 400, 'invalid_payload');
    assert.match((await change(here, 'first-password-1', 'short')).body.details, /^Property \.new_password must have at least 10 characters/);
    assertError(await change(here, 'first-password-1', 'second-password-2', { csrf: false }), 403, 'forbidden');
    assert.equal((await signInRequest(t, 'changer@shop.example.com', 'first-password-1')).status, 200, 'nothing changed so far');

    const changed = await change(here, 'first-password-1', 'second-password-2');
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.object, 'password_changed');
    assert.equal(changed.body.sessions_ended, 2, 'the other session and the one the check above opened');

    assert.equal((await here.request('GET', '/console/v1/session')).status, 200, 'this session stays');
    assert.equal((await here.request('GET', '/v1/customers')).status, 200);
    assertError(await elsewhere.request('GET', '/console/v1/session'), 401, 'unauthorized');
    assertError(await elsewhere.request('GET', '/v1/customers'), 401, 'unauthorized');
    assertError(await signInRequest(t, 'changer@shop.example.com', 'first-password-1'), 401, 'unauthorized');
    assert.equal((await signInRequest(t, 'changer@shop.example.com', 'second-password-2')).status, 200);
  });

  test('wrong current passwords count against the sign-in throttle: after five, even the right one waits', async () => {
    const me = await addUser(t, 'guessed@shop.example.com', 'VIEWER', 'viewer-password-1');
    for (let i = 0; i < 5; i++) {
      assertError(await me.request('PUT', '/console/v1/password', { json: { current_password: `guess-${i}-xxxxx`, new_password: 'taken-over-123' } }), 403, 'forbidden');
    }
    const blocked = await me.request('PUT', '/console/v1/password', { json: { current_password: 'viewer-password-1', new_password: 'taken-over-123' } });
    assertError(blocked, 429, 'too_many_requests');
    assert.equal(blocked.headers.get('retry-after'), '1');
    assert.equal((await signInRequest(t, 'guessed@shop.example.com', 'viewer-password-1')).status, 429, 'the same counters as the sign-in page');
    t.clock.advance(1000);
    const ok = await me.request('PUT', '/console/v1/password', { json: { current_password: 'viewer-password-1', new_password: 'viewer-password-2' } });
    assert.equal(ok.status, 200, ok.text);
  });
});

describe('password reset links', () => {
  let t: TestApp;
  let other: string;
  let admin: ConsoleClient;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Second shop', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    assert.equal(created.status, 200, created.text);
    other = created.body.id as string;
  });
  // Afresh for each test: one of them moves the clock past the session's lifetime.
  beforeEach(async () => {
    admin = await signIn(t, ADMIN.email, ADMIN.password);
  });
  after(async () => t.close());

  const linkFor = (email: string, as: ConsoleClient | 'key' = 'key', projectId = t.projectId) =>
    as === 'key'
      ? t.request('POST', `${users(projectId)}/${encodeURIComponent(email)}/password-reset-link`, { headers: t.managementHeaders() })
      : as.request('POST', `${users(projectId)}/${encodeURIComponent(email)}/password-reset-link`);
  const reset = (url: string, password: string) => t.request('POST', '/console/v1/password-reset', { headers: {}, json: { token: tokenOf(url), password } });

  test('works once, names the account and the shop, sets the password and ends every session of the user', async () => {
    const user = await addUser(t, 'forgetful@shop.example.com', 'USER', 'forgotten-password-1');
    const link = await linkFor('forgetful@shop.example.com', admin);
    assert.equal(link.status, 200, link.text);
    assert.equal(link.body.object, 'password_reset_link');
    assert.equal(link.body.user_id, user.session.user.id);
    assert.match(link.body.url, /^http:\/\/.+\/dashboard\/password-reset#token=[\w-]{20,}$/);
    assert.equal(link.body.expires_at, new Date(Date.parse(link.body.expires_at)).toISOString());

    const preview = await t.request('POST', '/console/v1/password-reset/preview', { headers: {}, json: { token: tokenOf(link.body.url) } });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body, { object: 'password_reset', email: 'forgetful@shop.example.com', project: { id: t.projectId, name: preview.body.project.name }, expires_at: link.body.expires_at });
    assert.equal(typeof preview.body.project.name, 'string');

    assertError(await reset(link.body.url, 'short'), 400, 'invalid_payload');
    const used = await reset(link.body.url, 'remembered-password-2');
    assert.equal(used.status, 200, used.text);
    assert.equal(used.body.user.email, 'forgetful@shop.example.com');
    assert.equal(used.body.project.id, t.projectId);
    const fresh = clientFor(t, used);
    assert.equal((await fresh.request('GET', '/v1/customers')).status, 200, 'the reset signs in');
    assertError(await user.request('GET', '/console/v1/session'), 401, 'unauthorized');

    assertError(await reset(link.body.url, 'third-password-3'), 401, 'unauthorized');
    assertError(await t.request('POST', '/console/v1/password-reset/preview', { headers: {}, json: { token: tokenOf(link.body.url) } }), 401, 'unauthorized');
    assertError(await signInRequest(t, 'forgetful@shop.example.com', 'forgotten-password-1'), 401, 'unauthorized');
    assert.equal((await signInRequest(t, 'forgetful@shop.example.com', 'remembered-password-2')).status, 200);
  });

  test('expires after 24 hours; a newer link or a password change retires the older ones', async () => {
    await addUser(t, 'expiring@shop.example.com', 'USER', 'expiring-password-1');
    const expired = await linkFor('expiring@shop.example.com');
    assert.equal(expired.status, 200, expired.text);
    t.clock.advance(24 * 3600 * 1000 + 1000);
    assertError(await reset(expired.body.url, 'too-late-password-1'), 401, 'unauthorized');

    const first = await linkFor('expiring@shop.example.com');
    const second = await linkFor('expiring@shop.example.com');
    assertError(await reset(first.body.url, 'superseded-password-1'), 401, 'unauthorized');
    assert.equal((await reset(second.body.url, 'newest-link-password-1')).status, 200);

    const beforeChange = await linkFor('expiring@shop.example.com');
    const me = await signIn(t, 'expiring@shop.example.com', 'newest-link-password-1');
    const changed = await me.request('PUT', '/console/v1/password', { json: { current_password: 'newest-link-password-1', new_password: 'changed-by-me-1' } });
    assert.equal(changed.status, 200, changed.text);
    assertError(await reset(beforeChange.body.url, 'after-change-password-1'), 401, 'unauthorized');
    assert.equal((await signInRequest(t, 'expiring@shop.example.com', 'changed-by-me-1')).status, 200);
  });

  test("answered about the project only: another project's user is not found, with the key or a session", async () => {
    await addUser(t, 'elsewhere@shop.example.com', 'USER', 'elsewhere-password-1', other);
    assertError(await linkFor('elsewhere@shop.example.com'), 404, 'not_found');
    assertError(await linkFor('elsewhere@shop.example.com', admin), 404, 'not_found');
    assert.equal((await linkFor('elsewhere@shop.example.com', 'key', other)).status, 200, 'the key, in that project');
    const wrongProject = await linkFor('elsewhere@shop.example.com', admin, other);
    assertError(wrongProject, 403, 'forbidden');
    assertError(await linkFor('nobody@shop.example.com', admin), 404, 'not_found');
  });

  test('VIEWER and USER sessions are refused; a session needs its CSRF token', async () => {
    await addUser(t, 'target@shop.example.com', 'USER', 'target-password-1');
    const viewer = await addUser(t, 'viewer@shop.example.com', 'VIEWER');
    const user = await addUser(t, 'user@shop.example.com', 'USER');
    assertError(await linkFor('target@shop.example.com', viewer), 403, 'missing_required_permission');
    assertError(await linkFor('target@shop.example.com', user), 403, 'missing_required_permission');
    const noCsrf = await admin.request('POST', `${users(t.projectId)}/target@shop.example.com/password-reset-link`, { csrf: false });
    assertError(noCsrf, 403, 'forbidden');
    assert.match(noCsrf.body.details, /x-csrf-token/);
    assert.equal((await linkFor('target@shop.example.com', admin)).status, 200);
  });

  test('an invited user has no password to reset; a console ADMIN may not reset an account working in projects it does not administer', async () => {
    const invited = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'newcomer@shop.example.com', projects: { [t.projectId]: 'USER' } },
    });
    assert.equal(invited.status, 204);
    assertError(await linkFor('newcomer@shop.example.com'), 400, 'user_not_active');
    assertError(await linkFor('newcomer@shop.example.com', admin), 400, 'user_not_active');

    // An ADMIN of the default project only (not of the second shop).
    const localAdmin = await addUser(t, 'local-admin@shop.example.com', 'ADMIN');
    await addUser(t, 'both@shop.example.com', 'USER', 'both-password-1');
    const joined = await t.request('POST', users(other), { headers: t.managementHeaders(), json: { login: 'both@shop.example.com', role: 'USER' } });
    assert.equal(joined.status, 200, joined.text);
    assertError(await linkFor('both@shop.example.com', localAdmin), 403, 'forbidden');
    assert.equal((await linkFor('both@shop.example.com')).status, 200, 'the management key may');
    assert.equal((await linkFor('local-admin@shop.example.com', localAdmin)).status, 200, 'an account of its projects only, its own included');
  });
});

describe('team list: invited and active members', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  const statusIn = async (client: ConsoleClient | 'key', email: string, projectId = t.projectId) => {
    const list = client === 'key' ? await t.request('GET', users(projectId), { headers: t.managementHeaders() }) : await client.request('GET', users(projectId));
    assert.equal(list.status, 200, list.text);
    return (list.body.data as Array<{ login: string; status: string }>).find((u) => u.login === email)?.status;
  };

  test("a member is 'invited' until they set a password; an account from another project until they sign in", async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    assert.equal(await statusIn(admin, ADMIN.email), 'active');
    const invited = await admin.request('POST', '/management/v1/projects/users/invite', { json: { email: 'fresh@shop.example.com', projects: { [t.projectId]: 'USER' } } });
    assert.equal(invited.status, 204, invited.text);
    assert.equal(await statusIn(admin, 'fresh@shop.example.com'), 'invited');
    assert.equal(await statusIn('key', 'fresh@shop.example.com'), 'invited');

    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Third shop', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    const third = created.body.id as string;
    await addUser(t, 'veteran@shop.example.com', 'USER', 'veteran-password-1', third);
    const joined = await admin.request('POST', users(t.projectId), { json: { login: 'veteran@shop.example.com', role: 'VIEWER' } });
    assert.equal(joined.status, 200, joined.text);
    assert.equal(joined.body.status, 'invited', 'the ADMIN cannot tell an account from elsewhere from a new invitation');
    assert.equal(await statusIn(admin, 'veteran@shop.example.com'), 'invited');
    assert.equal(await statusIn('key', 'veteran@shop.example.com'), 'active', 'the management key sees the account');
    assertError(await admin.request('POST', `${users(t.projectId)}/veteran@shop.example.com/password-reset-link`), 400, 'user_not_active');

    assert.equal((await signInRequest(t, 'veteran@shop.example.com', 'veteran-password-1')).status, 200);
    assert.equal(await statusIn(admin, 'veteran@shop.example.com'), 'active');
  });
});
