import type { Api } from '../scripts/lib/http-client.ts';
import { str, type JsonObject } from '../scripts/lib/json.ts';

// The small, hand-made part of the benchmark data, created through the public API exactly as a merchant
// would: a product catalogue, a coupon campaign (its bulk codes come later), a promotion with one tier
// guarded by a validation rule, a loyalty program with members holding points, and one template
// customer. Everything large is then seeded in bulk from these (bench/seed.ts).

export const COUPON_CAMPAIGN = 'Bench Coupons';
export const PROMOTION_CAMPAIGN = 'Bench Promotion';
export const LOYALTY_PROGRAM = 'Bench Loyalty';
export const PRODUCT_COUNT = 20;
/** Points every member card starts the run with (through the balance endpoint, so the ledger has them). */
export const MEMBER_START_POINTS = 1_000_000;

export interface Fixtures {
  products: Array<{ id: string; sourceId: string; price: number }>;
  coupon: { campaignId: string; templateCode: string };
  promotion: { campaignId: string; tierId: string };
  loyalty: { campaignId: string; cards: string[] };
}

export function productSourceId(i: number): string {
  return `bench-prod-${String(i).padStart(3, '0')}`;
}

/** The 5-item order every redemption and validation carries (prices come from the catalogue). */
export function benchOrder(products: Fixtures['products'], seed: number): JsonObject {
  const items: JsonObject[] = [];
  for (let k = 0; k < 5; k++) {
    const p = products[(seed + k * 7) % products.length];
    if (!p) throw new Error('no products');
    items.push({ source_id: p.sourceId, quantity: 1 + ((seed + k) % 3) });
  }
  return { items };
}

export async function createFixtures(api: Api, options: { members: number }): Promise<Fixtures> {
  const products: Fixtures['products'] = [];
  for (let i = 0; i < PRODUCT_COUNT; i++) {
    const price = 500 + ((i * 733) % 4500);
    const created = await api.ok('POST', '/v1/products', { source_id: productSourceId(i), name: `Bench product ${i}`, price, metadata: { shelf: i % 4 } });
    products.push({ id: str(created, 'id'), sourceId: productSourceId(i), price });
  }

  // Single-use codes with a percentage discount, the commonest coupon campaign; one code is made here
  // (synchronously) to serve as the template of the bulk-seeded redemptions.
  const coupons = await api.ok('POST', '/v1/campaigns', {
    name: COUPON_CAMPAIGN,
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 1,
    voucher: {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 10 },
      redemption: { quantity: 1 },
      code_config: { length: 10, charset: 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789', prefix: 'BC-' },
    },
    metadata: { channel: 'newsletter' },
  });
  const couponCampaignId = str(coupons, 'id');
  const listed = await api.ok('GET', `/v1/vouchers?campaign_id=${couponCampaignId}&limit=1`);
  const templateCode = str(listed, 'vouchers', 0, 'code');

  const rule = await api.ok('POST', '/v1/validation-rules', {
    name: 'Bench: orders over 10.00',
    rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] }, rules: {} }, logic: '1' },
  });
  const promotion = await api.ok('POST', '/v1/campaigns', {
    name: PROMOTION_CAMPAIGN,
    campaign_type: 'PROMOTION',
    promotion: {
      tiers: [
        {
          name: '5.00 off orders over 10.00',
          banner: '5 off',
          action: { discount: { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ORDER' } },
          validation_rules: [str(rule, 'id')],
        },
      ],
    },
  });
  const tierId = str(promotion, 'promotion', 'tiers', 0, 'id');

  const program = await api.ok('POST', '/v1/loyalties', {
    name: LOYALTY_PROGRAM,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { length: 10, prefix: 'LC-' } },
  });
  const programId = str(program, 'id');
  const cards: string[] = new Array<string>(options.members);
  await inParallel(options.members, 8, async (i) => {
    const customer = await api.ok('POST', '/v1/customers', { source_id: `bench-member-${i}`, name: `Member ${i}`, email: `member${i}@bench.example` });
    const card = await api.ok('POST', `/v1/loyalties/${programId}/members`, { customer: { id: str(customer, 'id') } });
    const code = str(card, 'code');
    await api.ok('POST', `/v1/loyalties/${programId}/members/${code}/balance`, { points: MEMBER_START_POINTS, source_id: `bench-start-${i}` });
    cards[i] = code;
  });

  return {
    products,
    coupon: { campaignId: couponCampaignId, templateCode },
    promotion: { campaignId: str(promotion, 'id'), tierId },
    loyalty: { campaignId: programId, cards },
  };
}

/** Runs `work` for 0..count-1 with at most `parallel` in flight. */
async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(parallel, count) }, async () => {
    while (next < count) {
      const i = next++;
      await work(i);
    }
  });
  await Promise.all(lanes);
}
