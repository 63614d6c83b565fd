import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadVendorOpenApi, routerTemplate, vendorOperations, type VendorOperation } from '../../scripts/lib/vendor-openapi.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN, createFirstAdmin } from '../helpers/console.ts';
import { fixtures, type Json } from '../helpers/redemption-fixtures.ts';
import { vendorResponseProblems, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// Conformance with the vendor's OpenAPI (issue 19 item 7): every vendor operation Punchcard serves is called
// on fixtures this file creates, must answer the vendor's success status, and the answer must validate
// against the vendor's response schema (members it requires, JSON types). Reads (GET) first, then writes
// (POST, PUT, DELETE) in a block of their own. The list of operations comes from the vendor document and
// Punchcard's router, so a newly served operation is checked (or must be listed) and a served one that
// drifts fails.
//
// Operations that cannot be exercised are listed in EXCEPTIONS with the reason, deliberate differences
// from a vendor response schema in SCHEMA_DEFECTS, each with the reason. Both blocks send each request and
// check its answer with one helper (`exercise`).

/** `METHOD path` (vendor template) → why it cannot be exercised here. */
export const EXCEPTIONS: Record<string, string> = {
  'GET /v1/locations/{locationId}': 'a project holds no locations: the vendor creates them in its dashboard and no Punchcard rule tests them, so every location id is 404 (README compatibility notes; tests/http/locations.test.ts)',
};

/**
 * Deliberate differences from a vendor response schema that is wrong about its own answer: `METHOD path`
 * → the problems (as `instancePath message` prefixes) not counted, and why.
 */
export const SCHEMA_DEFECTS: Record<string, { ignoring: string[]; reason: string }> = {
  'GET /v1/metadata-schemas': {
    ignoring: ["(answer) must have required property 'data'"],
    reason: "the vendor requires `data` but names the list `schemas` (its data_ref is 'schemas'); Punchcard answers `schemas` as the vendor's examples do",
  },
  'GET /v1/templates/campaigns': {
    ignoring: ["(answer) must have required property 'campaign_template'"],
    reason: 'the vendor requires a member `campaign_template` its schema does not describe; the list is `data`, as its data_ref says',
  },
  'POST /v1/templates/campaigns/{campaignTemplateId}/tier-setup': {
    ignoring: ["(answer) must have required property 'campaign'"],
    reason: 'the vendor requires `campaign` (copied from campaign-setup); the answer carries `promotion_tier`, as the schema\'s members and example say',
  },
  'POST /v1/loyalties/{campaignId}/rewards': {
    ignoring: ['(answer) must be object'],
    reason: 'the vendor describes one assignment; its example answer (and Punchcard) lists one per reward of the request',
  },
  'POST /v1/campaigns/{campaignId}/transactions/export': {
    ignoring: ['/parameters/filters/created_at/conditions/$after must be string'],
    reason: 'the vendor types a condition as one date; its example request and answer list the values, as Punchcard answers every filter condition',
  },
  'POST /v1/loyalties/{campaignId}/transactions/export': {
    ignoring: ['/parameters/filters/created_at/conditions/$after must be string'],
    reason: 'as POST /v1/campaigns/{campaignId}/transactions/export',
  },
  'POST /v1/loyalties/{campaignId}/members/{memberId}/transfers': {
    ignoring: ['/validity_timeframe must be object', '/validity_day_of_week must be array', '/active must be string'],
    reason: 'the vendor requires the two validity members without allowing null and types `active` as a string; its example answer has null, null and true, as Punchcard answers a card without them',
  },
  'POST /v1/loyalties/{campaignId}/members/{memberId}/redemption': {
    ignoring: ["/reward must have required property 'reward'"],
    reason: 'the vendor marks `reward` required inside the reward object itself (meant for the redemption); its example reward has no `reward`',
  },
  'POST /v1/loyalties/members/{memberId}/redemption': {
    ignoring: ["/reward must have required property 'reward'"],
    reason: 'as POST /v1/loyalties/{campaignId}/members/{memberId}/redemption',
  },
  'GET /management/v1/projects/{projectId}/users/{userId}': {
    ignoring: ["(answer) must have required property 'role'"],
    reason: "the vendor's User schema requires a `role` it does not describe; its examples, as Punchcard, give the user's role per project in `projects`",
  },
  'GET /management/v1/projects/{projectId}/users': {
    ignoring: ["/data/0 must have required property 'role'"],
    reason: 'as GET /management/v1/projects/{projectId}/users/{userId}, for each user listed',
  },
  'POST /management/v1/projects/{projectId}/users': {
    ignoring: ["(answer) must have required property 'role'"],
    reason: 'as GET /management/v1/projects/{projectId}/users/{userId}',
  },
  'PUT /management/v1/projects/{projectId}/users/{userId}': {
    ignoring: ["(answer) must have required property 'role'"],
    reason: 'as GET /management/v1/projects/{projectId}/users/{userId}',
  },
  'GET /management/v1/projects/{projectId}/templates/campaigns': {
    ignoring: ["(answer) must have required property 'campaign_template'"],
    reason: 'as GET /v1/templates/campaigns',
  },
};

/** A read's request where the shared fixtures and no query are not enough: path parameters and a query string. */
interface ReadRequest {
  params?: Record<string, string>;
  query?: string;
}

/** `METHOD path` → the request sent instead of the generic one (the path with the shared fixtures, no query). */
const READ_REQUESTS: Record<string, (ids: Record<string, string>) => ReadRequest> = {
  // The download of an export: its CSV, with the token of its `result.url`.
  'GET /v1/exports/{export_Id}': (ids) => ({ params: { export_Id: ids.exportId as string }, query: `token=${encodeURIComponent(ids.exportToken as string)}` }),
  'GET /v1/metadata-schemas/{resource}': () => ({ params: { resource: 'customer' } }),
  // Publishes (changes state) although it is a GET: a code of the fixture campaign to a new customer.
  'GET /v1/publications/create': () => ({ query: 'campaign[name]=Conformance&customer[source_id]=conformance-publication&join_once=true' }),
};

describe('conformance with the vendor OpenAPI: read operations', { skip: !vendorSchemasAvailable && 'the vendor OpenAPI document is not on this machine' }, () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  const ids: Record<string, string> = {};
  let served: VendorOperation[] = [];

  before(async () => {
    t = await startTestApp();
    await t.allowClientActions();
    f = fixtures(t);
    served = vendorOperations(loadVendorOpenApi()).filter((op) => op.method === 'GET' && t.app.hasRoute({ method: 'GET', url: routerTemplate(op.path) }));
    const campaign = await f.ok('POST', '/v1/campaigns', { name: 'Conformance', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 2, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const code = (await f.ok('GET', `/v1/vouchers?campaign_id=${campaign.id}`)).vouchers[0].code;
    const promo = await f.promotion([{ name: 'Tier', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }]);
    const tier = promo.promotion.tiers[0];
    const stack = await f.ok('POST', `/v1/promotions/${promo.id}/stacks`, { name: 'Stack', tiers: { ids: [tier.id], hierarchy_mode: 'MANUAL' } });
    const loyal = await f.payWithPoints(500);
    const product = await f.product(1000);
    const sku = await f.ok('POST', `/v1/products/${product.id}/skus`, { source_id: f.unique('sku'), sku: 'Size M', price: 1000 });
    const collection = await f.ok('POST', '/v1/product-collections', { name: f.unique('coll'), type: 'STATIC', products: [{ id: product.id, object: 'product' }] });
    const rule = await f.rule({ rules: { 1: { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1' } });
    const ruleAssignment = await f.assign(rule.id, { promotion_tier: tier.id });
    const segment = await f.ok('POST', '/v1/segments', { name: f.unique('seg'), type: 'static', customers: [loyal.customer.id] });
    const category = await f.category();
    const redemption = await f.ok('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 }, customer: { id: loyal.customer.id } });
    const order = await f.ok('POST', '/v1/orders', { amount: 2000, customer: { id: loyal.customer.id } });
    // A referral program with a published code and a referee.
    const giftCampaign = await f.ok('POST', '/v1/campaigns', { name: f.unique('Gifts'), campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 5000 } } });
    await f.ok('POST', '/v1/campaigns', {
      name: 'Friends',
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 1000 } },
      referral_program: { conversion_event_type: 'redemption', referee_reward: { related_object_parent: { id: giftCampaign.id, object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 } },
    });
    const referral = await f.ok('POST', '/v1/publications', { campaign: { name: 'Friends' }, customer: { source_id: f.unique('referrer') } });
    await f.ok('POST', `/v1/referrals/members/${referral.voucher.code}/holders`, { holders: [{ source_id: f.unique('referee') }] });
    // Loyalty tier and earning rule of the fixture program.
    const [loyaltyTier] = await f.ok('POST', `/v1/loyalties/${loyal.program.id}/tiers`, [{ name: 'Gold', points: { from: 5000 } }]);
    const [earningRule] = await f.ok('POST', `/v1/loyalties/${loyal.program.id}/earning-rules`, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } }]);
    // An async action and an export, run to the end by the worker (the export's download needs its file).
    const action = await f.ok('POST', '/v1/products/bulk/async', []);
    const exported = await f.ok('POST', '/v1/exports', { exported_object: 'voucher' });
    while (await t.worker.runOnce()) {
      // until no job is left
    }
    const done = await f.ok('GET', `/v1/exports/${exported.id}`);
    assert.equal(done.status, 'DONE', JSON.stringify(done));
    const template = await f.ok('POST', '/v1/templates/campaigns', { name: f.unique('template'), campaign_id: campaign.id });
    // Management objects, and a project user (the organisation's first admin).
    const mgmt = t.managementHeaders();
    const project = `/management/v1/projects/${t.projectId}`;
    const metadataSchema = await f.ok('POST', `${project}/metadata-schemas`, { related_object: 'customer', properties: { level: { type: 'number' } } }, mgmt);
    const eventSchema = await f.ok('POST', `${project}/custom-event-schemas`, { name: 'signed_up', schema: { properties: {} } }, mgmt);
    const webhook = await f.ok('POST', `${project}/webhooks`, { target_url: 'https://hooks.example.com/fixture', events: ['customer.created'] }, mgmt);
    const stackingRules = await f.ok('POST', `${project}/stacking-rules`, {}, mgmt);
    await createFirstAdmin(t);
    const user = await f.ok('GET', `${project}/users/${encodeURIComponent(ADMIN.email)}`, undefined, mgmt);
    // A project's branding (served with the customer cockpit), made from the vendor's example.
    const branding = t.app.hasRoute({ method: 'POST', url: '/management/v1/projects/:projectId/branding' })
      ? await f.ok('POST', `${project}/branding`, example('POST /management/v1/projects/{projectId}/branding'), mgmt)
      : null;
    if (branding) ids.brandingId = branding.id;
    Object.assign(ids, {
      campaign: campaign.id,
      code,
      promotion: promo.id,
      promotionTierId: tier.id,
      stackId: stack.id,
      loyalty: loyal.program.id,
      memberId: loyal.card.code,
      rewardId: loyal.reward.id,
      assignmentId: loyal.assignment.id,
      ruleAssignmentId: ruleAssignment.id,
      customerId: loyal.customer.id,
      productId: product.id,
      skuId: sku.id,
      productCollectionId: collection.id,
      validationRuleId: rule.id,
      segmentId: segment.id,
      categoryId: category.id,
      redemptionId: redemption.redemptions[0].id,
      orderId: order.id,
      projectId: t.projectId,
      referral: referral.voucher.campaign_id,
      referralCode: referral.voucher.code,
      loyaltyTierId: loyaltyTier.id,
      earningRuleId: earningRule.id,
      asyncActionId: action.async_action_id,
      exportId: exported.id,
      exportToken: new URL(done.result.url).searchParams.get('token') as string,
      campaignTemplateId: template.id,
      metadataSchemaId: metadataSchema.id,
      customEventSchemaId: eventSchema.id,
      webhookId: webhook.id,
      stackingRulesId: stackingRules.id,
      userId: user.id,
    });
  });
  after(async () => t.close());

  test('every served vendor read operation answers its success status in the vendor shape', async () => {
    assert.ok(served.length > 80, `${served.length} vendor GET operations are served`);
    const problems: string[] = [];
    let checked = 0;
    for (const op of served) {
      const key = `${op.method} ${op.path}`;
      if (EXCEPTIONS[key] !== undefined) continue;
      const request = READ_REQUESTS[key]?.(ids) ?? {};
      let url: string;
      try {
        url = concretePath(op.path, ids, request.params) + (request.query ? `?${request.query}` : '');
      } catch (error) {
        problems.push(`${key}: ${(error as Error).message}`);
        continue;
      }
      problems.push(...(await exercise(t, op, url)));
      checked++;
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 90, `${checked} of ${served.length} operations checked`);
  });

  test('the exceptions and requests name only operations that exist and are served', () => {
    const servedKeys = new Set(served.map((op) => `${op.method} ${op.path}`));
    const readDefects = Object.keys(SCHEMA_DEFECTS).filter((key) => key.startsWith('GET '));
    const readExceptions = Object.keys(EXCEPTIONS).filter((key) => key.startsWith('GET '));
    assert.deepEqual([...readExceptions, ...Object.keys(READ_REQUESTS), ...readDefects].filter((key) => !servedKeys.has(key)), []);
  });
});

/**
 * The vendor path with each parameter named by a fixture of the right kind: `params` first, then the
 * campaign by the path's area (loyalty program, promotion, referral program, else the discount campaign),
 * a referral path's member by the referral code, an assignment of a validation rule by the rule's.
 */
function concretePath(path: string, ids: Record<string, string>, params: Record<string, string> = {}): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const given = params[name];
    if (given !== undefined) return encodeURIComponent(given);
    const area = (prefix: string) => path.startsWith(prefix);
    let id: string | undefined;
    if (name === 'campaignId') id = area('/v1/loyalties') ? ids.loyalty : area('/v1/promotions') ? ids.promotion : area('/v1/referrals') ? ids.referral : ids.campaign;
    else if (name === 'memberId' && area('/v1/referrals')) id = ids.referralCode;
    else if (name === 'assignmentId' && area('/v1/validation-rules')) id = ids.ruleAssignmentId;
    else id = ids[name];
    assert.ok(id, `no fixture for {${name}} in ${path}`);
    return encodeURIComponent(id);
  });
}

/** What a sent request, as the vendor's client sends it, may carry: a JSON body, or a CSV file as multipart/form-data (part `file`). */
interface Sent {
  body?: unknown;
  csv?: string;
}

/**
 * Sends one vendor operation's request (with the key the path's API takes) and answers what does not
 * conform: a status other than the vendor's success status, and every way the answer breaks the vendor's
 * response schema, less the problems SCHEMA_DEFECTS lists for the operation.
 */
async function exercise(t: TestApp, op: VendorOperation, url: string, sent: Sent = {}): Promise<string[]> {
  const key = `${op.method} ${op.path}`;
  const status = Object.keys(op.doc.responses ?? {}).find((s) => s.startsWith('2')) ?? '200';
  const headers = op.path.startsWith('/management/') ? t.managementHeaders() : op.path.startsWith('/client/') ? t.clientHeaders() : undefined;
  let res: { status: number; text: string; body: Json };
  if (sent.csv !== undefined) {
    const form = new FormData();
    form.append('file', new Blob([sent.csv], { type: 'text/csv' }), 'import.csv');
    const response = await fetch(`${t.url}${url}`, { method: op.method, headers: t.serverHeaders(), body: form });
    const text = await response.text();
    res = { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
  } else {
    res = await t.request(op.method, url, { ...(headers ? { headers } : {}), ...(sent.body !== undefined ? { json: sent.body } : {}) });
  }
  if (String(res.status) !== status) return [`${key}: ${res.status} (vendor: ${status}) ${res.text.slice(0, 300)}`];
  if (!op.doc.responses?.[status]?.content?.['application/json']?.schema) return [];
  try {
    const ignoring = SCHEMA_DEFECTS[key]?.ignoring ?? [];
    return vendorResponseProblems(op.method, op.path, res.body as Json, status)
      .filter((p) => !ignoring.some((ignored) => p.startsWith(ignored)))
      .map((p) => `${key}: ${p}`);
  } catch (error) {
    return [`${key}: the vendor schema cannot be compiled: ${(error as Error).message}`];
  }
}

// Write operations (POST, PUT, DELETE). Each is sent the vendor's first example request (no body where the
// vendor gives none), with path parameters naming objects this block creates. WRITE_REQUESTS replaces that
// where the example names objects that do not exist here, where the vendor gives no example but the
// operation requires members (then its required members, with a value each), and where a call needs an
// object of its own (a delete of something still in use, an erasure). Creating and changing calls run
// first in the vendor document's order, deletes last, children before parents.

interface WriteContext {
  t: TestApp;
  f: ReturnType<typeof fixtures>;
  ids: Record<string, string>;
}
interface WriteRequest extends Sent {
  /** Path parameters replacing the shared fixtures'. */
  params?: Record<string, string>;
}
type WriteRequestBuilder = (c: WriteContext) => WriteRequest | Promise<WriteRequest>;

/** A copy of the vendor's first example request of `key`. */
function example(key: string): Json {
  const [method, path] = key.split(' ') as [string, string];
  const examples = loadVendorOpenApi().paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.examples ?? {};
  return structuredClone(Object.values(examples)[0]?.value);
}

/** The vendor example with the ids it names (made-up ones) replaced by this file's fixtures. */
function exampleWith(key: string, replacements: Record<string, string>): Json {
  let text = JSON.stringify(example(key));
  for (const [vendorId, ours] of Object.entries(replacements)) text = text.split(JSON.stringify(vendorId)).join(JSON.stringify(ours));
  return JSON.parse(text);
}

const IMAGE = 'https://example.com/image.png';

/**
 * `METHOD path` → the request sent instead of the generic one (see above). Most keep the vendor's example and
 * only name objects that exist here; the vendor's examples carry its Postman placeholders
 * (`{{internalVoucherifyURL}}`), dates now in the past and, in one place, a value its own request schema
 * does not allow (noted at the entry).
 */
export const WRITE_REQUESTS: Record<string, WriteRequestBuilder> = {
  'POST /v1/vouchers': ({ ids }) => ({ body: { ...example('POST /v1/vouchers'), campaign_id: ids.campaign, validation_rules: [ids.validationRuleId] } }),
  'POST /v1/vouchers/{code}': ({ f, ids }) => ({ params: { code: f.unique('NEW') }, body: { ...example('POST /v1/vouchers/{code}'), validation_rules: [ids.validationRuleId] } }),
  'POST /v1/vouchers/{code}/balance': ({ ids }) => ({ params: { code: ids.giftCode as string }, body: example('POST /v1/vouchers/{code}/balance') }),
  'POST /v1/vouchers/importCSV': () => ({ csv: 'Code,Voucher Type,Value,Discount Type,Category\nCONF-CSV-1,DISCOUNT_VOUCHER,1000,AMOUNT,First\n' }),
  'POST /v1/campaigns/{campaignId}/vouchers/{code}': ({ f, ids }) => ({ params: { code: f.unique('CAMP') }, body: { ...example('POST /v1/campaigns/{campaignId}/vouchers/{code}'), category_id: ids.categoryId } }),
  'POST /v1/campaigns/{campaignId}/importCSV': () => ({ csv: 'Code,Category,Active\nCONF-CAMP-CSV-1,First,true\n' }),
  'POST /v1/promotions/{campaignId}/tiers': ({ ids }) => ({ body: { ...example('POST /v1/promotions/{campaignId}/tiers'), validation_rules: [ids.validationRuleId] } }),
  'POST /v1/promotions/{campaignId}/stacks': ({ ids }) => ({ body: { ...example('POST /v1/promotions/{campaignId}/stacks'), tiers: { ids: (ids.tierIds as string).split(','), hierarchy_mode: 'MANUAL' } } }),
  'PUT /v1/promotions/{campaignId}/stacks/{stackId}': ({ ids }) => ({ body: { ...example('PUT /v1/promotions/{campaignId}/stacks/{stackId}'), tiers: { ids: (ids.tierIds as string).split(',').slice(0, 2), hierarchy_mode: 'MANUAL' } } }),
  'POST /v1/rewards': ({ ids }) => ({ body: exampleWith('POST /v1/rewards', { camp_hC2GdqYtOmTT45zfhib62cK1: ids.giftCampaign as string }) }),
  'PUT /v1/rewards/{rewardId}': ({ ids }) => ({ params: { rewardId: ids.campaignReward as string }, body: exampleWith('PUT /v1/rewards/{rewardId}', { camp_hC2GdqYtOmTT45zfhib62cK1: ids.giftCampaign as string }) }),
  'POST /v1/rewards/{rewardId}/assignments': ({ ids }) => ({ params: { rewardId: ids.campaignReward as string }, body: exampleWith('POST /v1/rewards/{rewardId}/assignments', { camp_OTuGGP90PivbvROsRvfM65El: ids.loyalty as string }) }),
  'PUT /v1/rewards/{rewardId}/assignments/{assignmentId}': ({ ids }) => ({ params: { rewardId: ids.materialReward as string, assignmentId: ids.materialAssignment as string }, body: example('PUT /v1/rewards/{rewardId}/assignments/{assignmentId}') }),
  // The example names both a voucher and a campaign: the voucher is published (the campaign is not read).
  'POST /v1/publications': async ({ f }) => ({ body: { ...example('POST /v1/publications'), voucher: (await f.amountVoucher(100)).code } }),
  'POST /v1/redemptions/{redemptionId}/rollback': ({ ids }) => ({ body: exampleWith('POST /v1/redemptions/{redemptionId}/rollback', { cust_SolpIN5N4oZbCnrxZ5NHrbVB: ids.customerId as string }) }),
  'POST /v1/redemptions/{parentRedemptionId}/rollbacks': ({ ids }) => ({ body: exampleWith('POST /v1/redemptions/{parentRedemptionId}/rollbacks', { cust_SolpIN5N4oZbCnrxZ5NHrbVB: ids.customerId as string }) }),
  'POST /v1/loyalties': ({ ids }) => ({ body: { ...example('POST /v1/loyalties'), category_id: ids.categoryId } }),
  // A program of its own: the example's dates and validity timeframe would close the shared one to the calls after it.
  'PUT /v1/loyalties/{campaignId}': ({ ids }) => ({ params: { campaignId: ids.spareLoyalty as string }, body: { ...example('PUT /v1/loyalties/{campaignId}'), category_id: ids.categoryId } }),
  'POST /v1/events': ({ ids }) => ({ body: referralEvent('POST /v1/events', ids) }),
  'POST /client/v1/events': ({ ids }) => ({ body: referralEvent('POST /client/v1/events', ids) }),
  // The example names the customer by a bare source_id (taken as the vendor does) and a card of its own project.
  'POST /v1/loyalties/{campaignId}/members': () => {
    const { voucher: _voucher, ...body } = example('POST /v1/loyalties/{campaignId}/members');
    return { body };
  },
  'POST /v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/activate': ({ ids }) => ({ params: { pendingPointsId: (ids.pendingPoints as string).split(',')[0] as string } }),
  'POST /v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/balance': ({ ids }) => ({ params: { pendingPointsId: (ids.pendingPoints as string).split(',')[1] as string }, body: example('POST /v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/balance') }),
  'POST /v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/cancel': ({ ids }) => ({ params: { pendingPointsId: (ids.pendingPoints as string).split(',')[2] as string } }),
  'POST /v1/loyalties/{campaignId}/members/{memberId}/balance': () => ({ body: { ...example('POST /v1/loyalties/{campaignId}/members/{memberId}/balance'), expiration_date: '2027-05-30' } }),
  'POST /v1/loyalties/{campaignId}/members/{memberId}/transfers': ({ ids }) => ({ body: [{ code: ids.otherMember, points: 1 }] }),
  'POST /v1/loyalties/{campaignId}/earning-rules': ({ ids }) => ({ body: rebound('POST /v1/loyalties/{campaignId}/earning-rules', ids) }),
  'PUT /v1/loyalties/{campaignId}/earning-rules/{earningRuleId}': ({ ids }) => ({ body: rebound('PUT /v1/loyalties/{campaignId}/earning-rules/{earningRuleId}', ids) }),
  'POST /v1/loyalties/{campaignId}/rewards': ({ ids }) => ({ body: [{ ...example('POST /v1/loyalties/{campaignId}/rewards')[0], reward: ids.spareReward }] }),
  'PUT /v1/loyalties/{campaignId}/rewards/{assignmentId}': ({ ids }) => ({ params: { assignmentId: ids.materialAssignment as string }, body: example('PUT /v1/loyalties/{campaignId}/rewards/{assignmentId}') }),
  'POST /v1/loyalties/{campaignId}/members/{memberId}/redemption': ({ ids }) => ({ body: redemptionOfReward('POST /v1/loyalties/{campaignId}/members/{memberId}/redemption', ids) }),
  'POST /v1/loyalties/members/{memberId}/redemption': ({ ids }) => ({ body: redemptionOfReward('POST /v1/loyalties/members/{memberId}/redemption', ids) }),
  'POST /v1/loyalties/{campaignId}/tiers': () => ({ body: [{ name: 'Bronze', points: { from: 0, to: 999 } }, { name: 'Silver', points: { from: 1000, to: 4999 } }] }),
  // Its own customer: the erasure removes the customer's orders and redemptions the other calls use.
  'POST /v1/customers/{customerId}/permanent-deletion': async ({ f }) => ({ params: { customerId: (await f.customer()).id } }),
  'POST /v1/customers/importCSV': () => ({ csv: 'Source_id,Name,Email\nconf-csv-1,Jane Doe,jane@example.com\n' }),
  'POST /v1/products': () => ({ body: { ...example('POST /v1/products'), image_url: IMAGE } }),
  'POST /v1/products/bulk/async': () => ({ body: example('POST /v1/products/bulk/async').map((product: Json) => ({ ...product, image_url: IMAGE })) }),
  'POST /v1/products/{productId}/skus': () => ({ body: { ...example('POST /v1/products/{productId}/skus'), image_url: IMAGE } }),
  'POST /v1/products/importCSV': () => ({ csv: 'name,source_id,price\nCSV product,conf-csv-prod,999\n' }),
  'POST /v1/skus/importCSV': ({ ids }) => ({ csv: `product_id,sku,source_id,price\n${ids.productId},CSV sku,conf-csv-sku,1500\n` }),
  'POST /v1/product-collections': ({ ids }) => ({ body: exampleWith('POST /v1/product-collections', { prod_0a41dd45dc85fcab40: ids.productId as string }) }),
  'POST /v1/validation-rules': ({ ids }) => ({ body: rebound('POST /v1/validation-rules', ids) }),
  'PUT /v1/validation-rules/{validationRuleId}': ({ ids }) => ({ body: rebound('PUT /v1/validation-rules/{validationRuleId}', ids) }),
  'POST /v1/validation-rules/{validationRuleId}/assignments': ({ ids }) => ({ body: exampleWith('POST /v1/validation-rules/{validationRuleId}/assignments', { '{{voucherId}}': ids.giftCode as string }) }),
  'POST /v1/segments': ({ ids }) => ({ body: rebound('POST /v1/segments', ids) }),
  // The vendor documents no example for these; their required members and a value each.
  'POST /v1/exports': () => ({ body: { exported_object: 'voucher', parameters: { fields: ['code', 'voucher_type'] } } }),
  'POST /v1/templates/campaigns': ({ ids }) => ({ body: { name: 'Conformance template', campaign_id: ids.campaign } }),
  'PUT /v1/templates/campaigns/{campaignTemplateId}': () => ({ body: { name: 'Conformance template, renamed' } }),
  'POST /v1/templates/campaigns/{campaignTemplateId}/tier-setup': ({ ids }) => ({ params: { campaignTemplateId: ids.tierTemplate as string }, body: { campaign_id: ids.promotion, name: 'From template' } }),
  'POST /management/v1/projects/{projectId}/templates/campaigns/{campaignTemplateId}/copy': ({ ids }) => ({ body: { name: 'Copied template', destination_project_id: ids.spareProject } }),
  'POST /management/v1/projects/users/invite': ({ ids }) => ({ body: { email: 'invitee@shop.example.com', first_name: 'Ivy', last_name: 'Invited', projects: { [ids.projectId as string]: 'USER' } } }),
  'POST /management/v1/projects': () => ({ body: { name: 'Conformance project', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' } }),
  'POST /management/v1/projects/{projectId}/metadata-schemas': () => ({ body: { related_object: 'order', properties: { channel: { type: 'string' } } } }),
  'PUT /management/v1/projects/{projectId}/metadata-schemas/{metadataSchemaId}': () => ({ body: { properties: { level: { type: 'number' }, tier: { type: 'string' } } } }),
  'POST /management/v1/projects/{projectId}/custom-event-schemas': () => ({ body: { name: 'conformance_event', schema: { properties: {} } } }),
  'PUT /management/v1/projects/{projectId}/custom-event-schemas/{customEventSchemaId}': () => ({ body: { schema: { properties: { plan: { type: 'string', optional: true } } } } }),
  'POST /management/v1/projects/{projectId}/webhooks': () => ({ body: { target_url: 'https://hooks.example.com/conformance', events: ['customer.created'] } }),
  'PUT /management/v1/projects/{projectId}/webhooks/{webhookId}': () => ({ body: { target_url: 'https://hooks.example.com/renamed', events: ['customer.created'] } }),
  'POST /v1/referrals/{campaignId}/members/{memberId}/holders': ({ ids }) => ({ params: { campaignId: ids.referral as string, memberId: ids.referralCode as string }, body: example('POST /v1/referrals/{campaignId}/members/{memberId}/holders') }),
  'POST /v1/referrals/members/{memberId}/holders': ({ f, ids }) => ({
    params: { memberId: ids.referralCode as string },
    // Other referees than the campaign-scoped call's example adds (the same ones would be duplicates).
    body: { ...example('POST /v1/referrals/members/{memberId}/holders'), holders: [{ source_id: f.unique('referee'), name: 'Alex Doe' }] },
  }),
  'DELETE /v1/referrals/{campaignId}/members/{memberId}/holders/{holderId}': ({ ids }) => ({ params: { campaignId: ids.referral as string, memberId: ids.referralCode as string, holderId: (ids.holders as string).split(',')[0] as string } }),
  'DELETE /v1/referrals/members/{memberId}/holders/{holderId}': ({ ids }) => ({ params: { memberId: ids.referralCode as string, holderId: (ids.holders as string).split(',')[1] as string } }),
  'DELETE /v1/promotions/tiers/{promotionTierId}': ({ ids }) => ({ params: { promotionTierId: ids.loneTier as string } }),
  'DELETE /v1/product-collections/{productCollectionId}': ({ ids }) => ({ params: { productCollectionId: ids.spareCollection as string } }),
  'DELETE /v1/vouchers/{code}/sessions/{sessionKey}': ({ ids }) => ({ params: { code: ids.sessionCode as string } }),
  'DELETE /management/v1/projects/{projectId}': ({ ids }) => ({ params: { projectId: ids.spareProject as string } }),
  'PUT /management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}': () => ({ body: { applicable_redeemables_limit: 10 } }),
  'DELETE /v1/loyalties/{campaignId}/rewards/{assignmentId}': ({ ids }) => ({ params: { assignmentId: ids.materialAssignment as string } }),
  // Project users: the invited user is given a role in the spare project, the role changed, and removed
  // from it again (the vendor documents no example request).
  'POST /management/v1/projects/{projectId}/users': ({ ids }) => ({ params: { projectId: ids.spareProject as string }, body: { login: 'member@shop.example.com', role: 'VIEWER' } }),
  'PUT /management/v1/projects/{projectId}/users/{userId}': ({ ids }) => ({ params: { projectId: ids.spareProject as string, userId: ids.memberUser as string }, body: { role: 'USER' } }),
  'DELETE /management/v1/projects/{projectId}/users/{userId}': ({ ids }) => ({ params: { projectId: ids.spareProject as string, userId: ids.memberUser as string } }),
};

/** The vendor's example event with its referral naming the fixture referral code and its referrer. */
function referralEvent(key: string, ids: Record<string, string>): Json {
  const body = example(key);
  return { ...body, referral: { code: ids.referralCode, referrer_id: ids.referrer } };
}

/**
 * Path parameters no fixture names, taken from the list above them (`…/branding/{brandingId}` → the first
 * id `GET …/branding` answers): objects a project holds one of, made by the create call before them.
 */
async function listedParams(t: TestApp, path: string, ids: Record<string, string>, given: Record<string, string> = {}): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g) as Iterable<[string, string]>) {
    if (name === 'campaignId' || ids[name] !== undefined || given[name] !== undefined) continue;
    const parent = path.slice(0, path.indexOf(`/{${name}}`));
    const list = await t.request('GET', concretePath(parent, ids, given), parent.startsWith('/management/') ? { headers: t.managementHeaders() } : {});
    const id = list.body?.data?.[0]?.id ?? list.body?.id;
    if (typeof id === 'string') found[name] = id;
  }
  return found;
}

/** A reward redemption with the vendor example's order, paid with the fixture program's coin reward. */
function redemptionOfReward(key: string, ids: Record<string, string>): Json {
  const body = example(key);
  return { ...body, reward: { ...body.reward, id: ids.rewardId }, order: { items: body.order.items.map((item: Json) => ({ ...item, product_id: ids.productId })) } };
}

/** The vendor example with every product, collection, SKU, validation rule, customer, segment and loyalty tier id it names replaced by a fixture of the kind. */
function rebound(key: string, ids: Record<string, string>): Json {
  const text = JSON.stringify(example(key))
    .replace(/"prod_[A-Za-z0-9]+"/g, JSON.stringify(ids.productId))
    .replace(/"pc_[A-Za-z0-9]+"/g, JSON.stringify(ids.productCollectionId))
    .replace(/"sku_[A-Za-z0-9]+"/g, JSON.stringify(ids.skuId))
    .replace(/"val_[A-Za-z0-9]+"/g, JSON.stringify(ids.validationRuleId))
    .replace(/"cust_[A-Za-z0-9]+"/g, JSON.stringify(ids.customerId))
    .replace(/"seg_[A-Za-z0-9]+"/g, JSON.stringify(ids.segmentId))
    .replace(/"ltr_[A-Za-z0-9]+"/g, JSON.stringify(ids.loyaltyTier));
  return JSON.parse(text);
}

/** Deletes last; among them, the longer (child) paths first, so a parent is deleted after its children. */
function writeOrder(a: VendorOperation, b: VendorOperation): number {
  const rank = (op: VendorOperation) => (op.method === 'DELETE' ? 1 : 0);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a.method === 'DELETE') return b.path.split('/').length - a.path.split('/').length;
  return 0;
}

describe('conformance with the vendor OpenAPI: write operations', { skip: !vendorSchemasAvailable && 'the vendor OpenAPI document is not on this machine' }, () => {
  let t: TestApp;
  let f: ReturnType<typeof fixtures>;
  const ids: Record<string, string> = {};
  let served: VendorOperation[] = [];

  before(async () => {
    t = await startTestApp();
    await t.allowClientActions();
    f = fixtures(t);
    served = vendorOperations(loadVendorOpenApi()).filter((op) => op.method !== 'GET' && t.app.hasRoute({ method: op.method as 'POST', url: routerTemplate(op.path) }));
    const campaign = await f.ok('POST', '/v1/campaigns', { name: 'Conformance', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 2, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const code = (await f.ok('GET', `/v1/vouchers?campaign_id=${campaign.id}`)).vouchers[0].code;
    const promo = await f.promotion([1, 2, 3].map((n) => ({ name: `Tier ${n}`, action: { discount: { type: 'AMOUNT', amount_off: 10 * n } } })));
    const tier = promo.promotion.tiers[0];
    const stack = await f.ok('POST', `/v1/promotions/${promo.id}/stacks`, { name: 'Stack', tiers: { ids: [tier.id], hierarchy_mode: 'MANUAL' } });
    const loyal = await f.payWithPoints(500);
    const product = await f.product(1000);
    const sku = await f.ok('POST', `/v1/products/${product.id}/skus`, { source_id: f.unique('sku'), sku: 'Size M', price: 1000 });
    const collection = await f.ok('POST', '/v1/product-collections', { name: f.unique('coll'), type: 'STATIC', products: [{ id: product.id, object: 'product' }] });
    const rule = await f.rule({ rules: { 1: { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1' } });
    const ruleAssignment = await f.assign(rule.id, { promotion_tier: tier.id });
    const segment = await f.ok('POST', '/v1/segments', { name: f.unique('seg'), type: 'static', customers: [loyal.customer.id] });
    const category = await f.category();
    // The rollbacks' vendor examples name the order `test_rollback_8`.
    const redemption = await f.ok('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: code }], order: { source_id: 'test_rollback_8', amount: 5000 }, customer: { id: loyal.customer.id } });
    const order = await f.ok('POST', '/v1/orders', { amount: 2000, customer: { id: loyal.customer.id } });
    // Objects the vendor's examples name by a name or code of the user's choosing. A voucher's `category`
    // would create the category it names; they exist beforehand so the examples all find one.
    for (const name of ['New Customers', 'Second', 'First', 'new customer acquisition']) await f.ok('POST', '/v1/categories', { name, hierarchy: 1 });
    await f.voucher({ discount: { type: 'AMOUNT', amount_off: 500 } }, 'BLCKFRDY');
    const gift = await f.giftCard(10000);
    const giftCampaign = await f.ok('POST', '/v1/campaigns', { name: f.unique('Gifts'), campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 5000 } } });
    const campaignReward = await f.ok('POST', '/v1/rewards', { name: f.unique('Gift reward'), type: 'CAMPAIGN', parameters: { campaign: { id: giftCampaign.id, balance: 1000 } } });
    const materialReward = await f.ok('POST', '/v1/rewards', { name: f.unique('Coffee'), type: 'MATERIAL', parameters: { product: { id: product.id } } });
    const materialAssignment = await f.ok('POST', `/v1/rewards/${materialReward.id}/assignments`, { campaign: loyal.program.id, parameters: { loyalty: { points: 10 } } });
    const spareReward = await f.ok('POST', '/v1/rewards', { name: f.unique('Tea'), type: 'MATERIAL', parameters: { product: { id: product.id } } });
    const other = await f.ok('POST', `/v1/loyalties/${loyal.program.id}/members`, { customer: { source_id: f.unique('other') } });
    await f.ok('POST', `/v1/loyalties/${loyal.program.id}/members/${other.code}/balance`, { points: 50 });
    // Pending points: an earning rule that holds order.paid points for 14 days, and three paid orders.
    const [earningRule] = await f.ok('POST', `/v1/loyalties/${loyal.program.id}/earning-rules`, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 }, pending_points: { period_type: 'DAY', period_value: 14 } }]);
    for (let n = 0; n < 3; n++) await f.ok('POST', '/v1/orders', { status: 'PAID', amount: 1000, customer: { id: loyal.customer.id } });
    const pending = await f.ok('GET', `/v1/loyalties/members/${loyal.card.code}/pending-points`);
    const stacked = await f.ok('POST', '/v1/redemptions', {
      redeemables: [{ object: 'voucher', id: (await f.amountVoucher(100)).code }, { object: 'voucher', id: (await f.amountVoucher(200)).code }],
      order: { source_id: 'test_rollback_8', amount: 5000 },
      customer: { id: loyal.customer.id },
    });
    await f.voucher({ discount: { type: 'AMOUNT', amount_off: 500 } }, 'voucher-code');
    const locked = await f.ok('POST', '/v1/validations', { redeemables: [{ object: 'voucher', id: (await f.amountVoucher(100)).code }], session: { type: 'LOCK' }, order: { amount: 1000 } });
    // A referral program, a published code and two referees to remove.
    await f.ok('POST', '/v1/campaigns', {
      name: 'Friends',
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 1000 } },
      referral_program: { conversion_event_type: 'redemption', referee_reward: { related_object_parent: { id: giftCampaign.id, object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 } },
    });
    const referral = await f.ok('POST', '/v1/publications', { campaign: { name: 'Friends' }, customer: { source_id: f.unique('referrer') } });
    const referees = await f.ok('POST', `/v1/referrals/members/${referral.voucher.code}/holders`, { holders: [{ source_id: f.unique('referee') }, { source_id: f.unique('referee') }] });
    const template = await f.ok('POST', '/v1/templates/campaigns', { name: f.unique('template'), campaign_id: campaign.id });
    const tierTemplate = await f.ok('POST', '/v1/templates/campaigns', { name: f.unique('template'), campaign_id: campaign.id });
    const mgmt = t.managementHeaders();
    const spareProject = await f.ok('POST', '/management/v1/projects', { name: f.unique('Spare'), case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' }, mgmt);
    const metadataSchema = await f.ok('POST', `/management/v1/projects/${t.projectId}/metadata-schemas`, { related_object: 'customer', properties: { level: { type: 'number' } } }, mgmt);
    const eventSchema = await f.ok('POST', `/management/v1/projects/${t.projectId}/custom-event-schemas`, { name: 'signed_up', schema: { properties: {} } }, mgmt);
    // The custom events the vendor's event examples send: an event needs its schema first (DECISIONS 24).
    for (const name of ['event-name', 'user_subscribed']) await f.ok('POST', `/management/v1/projects/${t.projectId}/custom-event-schemas`, { name, schema: { properties: {} } }, mgmt);
    const webhook = await f.ok('POST', `/management/v1/projects/${t.projectId}/webhooks`, { target_url: 'https://hooks.example.com/fixture', events: ['customer.created'] }, mgmt);
    // A console user (the organisation's first admin keeps the project administrable) and one to give roles.
    await createFirstAdmin(t);
    await f.ok('POST', '/management/v1/projects/users/invite', { email: 'member@shop.example.com', projects: { [t.projectId]: 'USER' } }, mgmt);
    const memberUser = await f.ok('GET', `/management/v1/projects/${t.projectId}/users/member@shop.example.com`, undefined, mgmt);
    // Objects of their own for deletes whose shared fixture is still in use by objects the calls made.
    const [loyaltyTier] = await f.ok('POST', `/v1/loyalties/${loyal.program.id}/tiers`, [{ name: 'Gold', points: { from: 5000 } }]);
    const loneTier = (await f.promotion([{ name: 'Alone', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }])).promotion.tiers[0];
    const spareCollection = await f.ok('POST', '/v1/product-collections', { name: f.unique('coll'), type: 'STATIC', products: [{ id: product.id, object: 'product' }] });
    const exported = await f.ok('POST', '/v1/exports', { exported_object: 'voucher' });
    const binned = await f.product(100);
    await f.ok('DELETE', `/v1/products/${binned.id}`);
    const binEntry = (await f.ok('GET', `/v1/trash-bin?filters[resource_id][conditions][$is]=${binned.id}`)).data[0];
    const spareLoyalty = await f.ok('POST', '/v1/loyalties', { name: f.unique('Spare loyalty'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    Object.assign(ids, {
      spareLoyalty: spareLoyalty.id,
      referrer: referral.customer_id ?? referral.customer?.id,
      loneTier: loneTier.id,
      loyaltyTier: loyaltyTier.id,
      spareCollection: spareCollection.id,
      exportId: exported.id,
      binEntryId: binEntry.id,
      sessionKey: locked.session.key,
      sessionCode: locked.redeemables[0].id,
      referral: referral.voucher.campaign_id,
      referralCode: referral.voucher.code,
      holders: referees.holders.map((holder: Json) => holder.id).join(','),
      campaignTemplateId: template.id,
      tierTemplate: tierTemplate.id,
      spareProject: spareProject.id,
      metadataSchemaId: metadataSchema.id,
      customEventSchemaId: eventSchema.id,
      webhookId: webhook.id,
      memberUser: memberUser.id,
    });
    Object.assign(ids, {
      giftCode: gift.code,
      giftCampaign: giftCampaign.id,
      tierIds: promo.promotion.tiers.map((tier: Json) => tier.id).join(','),
      campaignReward: campaignReward.id,
      materialReward: materialReward.id,
      materialAssignment: materialAssignment.id,
      spareReward: spareReward.id,
      otherMember: other.code,
      earningRuleId: earningRule.id,
      pendingPoints: pending.data.map((entry: Json) => entry.id).join(','),
      parentRedemptionId: stacked.parent_redemption.id,
    });
    Object.assign(ids, {
      campaign: campaign.id,
      code,
      promotion: promo.id,
      promotionTierId: tier.id,
      stackId: stack.id,
      loyalty: loyal.program.id,
      memberId: loyal.card.code,
      rewardId: loyal.reward.id,
      assignmentId: loyal.assignment.id,
      customerId: loyal.customer.id,
      productId: product.id,
      skuId: sku.id,
      productCollectionId: collection.id,
      validationRuleId: rule.id,
      ruleAssignmentId: ruleAssignment.id,
      segmentId: segment.id,
      categoryId: category.id,
      redemptionId: redemption.redemptions[0].id,
      orderId: order.id,
      projectId: t.projectId,
    });
  });
  after(async () => t.close());

  /** The vendor's first example request, or none. */
  const vendorExample = (op: VendorOperation): unknown => {
    const examples = op.doc.requestBody?.content?.['application/json']?.examples ?? {};
    return Object.values(examples)[0]?.value;
  };

  test('every served vendor write operation answers its success status in the vendor shape', async () => {
    assert.ok(served.length > 100, `${served.length} vendor write operations are served`);
    const problems: string[] = [];
    let checked = 0;
    for (const op of [...served].sort(writeOrder)) {
      const key = `${op.method} ${op.path}`;
      if (EXCEPTIONS[key] !== undefined) continue;
      let request: WriteRequest;
      let url: string;
      try {
        request = WRITE_REQUESTS[key] ? await WRITE_REQUESTS[key]({ t, f, ids }) : { body: vendorExample(op) };
        url = concretePath(op.path, ids, { ...(await listedParams(t, op.path, ids, request.params)), ...request.params });
      } catch (error) {
        problems.push(`${key}: its fixture failed: ${(error as Error).message.slice(0, 300)}`);
        continue;
      }
      problems.push(...(await exercise(t, op, url, request)));
      checked++;
    }
    assert.ok(checked > 120, `${checked} operations checked`);
    assert.deepEqual(problems, []);
  });

  test('the write exceptions and requests name only operations that exist and are served', () => {
    const servedKeys = new Set(served.map((op) => `${op.method} ${op.path}`));
    const writeDefects = Object.keys(SCHEMA_DEFECTS).filter((key) => !key.startsWith('GET '));
    const writeExceptions = Object.keys(EXCEPTIONS).filter((key) => !key.startsWith('GET '));
    assert.deepEqual([...writeExceptions, ...Object.keys(WRITE_REQUESTS), ...writeDefects].filter((key) => !servedKeys.has(key)), []);
    assert.deepEqual(Object.keys(WRITE_REQUESTS).filter((key) => EXCEPTIONS[key] !== undefined), [], 'an operation is either skipped or given a request');
  });
});
