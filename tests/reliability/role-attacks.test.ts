import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpClient, type HttpRequest, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { isObject, list, preview, str } from '../../scripts/lib/json.ts';
import { FIXED_KEYS, managementHeaders, serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import type { DbHandle } from '../../src/store/db.ts';
import { createProject, defaultProjectId, unique } from './helpers/api-builders.ts';
import { loadOperations, type Operation } from './helpers/openapi.ts';
import { errorKey } from './helpers/outcomes.ts';
import { Random, suiteSeed } from './helpers/random.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { testTimeout } from './helpers/scale.ts';
import { sample } from './helpers/schema-values.ts';
import { fillPath, seedProject, type SeededProject } from './helpers/seed-project.ts';
import { compareSnapshots, snapshot } from './helpers/snapshot.ts';

// Role attacks: console sessions of each role, signed in over HTTP against a real server process and a
// project full of data, try what their role must not do. A VIEWER sends every change the API has (a GET
// that publishes included) and must be refused every time, with the project's data unchanged after; a
// MERCHANT tries the GETs that write; sessions without their CSRF token try the same; the non-ADMIN roles
// read every route and must never see a secret (the webhook token, a key, an invitation or cockpit link);
// and an ADMIN of one project adds e-mails that have accounts in another project and e-mails that have
// none, and must get the same answers for both, none of them naming the other project. The expected
// answers come from the operations themselves (a GET whose name is neither get… nor list… is a change),
// not from the role table under test.

const seed = suiteSeed();
const PASSWORD = 'attack-password-1';

interface Session {
  role: string;
  cookie: string;
  csrf: string;
}

/** The session's cookie as a browser sends it back, and its CSRF token, from a sign-in answer. */
function sessionOf(role: string, res: HttpResponse): Session {
  assert.equal(res.status, 200, `${role} signs in: ${res.status} ${preview(res.text)}`);
  const lines = res.headers['set-cookie'] ?? [];
  const cookie = lines.map((line) => line.split(';')[0]).join('; ');
  assert.match(cookie, /punchcard_session=/);
  return { role, cookie, csrf: str(res.body, 'csrf_token') };
}

/** Operations a console session reaches: the server API and the management API (not OAuth, not its own routes). */
function sessionReaches(op: Operation): boolean {
  return op.auth === 'server' || op.auth === 'management';
}

describe(`role attacks on ${reliabilityDialect()} (seed ${seed})`, { timeout: testTimeout() }, () => {
  let database: ThrowawayDatabase;
  let direct: DbHandle;
  let server: ServerProcess;
  let http: HttpClient;
  let operations: Operation[];
  let a: SeededProject;
  let otherProjectId = '';
  let webhookToken = '';
  const sessions: Record<string, Session> = {};
  const rnd = new Random(seed);

  const management = (method: string, path: string, json?: unknown) => http.json(method, path, managementHeaders(), json);

  /** Invites a person to a project with the management key; with a password, they accept and are signed in. */
  async function person(projectId: string, email: string, role: string, password: string | null): Promise<HttpResponse | null> {
    const invited = await management('POST', '/management/v1/projects/users/invite', { email, first_name: `${role} person`, projects: { [projectId]: role } });
    assert.equal(invited.status, 204, invited.text);
    if (password === null) return null;
    const link = await management('POST', `/management/v1/projects/${projectId}/users/${email}/invitation-link`);
    assert.equal(link.status, 200, link.text);
    const token = new URL(str(link.body, 'url')).hash.replace('#token=', '');
    return http.json('POST', '/console/v1/invitation', {}, { token, password });
  }

  before(async () => {
    database = await createRunDatabase('roles');
    // No worker: only requests may write, so "nothing changed" is exact.
    server = await ServerProcess.start({ databaseUrl: database.url, worker: false });
    http = new HttpClient(server.url, { maxSockets: 8 });
    direct = database.open();
    a = await seedProject(http, await defaultProjectId(direct.db), { server: FIXED_KEYS.server, client: FIXED_KEYS.client }, 'roles');
    operations = await loadOperations(http);
    for (const role of ['ADMIN', 'USER', 'VIEWER', 'MERCHANT']) {
      sessions[role] = sessionOf(role, (await person(a.projectId, `${unique(role).toLowerCase()}@shop.example.com`, role, PASSWORD)) as HttpResponse);
    }
    const project = await management('GET', `/management/v1/projects/${a.projectId}`);
    webhookToken = str(project.body, 'webhook_token');
    otherProjectId = (await createProject(http)).id;
  });

  after(async () => {
    http?.close();
    await server?.stop();
    await direct?.close();
    await database?.drop();
  });

  /** A request with the session's cookie, and its CSRF token unless `csrf` is false. */
  function asSession(session: Session, req: HttpRequest, csrf = true): Promise<HttpResponse> {
    return http.request({ ...req, headers: { ...(req.headers ?? {}), cookie: session.cookie, ...(csrf ? { 'x-csrf-token': session.csrf } : {}) } });
  }

  /** A request an operation accepts as far as the shapes go, aimed at the project's real objects. */
  function requestFor(op: Operation): HttpRequest {
    const query = op.queryParams
      .filter((p) => p.required)
      .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(sample(p.schema, rnd.fork())))}`)
      .join('&');
    const path = fillPath(op.path, a.ids) + (query === '' ? '' : `?${query}`);
    if (!op.body || op.method === 'GET' || op.method === 'DELETE') return { method: op.method, path };
    return { method: op.method, path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(sample(op.body.schema, rnd.fork(), 0.8)) };
  }

  /** The project's publish-by-GET with real input: with server keys it publishes a voucher to a new customer. */
  const publishByGet = (sourceId: string, method = 'GET'): HttpRequest => ({
    method,
    path: `/v1/publications/create?campaign[id]=${encodeURIComponent(a.ids.campaign)}&customer[source_id]=${encodeURIComponent(sourceId)}`,
  });
  const customerExists = async (sourceId: string) => (await http.json('GET', `/v1/customers/${sourceId}`, serverHeaders())).status === 200;

  test('a VIEWER session sends every change the API has, and a MERCHANT every GET that writes: each refused, nothing changed', async () => {
    const before_ = await snapshot(direct.db, a.projectId);
    const problems: string[] = [];
    let changes = 0;
    const writingGets = operations.filter((op) => sessionReaches(op) && op.method === 'GET' && !op.readOnly);
    assert.ok(
      writingGets.some((op) => op.path === '/v1/publications/create'),
      'the publish-by-GET is among the GETs that write',
    );
    for (const op of operations) {
      if (!sessionReaches(op) || op.readOnly) continue;
      const req = requestFor(op);
      const attackers = op.method === 'GET' ? ['VIEWER', 'MERCHANT'] : ['VIEWER'];
      for (const role of attackers) {
        const res = await asSession(sessions[role] as Session, req);
        changes++;
        if (res.status !== 403 || errorKey(res) !== 'missing_required_permission') problems.push(`${role} ${op.method} ${req.path} → ${res.status} ${preview(res.text, 200)}`);
      }
    }
    // The same with input that publishes for real, and the HEAD Fastify answers for every GET.
    for (const role of ['VIEWER', 'MERCHANT']) {
      for (const method of ['GET', 'HEAD']) {
        const sourceId = unique(`${role}-${method}`.toLowerCase());
        const res = await asSession(sessions[role] as Session, publishByGet(sourceId, method));
        if (res.status !== 403) problems.push(`${role} ${method} publish-by-GET → ${res.status} ${preview(res.text, 200)}`);
        if (await customerExists(sourceId)) problems.push(`${role} ${method} publish-by-GET published to ${sourceId}`);
      }
    }
    process.stdout.write(`# ${changes} changes tried by VIEWER and MERCHANT sessions (${writingGets.length} GETs that write)\n`);
    assert.ok(changes > 100, `${changes} changes tried`);
    assert.deepEqual(problems, []);
    assert.deepEqual(compareSnapshots(before_, await snapshot(direct.db, a.projectId)), [], "the project's data changed");
  });

  test('a session without its CSRF token changes nothing, whatever the method; API keys publish by GET as before', async () => {
    const before_ = await snapshot(direct.db, a.projectId);
    const problems: string[] = [];
    let tried = 0;
    for (const op of operations) {
      if (!sessionReaches(op) || op.readOnly) continue;
      const res = await asSession(sessions.ADMIN as Session, requestFor(op), false);
      tried++;
      if (res.status !== 403 || errorKey(res) !== 'forbidden') problems.push(`ADMIN without CSRF ${op.method} ${op.path} → ${res.status} ${preview(res.text, 200)}`);
    }
    for (const method of ['GET', 'HEAD']) {
      const sourceId = unique(`nocsrf-${method}`.toLowerCase());
      const res = await asSession(sessions.ADMIN as Session, publishByGet(sourceId, method), false);
      if (res.status !== 403) problems.push(`ADMIN without CSRF ${method} publish-by-GET → ${res.status}`);
      if (await customerExists(sourceId)) problems.push(`ADMIN without CSRF ${method} publish-by-GET published`);
    }
    assert.ok(tried > 100, `${tried} changes tried`);
    assert.deepEqual(problems, []);
    assert.deepEqual(compareSnapshots(before_, await snapshot(direct.db, a.projectId)), [], "the project's data changed");

    // With the token the ADMIN's session publishes; the keys need none, as the vendor's SDK calls it.
    const withToken = await asSession(sessions.ADMIN as Session, publishByGet('csrf-admin'));
    assert.equal(withToken.status, 200, withToken.text);
    const keys = await http.request({ ...publishByGet('csrf-keys'), headers: serverHeaders() });
    assert.equal(keys.status, 200, keys.text);
    assert.equal(str(keys.body, 'customer', 'source_id'), 'csrf-keys');
  });

  test('USER, VIEWER and MERCHANT sessions read every route and never see a secret', async () => {
    const secrets: Array<[string, string]> = [
      ['the webhook token', webhookToken],
      ['the server key secret', FIXED_KEYS.server.secret],
      ['the client key secret', FIXED_KEYS.client.secret],
      ['the management key secret', FIXED_KEYS.management.secret],
      ['an invitation link', '/dashboard/invitation#token='],
    ];
    const leaks: string[] = [];
    let reads = 0;
    for (const op of operations) {
      if (!sessionReaches(op) || !op.readOnly) continue;
      const req = requestFor(op);
      for (const role of ['USER', 'VIEWER', 'MERCHANT']) {
        const res = await asSession(sessions[role] as Session, req);
        reads++;
        if (res.status >= 500) leaks.push(`${role} ${op.method} ${req.path} → ${res.status} ${preview(res.text, 200)}`);
        for (const [what, secret] of secrets) if (res.text.includes(secret)) leaks.push(`${role} ${op.method} ${req.path}: ${what}`);
        // A cockpit link spends points and changes consents: only for a role that may do both (USER).
        if (role !== 'USER' && res.text.includes('/cockpit#token=')) leaks.push(`${role} ${op.method} ${req.path}: a cockpit link`);
      }
    }
    process.stdout.write(`# ${reads} reads by USER, VIEWER and MERCHANT sessions\n`);
    assert.ok(reads > 100, `${reads} reads`);
    assert.deepEqual(leaks, []);
    // The control: the ADMIN's session does get the token.
    const admin = await asSession(sessions.ADMIN as Session, { method: 'GET', path: `/management/v1/projects/${a.projectId}` });
    assert.equal(str(admin.body, 'webhook_token'), webhookToken);
  });

  test("an ADMIN adding e-mails learns nothing of another project: accounts there and new e-mails get the same answers", async () => {
    // Another project's people: one who has signed in there, one invited there who has not yet.
    const elsewhere = (what: string) => `${unique(what).toLowerCase()}@elsewhere.example.com`;
    const fresh = (what: string) => `${unique(what).toLowerCase()}@nowhere.example.com`;
    const activeThere = [elsewhere('active-a'), elsewhere('active-b')];
    const invitedThere = [elsewhere('invited-a'), elsewhere('invited-b')];
    for (const email of activeThere) sessionOf('elsewhere', (await person(otherProjectId, email, 'ADMIN', PASSWORD)) as HttpResponse);
    for (const email of invitedThere) await person(otherProjectId, email, 'USER', null);

    const admin = sessions.ADMIN as Session;
    const send = (method: string, path: string, json?: unknown) =>
      asSession(admin, { method, path, ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }) });
    // What the ADMIN compares between the two answers: the status, the error key, the members, and the
    // roles shown. (An account's own name and e-mail are shown once it is in the project, as any member's
    // are: README "Console", Users.)
    const observed = (res: HttpResponse) => ({
      status: res.status,
      key: errorKey(res),
      members: isObject(res.body) ? Object.keys(res.body).sort() : [],
      projects: isObject(res.body) && isObject(res.body.projects) ? res.body.projects : null,
    });
    const problems: string[] = [];
    const compare = (what: string, existing: HttpResponse, made: HttpResponse) => {
      for (const res of [existing, made]) if (res.text.includes(otherProjectId)) problems.push(`${what} names the other project: ${preview(res.text, 300)}`);
      const [x, y] = [observed(existing), observed(made)];
      if (JSON.stringify(x) !== JSON.stringify(y)) problems.push(`${what}: an e-mail with an account elsewhere → ${JSON.stringify(x)}, a new one → ${JSON.stringify(y)}`);
    };
    const usersPath = `/management/v1/projects/${a.projectId}/users`;

    for (const [i, existing] of [activeThere[0], invitedThere[0]].entries()) {
      const made = fresh(`invited-${i}`);
      const invite = (email: string) => send('POST', '/management/v1/projects/users/invite', { email, projects: { [a.projectId]: 'USER' } });
      compare('an invitation', await invite(existing as string), await invite(made));
      compare('a second invitation', await invite(existing as string), await invite(made));
      const link = (email: string) => send('POST', `${usersPath}/${email}/invitation-link`);
      compare('an invitation link', await link(existing as string), await link(made));
      compare('the user', await send('GET', `${usersPath}/${existing}`), await send('GET', `${usersPath}/${made}`));
      compare('taking them out', await send('DELETE', `${usersPath}/${existing}`), await send('DELETE', `${usersPath}/${made}`));
    }
    for (const [i, existing] of [activeThere[1], invitedThere[1]].entries()) {
      const made = fresh(`assigned-${i}`);
      const assign = (login: string) => send('POST', usersPath, { login, role: 'VIEWER' });
      compare('adding a login', await assign(existing as string), await assign(made));
      compare('adding it again', await assign(existing as string), await assign(made));
      compare('a role change', await send('PUT', `${usersPath}/${existing}`, { role: 'USER' }), await send('PUT', `${usersPath}/${made}`, { role: 'USER' }));
    }
    const team = await send('GET', usersPath);
    if (team.text.includes(otherProjectId)) problems.push(`the team list names the other project: ${preview(team.text, 300)}`);
    assert.deepEqual(problems, []);

    // Both kinds still work: the other project's people keep it, and the accounts there are untouched.
    for (const email of [...activeThere, ...invitedThere]) {
      const there = await management('GET', `/management/v1/projects/${otherProjectId}/users/${email}`);
      assert.equal(there.status, 200, `${email} is still in the other project`);
    }
    for (const email of activeThere) sessionOf('elsewhere', await http.json('POST', '/console/v1/session', {}, { email, password: PASSWORD }));
    const assigned = list((await management('GET', `/management/v1/projects/${a.projectId}/users`)).body, 'data').map((u) => (isObject(u) ? u.login : null));
    assert.ok(assigned.includes(activeThere[1]) && assigned.includes(invitedThere[1]), 'the accounts from elsewhere joined this project');
  });
});
