import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

// A shop with one customer who holds something of everything the cockpit shows, made through the API as
// a shop would: a loyalty card with points in a program with tiers and rewards, a published coupon, a
// gift card, a referral code, and the project's consents and branding.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface CockpitShop {
  customer: Json;
  card: string;
  programId: string;
  rewardId: string;
  /** The reward's price in points. */
  price: number;
  coupon: string;
  giftCard: string;
  referralCode: string;
  newsletter: Json;
  sms: Json;
}

let shops = 0;

export async function ok(t: TestApp, method: string, path: string, json?: unknown, headers?: Record<string, string>): Promise<Json> {
  const res = await t.request(method, path, { ...(json === undefined ? {} : { json }), ...(headers ? { headers } : {}) });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** The shop; `points` is the card's balance. */
export async function cockpitShop(t: TestApp, points = 350): Promise<CockpitShop> {
  const n = ++shops;
  const customer = await ok(t, 'POST', '/v1/customers', { source_id: `cockpit-${n}`, name: 'Ada Lovelace', email: `ada${n}@example.com` });

  const program = await ok(t, 'POST', '/v1/loyalties', { name: `Bean Points ${n}`, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
  await ok(t, 'POST', `/v1/loyalties/${program.id}/tiers`, [
    { name: 'Silver', points: { from: 1, to: 499 } },
    { name: 'Gold', points: { from: 500, to: 100000 } },
  ]);
  const product = await ok(t, 'POST', '/v1/products', { source_id: `flat-white-${n}`, name: 'Flat white', price: 350 });
  const reward = await ok(t, 'POST', '/v1/rewards', { name: 'Free flat white', parameters: { product: { id: product.id } }, stock: 50 });
  const price = 200;
  await ok(t, 'POST', `/v1/rewards/${reward.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: price } } });
  const dear = await ok(t, 'POST', '/v1/rewards', { name: 'Bag of beans', parameters: { product: { id: product.id } } });
  await ok(t, 'POST', `/v1/rewards/${dear.id}/assignments`, { campaign: program.id, parameters: { loyalty: { points: 5000 } } });
  const card = await ok(t, 'POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
  if (points > 0) await ok(t, 'POST', `/v1/loyalties/${program.id}/members/${card.code}/balance`, { points, reason: 'Welcome bonus' });

  const coupons = await ok(t, 'POST', '/v1/campaigns', {
    name: `Ten off ${n}`,
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 2,
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    expiration_date: '2030-12-31T23:59:59.000Z',
  });
  const coupon = await ok(t, 'POST', '/v1/publications', { campaign: { id: coupons.id }, customer: { id: customer.id } });
  const gifts = await ok(t, 'POST', '/v1/campaigns', { name: `Gift cards ${n}`, campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2500 } } });
  const gift = await ok(t, 'POST', '/v1/publications', { campaign: { id: gifts.id }, customer: { id: customer.id } });
  const friends = await ok(t, 'POST', '/v1/campaigns', {
    name: `Bring a friend ${n}`,
    campaign_type: 'REFERRAL_PROGRAM',
    vouchers_count: 1,
    voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 500 } },
    referral_program: { conversion_event_type: 'redemption' },
  });
  const referral = await ok(t, 'POST', '/v1/publications', { campaign: { id: friends.id }, customer: { id: customer.id } });

  const management = (path: string, json: unknown) => ok(t, 'POST', `/management/v1/projects/${t.projectId}${path}`, json, t.managementHeaders());
  const existing = await ok(t, 'GET', '/v1/consents');
  const named = (name: string) => existing.consents.data.find((c: Json) => c.name === name);
  const newsletter = named('Newsletter') ?? (await management('/consents', { name: 'Newsletter', description: 'Offers by e-mail, once a week', category: 'marketing' }));
  const sms = named('Text messages') ?? (await management('/consents', { name: 'Text messages', description: 'Order updates by SMS' }));
  await ok(t, 'PUT', `/v1/customers/${customer.id}/consents`, { [newsletter.id]: true });

  const codeOf = (publication: Json) => publication.voucher?.code ?? publication.vouchers?.[0]?.code;
  return {
    customer: await ok(t, 'GET', `/v1/customers/${customer.id}`),
    card: card.code,
    programId: program.id,
    rewardId: reward.id,
    price,
    coupon: codeOf(coupon),
    giftCard: codeOf(gift),
    referralCode: codeOf(referral),
    newsletter,
    sms,
  };
}

/** The token in a cockpit link (after `#token=`). */
export function tokenOf(url: string): string {
  const hash = new URL(url).hash;
  assert.match(hash, /^#token=/);
  return decodeURIComponent(hash.slice('#token='.length));
}
