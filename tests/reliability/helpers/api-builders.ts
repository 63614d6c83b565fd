import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Api, HttpClient } from '../../../scripts/lib/http-client.ts';
import { str } from '../../../scripts/lib/json.ts';
import { FIXED_KEYS, managementHeaders } from '../../../scripts/lib/keys.ts';
import type { Db } from '../../../src/store/db.ts';

// Builders that create the objects the attacks and the crash load spend from, and a second project for
// the tenancy sweep — all through the public API, as an integration would.

export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export interface Card {
  id: string;
  code: string;
}

export interface Member extends Card {
  holderId: string;
}

export async function giftCard(api: Api, amount: number, code = unique('GIFT')): Promise<Card> {
  const body = await api.ok('POST', `/v1/vouchers/${code}`, { type: 'GIFT_VOUCHER', gift: { amount } });
  return { id: str(body, 'id'), code: str(body, 'code') };
}

export async function discountVoucher(api: Api, quantity: number | null, code = unique('DISC')): Promise<Card> {
  const body = await api.ok('POST', `/v1/vouchers/${code}`, {
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
    ...(quantity === null ? {} : { redemption: { quantity } }),
  });
  return { id: str(body, 'id'), code: str(body, 'code') };
}

export async function loyaltyProgram(api: Api, name = unique('Program')): Promise<string> {
  const body = await api.ok('POST', '/v1/loyalties', { name, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
  return str(body, 'id');
}

/** A member card holding `points` that never expire (so no day boundary can change a balance mid-test). */
export async function member(api: Api, programId: string, points: number): Promise<Member> {
  const card = await api.ok('POST', `/v1/loyalties/${programId}/members`, { customer: { source_id: unique('member') } });
  const code = str(card, 'code');
  if (points > 0) await api.ok('POST', `/v1/loyalties/members/${code}/balance`, { points, expiration_type: 'NON_EXPIRING', source_id: unique('seed') });
  return { id: str(card, 'id'), code, holderId: str(card, 'holder_id') };
}

/** A material reward (a product handed out), `stock` units or unlimited. */
export async function materialReward(api: Api, stock: number | null): Promise<string> {
  const product = await api.ok('POST', '/v1/products', { source_id: unique('prize'), name: 'Prize', price: 1500 });
  const reward = await api.ok('POST', '/v1/rewards', {
    name: unique('Mug'),
    parameters: { product: { id: str(product, 'id') } },
    ...(stock === null ? {} : { stock }),
  });
  return str(reward, 'id');
}

/** A pay-with-points reward: 100 points are worth 20.00. */
export async function coinReward(api: Api): Promise<string> {
  const reward = await api.ok('POST', '/v1/rewards', { name: unique('Coin'), type: 'COIN', parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } } });
  return str(reward, 'id');
}

export async function assignReward(api: Api, rewardId: string, programId: string, points?: number): Promise<string> {
  const assignment = await api.ok('POST', `/v1/rewards/${rewardId}/assignments`, {
    campaign: programId,
    ...(points === undefined ? {} : { parameters: { loyalty: { points } } }),
  });
  return str(assignment, 'id');
}

/** A second project with its own keys, created through the management API. */
export async function createProject(http: HttpClient, name = unique('Project')): Promise<{ id: string; server: { id: string; secret: string }; client: { id: string; secret: string } }> {
  const res = await http.json('POST', '/management/v1/projects', managementHeaders(), {
    name,
    case_sensitive_codes: false,
    timezone: 'UTC',
    currency: 'USD',
    client_trusted_domains: [FIXED_KEYS.origin],
    client_redeem_enabled: true,
    client_publish_enabled: true,
    client_list_vouchers_enabled: true,
    client_create_customer_enabled: true,
    client_loyalty_events_enabled: true,
  });
  assert.equal(res.status, 200, res.text);
  return {
    id: str(res.body, 'id'),
    server: { id: str(res.body, 'server_side_key', 'app_id'), secret: str(res.body, 'server_side_key', 'app_token') },
    client: { id: str(res.body, 'client_side_key', 'app_id'), secret: str(res.body, 'client_side_key', 'app_token') },
  };
}

/** The project the environment keys belong to. */
export async function defaultProjectId(db: Db): Promise<string> {
  const row = await db.selectFrom('projects').select('id').where('is_default', '=', true).executeTakeFirstOrThrow();
  return row.id;
}
