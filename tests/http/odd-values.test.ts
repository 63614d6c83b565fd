import assert from 'node:assert/strict';
import { lenientBodyKind } from '../../src/http/plugins/request-leniency.ts';
import { after, before, describe, test } from 'node:test';
import { HttpClient, type HttpResponse } from '../../scripts/lib/http-client.ts';
import { isObject } from '../../scripts/lib/json.ts';
import { clientHeaders, FIXED_KEYS, managementHeaders, serverHeaders } from '../../scripts/lib/keys.ts';
import { STORED_INTEGER_RANGE } from '../../src/api/common.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { loadOperations, type Operation, type Schema } from '../reliability/helpers/openapi.ts';
import { Random } from '../reliability/helpers/random.ts';
import { branches, sample } from '../reliability/helpers/schema-values.ts';
import { fillPath, seedProject, type SeededProject } from '../reliability/helpers/seed-project.ts';

// Odd numbers, dates and bodies over every route of the OpenAPI document the server serves (so a route
// added later is swept too), against a project holding one object of every kind. PostgreSQL refuses what
// SQLite stores (an integer past its column, 1e308 in a bigint), so anything that reaches the database
// unchecked shows up as a 500 on one of them; the schemas must refuse it first, with the same 400 on both.
// Expected answers are fixed here, so the SQLite run and the PostgreSQL run check the very same ones.

const SAFE = Number.MAX_SAFE_INTEGER;
/** Numbers no integer member of ours may take: past every column, fractional. */
const REFUSED_NUMBERS: readonly number[] = [1e308, -1e308, 2 ** 53, -(2 ** 53), 1.5];
const ODD_TEXT: readonly string[] = ['abc', '', 'x'.repeat(5000)];
const REFUSED_QUERY_NUMBERS: readonly string[] = ['1e308', '-1e308', String(2 ** 53), '1.5', 'abc', '1e400', '9'.repeat(400)];
const MALFORMED_DATES: readonly string[] = ['notadate', '2026-13-45', '2026-02-30', '999999-01-01', '+275760-09-13', '2026-01-01T25:00:00Z'];
// `null` is left out: routes whose body is optional read it as no body.
const NON_OBJECT_BODIES: readonly string[] = ['5', '1e308', '-0', '"text"', '[1]', 'true'];

interface IntegerMember {
  /** Steps from the root of the body to the member; 0 is an array item, `k` a record entry. */
  steps: Array<{ key: string | number; container: Schema }>;
  schema: Schema;
}

function integerBranches(schema: Schema): Schema[] {
  return branches(schema).filter((b) => b.type === 'integer');
}

/** Every integer member a request schema declares, however deep (objects, arrays, records, unions). */
function integerMembers(schema: Schema, steps: IntegerMember['steps'] = [], depth = 0): IntegerMember[] {
  if (depth > 10) return [];
  const out: IntegerMember[] = [];
  for (const branch of branches(schema)) {
    if (branch.type === 'integer') out.push({ steps, schema });
    if (isObject(branch.properties)) {
      for (const [key, sub] of Object.entries(branch.properties)) {
        if (isObject(sub)) out.push(...integerMembers(sub, [...steps, { key, container: branch }], depth + 1));
      }
    }
    if (isObject(branch.items)) out.push(...integerMembers(branch.items, [...steps, { key: 0, container: branch }], depth + 1));
    if (isObject(branch.additionalProperties)) {
      out.push(...integerMembers(branch.additionalProperties, [...steps, { key: 'k', container: branch }], depth + 1));
    }
  }
  // A member reached through several union branches is swept once.
  return [...new Map(out.map((m) => [m.steps.map((s) => s.key).join('/'), m])).values()];
}

/** The member's path as error details name it (`.redemption.quantity`, `[0].units[0].unit_off`). */
function detailsPath(member: IntegerMember): string {
  return member.steps.map((s) => (typeof s.key === 'number' ? `[${s.key}]` : `.${s.key}`)).join('');
}

/** Whether error details name the member (they shorten long property paths with an ellipsis). */
function namesMember(details: unknown, path: string): boolean {
  const text = String(details ?? '');
  const shown = /Property (\S+)/.exec(text)?.[1] ?? '';
  return shown.endsWith('…') ? path.startsWith(shown.slice(0, -1)) : shown === path;
}

/** A body with the required members of every object on the way, and `value` at the member. */
function bodyWith(member: IntegerMember, value: unknown, rnd: Random): unknown {
  const build = (index: number): unknown => {
    const step = member.steps[index];
    if (!step) return value;
    const child = build(index + 1);
    if (typeof step.key === 'number') return [child];
    const base = sample(step.container, rnd, 0);
    return { ...(isObject(base) ? base : {}), [step.key]: child };
  };
  return build(0);
}

function boundsOf(schema: Schema): { minimum: number; maximum: number } | null {
  const mins = integerBranches(schema).map((b) => (typeof b.minimum === 'number' ? b.minimum : typeof b.exclusiveMinimum === 'number' ? b.exclusiveMinimum : null));
  const maxs = integerBranches(schema).map((b) => (typeof b.maximum === 'number' ? b.maximum : typeof b.exclusiveMaximum === 'number' ? b.exclusiveMaximum : null));
  if (mins.some((m) => m === null) || maxs.some((m) => m === null)) return null;
  return { minimum: Math.min(...(mins as number[])), maximum: Math.max(...(maxs as number[])) };
}

function isDateSchema(schema: Schema): boolean {
  return branches(schema).some((b) => b.format === 'date' || b.format === 'date-time' || b.format === 'date-or-date-time');
}

function headersFor(op: Operation): Record<string, string> {
  if (op.auth === 'management') return managementHeaders();
  if (op.auth === 'client') return clientHeaders();
  return serverHeaders();
}

function describeAnswer(res: HttpResponse): string {
  return `${res.status} ${res.text.slice(0, 200)}`;
}

describe(`odd values on ${testDialect()}: the same 4xx on both databases, never a 5xx`, { timeout: 600_000 }, () => {
  let t: TestApp;
  let http: HttpClient;
  let seeded: SeededProject;
  let operations: Operation[];

  before(async () => {
    t = await startTestApp({
      config: {
        defaultProject: { serverKey: FIXED_KEYS.server, clientKey: FIXED_KEYS.client, clientOrigins: [FIXED_KEYS.origin] },
        managementKey: FIXED_KEYS.management,
      },
    });
    http = new HttpClient(t.url, { maxSockets: 4 });
    seeded = await seedProject(http, t.projectId, { server: FIXED_KEYS.server, client: FIXED_KEYS.client }, 'odd');
    // Public operations take no body of ours; console-only ones answer 401 without a signed-in session.
    // The cockpit's own API takes a customer's link, not keys: tests/http/cockpit.test.ts covers it.
    operations = (await loadOperations(http)).filter((op) => op.auth !== 'public' && op.auth !== 'console' && op.auth !== 'cockpit');
  });
  after(async () => {
    http?.close();
    await t?.close();
  });

  test('every integer a request declares (body, query, path) is bounded within what its column stores', () => {
    const unbounded: string[] = [];
    const check = (where: string, schema: Schema) => {
      const bounds = boundsOf(schema);
      if (!bounds || bounds.minimum < STORED_INTEGER_RANGE.bigint.minimum || bounds.maximum > STORED_INTEGER_RANGE.bigint.maximum) unbounded.push(where);
    };
    for (const op of operations) {
      for (const p of [...op.pathParams, ...op.queryParams]) for (const m of integerMembers(p.schema)) check(`${op.method} ${op.path} ${p.name}${detailsPath(m)}`, m.schema);
      if (op.body) for (const m of integerMembers(op.body.schema)) check(`${op.method} ${op.path} body${detailsPath(m)}`, m.schema);
    }
    assert.deepEqual(unbounded, [], 'integer members without bounds inside ±(2^53 − 1) (use StoredInteger)');
  });

  test('integer members of every body: numbers past their column or fractional are 400 naming the member', async () => {
    const rnd = new Random(7);
    const failures: string[] = [];
    let swept = 0;
    for (const op of operations) {
      if (!op.body || op.body.contentType !== 'application/json') continue;
      const path = fillPath(op.path, seeded.ids);
      for (const member of integerMembers(op.body.schema)) {
        const bounds = boundsOf(member.schema);
        const int32Refused = bounds !== null && bounds.maximum < 2 ** 31;
        for (const value of [...REFUSED_NUMBERS, 2 ** 31, ...ODD_TEXT]) {
          const res = await http.json(op.method, path, headersFor(op), bodyWith(member, value, rnd));
          swept++;
          const what = `${op.method} ${op.path} ${detailsPath(member) || '(body)'} = ${String(value).slice(0, 20)}`;
          if (res.status >= 500) failures.push(`${what}: ${describeAnswer(res)}`);
          const mustRefuse = (typeof value === 'number' && REFUSED_NUMBERS.includes(value)) || (value === 2 ** 31 && int32Refused);
          if (!mustRefuse) continue;
          const named = isObject(res.body) && namesMember(res.body.details, detailsPath(member));
          if (res.status !== 400 || !isObject(res.body) || res.body.key !== 'invalid_payload' || !named) {
            failures.push(`${what}: expected 400 invalid_payload naming ${detailsPath(member)}, got ${describeAnswer(res)}`);
          }
        }
      }
    }
    assert.ok(swept > 500, `swept ${swept} requests`);
    assert.deepEqual(failures, []);
  });

  // Where the route requires members, a body that is not an object cannot mean anything: 400. Where it
  // requires none, the leniency rule (src/http/plugins/request-leniency.ts) reads a scalar or null as no
  // body, as the vendor does: whatever the answer, it is not a refusal of the body's kind and never a 5xx.
  test('a body that is not a JSON object where the route takes one is 400 invalid_payload, unless the route requires no members', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      if (!op.body || op.body.contentType !== 'application/json' || !branches(op.body.schema).every((b) => b.type === 'object')) continue;
      const lenient = lenientBodyKind(op.body.schema) !== null;
      const path = fillPath(op.path, seeded.ids);
      for (const body of NON_OBJECT_BODIES) {
        const res = await http.request({ method: op.method, path, headers: { ...headersFor(op), 'content-type': 'application/json' }, body });
        const refused = res.status === 400 && isObject(res.body) && res.body.key === 'invalid_payload';
        const kindRefused = refused && /should be object/i.test(String((res.body as { details?: unknown }).details));
        // A list is refused everywhere an object is taken: it carries members meant for something else.
        const readAsNoBody = lenient && !body.trimStart().startsWith('[');
        if (readAsNoBody ? res.status >= 500 || kindRefused : !refused) failures.push(`${op.method} ${op.path} body ${body}: ${describeAnswer(res)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('query parameters of every GET: odd numbers and malformed dates are 400 invalid_query_params naming the parameter', async () => {
    const failures: string[] = [];
    let swept = 0;
    const send = async (op: Operation, path: string, query: string) => {
      swept++;
      return http.request({ method: 'GET', path: `${path}?${query}`, headers: headersFor(op) });
    };
    for (const op of operations) {
      if (op.method !== 'GET') continue;
      const path = fillPath(op.path, seeded.ids);
      for (const param of op.queryParams) {
        const integer = integerBranches(param.schema).length > 0;
        const date = isDateSchema(param.schema);
        const refused = [...(integer ? REFUSED_QUERY_NUMBERS : []), ...(date ? MALFORMED_DATES : [])];
        for (const value of refused) {
          const res = await send(op, path, `${param.name}=${encodeURIComponent(value)}`);
          const named = isObject(res.body) && namesMember(res.body.details, `.${param.name}`);
          if (res.status !== 400 || !isObject(res.body) || res.body.key !== 'invalid_query_params' || !named) {
            failures.push(`GET ${op.path} ${param.name}=${value.slice(0, 20)}: ${describeAnswer(res)}`);
          }
        }
        // Values a parameter may or may not take (a 64-bit count, the ends of the calendar, any text):
        // whatever the answer, never a 5xx.
        for (const value of [String(2 ** 31), '-1', '0', '', ...ODD_TEXT, '0001-01-01', '9999-12-31', '9999-12-31T23:59:59-14:00']) {
          const res = await send(op, path, `${param.name}=${encodeURIComponent(value)}`);
          if (res.status >= 500) failures.push(`GET ${op.path} ${param.name}=${value.slice(0, 20)}: ${describeAnswer(res)}`);
        }
      }
    }
    assert.ok(swept > 1000, `swept ${swept} requests`);
    assert.deepEqual(failures, []);
  });

  test('filters of every list that takes them: malformed dates and non-numbers are 400 invalid_query_params', async () => {
    const lists = operations.filter((op) => op.method === 'GET' && op.queryParams.some((p) => p.name === 'filters'));
    assert.ok(lists.length >= 4, `lists with filters: ${lists.map((op) => op.path).join(', ')}`);
    const refused = [
      ...MALFORMED_DATES.map((d) => `filters[created_at][conditions][$after]=${encodeURIComponent(d)}`),
      ...MALFORMED_DATES.map((d) => `filters[created_at][conditions][$before][0]=${encodeURIComponent(d)}`),
      ...['abc', '1e400', '1e308', '', '9'.repeat(400)].map((n) => `filters[metadata.n][conditions][$more_than]=${encodeURIComponent(n)}`),
      ...['abc', '1e400', '-1', String(2 ** 53)].map((n) => `filters[created_at][conditions][$is_days_ago]=${encodeURIComponent(n)}`),
      'filters[junction]=xor',
      'filters[created_at]=2026-01-01',
    ];
    const failures: string[] = [];
    for (const op of lists) {
      const path = fillPath(op.path, seeded.ids);
      for (const query of refused) {
        const res = await http.request({ method: 'GET', path: `${path}?${query}`, headers: headersFor(op) });
        if (res.status !== 400 || !isObject(res.body) || res.body.key !== 'invalid_query_params') failures.push(`GET ${op.path}?${query.slice(0, 80)}: ${describeAnswer(res)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('redemption.quantity past the bigint range is refused on every voucher and campaign route (attack finding)', async () => {
    const campaign = seeded.ids.campaign;
    const code = seeded.ids.voucherCode;
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/v1/vouchers', { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1e308 } }],
      ['PUT', `/v1/vouchers/${code}`, { redemption: { quantity: 1e308 } }],
      ['POST', `/v1/campaigns/${campaign}/vouchers`, { redemption: { quantity: 1e308 } }],
      ['POST', `/v1/campaigns/${campaign}/vouchers/ODD-QUANTITY`, { redemption: { quantity: 1e308 } }],
      // A campaign template kept the quantity and failed later, when its vouchers were generated.
      ['POST', '/v1/campaigns', { name: 'Odd quantity', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1e308 } } }],
    ];
    for (const [method, path, json] of routes) {
      const res = await http.json(method, path, serverHeaders(), json);
      assert.equal(res.status, 400, `${method} ${path}: ${describeAnswer(res)}`);
      assert.equal((res.body as { key: string }).key, 'invalid_payload');
    }
    // The largest value both databases keep exactly is stored and answered as sent.
    const kept = await http.json('PUT', `/v1/vouchers/${code}`, serverHeaders(), { redemption: { quantity: SAFE } });
    assert.equal(kept.status, 200, describeAnswer(kept));
    assert.equal((kept.body as { redemption: { quantity: number } }).redemption.quantity, SAFE);
  });
});
