import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpClient, type HttpRequest, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { isObject, preview, str } from '../../scripts/lib/json.ts';
import { clientHeaders, FIXED_KEYS, managementHeaders, serverHeaders } from '../../scripts/lib/keys.ts';
import { ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import { KNOWN_SCOPES, scopesAllowPath } from '../../src/domain/auth/scopes.ts';
import type { DbHandle } from '../../src/store/db.ts';
import { createProject, defaultProjectId } from './helpers/api-builders.ts';
import { loadOperations, type Operation } from './helpers/openapi.ts';
import { errorKey } from './helpers/outcomes.ts';
import { Random, suiteSeed } from './helpers/random.ts';
import { createRunDatabase, reliabilityDialect } from './helpers/run-database.ts';
import { reliabilityScale, testTimeout } from './helpers/scale.ts';
import { sample } from './helpers/schema-values.ts';
import { fillPath, seedProject, type SeedKind, type SeededProject } from './helpers/seed-project.ts';
import { compareSnapshots, snapshot, type TableState } from './helpers/snapshot.ts';

// Tenancy sweep (issue 7; ARCHITECTURE "A request can never read or change another project's rows";
// DECISIONS 3): two projects hold the same kinds of data. Project B's keys are aimed at every route with
// project A's ids — in the path, the body and the query — and must get exactly what a made-up id gets
// (404 for reads), never a byte of A's data, and A's rows must not change. Keys of the wrong kind open
// nothing, and every OAuth scope opens exactly the path prefixes it names.

const seed = suiteSeed();

/** Where a request body or query names an object, put project A's object of that kind there. */
const ID_FIELDS: Record<string, SeedKind> = {
  customer_id: 'customer',
  referrer_id: 'customer',
  campaign_id: 'campaign',
  campaign: 'campaign',
  related_object_id: 'campaign',
  voucher: 'voucherCode',
  code: 'voucherCode',
  product_id: 'product',
  sku_id: 'sku',
  category_id: 'category',
  segment_id: 'segment',
  order_id: 'order',
  customer: 'customer',
  parent_redemption_id: 'redemption',
  access_token: 'sessionKey',
};
const ID_PARENTS: Record<string, SeedKind> = {
  customer: 'customer',
  campaign: 'campaign',
  voucher: 'voucherCode',
  order: 'order',
  product: 'product',
  sku: 'sku',
  reward: 'reward',
  category: 'category',
  redeemables: 'voucherCode',
  promotion_tier: 'promotionTier',
  referrer: 'customer',
  related_object_parent: 'campaign',
};

function withIds(value: unknown, ids: Record<SeedKind, string>, parent: string | null = null, depth = 0): unknown {
  if (depth > 10) return value;
  if (Array.isArray(value)) return value.map((item) => withIds(item, ids, parent, depth + 1));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const kind = key === 'id' && parent !== null ? ID_PARENTS[parent] : typeof member === 'string' ? ID_FIELDS[key] : undefined;
    out[key] = kind !== undefined && typeof member === 'string' ? ids[kind] : withIds(member, ids, key, depth + 1);
  }
  return out;
}

function headersFor(op: Operation, project: SeededProject): Record<string, string> {
  switch (op.auth) {
    case 'client':
      return clientHeaders(project.client);
    case 'management':
      return managementHeaders();
    case 'public':
      return {};
    default:
      return serverHeaders(project.server);
  }
}

/** A list answer with nothing in it (what a list under an unknown parent may answer). */
function emptyList(body: unknown): boolean {
  if (!isObject(body) || body.object !== 'list') return false;
  const ref = typeof body.data_ref === 'string' ? body.data_ref : 'data';
  const items = body[ref];
  return Array.isArray(items) && items.length === 0;
}

interface Leak {
  request: string;
  found: string;
}

function textOf(req: HttpRequest): string {
  return `${req.path}\n${typeof req.body === 'string' ? req.body : ''}`;
}

/**
 * Project A's ids, codes and marker that appear in an answer although B never sent them: `sent` is what
 * B's requests named so far (B may store A's id as a plain value, say a product id in one of its own
 * rules, and rightly get it back later; A's marker and the ids B never named must never show).
 */
function leaksOf(a: SeededProject, sent: string, res: HttpResponse): string[] {
  const secrets = [a.marker, ...a.allIds, a.ids.voucherCode, a.ids.giftCode, a.ids.memberCode, a.ids.referralCode, a.ids.campaignVoucherCode, a.ids.sessionVoucherCode];
  return secrets.filter((s) => s !== '' && res.text.includes(s) && !sent.includes(s));
}

describe(`tenancy sweep on ${reliabilityDialect()} (seed ${seed})`, { timeout: testTimeout() }, () => {
  let database: ThrowawayDatabase;
  let direct: DbHandle;
  let server: ServerProcess;
  let client: HttpClient;
  let operations: Operation[];
  let a: SeededProject;
  let b: SeededProject;
  let aBefore: Map<string, TableState>;
  const rnd = new Random(seed);

  before(async () => {
    database = await createRunDatabase('tenancy');
    server = await ServerProcess.start({ databaseUrl: database.url, worker: false });
    client = new HttpClient(server.url, { maxSockets: 16 });
    direct = database.open();
    a = await seedProject(client, await defaultProjectId(direct.db), { server: FIXED_KEYS.server, client: FIXED_KEYS.client }, 'tenant-a');
    const other = await createProject(client);
    b = await seedProject(client, other.id, other, 'tenant-b');
    operations = await loadOperations(client);
    aBefore = await snapshot(direct.db, a.projectId);
  });

  after(async () => {
    client?.close();
    await server?.stop();
    await direct?.close();
    await database?.drop();
  });

  const send = (req: HttpRequest) => client.request(req);

  function build(op: Operation, path: string, headers: Record<string, string>, body: unknown): HttpRequest {
    if (!op.body || op.method === 'GET' || op.method === 'DELETE') return { method: op.method, path, headers };
    const form = op.body.contentType === 'application/x-www-form-urlencoded';
    const text = form
      ? new URLSearchParams(Object.entries(isObject(body) ? body : {}).map(([k, v]) => [k, String(v)] as [string, string])).toString()
      : JSON.stringify(body);
    return { method: op.method, path, headers: { ...headers, 'content-type': op.body.contentType }, body: text };
  }

  test("project B's keys with project A's path ids get what a made-up id gets (404 or an empty list for reads) and none of A's data", async () => {
    const problems: string[] = [];
    const leaks: Leak[] = [];
    let checked = 0;
    let notFound = 0;
    for (const op of operations) {
      if (op.pathParams.length === 0 || op.auth === 'management' || op.auth === 'console' || op.auth === 'cockpit' || op.auth === 'public') continue;
      // A parameter that names a kind rather than an object (`/v1/metadata-schemas/{resource}`) is the
      // same in both projects: B rightly gets its own.
      if (fillPath(op.path, a.ids) === fillPath(op.path, b.ids)) continue;
      const body = op.body ? withIds(sample(op.body.schema, rnd.fork(), 0.6), a.ids) : undefined;
      const crossed = build(op, fillPath(op.path, a.ids), headersFor(op, b), body);
      const madeUp = build(op, fillPath(op.path, a.ids, (param) => `none-${param}-0000`), headersFor(op, b), body);
      if (op.readOnly) {
        // The control: A's own keys reach the object, so a 404 below is isolation, not a wrong path.
        const own = await send(build(op, crossed.path, headersFor(op, a), body));
        if (own.status !== 200) problems.push(`control ${op.method} ${op.path} with A's keys → ${own.status} ${preview(own.text, 200)}`);
      }
      const unknown = await send(madeUp);
      const res = await send(crossed);
      checked++;
      if (res.status === 404) notFound++;
      for (const found of leaksOf(a, textOf(crossed), res)) leaks.push({ request: `${op.method} ${crossed.path}`, found });
      // When even a made-up id succeeds, the route creates B's own object under that name; a second
      // create under A's name may then meet B's first one, so only leaks and 5xx count there.
      if (res.status >= 500 || (res.status < 300 && unknown.status >= 300)) {
        problems.push(`${op.method} ${crossed.path} → ${res.status} ${preview(res.text, 300)} (a made-up id → ${unknown.status})`);
      } else if (unknown.status >= 300 && (res.status !== unknown.status || errorKey(res) !== errorKey(unknown))) {
        problems.push(`${op.method} ${op.path}: A's id → ${res.status} ${errorKey(res)}, a made-up id → ${unknown.status} ${errorKey(unknown)} (${preview(res.text, 200)})`);
      } else if (op.readOnly && res.status !== 404 && !emptyList(res.body)) {
        problems.push(`${op.method} ${crossed.path} → ${res.status}, expected 404 ${preview(res.text, 200)}`);
      }
    }
    process.stdout.write(`# ${checked} operations with path ids crossed; ${notFound} answered 404\n`);
    assert.ok(checked > 100, `${checked} operations checked`);
    assert.deepEqual(leaks, [], "project A's data leaked to project B");
    assert.deepEqual(problems, []);
  });

  test("project B's keys on every route, with A's ids in bodies and queries, never see or touch A's data", async () => {
    const leaks: Leak[] = [];
    const problems: string[] = [];
    let sentSoFar = '';
    for (const op of operations) {
      if (op.auth === 'management' || op.auth === 'console' || op.auth === 'cockpit' || op.auth === 'public') continue;
      const query = op.queryParams
        .filter((p) => p.name in ID_FIELDS || p.required)
        .map((p) => {
          const kind = ID_FIELDS[p.name];
          const value = kind !== undefined ? a.ids[kind] : String(sample(p.schema, rnd.fork()));
          return `${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`;
        })
        .join('&');
      const path = fillPath(op.path, b.ids) + (query === '' ? '' : `?${query}`);
      const body = op.body ? withIds(sample(op.body.schema, rnd.fork(), 0.8), a.ids) : undefined;
      const req = build(op, path, headersFor(op, b), body);
      sentSoFar += textOf(req);
      const res = await send(req);
      if (res.status >= 500) problems.push(`${op.method} ${path} ${typeof req.body === 'string' ? req.body : ''} → ${res.status} ${preview(res.text, 300)}`);
      for (const found of leaksOf(a, sentSoFar, res)) leaks.push({ request: `${op.method} ${path} ${preview(req.body ?? '', 300)}`, found });
    }
    assert.deepEqual(leaks, [], "project A's data leaked to project B");
    assert.deepEqual(problems, []);
  });

  test('keys of the wrong kind open nothing: 401 on every route', async () => {
    const problems: string[] = [];
    for (const op of operations) {
      if (op.auth === 'public') continue;
      const path = fillPath(op.path, a.ids);
      const wrong: Array<[string, Record<string, string>]> =
        op.auth === 'management'
          ? [['server keys', serverHeaders()], ['client keys', clientHeaders()]]
          : op.auth === 'client'
            ? [['server keys', { ...serverHeaders(), origin: FIXED_KEYS.origin }], ['management keys', managementHeaders()]]
            : op.auth === 'console' || op.auth === 'cockpit'
              ? [['server keys', serverHeaders()], ['client keys', clientHeaders()], ['management keys', managementHeaders()]]
              : [['client keys', clientHeaders()], ['management keys', managementHeaders()]];
      for (const [label, headers] of wrong) {
        const res = await send({ method: op.method, path, headers: op.method === 'GET' ? headers : { ...headers, 'content-type': 'application/json' }, ...(op.method === 'GET' ? {} : { body: '{}' }) });
        if (res.status !== 401 || errorKey(res) !== 'unauthorized') problems.push(`${op.method} ${op.path} with ${label} → ${res.status} ${preview(res.text, 200)}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test("after all of B's requests, project A's rows are exactly as before", async () => {
    assert.deepEqual(compareSnapshots(aBefore, await snapshot(direct.db, a.projectId)), []);
  });

  test('every OAuth scope opens exactly its path prefixes: elsewhere 403 missing_required_permission', async () => {
    const tokens = new Map<string, string>();
    for (const scope of KNOWN_SCOPES) {
      const res = await send({
        method: 'POST',
        path: '/v1/oauth/token',
        headers: { ...serverHeaders(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
      });
      assert.equal(res.status, 200, `${scope}: ${res.text}`);
      tokens.set(scope, str(res.body, 'access_token'));
    }
    const scoped = operations.filter((op) => op.auth === 'server' || op.auth === 'client');
    // The CI run takes one operation per distinct set of opening scopes (every prefix), the full run all.
    const chosen =
      reliabilityScale() === 'full'
        ? scoped
        : [...new Map(scoped.map((op) => [KNOWN_SCOPES.filter((s) => scopesAllowPath([s], op.path)).join(' '), op])).values()];
    // Sanity of the oracle itself, independent of it: `api` is all of /v1, `client_api` all of /client/v1.
    for (const op of scoped) {
      assert.equal(scopesAllowPath(['api'], op.path), op.path.startsWith('/v1/'), op.path);
      assert.equal(scopesAllowPath(['client_api'], op.path), op.path.startsWith('/client/v1/'), op.path);
    }
    const problems: string[] = [];
    let requests = 0;
    for (const op of chosen) {
      // Made-up ids and a body that cannot be parsed: an allowed request ends in a 4xx before any change.
      const path = fillPath(op.path, a.ids, (param) => `none-${param}-0000`);
      for (const scope of KNOWN_SCOPES) {
        const headers: Record<string, string> = { authorization: `Bearer ${tokens.get(scope) ?? ''}` };
        const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
        const res = await send({ method: op.method, path, headers: hasBody ? { ...headers, 'content-type': 'application/json' } : headers, ...(hasBody ? { body: '{' } : {}) });
        requests++;
        const allowed = scopesAllowPath([scope], path.split('?')[0] ?? path);
        if (allowed && (res.status === 401 || res.status === 403 || res.status >= 500)) problems.push(`${scope} on ${op.method} ${op.path} should be open → ${res.status} ${preview(res.text, 160)}`);
        if (!allowed && (res.status !== 403 || errorKey(res) !== 'missing_required_permission')) {
          problems.push(`${scope} on ${op.method} ${op.path} should be closed → ${res.status} ${preview(res.text, 160)}`);
        }
      }
    }
    process.stdout.write(`# ${tokens.size} scopes × ${chosen.length} operations = ${requests} requests\n`);
    assert.deepEqual(problems.slice(0, 30), [], `${problems.length} scope mismatches`);
  });
});
