import type { RawRequest } from 'autocannon';
import { clientHeaders, serverHeaders } from '../scripts/lib/keys.ts';
import { benchOrder, COUPON_CAMPAIGN, type Fixtures } from './fixtures.ts';
import { customerSourceId } from './seed.ts';

// The measured scenarios. Each request is built just before it is sent, from pools read out of the
// seeded database, so requests spread over many rows the way real traffic does:
// - redeem: every request redeems a different, never-used single-use coupon of the 1M-code campaign
//   together with the promotion tier, for a random one of the 100k customers, with a 5-item order. That
//   is how unique coupon codes are used (one code per shopper, one use per code); the rows every request
//   shares are the ones real traffic shares too (the tier's summary, the campaign, the project).
// - validate: the same request shape on unused coupons (validation consumes nothing).
// - loyalty: random member cards of one program, so concurrent requests rarely touch the same card.

export interface Pools {
  fixtures: Fixtures;
  customerIds: string[];
  customerCount: number;
  /**
   * Coupons never redeemed, for redemptions, each taken once from the end (pop). Taking them from the
   * front (shift) moved every remaining element each time: 435 µs per request with the full run's half a
   * million codes, 58 µs with the quick run's 75,000, against 0.05 µs for pop; the load generator's CPU
   * comes out of the cores the servers use.
   */
  redeemCodes: string[];
  /** Other unused coupons, for validations. */
  validateCodes: string[];
  /** A sample of coupons, used and unused, for GET /v1/vouchers/{code}. */
  voucherCodes: string[];
}

export interface Scenario {
  name: string;
  title: string;
  /** Writes: the bench measures its WAL bytes per request in a window of their own (bench/wal.ts). */
  writes?: boolean;
  /** Builds the request maker; called once per measured run. */
  maker(pools: Pools): () => RawRequest;
}

function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error('empty pool');
  return item;
}

function json(headers: Record<string, string>): Record<string, string> {
  return { ...headers, 'content-type': 'application/json' };
}

function randomCustomer(pools: Pools): { source_id: string } {
  return { source_id: customerSourceId(Math.floor(Math.random() * pools.customerCount)) };
}

/** The redemption every redeem request sends: the coupon `code` and the promotion tier, a 5-item order. */
export function stackedBody(pools: Pools, code: string): string {
  const seed = Math.floor(Math.random() * 1000);
  return JSON.stringify({
    redeemables: [
      { object: 'voucher', id: code },
      { object: 'promotion_tier', id: pools.fixtures.promotion.tierId },
    ],
    customer: randomCustomer(pools),
    order: benchOrder(pools.fixtures.products, seed),
  });
}

// Redeem runs last: the floor (bench/run.ts) follows it, so the two are measured minutes apart at most on
// a machine whose speed drifts.
export const SCENARIOS: Scenario[] = [
  {
    name: 'empty',
    title: 'GET /health (empty route, ceiling)',
    maker: () => {
      const request: RawRequest = { method: 'GET', path: '/health' };
      return () => request;
    },
  },
  {
    name: 'get-customer',
    title: 'GET /v1/customers/{id}',
    maker: (pools) => {
      const headers = serverHeaders();
      return () => ({ method: 'GET', path: `/v1/customers/${pick(pools.customerIds)}`, headers });
    },
  },
  {
    name: 'get-voucher',
    title: 'GET /v1/vouchers/{code}',
    maker: (pools) => {
      const headers = serverHeaders();
      return () => ({ method: 'GET', path: `/v1/vouchers/${encodeURIComponent(pick(pools.voucherCodes))}`, headers });
    },
  },
  {
    name: 'validate',
    title: 'POST /v1/validations (coupon + tier, 5 items)',
    maker: (pools) => {
      const headers = json(serverHeaders());
      return () => ({ method: 'POST', path: '/v1/validations', headers, body: stackedBody(pools, pick(pools.validateCodes)) });
    },
  },
  {
    name: 'balance-add',
    writes: true,
    title: 'POST /v1/loyalties/{id}/members/{code}/balance',
    maker: (pools) => {
      const headers = json(serverHeaders());
      const { campaignId, cards } = pools.fixtures.loyalty;
      const body = JSON.stringify({ points: 25, reason: 'bench' });
      return () => ({ method: 'POST', path: `/v1/loyalties/${campaignId}/members/${pick(cards)}/balance`, headers, body });
    },
  },
  {
    name: 'transfer',
    writes: true,
    title: 'POST /v1/loyalties/{id}/members/{code}/transfers',
    maker: (pools) => {
      const headers = json(serverHeaders());
      const { campaignId, cards } = pools.fixtures.loyalty;
      return () => {
        const to = pick(cards);
        let from = pick(cards);
        while (from === to) from = pick(cards);
        return { method: 'POST', path: `/v1/loyalties/${campaignId}/members/${to}/transfers`, headers, body: JSON.stringify([{ code: from, points: 1 }]) };
      };
    },
  },
  {
    name: 'list-redemptions',
    title: 'GET /v1/redemptions (campaign + result filter, 50 per page)',
    maker: () => {
      const headers = serverHeaders();
      const path = `/v1/redemptions?campaign=${encodeURIComponent(COUPON_CAMPAIGN)}&result=SUCCESS&limit=50`;
      return () => ({ method: 'GET', path, headers });
    },
  },
  {
    name: 'list-vouchers',
    title: 'GET /v1/vouchers (first page, every voucher counted in total)',
    maker: () => {
      const headers = serverHeaders();
      return () => ({ method: 'GET', path: '/v1/vouchers', headers });
    },
  },
  {
    name: 'list-customers',
    title: 'GET /v1/customers (first page, every customer counted in total)',
    maker: () => {
      const headers = serverHeaders();
      return () => ({ method: 'GET', path: '/v1/customers', headers });
    },
  },
  {
    name: 'client-tiers',
    title: 'GET /client/v1/promotions/tiers (client keys)',
    maker: () => {
      const headers = clientHeaders();
      return () => ({ method: 'GET', path: '/client/v1/promotions/tiers?is_available=true', headers });
    },
  },
  {
    name: 'redeem',
    writes: true,
    title: 'POST /v1/redemptions (coupon + tier, 5 items)',
    maker: (pools) => {
      const headers = json(serverHeaders());
      return () => {
        const code = pools.redeemCodes.pop();
        if (code === undefined) throw new Error('the pool of unused coupons ran out; seed more vouchers');
        return { method: 'POST', path: '/v1/redemptions', headers, body: stackedBody(pools, code) };
      };
    },
  },
];
