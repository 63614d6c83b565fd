import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lenientBodyKind, metadataPaths } from '../../src/http/plugins/request-leniency.ts';
import { loadVendorOpenApi, vendorOpenApiPath } from '../../scripts/lib/vendor-openapi.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withRefsInlined } from '../helpers/openapi-refs.ts';

// One leniency rule for the whole API (src/http/plugins/request-leniency.ts): where an operation requires
// no body members, a missing or empty body, `null`, or a bare JSON value counts as no body.
// The vendor's generated clients send no body at all when a call has no payload.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Every way a client says "nothing": no body, an empty JSON body, and JSON values that carry no members. */
const NOTHING: Array<{ label: string; body?: string }> = [
  { label: 'no body' },
  { label: 'an empty body labelled JSON', body: '' },
  { label: 'null', body: 'null' },
  { label: 'a bare number', body: '5' },
  { label: 'a bare string', body: '"x"' },
  { label: 'true', body: 'true' },
];

describe('request leniency: bodies that carry nothing', () => {
  let t: TestApp;
  let campaignId: string;
  before(async () => {
    t = await startTestApp();
    const campaign: Json = await t.sdk().campaigns.create({
      name: 'Lenient',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    } as never);
    campaignId = campaign.id;
    await t.sdk().vouchers.create({ code: 'LENIENT-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
  });
  after(async () => t.close());

  function send(method: string, path: string, body: string | undefined) {
    // No Content-Type without a body, as the generated client sends it; JSON's otherwise.
    return t.request(method, path, body === undefined ? {} : { headers: { ...t.serverHeaders(), 'content-type': 'application/json' }, body });
  }

  for (const { label, body } of NOTHING) {
    test(`${label}: voucher disable and enable, and campaign vouchers, answer as for {}`, async () => {
      const disabled = await send('POST', '/v1/vouchers/LENIENT-1/disable', body);
      assert.equal(disabled.status, 200, disabled.text);
      assert.equal(disabled.body.active, false);
      const enabled = await send('POST', '/v1/vouchers/LENIENT-1/enable', body);
      assert.equal(enabled.status, 200, enabled.text);
      assert.equal(enabled.body.active, true);

      const generated = await send('POST', `/v1/campaigns/${campaignId}/vouchers`, body);
      assert.equal(generated.status, 200, generated.text);
      assert.equal(generated.body.campaign_id, campaignId);
      assert.equal(generated.body.discount.percent_off, 10);

      const code = `GIVEN-${NOTHING.findIndex((n) => n.label === label)}`;
      const named = await send('POST', `/v1/campaigns/${campaignId}/vouchers/${code}`, body);
      assert.equal(named.status, 200, named.text);
      assert.equal(named.body.code, code);
      assert.equal(named.body.campaign_id, campaignId);
    });
  }

  test('a list operation that requires no items takes no body as an empty list; an object is still refused, and a list where an object is taken', async () => {
    for (const { label, body } of NOTHING) {
      const res = await send('POST', '/v1/products/bulk/async', body);
      assert.equal(res.status, 202, `${label}: ${res.text}`);
      assert.match(res.body.async_action_id, /^aa_/);
    }
    const object = await send('POST', '/v1/products/bulk/async', '{"products":[]}');
    assert.equal(object.status, 400, object.text);
    assert.equal(object.body.key, 'invalid_payload');
    assert.equal(object.body.details, 'Payload should be array');
    // The body of /v1/orders/import sent to /v1/orders: refused, not an empty order.
    const list = await send('POST', '/v1/orders', '[{"amount":100}]');
    assert.equal(list.status, 400, list.text);
    assert.equal(list.body.details, 'Payload should be object');
    const voucherList = await send('POST', `/v1/campaigns/${campaignId}/vouchers`, '[]');
    assert.equal(voucherList.status, 400, voucherList.text);
  });

  test('an operation that requires members still refuses a body that carries none, with the standard error body', async () => {
    for (const { label, body } of NOTHING) {
      const res = await send('POST', '/v1/validations', body);
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'key', 'message', 'request_id']);
      assert.equal(res.body.key, 'invalid_payload');
    }
    // The details say what was wrong with the body, and what the operation requires.
    const none = await send('POST', '/v1/validations', undefined);
    assert.equal(none.body.details, "Payload should be object: no body was sent, and this operation requires a JSON object with 'redeemables'");
    const bare = await send('POST', '/v1/validations', '5');
    assert.equal(bare.body.details, "Payload should be object: 5 was sent, and this operation requires a JSON object with 'redeemables'");
    const list = await send('POST', '/v1/validations', '[]');
    assert.equal(list.body.details, 'Payload should be object');
  });

  test('a body that does carry members is validated as before', async () => {
    const res = await t.request('POST', `/v1/campaigns/${campaignId}/vouchers/TYPED`, { json: { metadata: 5 } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.key, 'invalid_payload');
  });

  test('no route has a body rule of its own: the legacy validations and redemptions, rollbacks, qualifications and area exports take no body through the one rule', async () => {
    await t.sdk().vouchers.create({ code: 'LENIENT-2', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
    for (const { label, body } of NOTHING) {
      const validated = await send('POST', '/v1/vouchers/LENIENT-2/validate', body);
      assert.equal(validated.status, 200, `${label}: ${validated.text}`);
      assert.equal(validated.body.valid, true);
      const qualified = await send('POST', '/v1/qualifications', body);
      assert.equal(qualified.status, 200, `${label}: ${qualified.text}`);
      const exported = await send('POST', `/v1/campaigns/${campaignId}/transactions/export`, body);
      assert.equal(exported.status, 200, `${label}: ${exported.text}`);
      assert.equal(exported.body.object, 'export');
    }
    const redeemed = await send('POST', '/v1/vouchers/LENIENT-2/redemption', undefined);
    assert.equal(redeemed.status, 200, redeemed.text);
    const rolledBack = await send('POST', `/v1/redemptions/${redeemed.body.id}/rollback`, undefined);
    assert.equal(rolledBack.status, 200, rolledBack.text);
    assert.equal(rolledBack.body.result, 'SUCCESS');
  });

  test('every operation that requires no body members accepts null in place of a body (the rule is applied in one place)', async () => {
    const doc = withRefsInlined((await t.request('GET', '/openapi.json')).body);
    let tried = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const content = operation?.requestBody?.content;
        const [contentType, media] = content ? (Object.entries<Json>(content)[0] ?? []) : [];
        if (contentType !== 'application/json') continue;
        // The document says which bodies may be left out: exactly those the rule treats as optional.
        const optional = lenientBodyKind(media?.schema) !== null;
        assert.equal(operation.requestBody.required, !optional, `${method.toUpperCase()} ${path}: requestBody.required`);
        if (!optional) continue;
        if (!path.startsWith('/v1/') || path.startsWith('/v1/oauth')) continue;
        // Unknown ids in the path: the answer is 404 (or another refusal of the request's meaning), which
        // comes after validation; what must never come is the schema's refusal of the body's kind.
        const concrete = path.replace(/\{[^}]+\}/g, 'unknown_1');
        const res = await send(method.toUpperCase(), concrete, 'null');
        tried++;
        assert.ok(res.status < 500, `${method.toUpperCase()} ${path}: ${res.status} ${res.text}`);
        assert.doesNotMatch(String(res.body?.details ?? ''), /^Payload should be (object|array)$/, `${method.toUpperCase()} ${path}`);
      }
    }
    assert.ok(tried >= 40, `only ${tried} operations take an optional body`);
  });
});

describe('metadata: null means no metadata, wherever a route takes metadata', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('a create with metadata null stores none; an update with metadata null clears it; a metadata merge with null merges nothing', async () => {
    const created = await t.request('POST', '/v1/customers', { json: { source_id: 'null-meta', name: 'Nil', metadata: null } });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.body.metadata, {});
    const filled = await t.request('PUT', `/v1/customers/${created.body.id}`, { json: { metadata: { plan: 'gold' } } });
    assert.deepEqual(filled.body.metadata, { plan: 'gold' });
    const cleared = await t.request('PUT', `/v1/customers/${created.body.id}`, { json: { name: 'Nil again', metadata: null } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual(cleared.body.metadata, {});
    assert.equal(cleared.body.name, 'Nil again');

    const product = await t.request('POST', '/v1/products', { json: { source_id: 'null-meta-prod', name: 'Mug', price: 900, metadata: { color: 'red' } } });
    assert.equal(product.status, 200, product.text);
    const merged = await t.request('POST', '/v1/products/metadata/async', { json: { source_ids: ['null-meta-prod'], metadata: null } });
    assert.equal(merged.status, 202, merged.text);
    // Campaign PUT and voucher PUT take it too (their schemas used to refuse null).
    const voucher = await t.request('POST', '/v1/vouchers/NULL-META', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { a: 1 } } });
    assert.equal(voucher.status, 200, voucher.text);
    const voucherCleared = await t.request('PUT', '/v1/vouchers/NULL-META', { json: { metadata: null } });
    assert.equal(voucherCleared.status, 200, voucherCleared.text);
    assert.deepEqual(voucherCleared.body.metadata, {});
  });

  test('metadata null at every depth of a validation, a redemption and an order, as the generated clients send it', async () => {
    await t.request('POST', '/v1/vouchers/NULL-DEEP', { json: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const order = { source_id: 'null-meta-order', amount: 2000, metadata: null, items: [{ source_id: 'line-1', quantity: 1, price: 2000, metadata: null, product: { name: 'Line', metadata: null } }] };
    const body = { redeemables: [{ object: 'voucher', id: 'NULL-DEEP' }], order, customer: { source_id: 'null-meta-buyer', metadata: null }, metadata: null };
    const validation = await t.request('POST', '/v1/validations', { json: body });
    assert.equal(validation.status, 200, validation.text);
    assert.equal(validation.body.valid, true, validation.text);
    const redemption = await t.request('POST', '/v1/redemptions', { json: body });
    assert.equal(redemption.status, 200, redemption.text);
    assert.deepEqual(redemption.body.redemptions[0].metadata, {});
    assert.deepEqual(redemption.body.order.metadata, {});
    const placed = await t.request('POST', '/v1/orders', { json: { ...order, source_id: 'null-meta-order-2', customer: { source_id: 'null-meta-buyer', metadata: null }, referrer: { source_id: 'null-meta-ref', metadata: null } } });
    assert.equal(placed.status, 200, placed.text);
    assert.deepEqual(placed.body.metadata, {});
    assert.deepEqual(placed.body.items[0].metadata, {});
  });

  test('free-form content is left as sent: a member named metadata inside metadata keeps its null', async () => {
    const res = await t.request('POST', '/v1/customers', { json: { source_id: 'null-inside', metadata: { metadata: null, note: null } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.metadata, { metadata: null, note: null });
  });

  test('every served vendor operation whose request schema allows metadata null takes it (normalised, or null allowed where it is not a metadata object)', { skip: vendorOpenApiPath() === null && 'the vendor OpenAPI document is not on this machine' }, async () => {
    const ours = new Map<string, Json>();
    for (const [path, item] of Object.entries<Json>(withRefsInlined((await t.request('GET', '/openapi.json')).body).paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const schema = operation?.requestBody?.content?.['application/json']?.schema;
        if (schema) ours.set(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`, schema);
      }
    }
    const vendor = loadVendorOpenApi();
    const missing: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries<Json>(vendor.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const schema = operation?.requestBody?.content?.['application/json']?.schema;
        const key = `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
        const our = ours.get(key);
        if (!schema || !our) continue;
        const normalised = new Set(metadataPaths(our).map((p) => p.join('.')));
        for (const at of vendorNullableMetadata(vendor, schema)) {
          checked++;
          if (!normalised.has(at.join('.')) && !nullAllowedAt(our, at)) missing.push(`${key} ${at.join('.')}`);
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} nullable metadata members found`);
    assert.deepEqual(missing, []);
  });
});

/** Paths (member names, `[]` for list items) where the vendor's request schema allows `metadata: null`. */
function vendorNullableMetadata(doc: Json, schema: Json): string[][] {
  const resolve = (node: Json): Json => {
    let n = node;
    for (let i = 0; n?.$ref && i < 20; i++) n = n.$ref.split('/').slice(1).reduce((o: Json, k: string) => o[k], doc);
    return n;
  };
  const out: string[][] = [];
  const walk = (node: Json, path: string[], seen: Set<Json>): void => {
    const n = resolve(node);
    if (!n || typeof n !== 'object' || seen.has(n) || path.length > 8) return;
    const inner = new Set(seen).add(n);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const sub of n[key] ?? []) walk(sub, path, inner);
    if (n.items) walk(n.items, [...path, '[]'], inner);
    for (const [name, member] of Object.entries<Json>(n.properties ?? {})) {
      if (name === 'metadata' && (member.nullable || resolve(member)?.nullable)) out.push([...path, name]);
      else walk(member, [...path, name], inner);
    }
  };
  walk(schema, [], new Set());
  return out;
}

/** Whether our schema takes null at the path without normalising it: the path runs into free-form content, or the member is not metadata (an earning rule's increment) and allows null. */
function nullAllowedAt(schema: Json, path: string[]): boolean {
  const branches = (node: Json): Json[] => (node?.anyOf ? node.anyOf.flatMap(branches) : [node]);
  let nodes: Json[] = [schema];
  for (const step of path) {
    const next: Json[] = [];
    for (const node of nodes.flatMap(branches)) {
      if (node?.['x-free-form'] === true) return true;
      if (step === '[]' && node?.type === 'array') next.push(node.items);
      else if (node?.properties?.[step]) next.push(node.properties[step]);
    }
    nodes = next;
  }
  // A metadata object there must be normalised (above); a member of another kind need only allow null.
  const last = nodes.flatMap(branches);
  return last.some((node) => node?.type === 'null') && !last.some((node) => node?.['x-free-form'] === true);
}

describe('form bodies: only the OAuth endpoints take them', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const FORM = 'application/x-www-form-urlencoded';

  test('a JSON text sent as a form (curl -d without a content type) creates nothing: 415 with the standard error body', async () => {
    for (const contentType of [FORM, `${FORM}; charset=utf-8`]) {
      const res = await t.request('POST', '/v1/customers', { headers: { ...t.serverHeaders(), 'content-type': contentType }, body: '{"name":"Form"}' });
      assert.equal(res.status, 415, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'key', 'message', 'request_id']);
      assert.equal(res.body.code, 415);
      assert.equal(res.body.key, 'unsupported_media_type');
      assert.match(res.body.details, /OAuth/);
    }
    const fields = await t.request('POST', '/v1/customers', { form: { name: 'Form', email: 'form@example.com' } });
    assert.equal(fields.status, 415, fields.text);
    const updated = await t.request('PUT', '/v1/vouchers/ANY', { form: { active: 'false' } });
    assert.equal(updated.status, 415, updated.text);
    const customers = await t.deps.db.selectFrom('customers').select('id').execute();
    assert.equal(customers.length, 0);
  });

  test('an empty form is no body (the leniency rule applies); an unknown path is still a 404', async () => {
    await t.sdk().vouchers.create({ code: 'FORM-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
    const empty = await t.request('POST', '/v1/vouchers/FORM-1/disable', { headers: { ...t.serverHeaders(), 'content-type': FORM }, body: '' });
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.active, false);
    const unknown = await t.request('POST', '/v1/no-such-thing', { form: { a: 'b' } });
    assert.equal(unknown.status, 404, unknown.text);
  });

  test('the OAuth endpoints still take forms', async () => {
    const issued = await t.request('POST', '/v1/oauth/token', { form: { grant_type: 'client_credentials', scope: 'api' } });
    assert.equal(issued.status, 200, issued.text);
    const seen = await t.request('POST', '/v1/oauth/introspect', { form: { access_token: issued.body.access_token } });
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.body.active, true);
    const revoked = await t.request('POST', '/v1/oauth/token/revoke', { form: { access_token: issued.body.access_token } });
    assert.equal(revoked.status, 204, revoked.text);
  });
});

describe('answers leave out empty optional lists, as the vendor does', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.sdk().vouchers.create({ code: 'LISTS-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
  });
  after(async () => t.close());

  test('a validation and a redemption with nothing inapplicable or skipped carry neither list; a refused redeemable is listed', async () => {
    const body = { redeemables: [{ object: 'voucher', id: 'LISTS-1' }], order: { amount: 1000 }, customer: { source_id: 'lists-1' } };
    const validation: Json = await t.sdk().validations.validateStackable(body as never);
    assert.equal(validation.valid, true);
    assert.ok(!('inapplicable_redeemables' in validation), JSON.stringify(validation));
    assert.ok(!('skipped_redeemables' in validation));
    assert.equal(validation.redeemables.length, 1);

    const redeemed: Json = await t.sdk().redemptions.redeemStackable(body as never);
    assert.equal(redeemed.redemptions.length, 1);
    assert.ok(!('inapplicable_redeemables' in redeemed), JSON.stringify(redeemed));
    assert.ok(!('skipped_redeemables' in redeemed));

    const refused = await t.request('POST', '/v1/validations', { json: { ...body, redeemables: [{ object: 'voucher', id: 'NO-SUCH-CODE' }] } });
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.body.valid, false);
    assert.equal(refused.body.inapplicable_redeemables.length, 1);
    assert.ok(!('skipped_redeemables' in refused.body));
  });
});
