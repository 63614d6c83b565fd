import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FREE_FORM, FREE_FORM_LIMITS, freeFormProblem } from '../../src/api/free-form.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withRefsInlined } from '../helpers/openapi-refs.ts';

// Free-form JSON (metadata, attributes, rule objects, filters, vendor members kept as sent) is held to
// FREE_FORM_LIMITS when it is written, and text that a database cannot keep (NUL, lone surrogates) is
// refused anywhere in a request: one client's data must never make another request fail later. Every
// refusal is a 400 invalid_payload naming the path, before anything is stored, on both databases.

const { depth: DEPTH, bytes: BYTES, keyLength: KEY_LENGTH } = FREE_FORM_LIMITS;

/** An object nesting exactly `levels` objects (itself included): {k: {k: … {k: 'x'}}}. */
function nested(levels: number, leaf: unknown = 'x'): Record<string, unknown> {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { k: value };
  return value as Record<string, unknown>;
}

/** A one-member object whose JSON text is exactly `bytes` UTF-8 bytes. */
function sized(bytes: number): Record<string, string> {
  const value = { k: 'x'.repeat(bytes - '{"k":""}'.length) };
  assert.equal(Buffer.byteLength(JSON.stringify(value)), bytes);
  return value;
}

/** A free-form member and how to send it: `body` puts `value` where the member goes. */
interface Kind {
  name: string;
  method: string;
  path: string;
  /** The member's path as error details name it. */
  member: string;
  body: (value: unknown) => unknown;
}

// One entry per kind of free-form member the request schemas mark (see the coverage test below). Paths
// may name objects that do not exist: the limits are checked before any handler runs.
const KINDS: Kind[] = [
  { name: 'customer metadata', method: 'POST', path: '/v1/customers', member: '.metadata', body: (v) => ({ source_id: 'ff-cust', metadata: v }) },
  { name: 'client customer metadata', method: 'POST', path: '/client/v1/customers', member: '.metadata', body: (v) => ({ source_id: 'ff-cc', metadata: v }) },
  { name: 'product metadata', method: 'POST', path: '/v1/products', member: '.metadata', body: (v) => ({ name: 'ff', metadata: v }) },
  { name: 'SKU attributes', method: 'POST', path: '/v1/products/prod_ff/skus', member: '.attributes', body: (v) => ({ sku: 'ff', attributes: v }) },
  { name: 'order metadata', method: 'POST', path: '/v1/orders', member: '.metadata', body: (v) => ({ amount: 100, metadata: v }) },
  { name: 'order item metadata', method: 'POST', path: '/v1/orders', member: '.items[0].metadata', body: (v) => ({ items: [{ quantity: 1, price: 100, metadata: v }] }) },
  { name: 'order customer metadata', method: 'POST', path: '/v1/orders', member: '.customer.metadata', body: (v) => ({ amount: 100, customer: { source_id: 'ff', metadata: v } }) },
  { name: 'custom event metadata', method: 'POST', path: '/v1/events', member: '.metadata', body: (v) => ({ event: 'ff', customer: { source_id: 'ff' }, metadata: v }) },
  { name: 'validation rule rules', method: 'POST', path: '/v1/validation-rules', member: '.rules', body: (v) => ({ name: 'ff', rules: v }) },
  { name: 'validation rule applicable_to entry', method: 'POST', path: '/v1/validation-rules', member: '.applicable_to.included[0]', body: (v) => ({ name: 'ff', applicable_to: { included: [{ id: 'prod_ff', ...(v as object) }] } }) },
  { name: 'reward metadata', method: 'POST', path: '/v1/rewards', member: '.metadata', body: (v) => ({ name: 'ff', metadata: v }) },
  { name: 'earning rule metadata', method: 'POST', path: '/v1/loyalties/camp_ff/earning-rules', member: '[0].metadata', body: (v) => [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 1 }, metadata: v }] },
  { name: 'loyalty tier metadata', method: 'POST', path: '/v1/loyalties/camp_ff/tiers', member: '[0].metadata', body: (v) => [{ name: 'ff', points: { from: 0, to: 10 }, metadata: v }] },
  { name: 'campaign metadata', method: 'POST', path: '/v1/campaigns', member: '.metadata', body: (v) => ({ name: 'ff', metadata: v }) },
  { name: 'campaign referral program', method: 'POST', path: '/v1/campaigns', member: '.referral_program', body: (v) => ({ name: 'ff', referral_program: v }) },
  { name: 'campaign tiers expiration', method: 'PUT', path: '/v1/campaigns/camp_ff', member: '.loyalty_tiers_expiration', body: (v) => ({ loyalty_tiers_expiration: v }) },
  { name: 'promotion tier metadata', method: 'POST', path: '/v1/promotions/camp_ff/tiers', member: '.metadata', body: (v) => ({ name: 'ff', metadata: v }) },
  { name: 'voucher metadata', method: 'POST', path: '/v1/vouchers/FF-CODE', member: '.metadata', body: (v) => ({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, metadata: v }) },
  { name: 'publication metadata', method: 'POST', path: '/v1/publications', member: '.metadata', body: (v) => ({ customer: { source_id: 'ff' }, voucher: 'FF', metadata: v }) },
  { name: 'redemption metadata', method: 'POST', path: '/v1/redemptions', member: '.metadata', body: (v) => ({ redeemables: [{ object: 'voucher', id: 'FF' }], metadata: v }) },
  { name: 'rollback order members', method: 'POST', path: '/v1/redemptions/r_ff/rollback', member: '.order', body: (v) => ({ order: { source_id: 'ff', ...(v as object) } }) },
  { name: 'qualification filters', method: 'POST', path: '/v1/qualifications', member: '.options.filters', body: (v) => ({ options: { filters: v } }) },
  { name: 'referral holder metadata', method: 'POST', path: '/v1/referrals/members/FF/holders', member: '.holders[0].metadata', body: (v) => ({ holders: [{ source_id: 'ff', metadata: v }] }) },
  { name: 'segment filter', method: 'POST', path: '/v1/segments', member: '.filter', body: (v) => ({ name: 'ff', type: 'auto-update', filter: v }) },
  { name: 'product collection filter', method: 'POST', path: '/v1/product-collections', member: '.filter', body: (v) => ({ name: 'ff', type: 'AUTO_UPDATE', filter: v }) },
  { name: 'export filters', method: 'POST', path: '/v1/exports', member: '.parameters.filters', body: (v) => ({ exported_object: 'voucher', parameters: { filters: v } }) },
  { name: 'bulk metadata update', method: 'POST', path: '/v1/customers/metadata/async', member: '.metadata', body: (v) => ({ source_ids: ['ff'], metadata: v }) },
];

/** The member's path with `levels` more `.k` steps. */
const below = (member: string, levels: number) => `${member}${'.k'.repeat(levels)}`;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('free-form JSON limits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  /** Rows of every table, so a refused request can be shown to have stored nothing anywhere. */
  async function rowCounts(): Promise<Record<string, number>> {
    const tables =
      t.db.dialect === 'postgres'
        ? ((await t.db.db.introspection.getTables()).map((x) => x.name) as string[])
        : ((await t.db.db.introspection.getTables()).map((x) => x.name) as string[]);
    const counts: Record<string, number> = {};
    for (const table of tables.filter((name) => !name.startsWith('kysely_'))) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const row = await (t.db.db as any).selectFrom(table).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirst();
      counts[table] = Number(row.n);
    }
    return counts;
  }

  async function refused(kind: Kind, value: unknown, details: RegExp): Promise<void> {
    const res = await t.request(kind.method, kind.path, { headers: kind.path.startsWith('/client/') ? t.clientHeaders() : t.serverHeaders(), json: kind.body(value) });
    assert.equal(res.status, 400, `${kind.name}: ${res.status} ${res.text.slice(0, 300)}`);
    assert.equal(res.body.key, 'invalid_payload', kind.name);
    assert.equal(typeof res.body.request_id, 'string');
    assert.match(res.body.details, details, kind.name);
  }

  test('every kind of free-form member is refused above the limits, naming the path, and nothing is stored', async () => {
    const before_ = await rowCounts();
    for (const kind of KINDS) {
      await refused(kind, nested(DEPTH + 1), new RegExp(`^Property ${escaped(below(kind.member, DEPTH))} nesting exceeds ${DEPTH} levels$`));
      // (Members spread into a marked object add their siblings' bytes.)
      await refused(kind, sized(BYTES + 1), new RegExp(`^Property ${escaped(kind.member)} is \\d+ bytes as JSON; at most ${BYTES} are allowed$`));
      await refused(kind, { ['a'.repeat(KEY_LENGTH + 1)]: 1 }, new RegExp(`^Property ${escaped(kind.member)}\\.a{40}… key is longer than ${KEY_LENGTH} characters$`));
      // Text a database cannot keep, in a value and in a key, shallow and 70 levels down.
      await refused(kind, nested(3, 'a\u0000b'), new RegExp(`^Property ${escaped(below(kind.member, 3))} contains a NUL character$`));
      await refused(kind, { k: { ['a\u0000b']: 1 } }, new RegExp(`^Property ${escaped(kind.member)}\\.k\\.a\\\\u0000b has a key that contains a NUL character$`));
      await refused(kind, nested(70, 'a\u0000b'), /levels/);
      await refused(kind, nested(70, { ['a\u0000b']: 1 }), /levels/);
      await refused(kind, nested(2, 'x\ud800y'), new RegExp(`^Property ${escaped(below(kind.member, 2))} contains a lone UTF-16 surrogate`));
      await refused(kind, { ['\udc00']: 1 }, /has a key that contains a lone UTF-16 surrogate/);
    }
    assert.deepEqual(await rowCounts(), before_);
  });

  test('values at exactly the limits are accepted and stored as sent', async () => {
    const deepest = nested(DEPTH);
    const largest = sized(BYTES);
    const longKey = { ['k'.repeat(KEY_LENGTH)]: 'x', emoji: '\ud83d\ude00 stays' };
    for (const [i, metadata] of [deepest, largest, longKey].entries()) {
      const customer = await t.request('POST', '/v1/customers', { json: { source_id: `ff-edge-${i}`, metadata } });
      assert.equal(customer.status, 200, customer.text.slice(0, 300));
      assert.deepEqual((await t.request('GET', `/v1/customers/${customer.body.id}`)).body.metadata, metadata);
      const product = await t.request('POST', '/v1/products', { json: { name: `ff-edge-${i}`, attributes: ['color'], metadata } });
      assert.equal(product.status, 200, product.text.slice(0, 300));
      assert.deepEqual(product.body.metadata, metadata);
      const order = await t.request('POST', '/v1/orders', { json: { items: [{ quantity: 1, price: 100, metadata }], metadata } });
      assert.equal(order.status, 200, order.text.slice(0, 300));
      assert.deepEqual(order.body.metadata, metadata);
      assert.deepEqual(order.body.items[0].metadata, metadata);
      const campaign = await t.request('POST', '/v1/campaigns', {
        json: { name: `ff-edge-${i}`, campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } }, metadata },
      });
      assert.equal(campaign.status, 200, campaign.text.slice(0, 300));
      assert.deepEqual(campaign.body.metadata, metadata);
    }
    // SKU attributes: the value under an attribute name is the second level.
    const product = await t.request('POST', '/v1/products', { json: { name: 'ff-sku-parent', attributes: ['color'] } });
    const sku = await t.request('POST', `/v1/products/${product.body.id}/skus`, { json: { sku: 'ff-sku', attributes: { color: nested(DEPTH - 1) } } });
    assert.equal(sku.status, 200, sku.text.slice(0, 300));
    assert.deepEqual(sku.body.attributes, { color: nested(DEPTH - 1) });
  });

  test('the checker counts levels, bytes and key characters exactly', () => {
    assert.equal(freeFormProblem(nested(DEPTH)), null);
    assert.deepEqual(freeFormProblem(nested(DEPTH + 1))?.path, Array(DEPTH).fill('k'));
    // Arrays are levels too; scalars are not.
    assert.equal(freeFormProblem([nested(DEPTH - 1)]), null);
    assert.notEqual(freeFormProblem([[nested(DEPTH - 1)]]), null);
    assert.equal(freeFormProblem('text'), null);
    assert.equal(freeFormProblem(sized(BYTES)), null);
    assert.notEqual(freeFormProblem(sized(BYTES + 1)), null);
    // Bytes, not characters: 'é' is two bytes of UTF-8.
    assert.notEqual(freeFormProblem({ k: 'é'.repeat(BYTES / 2) }), null);
    assert.equal(freeFormProblem({ ['k'.repeat(KEY_LENGTH)]: 1 }), null);
    assert.deepEqual(freeFormProblem({ a: { ['k'.repeat(KEY_LENGTH + 1)]: 1 } })?.path, ['a', 'k'.repeat(KEY_LENGTH + 1)]);
  });

  test('every free-form member of a request body is marked, so the limits reach it', async () => {
    // A member whose content the schema leaves open (any value, any members, undeclared members kept)
    // must carry the marker itself or sit inside a marked member.
    const doc = withRefsInlined((await t.request('GET', '/openapi.json', { headers: {} })).body);
    const unmarked = new Set<string>();
    type Node = Record<string, unknown>;
    const open = (s: Node) => Object.keys(s).every((k) => ['description', 'title', 'default', 'examples', FREE_FORM].includes(k));
    const walk = (schema: unknown, path: string, where: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const s = schema as Node;
      if (s[FREE_FORM] === true) return;
      if (s.type === 'array' && s.maxItems === 0) return;
      const patterns = Object.values((s.patternProperties as Record<string, Node> | undefined) ?? {});
      if (open(s) || patterns.some(open) || s.additionalProperties === true || (typeof s.additionalProperties === 'object' && open(s.additionalProperties as Node))) {
        unmarked.add(`${where} ${path || '(body)'}`);
      }
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const branch of (s[key] as unknown[] | undefined) ?? []) walk(branch, path, where);
      for (const [name, member] of Object.entries((s.properties as Record<string, unknown> | undefined) ?? {})) walk(member, `${path}.${name}`, where);
      walk(s.items, `${path}[]`, where);
      for (const member of patterns) walk(member, `${path}.*`, where);
    };
    let bodies = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const media of Object.values(operation.requestBody?.content ?? {})) {
          bodies++;
          walk(media.schema, '', `${method.toUpperCase()} ${path}`);
        }
      }
    }
    assert.ok(bodies > 80, `${bodies} request bodies`);
    assert.deepEqual([...unmarked], []);
    // And every kind listed above is one of them.
    assert.ok(KINDS.length >= 25);
  });
});
