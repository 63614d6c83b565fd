import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addUser, ADMIN, createFirstAdmin, signIn } from '../helpers/console.ts';

// `users` of the vendor's POST /management/v1/projects: existing users (by id or login, with a role) join
// the new project in the transaction that creates it. Any bad entry refuses the whole request and leaves no
// project behind.

describe('management API: a new project with its users', () => {
  let t: TestApp;
  let clerkId = '';
  const create = (name: string, users: unknown) =>
    t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name, case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR', users },
    });
  const projectNames = async () =>
    (await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() })).body.data.map((p: { name: string }) => p.name) as string[];

  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
    const clerk = await addUser(t, 'clerk@shop.example.com', 'MERCHANT');
    clerkId = clerk.session.user.id;
  });
  after(async () => t.close());

  test('users given by login and by id are assigned with their roles', async () => {
    const created = await create('Outlet', [
      { login: ADMIN.email.toUpperCase(), role: 'ADMIN' },
      { id: clerkId, role: 'VIEWER' },
    ]);
    assert.equal(created.status, 200, created.text);
    const users = await t.request('GET', `/management/v1/projects/${created.body.id}/users`, { headers: t.managementHeaders() });
    assert.equal(users.status, 200);
    const roles = Object.fromEntries(users.body.data.map((u: { login: string; projects: Record<string, string> }) => [u.login, u.projects[created.body.id]]));
    assert.deepEqual(roles, { [ADMIN.email]: 'ADMIN', 'clerk@shop.example.com': 'VIEWER' });

    // The assignment is real: the admin can work in the new project from the console.
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const switched = await admin.request('PUT', '/console/v1/session', { json: { project_id: created.body.id } });
    assert.equal(switched.status, 200, switched.text);
    assert.equal(switched.body.role, 'ADMIN');
  });

  test('an empty or null list creates a project with no users', async () => {
    for (const [name, users] of [['Empty', []], ['Null', null]] as const) {
      const created = await create(name, users);
      assert.equal(created.status, 200, created.text);
      const list = await t.request('GET', `/management/v1/projects/${created.body.id}/users`, { headers: t.managementHeaders() });
      assert.equal(list.body.total, 0);
    }
  });

  test('a bad entry refuses the request and creates no project', async () => {
    const cases: Array<[string, unknown, number, string]> = [
      ['Unknown login', [{ login: 'nobody@shop.example.com', role: 'USER' }], 404, 'not_found'],
      ['Unknown id', [{ id: 'user_missing', role: 'USER' }], 404, 'not_found'],
      ['Bad role', [{ login: ADMIN.email, role: 'OWNER' }], 400, 'used_incorrect_role'],
      ['No role', [{ login: ADMIN.email }], 400, 'invalid_payload'],
      ['Id and login', [{ id: clerkId, login: ADMIN.email, role: 'USER' }], 400, 'invalid_payload'],
      ['Neither', [{ role: 'USER' }], 400, 'invalid_payload'],
      ['Twice', [{ login: ADMIN.email, role: 'ADMIN' }, { id: clerkId, role: 'USER' }, { login: 'clerk@shop.example.com', role: 'VIEWER' }], 409, 'duplicate_found'],
      ['Not a list', { login: ADMIN.email, role: 'ADMIN' }, 400, 'invalid_payload'],
    ];
    for (const [name, users, status, key] of cases) {
      const refused = await create(name, users);
      assert.equal(refused.status, status, `${name}: ${refused.text}`);
      assert.equal(refused.body.key, key, name);
    }
    const names = await projectNames();
    for (const [name] of cases) assert.ok(!names.includes(name), `${name}: no project left behind`);
    const refused = await create('Bad entry', [{ id: clerkId, login: ADMIN.email, role: 'USER' }]);
    assert.match(refused.body.details, /users\[0\]/, 'the message names the entry');
  });
});
