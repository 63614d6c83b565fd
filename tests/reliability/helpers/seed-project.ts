import assert from 'node:assert/strict';
import { Api, type HttpClient } from '../../../scripts/lib/http-client.ts';
import { isObject, list, str } from '../../../scripts/lib/json.ts';
import { CLIENT_ACTIONS_ON } from '../../helpers/client-actions.ts';
import { clientHeaders, managementHeaders, serverHeaders, type KeyPair } from '../../../scripts/lib/keys.ts';
import { unique } from './api-builders.ts';

// One project filled with one object of every kind a path parameter can name, made through the public
// API. The sweeps use it twice: the malformed-input sweep aims its requests at real objects (so handlers
// run on real rows), and the tenancy sweep seeds two such projects and crosses their ids and keys.
// Every name, email and metadata value carries the project's marker, so an answer that leaks this
// project's data to another project is recognisable by text alone.

export interface SeededProject {
  projectId: string;
  server: KeyPair;
  client: KeyPair;
  marker: string;
  /** Object ids by the kind a path parameter asks for (see `pathValue`). */
  ids: Record<SeedKind, string>;
  /** Every id any seeding answer contained: none of them may appear in another project's answers. */
  allIds: Set<string>;
}

export type SeedKind =
  | 'project'
  | 'customer'
  | 'product'
  | 'sku'
  | 'category'
  | 'binEntry'
  | 'order'
  | 'campaign'
  | 'campaignVoucherCode'
  | 'voucherCode'
  | 'giftCode'
  | 'sessionVoucherCode'
  | 'sessionKey'
  | 'loyaltyProgram'
  | 'memberCode'
  | 'pendingPoints'
  | 'asset'
  | 'earningRule'
  | 'loyaltyTier'
  | 'reward'
  | 'rewardAssignment'
  | 'asyncAction'
  | 'referralProgram'
  | 'referralCode'
  | 'holder'
  | 'referralTier'
  | 'validationRule'
  | 'validationRuleAssignment'
  | 'segment'
  | 'productCollection'
  | 'webhook'
  | 'webhookDelivery'
  | 'customEventSchema'
  | 'metadataSchema'
  | 'metadataResource'
  | 'export'
  | 'promotionCampaign'
  | 'promotionTier'
  | 'promotionStack'
  | 'redemption'
  | 'stackingRules'
  | 'campaignTemplate'
  | 'consent'
  | 'consentGroup'
  | 'location'
  | 'apiKey'
  | 'user'
  | 'branding';

const ID_PATTERN = /^[a-z]{1,8}_[0-9A-Za-z]{12,}$/;

function collectIds(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 20) return;
  if (typeof value === 'string') {
    if (ID_PATTERN.test(value)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectIds(item, into, depth + 1);
  } else if (isObject(value)) {
    for (const item of Object.values(value)) collectIds(item, into, depth + 1);
  }
}

/**
 * Seeds the project whose keys are given (the default project when `keys` is omitted). `projectId` is
 * needed for the management routes.
 */
export async function seedProject(http: HttpClient, projectId: string, keys: { server: KeyPair; client: KeyPair }, label: string): Promise<SeededProject> {
  const marker = `${label}-secret-${unique('m').slice(2)}`;
  const allIds = new Set<string>([projectId]);
  const api = new Api(http, serverHeaders(keys.server));
  const mgmt = new Api(http, managementHeaders());
  const ok = async (target: Api, method: string, path: string, json?: unknown): Promise<unknown> => {
    const body = await target.ok(method, path, json);
    collectIds(body, allIds);
    return body;
  };
  const meta = { tenant: marker };
  const name = (what: string) => `${what} ${marker}`;

  const customer = await ok(api, 'POST', '/v1/customers', { source_id: unique(`${label}-cust`), name: name('Customer'), email: `${marker}@example.com`, metadata: meta });
  const customerId = str(customer, 'id');
  const customerSource = str(customer, 'source_id');
  const category = await ok(api, 'POST', '/v1/categories', { name: name('Category'), hierarchy: 1 });
  const product = await ok(api, 'POST', '/v1/products', { source_id: unique(`${label}-prod`), name: name('Product'), price: 2500, metadata: meta });
  const productId = str(product, 'id');
  const sku = await ok(api, 'POST', `/v1/products/${productId}/skus`, { source_id: unique(`${label}-sku`), sku: name('Sku'), price: 2600 });
  // A product deleted without force lands in the bin (DECISIONS 9).
  const binned = await ok(api, 'POST', '/v1/products', { source_id: unique(`${label}-binned`), name: name('Binned'), metadata: meta });
  assert.equal((await api.call('DELETE', `/v1/products/${str(binned, 'id')}`)).status, 204);
  const bin = await ok(api, 'GET', '/v1/trash-bin');
  const binEntry = str(list(bin, 'data')[0], 'id');

  const campaign = await ok(api, 'POST', '/v1/campaigns', {
    name: name('Coupons'),
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 2,
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    metadata: meta,
  });
  const campaignId = str(campaign, 'id');
  const campaignVouchers = await ok(api, 'GET', `/v1/vouchers?campaign_id=${campaignId}&limit=5`);
  const campaignVoucherCode = str(list(campaignVouchers, 'vouchers')[0], 'code');
  const voucher = await ok(api, 'POST', `/v1/vouchers/${unique(`${label.toUpperCase()}-CODE`)}`, {
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 500 },
    metadata: meta,
  });
  const voucherCode = str(voucher, 'code');
  const gift = await ok(api, 'POST', `/v1/vouchers/${unique(`${label.toUpperCase()}-GIFT`)}`, { type: 'GIFT_VOUCHER', gift: { amount: 10_000 }, metadata: meta });
  const giftCode = str(gift, 'code');
  await ok(api, 'POST', `/v1/vouchers/${giftCode}/balance`, { amount: 500, source_id: unique('topup') });

  const order = await ok(api, 'POST', '/v1/orders', { source_id: unique(`${label}-order`), amount: 5000, customer: { id: customerId }, metadata: meta });
  const redemption = await ok(api, 'POST', '/v1/redemptions', {
    redeemables: [{ object: 'voucher', id: voucherCode }],
    order: { amount: 4000, metadata: meta },
    customer: { id: customerId },
    metadata: meta,
  });
  const redemptionId = str(redemption, 'redemptions', 0, 'id');
  const sessionVoucher = await ok(api, 'POST', `/v1/vouchers/${unique(`${label.toUpperCase()}-LOCK`)}`, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
  const sessionVoucherCode = str(sessionVoucher, 'code');
  const validation = await ok(api, 'POST', '/v1/validations', { redeemables: [{ object: 'voucher', id: sessionVoucherCode }], order: { amount: 1000 }, session: { type: 'LOCK' } });
  const sessionKey = str(validation, 'session', 'key');

  const program = await ok(api, 'POST', '/v1/loyalties', { name: name('Loyalty'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, metadata: meta });
  const programId = str(program, 'id');
  const [earningRule] = list(await ok(api, 'POST', `/v1/loyalties/${programId}/earning-rules`, [
    { loyalty: { type: 'FIXED', points: 40 }, pending_points: { period_type: 'DAY', period_value: 14 }, metadata: meta },
  ]));
  const [tier] = list(await ok(api, 'POST', `/v1/loyalties/${programId}/tiers`, [{ name: name('Base'), points: { from: 0, to: null }, metadata: meta }]));
  const card = await ok(api, 'POST', `/v1/loyalties/${programId}/members`, { customer: { id: customerId }, metadata: meta });
  const memberCode = str(card, 'code');
  await ok(api, 'POST', `/v1/loyalties/members/${memberCode}/balance`, { points: 1000, expiration_type: 'NON_EXPIRING', source_id: unique('seed') });
  // A paid order of the member earns pending points through the rule above.
  await ok(api, 'POST', '/v1/orders', { source_id: unique(`${label}-paid`), amount: 3000, status: 'PAID', customer: { id: customerId } });
  const pending = await ok(api, 'GET', `/v1/loyalties/members/${memberCode}/pending-points`);
  const pendingPoints = str(list(pending, 'data')[0], 'id');
  const qrUrl = str(card, 'assets', 'qr', 'url');
  const asset = decodeURIComponent(new URL(qrUrl).pathname.split('/').pop() ?? '');
  const rewardProduct = await ok(api, 'POST', '/v1/products', { source_id: unique(`${label}-prize`), name: name('Prize'), price: 1500 });
  const reward = await ok(api, 'POST', '/v1/rewards', { name: name('Reward'), parameters: { product: { id: str(rewardProduct, 'id') } }, stock: 100, metadata: meta });
  const rewardId = str(reward, 'id');
  const assignment = await ok(api, 'POST', `/v1/rewards/${rewardId}/assignments`, { campaign: programId, parameters: { loyalty: { points: 10 } } });
  await ok(api, 'POST', `/v1/loyalties/members/${memberCode}/redemption`, { reward: { id: rewardId } });

  const giftCampaign = await ok(api, 'POST', '/v1/campaigns', {
    name: name('Referee gifts'),
    campaign_type: 'GIFT_VOUCHERS',
    vouchers_count: 0,
    voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } },
  });
  const referral = await ok(api, 'POST', '/v1/campaigns', {
    name: name('Referrals'),
    campaign_type: 'REFERRAL_PROGRAM',
    vouchers_count: 2,
    voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 1000 } },
    referral_program: { conversion_event_type: 'redemption', referee_reward: { related_object_parent: { id: str(giftCampaign, 'id'), object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 } },
  });
  const referralId = str(referral, 'id');
  const publication = await ok(api, 'POST', '/v1/publications', { campaign: { name: name('Referrals') }, customer: { id: customerId } });
  const referralCode = str(publication, 'voucher', 'code');
  const holders = await ok(api, 'GET', `/v1/referrals/${referralId}/members/${referralCode}/holders`);
  const holder = str(list(holders, 'data')[0], 'id');
  const referralTier = await ok(api, 'POST', `/v1/referrals/${referralId}/tiers`, {
    conversions: 3,
    banner: name('Tier'),
    parameters: { reward: { related_object_parent: { id: str(giftCampaign, 'id'), object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 } },
    metadata: meta,
  });

  const rule = await ok(api, 'POST', '/v1/validation-rules', {
    name: name('Rule'),
    rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] }, rules: {} }, logic: '1' },
  });
  const ruleId = str(rule, 'id');
  const ruleAssignment = await ok(api, 'POST', `/v1/validation-rules/${ruleId}/assignments`, { related_object_type: 'campaign', related_object_id: campaignId });
  const segment = await ok(api, 'POST', '/v1/segments', { name: name('Segment'), type: 'static', customers: [customerId] });
  const collection = await ok(api, 'POST', '/v1/product-collections', { name: name('Collection'), type: 'STATIC', products: [{ id: productId, object: 'product' }] });

  const promotion = await ok(api, 'POST', '/v1/campaigns', {
    name: name('Promotion'),
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: name('Tier one'), action: { discount: { type: 'PERCENT', percent_off: 5 } } }, { name: name('Tier two'), action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
  });
  const promotionId = str(promotion, 'id');
  const tiers = list(await ok(api, 'GET', `/v1/promotions/${promotionId}/tiers`), 'tiers').map((t) => str(t, 'id'));
  const stack = await ok(api, 'POST', `/v1/promotions/${promotionId}/stacks`, { name: name('Stack'), tiers: { ids: tiers, hierarchy_mode: 'MANUAL' } });

  const exported = await ok(api, 'POST', '/v1/exports', { exported_object: 'customer' });
  const asyncAction = await ok(api, 'POST', '/v1/customers/metadata/async', { source_ids: [customerSource], metadata: meta });

  const webhook = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/webhooks`, { target_url: `https://hooks.example.com/${label}`, events: ['customer.created'], active: false });
  const eventSchema = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/custom-event-schemas`, { name: `${label}_event`, schema: { properties: { plan: { type: 'string', optional: true } } } });
  const metadataSchema = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/metadata-schemas`, { related_object: 'product', properties: { tenant: { type: 'string', optional: true } } });
  const stacking = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/stacking-rules`, { redeemables_application_mode: 'ALL' });
  const campaignTemplate = await ok(api, 'POST', '/v1/templates/campaigns', { name: name('Template'), description: marker, campaign_id: campaignId });
  const consent = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/consents`, { name: name('Consent'), description: marker });
  const consentGroup = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/consent-groups`, { name: name('Consents'), consents: [str(consent, 'id')] });
  await ok(api, 'PUT', `/v1/customers/${customerId}/consents`, { [str(consent, 'id')]: true });
  const branding = await ok(mgmt, 'POST', `/management/v1/projects/${projectId}/branding`, { brand: { name: name('Brand'), permission_reminder: marker } });
  // A console user invited into this project only (the invitation answers 204; the list gives the id).
  const userEmail = `${unique(label).toLowerCase()}-viewer@example.com`;
  await ok(mgmt, 'POST', '/management/v1/projects/users/invite', { email: userEmail, first_name: marker, projects: { [projectId]: 'VIEWER' } });
  const user = list(await ok(mgmt, 'GET', `/management/v1/projects/${projectId}/users`), 'data').find((u) => isObject(u) && u.email === userEmail);
  assert.ok(isObject(user), `the invited user ${userEmail} is listed in its project`);
  // Client-side actions are off in a new project (the default one too); the sweeps cover them all.
  await ok(mgmt, 'PUT', `/management/v1/projects/${projectId}`, CLIENT_ACTIONS_ON);
  // A client-side customer proves the client keys work before a sweep relies on them.
  const clientApi = new Api(http, clientHeaders(keys.client));
  await ok(clientApi, 'POST', '/client/v1/customers', { source_id: unique(`${label}-client`), name: name('Client customer') });

  const ids: Record<SeedKind, string> = {
    project: projectId,
    customer: customerId,
    product: productId,
    sku: str(sku, 'id'),
    category: str(category, 'id'),
    binEntry,
    order: str(order, 'id'),
    campaign: campaignId,
    campaignVoucherCode,
    voucherCode,
    giftCode,
    sessionVoucherCode,
    sessionKey,
    loyaltyProgram: programId,
    memberCode,
    pendingPoints,
    asset,
    earningRule: str(earningRule, 'id'),
    loyaltyTier: str(tier, 'id'),
    reward: rewardId,
    rewardAssignment: str(assignment, 'id'),
    asyncAction: str(asyncAction, 'async_action_id'),
    referralProgram: referralId,
    referralCode,
    holder,
    referralTier: str(referralTier, 'id'),
    validationRule: ruleId,
    validationRuleAssignment: str(ruleAssignment, 'id'),
    segment: str(segment, 'id'),
    productCollection: str(collection, 'id'),
    webhook: str(webhook, 'id'),
    // Deliveries are made by the worker from the event log, after the seed; the sweeps need a path that
    // routes, and a delivery id of the right shape that names none answers 404 like any unknown object.
    webhookDelivery: 'whs_000000000000000000000000',
    customEventSchema: str(eventSchema, 'id'),
    metadataSchema: str(metadataSchema, 'id'),
    metadataResource: 'product',
    export: str(exported, 'id'),
    promotionCampaign: promotionId,
    promotionTier: tiers[0] ?? '',
    promotionStack: str(stack, 'id'),
    redemption: redemptionId,
    stackingRules: str(stacking, 'id'),
    campaignTemplate: str(campaignTemplate, 'id'),
    consent: str(consent, 'id'),
    consentGroup: str(consentGroup, 'id'),
    // Nothing creates a location (src/services/locations): the same unknown id in every project, which the
    // tenancy sweep then leaves alone (there is no object whose isolation it could check).
    location: 'loc_000000000000000000000000',
    // The sweeps never rotate a real key: a request they expect to be refused that a rotation accepted
    // would cut the project's keys for every request after it. An unknown key id, like the location.
    apiKey: 'key_000000000000000000000000',
    user: str(user, 'id'),
    branding: str(branding, 'id'),
  };
  for (const value of Object.values(ids)) if (ID_PATTERN.test(value)) allIds.add(value);
  return { projectId, server: keys.server, client: keys.client, marker, ids, allIds };
}

/**
 * The seeded value for one path parameter of one route. The route's prefix decides which kind of
 * campaign, member or assignment is meant; an unknown parameter name fails loudly, so a new route
 * cannot slip past the sweeps without a seeded object.
 */
export function pathValue(template: string, param: string, ids: Record<SeedKind, string>): string {
  const under = (prefix: string) => template.startsWith(prefix);
  switch (param) {
    case 'projectId':
      return ids.project;
    case 'customerId':
      return ids.customer;
    case 'productId':
      return ids.product;
    case 'skuId':
      return ids.sku;
    case 'categoryId':
      return ids.category;
    case 'binEntryId':
      return ids.binEntry;
    case 'orderId':
      return ids.order;
    case 'campaignId':
      if (under('/v1/loyalties')) return ids.loyaltyProgram;
      if (under('/v1/promotions')) return ids.promotionCampaign;
      if (under('/v1/referrals')) return ids.referralProgram;
      return ids.campaign;
    case 'code':
      if (template.includes('/sessions/')) return ids.sessionVoucherCode;
      if (under('/v1/campaigns/{campaignId}/vouchers')) return ids.campaignVoucherCode;
      return ids.voucherCode;
    case 'sessionKey':
      return ids.sessionKey;
    case 'memberId':
      return under('/v1/referrals') ? ids.referralCode : ids.memberCode;
    case 'pendingPointsId':
      return ids.pendingPoints;
    case 'assetId':
      return ids.asset;
    case 'earningRuleId':
      return ids.earningRule;
    case 'loyaltyTierId':
      return ids.loyaltyTier;
    case 'rewardId':
      return ids.reward;
    case 'assignmentId':
      return under('/v1/validation-rules') ? ids.validationRuleAssignment : ids.rewardAssignment;
    case 'asyncActionId':
      return ids.asyncAction;
    case 'holderId':
      return ids.holder;
    case 'tierId':
      return ids.referralTier;
    case 'validationRuleId':
      return ids.validationRule;
    case 'segmentId':
      return ids.segment;
    case 'productCollectionId':
      return ids.productCollection;
    case 'deliveryId':
      return ids.webhookDelivery;
    case 'webhookId':
      return ids.webhook;
    case 'customEventSchemaId':
      return ids.customEventSchema;
    case 'metadataSchemaId':
      return ids.metadataSchema;
    case 'resource':
      return ids.metadataResource;
    case 'exportId':
      return ids.export;
    case 'promotionTierId':
      return ids.promotionTier;
    case 'stackId':
      return ids.promotionStack;
    case 'redemptionId':
      return ids.redemption;
    case 'stackingRulesId':
      return ids.stackingRules;
    case 'campaignTemplateId':
      return ids.campaignTemplate;
    case 'consentId':
      return ids.consent;
    case 'consentGroupId':
      return ids.consentGroup;
    case 'locationId':
      return ids.location;
    case 'userId':
      return ids.user;
    case 'keyId':
      return ids.apiKey;
    case 'brandingId':
      return ids.branding;
    default:
      throw new Error(`no seeded object for path parameter {${param}} of ${template}: add one to tests/reliability/helpers/seed-project.ts`);
  }
}

/** Fills a path template with seeded values (URL-encoded). */
export function fillPath(template: string, ids: Record<SeedKind, string>, override: (param: string) => string | undefined = () => undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, param: string) => override(param) ?? encodeURIComponent(pathValue(template, param, ids)));
}
