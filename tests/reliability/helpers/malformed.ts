import qs from 'qs';
import { surelyRefused, type RequestParts } from './acceptance.ts';
import type { HttpRequest } from '../../../scripts/lib/http-client.ts';
import { at } from '../../../scripts/lib/json.ts';
import { clientHeaders, FIXED_KEYS, managementHeaders, serverHeaders } from '../../../scripts/lib/keys.ts';
import type { Operation, Parameter } from './openapi.ts';
import type { Random } from './random.ts';
import {
  acceptedTypes,
  deeplyNested,
  deleteAt,
  HUGE_STRING,
  HUGE_UNICODE,
  ODD_STRINGS,
  outOfBounds,
  sample,
  setAt,
  slots,
  wrongType,
  branches,
} from './schema-values.ts';
import { pathValue, type SeedKind } from './seed-project.ts';

// Generates one malformed request for an operation of the OpenAPI document: wrong types, missing
// members, values past their limits, ~1 MB strings, 1000-level nesting, broken JSON, wrong or missing
// content types, garbage credentials and headers, odd path and query values, wrong methods.
//
// A request to an operation that may change data is only produced when the server can do nothing but
// refuse it (helpers/acceptance.ts); read operations (GET get…/list…) get anything, so odd but valid
// input reaches their handlers and the database too.

export interface Generated {
  op: Operation;
  category: string;
  request: HttpRequest;
  /** The server can only answer it with a 4xx. */
  refused: boolean;
  /** Request line and headers beyond the server's 16 KB limit: the server may cut the connection. */
  oversizedHead: boolean;
}

interface Draft {
  method: string;
  params: Record<string, string>;
  /** A path bent beyond parameter values (double slashes, raw percent signs …); replaces the template. */
  rawPath: string | null;
  /** A path parameter holds a made-up value that names no stored object. */
  namesNothing: boolean;
  query: string;
  headers: Record<string, string | string[]>;
  authBroken: boolean;
  contentType: string | undefined;
  body: string | undefined;
  /** A free-form member holds what no free-form member may (src/api/free-form.ts): refused. */
  poisoned: boolean;
}

type Mutation = (draft: Draft, op: Operation, rnd: Random) => boolean;

/** Made-up path values: none of them can name a stored object. */
const ODD_PATH_VALUES: readonly string[] = [
  '..',
  '.',
  '%',
  '%2F',
  '/',
  '\\',
  ' ',
  '\u0000',
  "' OR '1'='1",
  '__proto__',
  'constructor',
  'prototype',
  '${7*7}',
  '<b>',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '9'.repeat(40),
  'é',
  '😀',
  '\u202e',
  'a'.repeat(101),
  'b'.repeat(4000),
  '\t\n',
  'camp_00000000000000000000',
  'cust_00000000000000000000',
  'v_00000000000000000000',
  'r_00000000000000000000',
];

const WRONG_CONTENT_TYPES: ReadonlyArray<string | undefined> = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  undefined,
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json-patch+json',
  'text/json',
  '',
  ' application/json',
  'application/json, text/plain',
  'appl\u00e9cation/json',
  'application/vnd.api+json',
];

export function authHeaders(op: Operation): Record<string, string> {
  switch (op.auth) {
    case 'server':
    case 'server-keys':
      return serverHeaders();
    case 'client':
      return clientHeaders();
    case 'management':
      return managementHeaders();
    default:
      return {};
  }
}

function encodeBody(op: Operation, value: unknown): string {
  if (op.body?.contentType === 'application/x-www-form-urlencoded') {
    const entries = Object.entries(typeof value === 'object' && value !== null ? value : {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
    return new URLSearchParams(entries).toString();
  }
  return JSON.stringify(value);
}

function baseQuery(op: Operation, rnd: Random): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of op.queryParams) if (p.required || rnd.chance(0.3)) out[p.name] = sample(p.schema, rnd, 0.5);
  return out;
}

function stringifyQuery(query: Record<string, unknown>): string {
  return qs.stringify(query, { encodeValuesOnly: true });
}

// ---- body mutations -------------------------------------------------------------------------------

function mutateBodyValue(draft: Draft, op: Operation, rnd: Random, change: (value: unknown, rnd: Random) => unknown | undefined): boolean {
  if (!op.body) return false;
  const value = sample(op.body.schema, rnd, 0.7);
  const changed = change(value, rnd);
  if (changed === undefined) return false;
  draft.body = encodeBody(op, changed);
  return true;
}

const wrongTypeInBody: Mutation = (draft, op, rnd) =>
  mutateBodyValue(draft, op, rnd, (value) => {
    const slot = rnd.pick(slots(value, op.body?.schema ?? {}));
    const replacement = wrongType(slot.schema, rnd);
    return replacement === undefined ? undefined : setAt(value, slot.path, replacement);
  });

const missingRequired: Mutation = (draft, op, rnd) =>
  mutateBodyValue(draft, op, rnd, (value) => {
    const candidates = slots(value, op.body?.schema ?? {}).flatMap((slot) => {
      const node = at(value, ...slot.path);
      if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
      const required = branches(slot.schema).flatMap((b) => (Array.isArray(b.required) ? b.required.map(String) : []));
      return required.filter((key) => key in node).map((key) => [...slot.path, key]);
    });
    if (candidates.length === 0) return undefined;
    return deleteAt(value, rnd.pick(candidates));
  });

const outOfBoundsInBody: Mutation = (draft, op, rnd) =>
  mutateBodyValue(draft, op, rnd, (value) => {
    const slot = rnd.pick(slots(value, op.body?.schema ?? {}));
    const [bad] = outOfBounds(slot.schema, rnd, at(value, ...slot.path));
    return bad === undefined ? undefined : setAt(value, slot.path, bad);
  });

const hugeInBody: Mutation = (draft, op, rnd) =>
  mutateBodyValue(draft, op, rnd, (value) => {
    const slot = rnd.pick(slots(value, op.body?.schema ?? {}));
    const huge = rnd.pick([HUGE_STRING, HUGE_UNICODE]);
    return setAt(value, slot.path, rnd.chance(0.2) ? { [huge.slice(0, 200_000)]: 1 } : huge);
  });

/** JSON text nested `levels` deep, written as text: JSON.stringify overflows the stack at these depths. */
function deeplyNestedText(levels: number, rnd: Random): string {
  const bottom = JSON.stringify(rnd.pick(['bottom', 1, null]));
  return rnd.chance(0.5) ? `${'['.repeat(levels)}${bottom}${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}${bottom}${'}'.repeat(levels)}`;
}

const DEEP_PLACEHOLDER = '\u0001deep\u0001';

const deepInBody: Mutation = (draft, op, rnd) => {
  const nested = deeplyNestedText(rnd.pick([1000, 5000, 10_000]), rnd);
  if (!op.body || op.body.contentType !== 'application/json') {
    draft.contentType = 'application/json';
    draft.body = nested;
    return true;
  }
  if (!mutateBodyValue(draft, op, rnd, (value) => setAt(value, rnd.pick(slots(value, op.body?.schema ?? {})).path, DEEP_PLACEHOLDER))) return false;
  draft.body = draft.body?.replace(JSON.stringify(DEEP_PLACEHOLDER), nested);
  return true;
};

/** What metadata and the other free-form members may not hold: stored, it broke later reads (issue 17). */
const POISONS: ReadonlyArray<(rnd: Random) => unknown> = [
  (rnd) => deeplyNested(17 + rnd.int(60), rnd),
  () => ({ 'key\u0000with-nul': 1 }),
  (rnd) => ({ deep: deeplyNested(8, rnd), value: { a: { b: { c: 'nul\u0000inside' } } } }),
  () => ({ big: 'x'.repeat(70 * 1024) }),
  () => ({ ['k'.repeat(300)]: 1 }),
];

const poisonInFreeForm: Mutation = (draft, op, rnd) => {
  if (op.body?.contentType !== 'application/json') return false;
  const changed = mutateBodyValue(draft, op, rnd, (value) => {
    const freeForm = slots(value, op.body?.schema ?? {}).filter((slot) => branches(slot.schema).some((b) => b['x-free-form'] === true));
    if (freeForm.length === 0) return undefined;
    return setAt(value, rnd.pick(freeForm).path, rnd.pick(POISONS)(rnd));
  });
  if (changed) draft.poisoned = true;
  return changed;
};

const oddStringsInBody: Mutation = (draft, op, rnd) =>
  mutateBodyValue(draft, op, rnd, (value) => {
    const strings = slots(value, op.body?.schema ?? {}).filter((s) => acceptedTypes(s.schema)?.has('string') ?? true);
    if (strings.length === 0) return undefined;
    return setAt(value, rnd.pick(strings).path, rnd.pick(ODD_STRINGS));
  });

const badJson: Mutation = (draft, op, rnd) => {
  const valid = JSON.stringify(op.body ? sample(op.body.schema, rnd, 0.7) : { a: 1 });
  const variants = [
    () => valid.slice(0, Math.max(1, rnd.int(valid.length))),
    () => '{'.repeat(1000),
    () => '['.repeat(1000) + ']'.repeat(999),
    () => `${valid.slice(0, -1)},}`,
    () => valid.replace(/"/g, "'"),
    () => '{"a":NaN}',
    () => '{"a":undefined}',
    () => `// comment\n${valid}`,
    () => `\ufeff${valid}`,
    () => `${valid}${valid}`,
    () => 'nul',
    () => 'tru',
    () => '"unterminated',
    () => '{"a":"\u0001\u0002"}',
    () => '{"a":"\\ud800"}',
    () => '1e999',
    () => '-',
    () => '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    () => '1'.repeat(5000),
    () => '{"a":1,"a":2}',
    () => '\u0000',
    () => '{"a":"' + '\\'.repeat(3) + '"}',
    () => Buffer.from([0xff, 0xfe, 0x00, 0x7b]).toString('latin1'),
  ];
  draft.contentType = 'application/json';
  draft.body = rnd.pick(variants)();
  return true;
};

const wrongContentType: Mutation = (draft, op, rnd) => {
  draft.body = op.body ? encodeBody(op, sample(op.body.schema, rnd, 0.5)) : rnd.pick(['{}', 'a=1', 'plain text']);
  draft.contentType = rnd.pick(WRONG_CONTENT_TYPES);
  return true;
};

const emptyBody: Mutation = (draft, _op, rnd) => {
  draft.contentType = rnd.pick(['application/json', 'application/x-www-form-urlencoded', 'text/plain']);
  draft.body = rnd.pick(['', ' ', '\n\t ', '{}', '[]', 'null', '""', '0']);
  return true;
};

// ---- query mutations ------------------------------------------------------------------------------

function encodeQueryValue(name: string, value: unknown): string {
  return stringifyQuery({ [name]: value });
}

const wrongQuery: Mutation = (draft, op, rnd) => {
  if (op.queryParams.length === 0) return false;
  const param: Parameter = rnd.pick(op.queryParams);
  const base = baseQuery(op, rnd);
  delete base[param.name];
  const example = sample(param.schema, rnd);
  const options: Array<() => string | undefined> = [
    () => {
      const wrong = wrongType(param.schema, rnd);
      return wrong === undefined ? undefined : encodeQueryValue(param.name, typeof wrong === 'object' && wrong !== null ? wrong : String(wrong));
    },
    () => {
      const [bad] = outOfBounds(param.schema, rnd, example);
      return bad === undefined ? undefined : encodeQueryValue(param.name, typeof bad === 'object' && bad !== null ? bad : String(bad));
    },
    () => `${param.name}[0]=1&${param.name}[1]=2`,
    () => `${param.name}[x][y]=1`,
    () => `${param.name}=abc`,
    () => `${param.name}=`,
    () => `${param.name}=${encodeURIComponent(rnd.pick(ODD_STRINGS))}`,
    () => `${param.name}=1&${param.name}=2`,
  ];
  const chosen = rnd.pick(options)();
  if (chosen === undefined) return false;
  const rest = stringifyQuery(base);
  draft.query = rest === '' ? chosen : `${rest}&${chosen}`;
  return true;
};

const garbageQuery: Mutation = (draft, _op, rnd) => {
  const variants = [
    () => '%',
    () => '%ZZ=%ZZ',
    () => 'a=%00',
    () => `${'a'.repeat(10)}${'[b]'.repeat(1000)}=1`,
    () => Array.from({ length: 2000 }, (_, i) => `p${i}=${i}`).join('&'),
    () => '&&&==&=',
    () => 'x=%F0%9F%98%80&y=%C0%AF&z=%ED%A0%80',
    () => `x=${'y'.repeat(1024 * 1024)}`,
    () => '__proto__[polluted]=1&constructor[prototype][polluted]=1',
    () => 'a[]=1&a[]=2&a[999999]=3',
    () => '+++',
    () => `limit=${'9'.repeat(400)}&page=-1`,
    () => 'order=-&filters[junction]=xor&filters[a][conditions][$in][0]=1',
  ];
  const garbage = rnd.pick(variants)();
  draft.query = draft.query === '' ? garbage : `${draft.query}&${garbage}`;
  return true;
};

// ---- path, header and method mutations ------------------------------------------------------------

const oddPath = (seededValues: readonly string[]): Mutation => (draft, op, rnd) => {
  if (op.pathParams.length === 0) return false;
  const param = rnd.pick(op.pathParams);
  if (op.readOnly && rnd.chance(0.25)) {
    // Another kind's real id (a customer id where a product id belongs): only for reads, since a real
    // voucher code is a valid value for many other code parameters.
    draft.params[param.name] = rnd.pick(seededValues);
    return true;
  }
  if (op.readOnly && rnd.chance(0.2)) {
    const template = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(draft.params[name] ?? ''));
    draft.rawPath = rnd.pick([
      template.replace(/\//g, '//'),
      `${template}/`,
      template.replace('/v1/', '/v1/./'),
      template.replace('/v1/', '/v1/%2e%2e/v1/'),
      template.toUpperCase(),
      `${template}%`,
      `${template}%ZZ`,
      `${template};jsessionid=1`,
    ]);
    return true;
  }
  draft.params[param.name] = rnd.pick(ODD_PATH_VALUES);
  draft.namesNothing = true;
  return true;
};

const brokenAuth: Mutation = (draft, op, rnd) => {
  if (op.auth === 'public') return false;
  const good = authHeaders(op);
  const names = Object.keys(good);
  const variants: Array<() => Record<string, string | string[]>> = [
    () => ({}),
    () => Object.fromEntries(names.map((n) => [n, n === 'origin' ? FIXED_KEYS.origin : `${good[n] ?? ''}-wrong`])),
    () => Object.fromEntries(names.map((n) => [n, ''])),
    () => ({ ...good, [names[1] ?? 'x-app-token']: 'x'.repeat(20_000) }),
    () => ({ ...good, [names[1] ?? 'x-app-token']: '\u00ff\u00fe\u00e9' }),
    () => ({ ...good, [names[0] ?? 'x-app-id']: [FIXED_KEYS.server.id, 'someone-else'] }),
    () => ({ authorization: rnd.pick(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer ' + 'z'.repeat(600), 'Basic Zm9vOmJhcg==', 'bearer\t', 'Bearer \u00ff']) }),
    () => (op.auth === 'management' ? serverHeaders() : op.auth === 'client' ? { ...serverHeaders(), origin: FIXED_KEYS.origin } : { ...clientHeaders() }),
    () => (op.auth === 'client' ? { ...good, origin: rnd.pick(['https://evil.example.com', 'null', '', 'https://shop.example.com.evil.com']) } : { ...good, [names[0] ?? 'x-app-id']: 'unknown-id-0000' }),
  ];
  draft.headers = rnd.pick(variants)();
  draft.authBroken = true;
  return true;
};

const garbageHeaders: Mutation = (draft, _op, rnd) => {
  const extra: Array<[string, string | string[]]> = [
    ['x-voucherify-api-version', rnd.pick(['v1999-01-01', '', 'garbage\u00ff', 'v2018-08-01, v2018-08-01'])],
    ['idempotency-key', rnd.pick(['', 'k'.repeat(300), 'bad key with spaces', '\u00e9\u00e8', `k-${rnd.int(1e9)}`])],
    ['accept', rnd.pick(['', 'text/html', '*/*;q=abc', 'application/json;'.repeat(200)])],
    ['accept-encoding', rnd.pick(['gzip;q=2', 'br, zstd, identity;q=0', 'garbage'])],
    ['content-encoding', rnd.pick(['gzip', 'deflate', 'unknown'])],
    ['x-forwarded-for', rnd.pick(['::::', '999.999.999.999', 'a'.repeat(4000)])],
    ['x-request-id', rnd.pick(['', 'x'.repeat(1000), '\u00ff'])],
    ['cookie', 'a=b; '.repeat(500)],
    ['range', 'bytes=0-0,-1'],
    ['x-http-method-override', 'DELETE'],
    ['expect', '100-continue'],
    ['x-\u00ffodd', 'value'.replace('v', 'v')],
  ];
  const [name, value] = rnd.pick(extra);
  // Header names must be tokens for node:http; a Latin-1 name is sent under a safe name instead.
  draft.headers = { ...draft.headers, [/^[a-z0-9-]+$/i.test(name) ? name : 'x-odd-name']: value };
  return true;
};

const wrongMethod = (methodsByPath: Map<string, Set<string>>): Mutation => (draft, op, rnd) => {
  const defined = methodsByPath.get(op.path) ?? new Set<string>();
  const candidates = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => !defined.has(m));
  if (candidates.length === 0) return false;
  draft.method = rnd.pick(candidates);
  return true;
};

interface Weighted {
  name: string;
  weight: number;
  mutate: Mutation;
}

export class MalformedGenerator {
  readonly #mutations: Weighted[];
  readonly #ids: Record<SeedKind, string>;
  readonly #methodsByPath = new Map<string, Set<string>>();
  readonly #fallback: Weighted;

  constructor(operations: Operation[], ids: Record<SeedKind, string>) {
    this.#ids = ids;
    for (const op of operations) {
      const set = this.#methodsByPath.get(op.path) ?? new Set<string>();
      set.add(op.method);
      this.#methodsByPath.set(op.path, set);
    }
    const seededValues = Object.values(ids);
    this.#fallback = { name: 'headers: broken credentials', weight: 3, mutate: brokenAuth };
    this.#mutations = [
      { name: 'body: wrong type', weight: 10, mutate: wrongTypeInBody },
      { name: 'body: missing required member', weight: 6, mutate: missingRequired },
      { name: 'body: value out of bounds', weight: 8, mutate: outOfBoundsInBody },
      { name: 'body: ~1 MB string', weight: 0.6, mutate: hugeInBody },
      { name: 'body: 1000 to 10,000 levels deep', weight: 2, mutate: deepInBody },
      { name: 'body: poison in metadata and other free-form members', weight: 4, mutate: poisonInFreeForm },
      { name: 'body: odd strings', weight: 4, mutate: oddStringsInBody },
      { name: 'body: bad JSON', weight: 6, mutate: badJson },
      { name: 'body: wrong content type', weight: 4, mutate: wrongContentType },
      { name: 'body: empty or bare', weight: 2, mutate: emptyBody },
      { name: 'query: wrong or out-of-bounds parameter', weight: 8, mutate: wrongQuery },
      { name: 'query: garbage', weight: 4, mutate: garbageQuery },
      { name: 'path: odd parameter values', weight: 6, mutate: oddPath(seededValues) },
      this.#fallback,
      { name: 'headers: garbage', weight: 3, mutate: garbageHeaders },
      { name: 'method: not defined for the path', weight: 1, mutate: wrongMethod(this.#methodsByPath) },
    ];
  }

  #draft(op: Operation, rnd: Random): Draft {
    const params: Record<string, string> = {};
    for (const p of op.pathParams) params[p.name] = pathValue(op.path, p.name, this.#ids);
    return {
      method: op.method,
      params,
      rawPath: null,
      namesNothing: false,
      query: stringifyQuery(baseQuery(op, rnd)),
      headers: authHeaders(op),
      authBroken: false,
      contentType: op.body?.contentType,
      body: op.body ? encodeBody(op, sample(op.body.schema, rnd, 0.5)) : undefined,
      poisoned: false,
    };
  }

  #pick(rnd: Random): Weighted {
    const total = this.#mutations.reduce((s, m) => s + m.weight, 0);
    let roll = rnd.next() * total;
    for (const m of this.#mutations) {
      roll -= m.weight;
      if (roll <= 0) return m;
    }
    return this.#fallback;
  }

  /** A malformed request for `op`; for operations that may write, one the server can only refuse. */
  next(op: Operation, rnd: Random): Generated {
    for (let attempt = 0; attempt < 25; attempt++) {
      const mutation = attempt === 24 ? this.#fallback : this.#pick(rnd);
      const draft = this.#draft(op, rnd);
      if (!mutation.mutate(draft, op, rnd)) continue;
      const generated = this.#finish(op, mutation.name, draft);
      if (op.readOnly) return generated;
      if (generated.refused) return generated;
    }
    throw new Error(`could not generate a request ${op.method} ${op.path} must refuse`);
  }

  #finish(op: Operation, category: string, draft: Draft): Generated {
    const path = draft.rawPath ?? op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(draft.params[name] ?? ''));
    const fullPath = draft.query === '' ? path : `${path}?${draft.query}`;
    const headers: Record<string, string | string[]> = { ...draft.headers };
    if (draft.contentType !== undefined && draft.body !== undefined) headers['content-type'] = draft.contentType;
    // The server does not read bodies of GET requests; one is still sent, but it cannot be why the
    // request is refused.
    const bodyRead = draft.body !== undefined && draft.method !== 'GET' && draft.method !== 'HEAD';
    const parts: RequestParts = {
      authBroken: draft.authBroken,
      params: draft.rawPath === null ? draft.params : null,
      query: draft.query,
      contentType: bodyRead ? draft.contentType : undefined,
      body: bodyRead ? draft.body : undefined,
    };
    // No route for the method: the router answers 404/405 and no handler runs. OPTIONS only ever
    // reaches the CORS preflight answer.
    const noRoute = draft.method !== op.method;
    // Only a DELETE is sure to do nothing with a made-up id: a POST or PUT may create under it.
    const namesNothing = draft.namesNothing && op.method === 'DELETE';
    const refused = noRoute || namesNothing || draft.poisoned || surelyRefused(op, parts);
    const headBytes = fullPath.length + Object.entries(headers).reduce((s, [k, v]) => s + k.length + (Array.isArray(v) ? v.join('').length : v.length) + 4, 0);
    return {
      op,
      category,
      request: { method: draft.method, path: fullPath, headers, ...(draft.body !== undefined && draft.method !== 'HEAD' ? { body: draft.body } : {}) },
      refused,
      oversizedHead: headBytes > 15_000,
    };
  }
}
