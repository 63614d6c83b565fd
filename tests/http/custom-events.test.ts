import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, TEST_ORIGIN, type TestApp } from '../helpers/app.ts';

// Custom event schemas (seed 2.12, 4.8; platform reference 5.2) and custom events (seed 4.15, 6.2;
// platform reference 5.1; DECISIONS 24).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('custom event schemas (management API)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  const base = () => `/management/v1/projects/${t.projectId}/custom-event-schemas`;
  const mgmt = (json?: unknown) => ({ headers: t.managementHeaders(), ...(json === undefined ? {} : { json }) });

  test('create, get and list answer the seed shape; a name is unique per project (409)', async () => {
    const created = await t.request('POST', base(), mgmt({ name: 'plan_upgraded', schema: { properties: { plan: { type: 'string', optional: false }, seats: { type: 'number', optional: true } } } }));
    assert.equal(created.status, 200, created.text);
    assert.match(created.body.id, /^ms_/);
    assert.deepEqual(created.body, {
      id: created.body.id,
      name: 'plan_upgraded',
      schema: { properties: { plan: { type: 'string', optional: false }, seats: { type: 'number', optional: true } } },
      created_at: created.body.created_at,
      updated_at: null,
      object: 'custom-event-schema',
    });
    const empty = await t.request('POST', base(), mgmt({ name: 'page_viewed', schema: { properties: {} } }));
    assert.equal(empty.status, 200);

    const dup = await t.request('POST', base(), mgmt({ name: 'plan_upgraded', schema: { properties: {} } }));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.key, 'duplicate_found');
    assert.equal(dup.body.details, 'Duplicated custom_event_schema exists with name plan_upgraded');
    assert.equal(dup.body.resource_type, 'custom_event_schema');

    const list = await t.request('GET', base(), mgmt());
    assert.deepEqual(
      { object: list.body.object, data_ref: list.body.data_ref, total: list.body.total, names: list.body.data.map((s: Json) => s.name) },
      { object: 'list', data_ref: 'data', total: 2, names: ['plan_upgraded', 'page_viewed'] },
    );
    assert.deepEqual((await t.request('GET', `${base()}/${created.body.id}`, mgmt())).body, created.body);
  });

  test('PUT merges properties: changes and additions apply, others stay, deleted:true soft-removes', async () => {
    const created = await t.request('POST', base(), mgmt({ name: 'merge_me', schema: { properties: { a: { type: 'string', optional: false }, b: { type: 'number', optional: true } } } }));
    const path = `${base()}/${created.body.id}`;
    const updated = await t.request('PUT', path, mgmt({ schema: { properties: { b: { type: 'string' }, c: { type: 'boolean', optional: true }, a: { deleted: true } } } }));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.body.schema.properties, {
      a: { type: 'string', optional: false, deleted: true },
      b: { type: 'string', optional: true },
      c: { type: 'boolean', optional: true },
    });
    assert.equal(updated.body.name, 'merge_me');
    assert.ok(updated.body.updated_at);
    const restored = await t.request('PUT', path, mgmt({ schema: { properties: { a: { deleted: false } } } }));
    assert.deepEqual(restored.body.schema.properties.a, { type: 'string', optional: false });

    const noType = await t.request('PUT', path, mgmt({ schema: { properties: { d: { optional: true } } } }));
    assert.equal(noType.status, 400);
    assert.equal(noType.body.details, "Property .schema.properties.d should have required property 'type'");
    const badType = await t.request('PUT', path, mgmt({ schema: { properties: { b: { type: 'object' } } } }));
    assert.equal(badType.status, 400);
    assert.match(badType.body.details, /^Property \.schema\.properties\.b\.type should be equal to one of the allowed values \[ string, number, date, datetime, boolean \]/);
    assert.deepEqual((await t.request('GET', path, mgmt())).body.schema, restored.body.schema, 'refused updates changed nothing');
  });

  test('bad creates are precise 400s; unknown project or schema 404; delete 204', async () => {
    const cases: Array<[unknown, string]> = [
      [{ schema: { properties: {} } }, "Payload should have required property 'name'"],
      [{ name: 'x' }, "Payload should have required property 'schema'"],
      [{ name: 'x', schema: {} }, "Property .schema should have required property 'properties'"],
      [{ name: 'x', schema: { properties: { p: { type: 'string' } } } }, "Property .schema.properties.p should have required property 'optional'"],
      [{ name: '', schema: { properties: {} } }, 'Property .name must NOT have fewer than 1 characters'],
      [{ name: 'x'.repeat(301), schema: { properties: {} } }, 'Property .name must NOT have more than 300 characters'],
    ];
    for (const [json, details] of cases) {
      const res = await t.request('POST', base(), mgmt(json));
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.key, 'invalid_payload');
      assert.equal(res.body.details, details);
    }
    const unknownProject = await t.request('GET', '/management/v1/projects/proj_missing/custom-event-schemas', mgmt());
    assert.equal(unknownProject.status, 404);
    assert.equal(unknownProject.body.resource_type, 'project');
    const unknown = await t.request('GET', `${base()}/ms_missing`, mgmt());
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'custom_event_schema');

    const created = await t.request('POST', base(), mgmt({ name: 'short_lived', schema: { properties: {} } }));
    assert.equal((await t.request('DELETE', `${base()}/${created.body.id}`, mgmt())).status, 204);
    assert.equal((await t.request('GET', `${base()}/${created.body.id}`, mgmt())).status, 404);
    assert.equal((await t.request('DELETE', `${base()}/${created.body.id}`, mgmt())).status, 404);
  });
});

describe('custom events', () => {
  let t: TestApp;
  const mgmt = (json?: unknown) => ({ headers: t.managementHeaders(), ...(json === undefined ? {} : { json }) });
  before(async () => {
    t = await startTestApp();
    const base = `/management/v1/projects/${t.projectId}/custom-event-schemas`;
    for (const schema of [
      { name: 'user_signed_up', schema: { properties: { plan: { type: 'string', optional: false }, seats: { type: 'number', optional: true }, trial_ends: { type: 'date', optional: true } } } },
      { name: 'viewed', schema: { properties: {} } },
      { name: 'user_subscribed', schema: { properties: {} } },
    ]) {
      assert.equal((await t.request('POST', base, mgmt(schema))).status, 200);
    }
  });
  after(async () => t.close());

  async function activities(customer: string): Promise<Json[]> {
    const res = await t.request('GET', `/v1/customers/${customer}/activities?limit=100&order=created_at`);
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  test('a defined event answers the seed 4.15 shape, creates the customer and is in its activities', async () => {
    const response: Json = await t.sdk().events.create('user_signed_up', {
      customer: { source_id: 'ev-1', name: 'Eve', email: 'eve@example.com' },
      metadata: { plan: 'pro', seats: 3, trial_ends: '2026-04-01' },
    } as never);
    const customer: Json = await t.sdk().customers.get('ev-1');
    assert.deepEqual(response, {
      object: 'event',
      type: 'user_signed_up',
      customer: { id: customer.id, source_id: 'ev-1', name: 'Eve', email: 'eve@example.com', metadata: {}, object: 'customer' },
      referral: null,
      loyalty: null,
      metadata: { plan: 'pro', seats: 3, trial_ends: '2026-04-01' },
    });
    const types = (await activities('ev-1')).map((a) => a.type);
    assert.deepEqual(types, ['customer.created', 'customer.custom_event']);
    const [, event] = await activities('ev-1');
    const schemas = await t.request('GET', `/management/v1/projects/${t.projectId}/custom-event-schemas`, mgmt());
    const schema = schemas.body.data.find((s: Json) => s.name === 'user_signed_up');
    assert.deepEqual(event.data.data.event_schema, { id: schema.id, name: 'user_signed_up' });
    assert.equal(event.data.data.event.object, 'event');
    assert.equal(event.data.data.event.type, 'user_signed_up');
    assert.equal(event.data.data.event.id, event.id);
    assert.deepEqual(event.data.data.event.metadata, { plan: 'pro', seats: 3, trial_ends: '2026-04-01' });
    assert.equal(event.data.data.customer.id, customer.id);
    assert.equal(event.data.event_source.channel, 'API');

    const again = await t.request('POST', '/v1/events', { json: { event: 'viewed', customer: { id: customer.id } } });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.metadata, {});
    assert.equal((await activities('ev-1')).length, 3, 'an existing customer is not created again');
  });

  test('an event name without a schema is 400 naming the event, and nothing is stored', async () => {
    const res = await t.request('POST', '/v1/events', { json: { event: 'never_defined', customer: { source_id: 'ghost-1' }, metadata: { a: 1 } } });
    assert.equal(res.status, 400);
    assert.equal(res.body.key, 'invalid_payload');
    assert.match(res.body.details, /'never_defined'/);
    assert.equal((await t.request('GET', '/v1/customers/ghost-1')).status, 404, 'the customer was not created');
  });

  test('metadata is checked against the schema: 400 metadata_validation_failed, nothing stored', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ seats: 2 }, "plan: must be defined, the property is required (actual value is 'undefined')"],
      [{ plan: 'pro', seats: 'many' }, "seats: must be a number (actual value is 'many')"],
      [{ plan: 7, trial_ends: 'soon' }, "plan: must be a string (actual value is '7'); trial_ends: must be a date (YYYY-MM-DD) (actual value is 'soon')"],
    ];
    for (const [metadata, details] of cases) {
      const res = await t.request('POST', '/v1/events', { json: { event: 'user_signed_up', customer: { source_id: 'meta-bad' }, metadata } });
      assert.equal(res.status, 400);
      assert.equal(res.body.key, 'metadata_validation_failed');
      assert.equal(res.body.message, 'Metadata validation failed');
      assert.equal(res.body.details, details);
    }
    assert.equal((await t.request('GET', '/v1/customers/meta-bad')).status, 404);
    // Members the schema does not define are allowed.
    const extra = await t.request('POST', '/v1/events', { json: { event: 'user_signed_up', customer: { source_id: 'meta-ok' }, metadata: { plan: 'basic', utm: 'x' } } });
    assert.equal(extra.status, 200, extra.text);
  });

  test('precise 400s for the event name and the customer', async () => {
    const cases: Array<[unknown, number, string | RegExp]> = [
      [{ customer: { source_id: 'x' } }, 400, "Payload should have required property 'event'"],
      [{ event: 'viewed' }, 400, "Payload should have required property 'customer'"],
      [{ event: '', customer: { source_id: 'x' } }, 400, 'Property .event must NOT have fewer than 1 characters'],
      [{ event: 'e'.repeat(301), customer: { source_id: 'x' } }, 400, 'Property .event must NOT have more than 300 characters'],
      [{ event: 'viewed', customer: {} }, 400, /customer should have required property 'id' or 'source_id'/],
      [{ event: 'viewed', customer: { source_id: 'x' }, metadata: 'text' }, 400, /^Property \.metadata should be/],
      [{ event: 'viewed', customer: { source_id: 'x' }, referral: {} }, 400, "Property .referral should have required property 'code'"],
      [{ event: 'viewed', customer: { id: 'cust_missing' } }, 404, 'Cannot find customer with id cust_missing'],
    ];
    for (const [json, status, details] of cases) {
      const res = await t.request('POST', '/v1/events', { json });
      assert.equal(res.status, status, JSON.stringify(json));
      if (typeof details === 'string') assert.equal(res.body.details, details);
      else assert.match(res.body.details, details);
    }
    assert.equal((await t.request('GET', '/v1/customers/x')).status, 404);
  });

  test('a deleted schema refuses its event; a soft-removed property is no longer required', async () => {
    const base = `/management/v1/projects/${t.projectId}/custom-event-schemas`;
    const schema = await t.request('POST', base, mgmt({ name: 'temp_event', schema: { properties: { must: { type: 'boolean', optional: false } } } }));
    const missing = await t.request('POST', '/v1/events', { json: { event: 'temp_event', customer: { source_id: 'tmp-1' } } });
    assert.equal(missing.body.key, 'metadata_validation_failed');
    await t.request('PUT', `${base}/${schema.body.id}`, mgmt({ schema: { properties: { must: { deleted: true } } } }));
    const ok = await t.request('POST', '/v1/events', { json: { event: 'temp_event', customer: { source_id: 'tmp-1' } } });
    assert.equal(ok.status, 200, ok.text);
    await t.request('DELETE', `${base}/${schema.body.id}`, mgmt());
    const gone = await t.request('POST', '/v1/events', { json: { event: 'temp_event', customer: { source_id: 'tmp-1' } } });
    assert.equal(gone.status, 400);
    assert.match(gone.body.details, /'temp_event'/);
  });

  test('client side: trusted origin required; loyalty and referral parts need client_loyalty_events_enabled', async () => {
    const tracked: Json = await t.clientSdk().track('viewed', { source_id: 'cl-1' } as never, { page: 'home' });
    assert.equal(tracked.type, 'viewed');
    assert.equal(tracked.customer.source_id, 'cl-1');
    const [created, event] = await activities('cl-1');
    assert.equal(created.type, 'customer.created');
    assert.equal(event.data.event_source.channel, 'CLIENT_API');

    const badOrigin = await t.request('POST', '/client/v1/events', { headers: t.clientHeaders(undefined, 'https://evil.example.com'), json: { event: 'viewed', customer: { source_id: 'cl-2' } } });
    assert.equal(badOrigin.status, 403);
    const serverKeys = await t.request('POST', '/client/v1/events', { headers: t.serverHeaders(), json: { event: 'viewed', customer: { source_id: 'cl-2' } } });
    assert.equal(serverKeys.status, 401);

    const withLoyalty = { event: 'viewed', customer: { source_id: 'cl-2' }, loyalty: { code: 'CARD-1' } };
    // The default project starts with the client-side flags on; switch this one off.
    const disable = await t.request('PUT', `/management/v1/projects/${t.projectId}`, mgmt({ client_loyalty_events_enabled: false }));
    assert.equal(disable.body.client_loyalty_events_enabled, false);
    const plain = await t.request('POST', '/client/v1/events', { headers: t.clientHeaders(), json: { event: 'viewed', customer: { source_id: 'cl-3' } } });
    assert.equal(plain.status, 200, 'events without loyalty or referral parts need no flag');
    const refused = await t.request('POST', '/client/v1/events', { headers: t.clientHeaders(), json: withLoyalty });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.key, 'forbidden');
    assert.match(refused.body.details, /client_loyalty_events_enabled/);
    assert.equal((await t.request('GET', '/v1/customers/cl-2')).status, 404);

    const enable = await t.request('PUT', `/management/v1/projects/${t.projectId}`, mgmt({ client_loyalty_events_enabled: true }));
    assert.equal(enable.status, 200);
    const unknownCard = await t.request('POST', '/client/v1/events', { headers: t.clientHeaders(), json: withLoyalty });
    assert.equal(unknownCard.status, 404, 'allowed now, the loyalty part is processed: the card must exist');
    assert.equal(unknownCard.body.resource_type, 'voucher');
    assert.equal((await t.request('GET', '/v1/customers/cl-2')).status, 404, 'and a refused loyalty part stores nothing');

    const program: Json = await t.sdk().loyalties.create({ name: 'Client points', vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const card: Json = await t.sdk().loyalties.createMember(program.id, { customer: { source_id: 'cl-2' } } as never);
    const allowed = await t.request('POST', '/client/v1/events', {
      headers: { ...t.clientHeaders(), origin: TEST_ORIGIN },
      json: { ...withLoyalty, loyalty: { code: card.code } },
    });
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(allowed.body.loyalty, null);
    const stored = (await activities('cl-2')).find((a) => a.type === 'customer.custom_event');
    assert.deepEqual(stored.data.data.loyalty, { code: card.code });
  });

  test('the loyalty part credits points through the custom_event earning rules, in the same transaction', async () => {
    const schemas = await t.request('GET', `/management/v1/projects/${t.projectId}/custom-event-schemas`, mgmt());
    const signup = schemas.body.data.find((s: Json) => s.name === 'user_signed_up');
    const sdk = t.sdk();
    const program: Json = await sdk.loyalties.create({ name: 'Signup points', vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never);
    const rules = await t.request('POST', `/v1/loyalties/${program.id}/earning-rules`, {
      json: [{ event: 'user_signed_up', custom_event: { schema_id: signup.id }, loyalty: { type: 'FIXED', points: 25 }, source: { banner: 'Sign-up bonus' } }],
    });
    assert.equal(rules.status, 200, rules.text);
    const card: Json = await sdk.loyalties.createMember(program.id, { customer: { source_id: 'earner-1' } } as never);

    const tracked = await t.request('POST', '/v1/events', {
      json: { event: 'user_signed_up', customer: { source_id: 'earner-1' }, loyalty: { code: card.code }, metadata: { plan: 'pro' } },
    });
    assert.equal(tracked.status, 200, tracked.text);
    const member: Json = await sdk.loyalties.getMember(program.id, card.code);
    assert.equal(member.loyalty_card.balance, 25);

    const notTheirs = await t.request('POST', '/v1/events', {
      json: { event: 'user_signed_up', customer: { source_id: 'earner-2' }, loyalty: { code: card.code }, metadata: { plan: 'pro' } },
    });
    assert.equal(notTheirs.status, 400);
    assert.equal(notTheirs.body.key, 'invalid_customer');
    assert.equal((await t.request('GET', '/v1/customers/earner-2')).status, 404, 'the refused event stored nothing');
    assert.equal(((await sdk.loyalties.getMember(program.id, card.code)) as Json).loyalty_card.balance, 25);
  });

  test('the referral part converts a referral in the same transaction; an unknown code stores nothing', async () => {
    const unknown = await t.request('POST', '/v1/events', { json: { event: 'user_subscribed', customer: { source_id: 'ref-x' }, referral: { code: 'NO-SUCH-CODE' } } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.resource_type, 'voucher');
    assert.equal((await t.request('GET', '/v1/customers/ref-x')).status, 404, 'the event and its customer rolled back with the failed conversion');

    const sdk = t.sdk();
    await sdk.campaigns.create({
      name: 'Subscribe friends',
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 500 } },
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'user_subscribed' } },
    } as never);
    const pub: Json = await sdk.distributions.publications.create({ campaign: { name: 'Subscribe friends' }, customer: { source_id: 'referrer-9' } } as never);
    const converted = await t.request('POST', '/v1/events', {
      json: { event: 'user_subscribed', customer: { source_id: 'referee-9' }, referral: { code: pub.voucher.code, referrer_id: pub.customer.id } },
    });
    assert.equal(converted.status, 200, converted.text);
    assert.equal(converted.body.referral, null);
    const referee: Json = await sdk.customers.get('referee-9');
    assert.equal(referee.referrals.total, 1);
    assert.equal(referee.referrals.campaigns[0].referrer_id, pub.customer.id);
    const types = (await activities('referee-9')).map((a) => a.type);
    assert.deepEqual(types, ['customer.created', 'customer.custom_event', 'customer.referred']);
  });
});
