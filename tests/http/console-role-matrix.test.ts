import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { addUser, ADMIN, clientFor, createFirstAdmin, signIn, type ConsoleClient } from '../helpers/console.ts';

// Secrets and writes follow roles, whatever the client asks: each console role (and the API keys) against
// the project's webhook token, the vendor's publish-by-GET, and adding people to a project. A refused
// call changes nothing; an ADMIN of one project learns nothing about another.

const ROLES = ['ADMIN', 'USER', 'VIEWER', 'MERCHANT'] as const;
type Who = (typeof ROLES)[number] | 'server keys' | 'management key';
const EVERYONE: readonly Who[] = [...ROLES, 'server keys', 'management key'];

interface Row {
  name: string;
  method: string;
  path: (who: Who) => string;
  /** The status each credential gets. */
  expected: Record<Who, number>;
  /** What else must hold for `who` (the answer, and that a refusal changed nothing). */
  check?: (who: Who, res: TestResponse) => Promise<void> | void;
}

describe('console roles: secrets, writes on a GET, adding people', () => {
  let t: TestApp;
  const as = {} as Record<(typeof ROLES)[number], ConsoleClient>;
  let webhookToken = '';
  let other = '';

  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
    as.ADMIN = await signIn(t, ADMIN.email, ADMIN.password);
    for (const role of ['USER', 'VIEWER', 'MERCHANT'] as const) as[role] = await addUser(t, `${role.toLowerCase()}@shop.example.com`, role);
    const handout = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Handout', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 0, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } },
    });
    assert.equal(handout.status, 200, handout.text);
    const project = await t.request('GET', `/management/v1/projects/${t.projectId}`, { headers: t.managementHeaders() });
    webhookToken = project.body.webhook_token;
    assert.ok(webhookToken.length >= 20);
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Another shop', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    assert.equal(created.status, 200, created.text);
    other = created.body.id;
  });
  after(async () => t.close());

  const call = (who: Who, method: string, path: string, options: { json?: unknown; csrf?: boolean | string } = {}): Promise<TestResponse> => {
    if (who === 'server keys' || who === 'management key') {
      const headers = who === 'server keys' ? t.serverHeaders() : t.managementHeaders();
      return t.request(method, path, { headers, ...(options.json !== undefined ? { json: options.json } : {}) });
    }
    return as[who].request(method, path, options);
  };
  const slug = (who: Who) => who.replace(/\s+/g, '-').toLowerCase();
  /** The customer a publish-by-GET names: publishing creates them, so a refusal must leave them unknown. */
  const customerExists = async (sourceId: string) => (await t.request('GET', `/v1/customers/${sourceId}`)).status === 200;

  const rows: Row[] = [
    {
      name: "the project's webhook token: ADMIN and the management key only",
      method: 'GET',
      path: () => `/management/v1/projects/${t.projectId}`,
      expected: { ADMIN: 200, USER: 200, VIEWER: 200, MERCHANT: 403, 'server keys': 401, 'management key': 200 },
      check: (who, res) => {
        if (res.status !== 200) return;
        const sees = who === 'ADMIN' || who === 'management key';
        assert.equal(res.body.webhook_token, sees ? webhookToken : null, `${who} webhook_token`);
        if (!sees) assert.ok(!res.text.includes(webhookToken), `${who}: the token appears nowhere in the answer`);
        assert.equal(res.body.id, t.projectId, 'the rest of the project is answered');
      },
    },
    {
      name: 'GET /v1/publications/create publishes: a write, refused to VIEWER and MERCHANT',
      method: 'GET',
      path: (who) => `/v1/publications/create?campaign[name]=Handout&customer[source_id]=get-${slug(who)}`,
      expected: { ADMIN: 200, USER: 200, VIEWER: 403, MERCHANT: 403, 'server keys': 200, 'management key': 401 },
      check: async (who, res) => {
        if (res.status === 403) assert.equal(res.body.key, 'missing_required_permission', res.text);
        assert.equal(await customerExists(`get-${slug(who)}`), res.status === 200, `${who}: published only when allowed`);
      },
    },
    {
      name: 'HEAD /v1/publications/create is the same write',
      method: 'HEAD',
      path: (who) => `/v1/publications/create?campaign[name]=Handout&customer[source_id]=head-${slug(who)}`,
      expected: { ADMIN: 200, USER: 200, VIEWER: 403, MERCHANT: 403, 'server keys': 200, 'management key': 401 },
      check: async (who, res) => assert.equal(await customerExists(`head-${slug(who)}`), res.status === 200, `${who}: published only when allowed`),
    },
    {
      // The management key names existing users only, as the vendor's (these e-mails have no account).
      name: 'adding a login to the project: ADMIN only',
      method: 'POST',
      path: () => `/management/v1/projects/${t.projectId}/users`,
      expected: { ADMIN: 200, USER: 403, VIEWER: 403, MERCHANT: 403, 'server keys': 401, 'management key': 404 },
      check: async (who, res) => {
        const count = await t.deps.db.selectFrom('users').select('id').where('login', '=', `added-by-${slug(who)}@shop.example.com`).execute();
        assert.equal(count.length, res.status === 200 ? 1 : 0, `${who}: an account only when allowed`);
      },
    },
  ];

  for (const row of rows) {
    test(row.name, async () => {
      for (const who of EVERYONE) {
        // Console sessions send their CSRF token, as the console does for a change.
        const json = row.method === 'POST' ? { login: `added-by-${slug(who)}@shop.example.com`, role: 'VIEWER' } : undefined;
        const res = await call(who, row.method, row.path(who), { ...(json ? { json } : {}), csrf: true });
        assert.equal(res.status, row.expected[who], `${who}: ${row.method} ${row.path(who)} → ${res.status} ${res.text}`);
        await row.check?.(who, res);
      }
    });
  }

  test("a session's list of what it may call treats the publish-by-GET as a write", () => {
    for (const role of ROLES) {
      const listed = (as[role].session.permissions as string[]).includes('GET /v1/publications/create');
      assert.equal(listed, role === 'ADMIN' || role === 'USER', role);
    }
  });

  test('a publish-by-GET on a session needs the CSRF token; API keys need none, as before', async () => {
    const path = (who: string) => `/v1/publications/create?campaign[name]=Handout&customer[source_id]=csrf-${who}`;
    const none = await as.ADMIN.request('GET', path('none'));
    assert.equal(none.status, 403, none.text);
    assert.equal(none.body.key, 'forbidden');
    assert.match(none.body.details, /x-csrf-token/);
    const wrong = await as.USER.request('GET', path('wrong'), { csrf: as.ADMIN.csrf });
    assert.equal(wrong.status, 403, "another session's token is not this session's");
    const head = await as.ADMIN.request('HEAD', path('head'), { csrf: false });
    assert.equal(head.status, 403);
    for (const who of ['none', 'wrong', 'head']) assert.equal(await customerExists(`csrf-${who}`), false, `${who}: nothing published`);

    const withToken = await as.ADMIN.request('GET', path('token'), { csrf: true });
    assert.equal(withToken.status, 200, withToken.text);
    const keys = await t.request('GET', path('keys'));
    assert.equal(keys.status, 200, keys.text);
    assert.equal(keys.body.customer.source_id, 'csrf-keys');
    // Reads stay reads: no token needed.
    assert.equal((await as.VIEWER.request('GET', '/v1/publications')).status, 200);
  });

  test('adding a login answers about this project only, the same whether the e-mail has an account elsewhere or not', async () => {
    // Elsewhere: Bob has signed in to the other project; Carol was invited there and has not yet.
    await addUser(t, 'bob@elsewhere.example.com', 'ADMIN', 'bob-password-1', other);
    const carol = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'carol@elsewhere.example.com', first_name: 'Carol', projects: { [other]: 'USER' } },
    });
    assert.equal(carol.status, 204);

    const noOtherProject = (label: string, res: TestResponse) => assert.ok(!res.text.includes(other), `${label} names the other project: ${res.text}`);
    const shape = (res: TestResponse) => ({ status: res.status, keys: res.body === undefined ? [] : Object.keys(res.body).sort() });

    // Invite: an e-mail with an account elsewhere and a new one get the same answer, and both join.
    const invitedBob = await as.ADMIN.request('POST', '/management/v1/projects/users/invite', { json: { email: 'bob@elsewhere.example.com', projects: { [t.projectId]: 'USER' } } });
    const invitedNew = await as.ADMIN.request('POST', '/management/v1/projects/users/invite', { json: { email: 'newcomer@shop.example.com', projects: { [t.projectId]: 'USER' } } });
    assert.deepEqual([invitedBob.status, invitedBob.text], [204, '']);
    assert.deepEqual([invitedNew.status, invitedNew.text], [204, '']);

    // Assign by login: the same, an unknown e-mail getting an invited account.
    const assignedCarol = await as.ADMIN.request('POST', `/management/v1/projects/${t.projectId}/users`, { json: { login: 'carol@elsewhere.example.com', role: 'VIEWER' } });
    const assignedNew = await as.ADMIN.request('POST', `/management/v1/projects/${t.projectId}/users`, { json: { login: 'dave@nowhere.example.com', role: 'VIEWER' } });
    for (const [label, res] of [['Carol', assignedCarol], ['a new e-mail', assignedNew]] as const) {
      assert.equal(res.status, 200, `${label}: ${res.text}`);
      assert.deepEqual(res.body.projects, { [t.projectId]: 'VIEWER' }, label);
      noOtherProject(label, res);
    }
    assert.deepEqual(shape(assignedCarol), shape(assignedNew));

    // Every answer about these users, to every role that reads the team, shows this project's role only.
    for (const role of ['ADMIN', 'USER', 'VIEWER'] as const) {
      const list = await as[role].request('GET', `/management/v1/projects/${t.projectId}/users`);
      assert.equal(list.status, 200);
      noOtherProject(`${role}'s list`, list);
      for (const user of list.body.data) assert.deepEqual(Object.keys(user.projects), [t.projectId], `${role} sees ${user.login}`);
      const one = await as[role].request('GET', `/management/v1/projects/${t.projectId}/users/bob@elsewhere.example.com`);
      assert.deepEqual(one.body.projects, { [t.projectId]: 'USER' });
    }
    const changed = await as.ADMIN.request('PUT', `/management/v1/projects/${t.projectId}/users/bob@elsewhere.example.com`, { json: { role: 'VIEWER' } });
    assert.deepEqual(changed.body.projects, { [t.projectId]: 'VIEWER' });
    // The management key sees the whole organisation, as before.
    const whole = await t.request('GET', `/management/v1/projects/${t.projectId}/users/bob@elsewhere.example.com`, { headers: t.managementHeaders() });
    assert.deepEqual(whole.body.projects, { [other]: 'ADMIN', [t.projectId]: 'VIEWER' });

    // Refusals speak of this project.
    const twice = await as.ADMIN.request('POST', '/management/v1/projects/users/invite', { json: { email: 'bob@elsewhere.example.com', projects: { [t.projectId]: 'USER' } } });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.key, 'duplicate_found');
    assert.match(twice.body.details, new RegExp(t.projectId));
    noOtherProject('a second invitation', twice);

    // Invitation links: the same answer for all three; only a new account's link sets a password.
    const links: Record<string, TestResponse> = {};
    for (const login of ['bob@elsewhere.example.com', 'carol@elsewhere.example.com', 'newcomer@shop.example.com']) {
      links[login] = await as.ADMIN.request('POST', `/management/v1/projects/${t.projectId}/users/${login}/invitation-link`);
      assert.equal(links[login]!.status, 200, `${login}: ${links[login]!.text}`);
      assert.match(links[login]!.body.url, /\/dashboard\/invitation#token=/);
      noOtherProject(`${login}'s link`, links[login]!);
    }
    assert.deepEqual(shape(links['bob@elsewhere.example.com']!), shape(links['newcomer@shop.example.com']!));
    const tokenOf = (login: string) => new URL(links[login]!.body.url).hash.replace('#token=', '');
    const accept = (login: string, password: string) => t.request('POST', '/console/v1/invitation', { headers: {}, json: { token: tokenOf(login), password } });

    // Bob's link takes the password he has and never changes it; a wrong one leaves the link usable.
    const wrong = await accept('bob@elsewhere.example.com', 'not-bobs-password');
    assert.equal(wrong.status, 401);
    const bob = await accept('bob@elsewhere.example.com', 'bob-password-1');
    assert.equal(bob.status, 200, bob.text);
    assert.deepEqual(bob.body.projects.map((p: { id: string }) => p.id).sort(), [other, t.projectId].sort());
    assert.equal((await signIn(t, 'bob@elsewhere.example.com', 'bob-password-1')).session.user.login, 'bob@elsewhere.example.com');
    // Carol has no password yet, but is in a project this ADMIN does not run: the link cannot set one.
    assert.equal((await accept('carol@elsewhere.example.com', 'set-by-someone-else')).status, 401);
    assert.equal((await t.request('POST', '/console/v1/session', { headers: {}, json: { email: 'carol@elsewhere.example.com', password: 'set-by-someone-else' } })).status, 401);
    // The newcomer sets a password with theirs.
    const newcomer = await accept('newcomer@shop.example.com', 'newcomer-password-1');
    assert.equal(newcomer.status, 200, newcomer.text);
    assert.equal(clientFor(t, newcomer).session.role, 'USER');

    // Taking people out answers the same too: Dave's unused account goes, Carol keeps her other project.
    for (const login of ['dave@nowhere.example.com', 'carol@elsewhere.example.com']) {
      const removed = await as.ADMIN.request('DELETE', `/management/v1/projects/${t.projectId}/users/${login}`);
      assert.equal(removed.status, 204, `${login}: ${removed.text}`);
    }
    assert.equal((await t.deps.db.selectFrom('users').select('id').where('login', '=', 'dave@nowhere.example.com').execute()).length, 0);
    const carolThere = await t.request('GET', `/management/v1/projects/${other}/users/carol@elsewhere.example.com`, { headers: t.managementHeaders() });
    assert.deepEqual(carolThere.body.projects, { [other]: 'USER' });
  });

  test('taking out an invited account that a deleted project still names keeps the account', async () => {
    const doomed = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Closing shop', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    const invited = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'frank@closing.example.com', projects: { [t.projectId]: 'VIEWER', [doomed.body.id]: 'USER' } },
    });
    assert.equal(invited.status, 204);
    assert.equal((await t.request('DELETE', `/management/v1/projects/${doomed.body.id}`, { headers: t.managementHeaders() })).status, 204);
    const removed = await as.ADMIN.request('DELETE', `/management/v1/projects/${t.projectId}/users/frank@closing.example.com`);
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await t.deps.db.selectFrom('users').select('id').where('login', '=', 'frank@closing.example.com').execute()).length, 1);
  });

  test("a link that signs an existing account in is no way to guess its password: failures slow it down as sign-ins", async () => {
    await addUser(t, 'erin@elsewhere.example.com', 'USER', 'erin-password-1', other);
    const invited = await as.ADMIN.request('POST', '/management/v1/projects/users/invite', { json: { email: 'erin@elsewhere.example.com', projects: { [t.projectId]: 'VIEWER' } } });
    assert.equal(invited.status, 204);
    const link = await as.ADMIN.request('POST', `/management/v1/projects/${t.projectId}/users/erin@elsewhere.example.com/invitation-link`);
    const token = new URL(link.body.url).hash.replace('#token=', '');
    const accept = (password: string) => t.request('POST', '/console/v1/invitation', { headers: {}, json: { token, password } });
    for (let i = 0; i < 5; i++) assert.equal((await accept(`guess-number-${i}`)).status, 401);
    const slowed = await accept('erin-password-1');
    assert.equal(slowed.status, 429, 'even the right password waits');
    assert.equal(slowed.body.key, 'too_many_requests');
    t.clock.advance(2000);
    const erin = await accept('erin-password-1');
    assert.equal(erin.status, 200, erin.text);
    assert.equal((await accept('erin-password-1')).status, 401, 'the link works once');
  });
});
