import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addUser, ADMIN, clientFor, createFirstAdmin, signIn } from '../helpers/console.ts';

// The vendor's management API for project users: shapes, roles, and the rules that keep a project
// administrable. Driven with the management key, and with a console ADMIN's session.

describe('management API: project users', () => {
  let t: TestApp;
  const users = (projectId: string) => `/management/v1/projects/${projectId}/users`;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('the first admin is listed in the vendor shape: owner, ADMIN of the project', async () => {
    const list = await t.request('GET', users(t.projectId), { headers: t.managementHeaders() });
    assert.equal(list.status, 200);
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.data_ref, 'data');
    assert.equal(list.body.total, 1);
    const [admin] = list.body.data;
    assert.match(admin.id, /^user_/);
    assert.equal(admin.login, ADMIN.email);
    assert.equal(admin.email, ADMIN.email);
    assert.deepEqual(admin.projects, { [t.projectId]: 'ADMIN' });
    assert.equal(admin.is_owner, true);
    assert.equal(admin.password_hash, undefined, 'no password material is ever answered');

    const byLogin = await t.request('GET', `${users(t.projectId)}/${encodeURIComponent(ADMIN.email.toUpperCase())}`, { headers: t.managementHeaders() });
    assert.equal(byLogin.status, 200, 'a user is found by login too, without regard to case');
    assert.equal(byLogin.body.id, admin.id);
  });

  test('invite creates a user with a role per project; the invitation link sets the password once', async () => {
    const invited = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'Marketer@Shop.example.com', first_name: 'Mia', last_name: 'Market', projects: { [t.projectId]: 'USER' } },
    });
    assert.equal(invited.status, 204);
    assert.equal(invited.text, '');

    const user = await t.request('GET', `${users(t.projectId)}/marketer@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(user.status, 200);
    assert.equal(user.body.login, 'marketer@shop.example.com');
    assert.equal(user.body.email, 'Marketer@Shop.example.com');
    assert.equal(user.body.first_name, 'Mia');
    assert.deepEqual(user.body.projects, { [t.projectId]: 'USER' });
    assert.equal(user.body.is_owner, false);

    // An invited user has no password: signing in fails like a wrong password.
    const early = await t.request('POST', '/console/v1/session', { headers: {}, json: { email: 'marketer@shop.example.com', password: 'anything-at-all' } });
    assert.equal(early.status, 401);

    const first = await t.request('POST', `${users(t.projectId)}/${user.body.id}/invitation-link`, { headers: t.managementHeaders() });
    const second = await t.request('POST', `${users(t.projectId)}/${user.body.id}/invitation-link`, { headers: t.managementHeaders() });
    assert.equal(second.status, 200);
    assert.match(second.body.url, /\/dashboard\/invitation#token=/);
    const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');
    const stale = await t.request('POST', '/console/v1/invitation', { headers: {}, json: { token: tokenOf(first.body.url), password: 'mia-password-1' } });
    assert.equal(stale.status, 401, 'a newer link retires the older one');
    const short = await t.request('POST', '/console/v1/invitation', { headers: {}, json: { token: tokenOf(second.body.url), password: 'short' } });
    assert.equal(short.status, 400);
    assert.match(short.body.details, /at least 10 characters/);
    const accepted = await t.request('POST', '/console/v1/invitation', { headers: {}, json: { token: tokenOf(second.body.url), password: 'mia-password-1' } });
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.role, 'USER');
    const again = await t.request('POST', '/console/v1/invitation', { headers: {}, json: { token: tokenOf(second.body.url), password: 'mia-password-2' } });
    assert.equal(again.status, 401, 'an invitation link works once');
    const link = await t.request('POST', `${users(t.projectId)}/${user.body.id}/invitation-link`, { headers: t.managementHeaders() });
    assert.equal(link.status, 400, 'no link for a user who has a password: it would take the account over');
    assert.equal(link.body.key, 'user_already_active');
  });

  test('invite refuses a used e-mail (409), an unknown role and an unknown project', async () => {
    const dup = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: ADMIN.email.toUpperCase(), projects: { [t.projectId]: 'USER' } },
    });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.key, 'duplicate_found');
    const role = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'x@shop.example.com', projects: { [t.projectId]: 'SUPERUSER' } },
    });
    assert.equal(role.status, 400);
    assert.equal(role.body.key, 'used_incorrect_role');
    const project = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'x@shop.example.com', projects: { proj_missing: 'USER' } },
    });
    assert.equal(project.status, 404);
    const none = await t.request('GET', `${users(t.projectId)}/x@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(none.status, 404, 'a refused invitation creates nobody');
  });

  test('assign by login or id, change the role, unassign; the rules that keep a project administrable', async () => {
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Second shop', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    const other = created.body.id as string;
    await addUser(t, 'clerk@shop.example.com', 'MERCHANT');

    const neither = await t.request('POST', users(other), { headers: t.managementHeaders(), json: { role: 'VIEWER' } });
    assert.equal(neither.status, 400);
    const both = await t.request('POST', users(other), { headers: t.managementHeaders(), json: { id: 'user_x', login: 'clerk@shop.example.com', role: 'VIEWER' } });
    assert.equal(both.status, 400);
    const unknown = await t.request('POST', users(other), { headers: t.managementHeaders(), json: { login: 'nobody@shop.example.com', role: 'VIEWER' } });
    assert.equal(unknown.status, 404);

    const assigned = await t.request('POST', users(other), { headers: t.managementHeaders(), json: { login: 'clerk@shop.example.com', role: 'VIEWER' } });
    assert.equal(assigned.status, 200);
    assert.deepEqual(assigned.body.projects, { [t.projectId]: 'MERCHANT', [other]: 'VIEWER' });
    const twice = await t.request('POST', users(other), { headers: t.managementHeaders(), json: { id: assigned.body.id, role: 'USER' } });
    assert.equal(twice.status, 409);

    const updated = await t.request('PUT', `${users(other)}/${assigned.body.id}`, { headers: t.managementHeaders(), json: { role: 'ADMIN' } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.projects[other], 'ADMIN');
    // The only ADMIN of the second project cannot be demoted or unassigned.
    const demote = await t.request('PUT', `${users(other)}/${assigned.body.id}`, { headers: t.managementHeaders(), json: { role: 'USER' } });
    assert.equal(demote.status, 400);
    assert.equal(demote.body.key, 'last_admin');
    const remove = await t.request('DELETE', `${users(other)}/${assigned.body.id}`, { headers: t.managementHeaders() });
    assert.equal(remove.status, 400);
    assert.equal(remove.body.key, 'last_admin');

    // A user's only project cannot be taken away (the vendor's rule).
    const soloInvite = await t.request('POST', '/management/v1/projects/users/invite', {
      headers: t.managementHeaders(),
      json: { email: 'solo@shop.example.com', projects: { [t.projectId]: 'VIEWER' } },
    });
    assert.equal(soloInvite.status, 204);
    const solo = await t.request('DELETE', `${users(t.projectId)}/solo@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(solo.status, 400);
    assert.equal(solo.body.key, 'last_project_of_user');

    const clerkOut = await t.request('DELETE', `${users(t.projectId)}/clerk@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(clerkOut.status, 204);
    const gone = await t.request('GET', `${users(t.projectId)}/clerk@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(gone.status, 404);
    const stillThere = await t.request('GET', `${users(other)}/clerk@shop.example.com`, { headers: t.managementHeaders() });
    assert.deepEqual(stillThere.body.projects, { [other]: 'ADMIN' });
  });

  test('a console ADMIN manages users of its own project only; a USER may read them, not change them', async () => {
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    const invited = await admin.request('POST', '/management/v1/projects/users/invite', {
      json: { email: 'support@shop.example.com', projects: { [t.projectId]: 'USER' } },
    });
    assert.equal(invited.status, 204);
    const link = await admin.request('POST', `${users(t.projectId)}/support@shop.example.com/invitation-link`);
    assert.equal(link.status, 200);
    const elsewhere = await admin.request('POST', '/management/v1/projects/users/invite', {
      json: { email: 'other@shop.example.com', projects: { proj_someone_else: 'USER' } },
    });
    assert.equal(elsewhere.status, 403, 'a session invites to its own project only');
    const otherProject = await admin.request('GET', users('proj_someone_else'));
    assert.equal(otherProject.status, 403);
    // The first admin owns the organisation and may list projects (tests/http/console-projects.test.ts); another ADMIN may not.
    const secondAdmin = await addUser(t, 'second-admin@shop.example.com', 'ADMIN');
    const projects = await secondAdmin.request('GET', '/management/v1/projects');
    assert.equal(projects.status, 403, 'organisation-wide routes stay with the management key (and the owner)');
    assert.equal(projects.body.key, 'missing_required_permission');

    const token = new URL(link.body.url).hash.replace('#token=', '');
    const support = await t.request('POST', '/console/v1/invitation', { headers: {}, json: { token, password: 'support-password-1' } });
    assert.equal(support.status, 200);
    const user = clientFor(t, support);
    const list = await user.request('GET', users(t.projectId));
    assert.equal(list.status, 200);
    const change = await user.request('PUT', `${users(t.projectId)}/support@shop.example.com`, { json: { role: 'ADMIN' } });
    assert.equal(change.status, 403);
    assert.equal(change.body.key, 'missing_required_permission');
    const after = await t.request('GET', `${users(t.projectId)}/support@shop.example.com`, { headers: t.managementHeaders() });
    assert.equal(after.body.projects[t.projectId], 'USER', 'nothing changed');
  });
});
