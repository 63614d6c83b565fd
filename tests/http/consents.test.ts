import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Consents: defined per project through the management API, listed on both API sides in the SDK's
// ConsentsListResponse shape (the vendor OpenAPI has no consents operations; the SDK's consents.list,
// client.listConsents, customers.updateConsents and client.updateConsents are the contract), a
// customer's opt-in and opt-out kept per consent and recorded as a customer activity in the same
// transaction.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('consents', () => {
  let t: TestApp;
  let other: { id: string; server: KeyPairOut };
  let newsletter: Json;
  let sms: Json;
  let partners: Json;
  let group: Json;
  let customer: Json;

  const management = (method: string, path: string, json?: unknown) =>
    t.request(method, `/management/v1/projects/${t.projectId}${path}`, { headers: t.managementHeaders(), ...(json === undefined ? {} : { json }) });

  before(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    other = { id: created.body.id, server: created.body.server_side_key };
    newsletter = (await management('POST', '/consents', { name: 'Newsletter', description: 'Weekly offers by e-mail', category: 'marketing' })).body;
    sms = (await management('POST', '/consents', { name: 'SMS' })).body;
    partners = (await management('POST', '/consents', { name: 'Partners', category: 'third-party' })).body;
    group = (await management('POST', '/consent-groups', { name: 'Marketing', description: 'All channels', consents: [newsletter.id, sms.id] })).body;
    customer = await t.sdk().customers.create({ source_id: 'consenting', email: 'c@example.com' } as never);
  });
  after(async () => t.close());

  const answers = async (id: string): Promise<Record<string, boolean>> => {
    const res = await t.request('GET', `/v1/customers/${id}/consents`);
    assert.equal(res.status, 200, res.text);
    return Object.fromEntries(res.body.data.map((a: Json) => [a.consent_id, a.granted]));
  };

  const consentActivities = async (id: string): Promise<Json[]> =>
    (await t.request('GET', `/v1/customers/${id}/activities?order=created_at`)).body.data.filter((a: Json) => a.type === 'customer.consents.updated');

  test('the management API defines them; both API sides list them in the SDK shape', async () => {
    assert.match(newsletter.id, /^cnst_/);
    assert.deepEqual(
      { name: newsletter.name, description: newsletter.description, category: newsletter.category, object: newsletter.object },
      { name: 'Newsletter', description: 'Weekly offers by e-mail', category: 'marketing', object: 'consent' },
    );
    assert.match(group.id, /^cngr_/);
    const listed: Json = await t.sdk().consents.list();
    const viaClient: Json = await t.clientSdk().listConsents();
    assert.deepEqual(viaClient, listed);
    assert.deepEqual(Object.keys(listed).sort(), ['consents', 'groups']);
    assert.deepEqual({ ...listed.consents, data: undefined }, { object: 'list', total: 3, data_ref: 'data', data: undefined });
    assert.deepEqual(
      listed.consents.data.map((c: Json) => c.id),
      [newsletter.id, sms.id, partners.id],
    );
    assert.deepEqual(listed.groups.data, [group]);
    assert.deepEqual(group.consents, [newsletter.id, sms.id]);
    assert.equal(group.object, 'consent_group');
    for (const item of [...listed.consents.data, ...listed.groups.data]) assert.equal(typeof item.created_at, 'string');
    // Another project lists its own (none).
    const theirs = await t.request('GET', '/v1/consents', { headers: t.serverHeaders(other.server) });
    assert.deepEqual([theirs.body.consents.total, theirs.body.groups.total], [0, 0]);
  });

  test("a customer's opt-in and opt-out through the SDK, kept per consent and recorded on their activity", async () => {
    const answer = await t.sdk().customers.updateConsents(customer.id, { [newsletter.id]: true, [sms.id]: false });
    assert.equal(answer, '', 'answered 204 without a body');
    assert.deepEqual(await answers(customer.id), { [newsletter.id]: true, [sms.id]: false });
    await t.sdk().customers.updateConsents('consenting', { [sms.id]: true });
    assert.deepEqual(await answers(customer.id), { [newsletter.id]: true, [sms.id]: true }, 'by source_id; other answers stay');
    const activities = await consentActivities(customer.id);
    assert.deepEqual(
      activities.map((a) => a.data.data.consents),
      [{ [newsletter.id]: true, [sms.id]: false }, { [sms.id]: true }],
    );
  });

  test('the client-side form: unsubscribed withdraws every consent the customer granted', async () => {
    await t.clientSdk().updateConsents('consenting', { unsubscribed: true });
    assert.deepEqual(await answers(customer.id), { [newsletter.id]: false, [sms.id]: false });
    const last = (await consentActivities(customer.id)).at(-1);
    assert.deepEqual(last.data.data, { customer_id: customer.id, consents: { [newsletter.id]: false, [sms.id]: false }, unsubscribed: true });
    // Withdrawn first, then the answers sent with it.
    await t.clientSdk().updateConsents('consenting', { unsubscribed: true, [partners.id]: true });
    assert.deepEqual(await answers(customer.id), { [newsletter.id]: false, [sms.id]: false, [partners.id]: true });
  });

  test('answers arriving at once are all kept', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await management('POST', '/consents', { name: `Topic ${i}` })).body.id);
    const racer: Json = await t.sdk().customers.create({ source_id: 'racer' } as never);
    const results = await Promise.all(ids.map((id) => t.request('PUT', `/v1/customers/${racer.id}/consents`, { json: { [id]: true } })));
    assert.deepEqual(results.map((r) => r.status), ids.map(() => 204));
    assert.deepEqual(await answers(racer.id), Object.fromEntries(ids.map((id) => [id, true])));
    for (const id of ids) assert.equal((await management('DELETE', `/consents/${id}`)).status, 204);
  });

  test('bad answers are 400 or 404 in the standard body and change nothing', async () => {
    const theirConsent = (
      await t.request('POST', `/management/v1/projects/${other.id}/consents`, { headers: t.managementHeaders(), json: { name: 'Theirs' } })
    ).body;
    const before = await answers(customer.id);
    const activitiesBefore = (await consentActivities(customer.id)).length;
    const cases: Array<[string, unknown, number, string]> = [
      [`/v1/customers/${customer.id}/consents`, { [newsletter.id]: 'yes' }, 400, 'invalid_payload'],
      [`/v1/customers/${customer.id}/consents`, [newsletter.id], 400, 'invalid_payload'],
      [`/v1/customers/${customer.id}/consents`, { [newsletter.id]: true, cnst_unknown: true }, 404, 'not_found'],
      [`/v1/customers/${customer.id}/consents`, { [theirConsent.id]: true }, 404, 'not_found'],
      ['/v1/customers/cust_unknown/consents', { [newsletter.id]: true }, 404, 'not_found'],
    ];
    for (const [path, json, status, key] of cases) {
      const res = await t.request('PUT', path, { json });
      assert.equal(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.key, key);
      assert.equal(res.body.code, status);
      assert.ok(res.body.request_id);
    }
    const foreign = await t.request('PUT', `/v1/customers/${customer.id}/consents`, { headers: t.serverHeaders(other.server), json: { [theirConsent.id]: true } });
    assert.equal(foreign.status, 404);
    assert.deepEqual(await answers(customer.id), before);
    assert.equal((await consentActivities(customer.id)).length, activitiesBefore);
  });

  test('scopes open their own prefixes: consents for the list, customers for the answers', async () => {
    const token = async (scope: string) =>
      (await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(), form: { grant_type: 'client_credentials', scope } })).body.access_token as string;
    const consentsToken = await token('consents');
    const customersToken = await token('customers');
    const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
    assert.equal((await t.request('GET', '/v1/consents', { headers: bearer(consentsToken) })).status, 200);
    assert.equal((await t.request('GET', '/v1/consents', { headers: bearer(customersToken) })).body.key, 'missing_required_permission');
    assert.equal((await t.request('PUT', `/v1/customers/${customer.id}/consents`, { headers: bearer(customersToken), json: {} })).status, 204);
    assert.equal((await t.request('PUT', `/v1/customers/${customer.id}/consents`, { headers: bearer(consentsToken), json: {} })).status, 403);
    const wrongOrigin = await t.request('GET', '/client/v1/consents', { headers: t.clientHeaders(undefined, 'https://evil.example.com') });
    assert.equal(wrongOrigin.status, 403);
  });

  test('management: updates, validation, deleting a consent takes it out of groups and answers; erasing a customer erases theirs', async () => {
    const renamed = await management('PUT', `/consents/${partners.id}`, { description: 'Shared with partners' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.body.name, renamed.body.description, typeof renamed.body.updated_at], ['Partners', 'Shared with partners', 'string']);
    assert.equal((await management('POST', '/consents', { description: 'no name' })).body.key, 'invalid_payload');
    assert.equal((await management('POST', '/consent-groups', { name: 'Bad', consents: ['cnst_nope'] })).status, 404);
    assert.equal((await management('GET', '/consents/cnst_nope')).status, 404);
    assert.equal((await t.request('GET', `/management/v1/projects/${other.id}/consents/${newsletter.id}`, { headers: t.managementHeaders() })).status, 404);

    assert.equal((await management('DELETE', `/consents/${sms.id}`)).status, 204);
    assert.deepEqual((await management('GET', `/consent-groups/${group.id}`)).body.consents, [newsletter.id]);
    assert.equal((await answers(customer.id))[sms.id], undefined);
    assert.deepEqual(
      ((await t.sdk().consents.list()) as Json).consents.data.map((c: Json) => c.id),
      [newsletter.id, partners.id],
    );

    assert.equal((await t.request('POST', `/v1/customers/${customer.id}/permanent-deletion`, { json: {} })).status, 200);
    const left = await t.deps.db.selectFrom('customer_consents').select('consent_id').where('customer_id', '=', customer.id).execute();
    assert.deepEqual(left, []);
    assert.equal((await management('DELETE', `/consent-groups/${group.id}`)).status, 204);
    assert.equal(((await t.sdk().consents.list()) as Json).groups.total, 0);
  });
});
