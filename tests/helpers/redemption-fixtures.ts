import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

// Builders for the redemption engine's tests: every object is made through the public API, as a client
// would, with unique names so tests of one file never collide.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export function fixtures(t: TestApp) {
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 7)}`;

  async function ok(method: string, path: string, json?: unknown, headers?: Record<string, string>): Promise<Json> {
    const res = await t.request(method, path, { ...(json !== undefined ? { json } : {}), ...(headers ? { headers } : {}) });
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path} → ${res.status} ${res.text}`);
    return res.body;
  }

  return {
    unique,
    ok,
    async product(price: number | null, extra: Record<string, unknown> = {}): Promise<Json> {
      return ok('POST', '/v1/products', { source_id: unique('prod'), name: 'Product', ...(price !== null ? { price } : {}), ...extra });
    },
    async voucher(body: Record<string, unknown>, code = unique('CODE')): Promise<Json> {
      return ok('POST', `/v1/vouchers/${encodeURIComponent(code)}`, { type: 'DISCOUNT_VOUCHER', ...body });
    },
    async amountVoucher(amountOff: number, extra: Record<string, unknown> = {}): Promise<Json> {
      return ok('POST', `/v1/vouchers/${unique('AMT')}`, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: amountOff }, ...extra });
    },
    async giftCard(amount: number, extra: Record<string, unknown> = {}): Promise<Json> {
      return ok('POST', `/v1/vouchers/${unique('GIFT')}`, { type: 'GIFT_VOUCHER', gift: { amount }, ...extra });
    },
    async rule(body: Record<string, unknown>): Promise<Json> {
      return ok('POST', '/v1/validation-rules', { name: unique('rule'), ...body });
    },
    async assign(ruleId: string, target: Record<string, string>): Promise<Json> {
      return ok('POST', `/v1/validation-rules/${ruleId}/assignments`, target);
    },
    async promotion(tiers: Json[], extra: Record<string, unknown> = {}): Promise<Json> {
      return ok('POST', '/v1/campaigns', { name: unique('Promo'), campaign_type: 'PROMOTION', promotion: { tiers }, ...extra });
    },
    async customer(extra: Record<string, unknown> = {}): Promise<Json> {
      return ok('POST', '/v1/customers', { source_id: unique('cust'), ...extra });
    },
    async category(hierarchy = 1): Promise<Json> {
      return ok('POST', '/v1/categories', { name: unique('cat'), hierarchy });
    },
    /** A loyalty program with a pay-with-points reward (100 points = 20.00) and a member card holding `points`. */
    async payWithPoints(points: number, coin = { exchange_ratio: 20, points_ratio: 100 }): Promise<{ program: Json; card: Json; reward: Json; assignment: Json; customer: Json }> {
      const program = await ok('POST', '/v1/loyalties', { name: unique('Loyal'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
      const customer = await ok('POST', '/v1/customers', { source_id: unique('member') });
      const card = await ok('POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
      if (points > 0) await ok('POST', `/v1/loyalties/${program.id}/members/${card.code}/balance`, { points });
      const reward = await ok('POST', '/v1/rewards', { name: unique('Coin'), type: 'COIN', parameters: { coin } });
      const assignment = await ok('POST', `/v1/rewards/${reward.id}/assignments`, { campaign: program.id });
      return { program, card, reward, assignment, customer };
    },
    async voucherState(code: string): Promise<Json> {
      return ok('GET', `/v1/vouchers/${encodeURIComponent(code)}`);
    },
    async customerSummary(idOrSource: string): Promise<Json> {
      return (await ok('GET', `/v1/customers/${encodeURIComponent(idOrSource)}`)).summary.redemptions;
    },
    async redemptionRows(): Promise<number> {
      const row = await t.deps.db.selectFrom('redemptions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async count(table: 'orders' | 'customers' | 'voucher_transactions' | 'events' | 'redemption_locks'): Promise<number> {
      const row = await t.deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

/** Calls a promise that must fail and answers the SDK error (its fields copied from the error body). */
export async function rejects(promise: Promise<unknown>): Promise<Json> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to fail');
}
