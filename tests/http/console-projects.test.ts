import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addUser, ADMIN, createFirstAdmin, signIn, type ConsoleClient } from '../helpers/console.ts';

// The organisation's owner manages projects from a console session: lists every project, creates one
// (becoming its ADMIN in the same transaction) and deletes another — never the session's own, never the
// last. Everyone else keeps the rule that organisation-wide acts stay with the management key.

const OWNER_ACTS = ['GET /management/v1/projects', 'POST /management/v1/projects', 'DELETE /management/v1/projects/:projectId'];
const project = (name: string) => ({ name, case_sensitive_codes: false, timezone: 'Europe/Warsaw', currency: 'PLN', description: `${name}, for tests` });

describe('console: projects for the organisation owner', () => {
  let t: TestApp;
  let owner: ConsoleClient;
  let admin: ConsoleClient;

  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
    owner = await signIn(t, ADMIN.email, ADMIN.password);
    admin = await addUser(t, 'second-admin@shop.example.com', 'ADMIN');
  });
  after(async () => t.close());

  const mgmt = () => ({ headers: t.managementHeaders() });
  const liveIds = async () => ((await t.request('GET', '/management/v1/projects', mgmt())).body.data as Array<{ id: string }>).map((p) => p.id);
  const createWithKey = async (name: string) => {
    const created = await t.request('POST', '/management/v1/projects', { ...mgmt(), json: project(name) });
    assert.equal(created.status, 200, created.text);
    return created.body.id as string;
  };

  test("the owner's session lists the owner's acts; a non-owner ADMIN's does not", async () => {
    assert.equal(owner.session.user.is_owner, true);
    assert.equal(admin.session.user.is_owner, false);
    assert.equal(admin.session.role, 'ADMIN');
    for (const act of OWNER_ACTS) {
      assert.ok((owner.session.permissions as string[]).includes(act), `owner: ${act}`);
      assert.ok(!(admin.session.permissions as string[]).includes(act), `non-owner ADMIN: ${act}`);
    }
    const again = await owner.request('GET', '/console/v1/session');
    assert.deepEqual(again.body.permissions, owner.session.permissions, 'GET answers the same list');
  });

  test('a non-owner ADMIN gets 403 on listing, creating and deleting projects, and nothing changes', async () => {
    const other = await createWithKey('Not for the ADMIN');
    const before = await liveIds();
    const list = await admin.request('GET', '/management/v1/projects');
    assert.equal(list.status, 403, list.text);
    assert.equal(list.body.key, 'missing_required_permission');
    assert.match(list.body.details, /Only the organisation's owner \(or the management key\) may GET \/management\/v1\/projects/);
    const created = await admin.request('POST', '/management/v1/projects', { json: project('By the ADMIN') });
    assert.equal(created.status, 403, created.text);
    assert.equal(created.body.key, 'missing_required_permission');
    for (const id of [other, t.projectId]) {
      const deleted = await admin.request('DELETE', `/management/v1/projects/${id}`);
      assert.equal(deleted.status, 403, deleted.text);
      assert.equal(deleted.body.key, 'missing_required_permission');
    }
    assert.deepEqual(await liveIds(), before, 'no project created or deleted');
  });

  test('the owner lists every project, also those they are not in, without webhook tokens', async () => {
    const foreign = await createWithKey('Made with the key');
    const list = await owner.request('GET', '/management/v1/projects');
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.total, list.body.data.length);
    const ids = (list.body.data as Array<{ id: string }>).map((p) => p.id);
    assert.deepEqual(ids, await liveIds());
    assert.ok(ids.includes(foreign) && ids.includes(t.projectId));
    assert.ok(list.body.data.every((p: { webhook_token: string | null }) => p.webhook_token === null), 'no webhook token in the list');
    assert.ok(!(owner.session.projects as Array<{ id: string }>).some((p) => p.id === foreign), 'listing does not make the owner a member');
  });

  test('the owner creates a project with the CSRF token, becomes its ADMIN and may switch into it', async () => {
    const refused = await owner.request('POST', '/management/v1/projects', { json: project('No token'), csrf: false });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.details, /x-csrf-token/);

    const created = await owner.request('POST', '/management/v1/projects', { json: project('Owner shop') });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id as string;
    assert.equal(created.body.name, 'Owner shop');
    assert.equal(created.body.timezone, 'Europe/Warsaw');
    assert.equal(created.body.description, 'Owner shop, for tests');
    assert.equal(typeof created.body.server_side_key.app_token, 'string', 'the keys are answered once, as to the management key');

    const session = await owner.request('GET', '/console/v1/session');
    assert.deepEqual(
      (session.body.projects as Array<{ id: string; role: string }>).find((p) => p.id === id),
      { id, name: 'Owner shop', role: 'ADMIN' },
      'the session lists the new project with the role ADMIN',
    );
    const user = await t.request('GET', `/management/v1/projects/${id}/users/${owner.session.user.id}`, mgmt());
    assert.equal(user.status, 200, user.text);
    assert.deepEqual(user.body.projects[id], 'ADMIN');
    assert.equal(user.body.status, 'active', 'the owner is working in the console already: the place is taken up');
    const events = await t.deps.db.selectFrom('events').select(['type']).where('project_id', '=', id).execute();
    assert.deepEqual(events.map((e) => e.type).sort(), ['project.created', 'user.assigned']);

    const switched = await owner.request('PUT', '/console/v1/session', { json: { project_id: id } });
    assert.equal(switched.status, 200, switched.text);
    assert.equal(switched.body.project.id, id);
    assert.equal(switched.body.role, 'ADMIN');
    const settings = await owner.request('GET', `/management/v1/projects/${id}`);
    assert.equal(settings.status, 200);
    assert.equal(typeof settings.body.webhook_token, 'string', 'ADMIN of the new project');
    const back = await owner.request('PUT', '/console/v1/session', { json: { project_id: t.projectId } });
    assert.equal(back.status, 200, back.text);
  });

  test('a create naming the owner in users is refused, with no project made; bad input is a 400', async () => {
    const before = await liveIds();
    const named = await owner.request('POST', '/management/v1/projects', {
      json: { ...project('Twice'), users: [{ login: ADMIN.email.toUpperCase(), role: 'VIEWER' }] },
    });
    assert.equal(named.status, 400, named.text);
    assert.equal(named.body.key, 'invalid_payload');
    assert.match(named.body.details, /users\[0\].*ADMIN of the project you create/);
    const zone = await owner.request('POST', '/management/v1/projects', { json: { ...project('Nowhere'), timezone: 'Mars/Olympus' } });
    assert.equal(zone.status, 400, zone.text);
    assert.match(zone.body.details, /timezone/);
    assert.deepEqual(await liveIds(), before);
  });

  test("the owner deletes another project; never the session's own nor the default one", async () => {
    const own = await owner.request('POST', '/management/v1/projects', { json: project('Working here') });
    const target = await owner.request('POST', '/management/v1/projects', { json: project('To delete') });
    assert.equal(target.status, 200, target.text);
    const targetId = target.body.id as string;
    // Someone works in the project to be deleted: their session ends with it.
    const clerk = await addUser(t, 'clerk@shop.example.com', 'USER', 'clerk-password-1', targetId);
    assert.equal((await clerk.request('GET', '/v1/campaigns')).status, 200);

    const switched = await owner.request('PUT', '/console/v1/session', { json: { project_id: own.body.id } });
    assert.equal(switched.status, 200, switched.text);
    const current = await owner.request('DELETE', `/management/v1/projects/${own.body.id}`);
    assert.equal(current.status, 400, current.text);
    assert.equal(current.body.key, 'resource_in_use');
    assert.match(current.body.details, /your console session works in; switch to another project/);
    const defaultProject = await owner.request('DELETE', `/management/v1/projects/${t.projectId}`);
    assert.equal(defaultProject.status, 400, defaultProject.text);
    assert.equal(defaultProject.body.key, 'resource_protected');
    const noToken = await owner.request('DELETE', `/management/v1/projects/${targetId}`, { csrf: false });
    assert.equal(noToken.status, 403, noToken.text);
    const unknown = await owner.request('DELETE', '/management/v1/projects/proj_unknown');
    assert.equal(unknown.status, 404, unknown.text);

    const deleted = await owner.request('DELETE', `/management/v1/projects/${targetId}`);
    assert.equal(deleted.status, 204, deleted.text);
    assert.ok(!(await liveIds()).includes(targetId));
    assert.ok((await liveIds()).includes(own.body.id), 'the session’s project stays');
    const keys = await t.request('GET', '/v1/campaigns', { headers: t.serverHeaders(target.body.server_side_key) });
    assert.equal(keys.status, 401, 'its keys stop working');
    const clerkAfter = await clerk.request('GET', '/v1/campaigns');
    assert.equal(clerkAfter.status, 401, 'sessions working in it end');
    const session = await owner.request('GET', '/console/v1/session');
    assert.ok(!(session.body.projects as Array<{ id: string }>).some((p) => p.id === targetId), 'gone from the switcher');
    const again = await owner.request('DELETE', `/management/v1/projects/${targetId}`);
    assert.equal(again.status, 404, again.text);
    await owner.request('PUT', '/console/v1/session', { json: { project_id: t.projectId } });
  });

  test('the last live project is never deleted', async () => {
    // Only a server without a default project can come down to one that is not protected anyway.
    for (const id of await liveIds()) {
      if (id !== t.projectId) assert.equal((await t.request('DELETE', `/management/v1/projects/${id}`, mgmt())).status, 204);
    }
    await t.deps.db.updateTable('projects').set({ is_default: false }).where('id', '=', t.projectId).execute();
    const last = await t.request('DELETE', `/management/v1/projects/${t.projectId}`, mgmt());
    assert.equal(last.status, 400, last.text);
    assert.equal(last.body.key, 'last_project');
    assert.match(last.body.details, /last live project/);
    assert.deepEqual(await liveIds(), [t.projectId]);
    const bySession = await owner.request('DELETE', `/management/v1/projects/${t.projectId}`);
    assert.equal(bySession.status, 400, bySession.text);
  });
});
