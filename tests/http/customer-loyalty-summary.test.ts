import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The customer object's loyalty figures (seed 2.7) follow the cards the customer holds, tiers included.

describe('customer loyalty figures', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  test('points, per-program balance and tier, points to go, follow balance changes', async () => {
    const program = await t.request('POST', '/v1/loyalties', { json: { name: 'Club', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    assert.equal(program.status, 200, program.text);
    const tiers = await t.request('POST', `/v1/loyalties/${program.body.id}/tiers`, {
      json: [
        { name: 'Base', points: { from: 0, to: 99 } },
        { name: 'Gold', points: { from: 100, to: null } },
      ],
    });
    assert.equal(tiers.status, 200, tiers.text);
    const member = await t.request('POST', `/v1/loyalties/${program.body.id}/members`, { json: { customer: { source_id: 'fan' } } });
    assert.equal(member.status, 200, member.text);

    let customer = await t.request('GET', '/v1/customers/fan');
    assert.equal(customer.body.loyalty.campaigns.Club.loyalty_tier, tiers.body[0].id, 'a new member is in the lowest tier');

    const added = await t.request('POST', `/v1/loyalties/${program.body.id}/members/${member.body.code}/balance`, { json: { points: 150 } });
    assert.equal(added.status, 200, added.text);
    customer = await t.request('GET', '/v1/customers/fan');
    assert.equal(customer.body.loyalty.points, 150);
    assert.deepEqual(customer.body.loyalty.campaigns.Club, { points: 150, loyalty_tier: tiers.body[1].id, referred_customers: 0 });
    assert.equal(customer.body.summary.redemptions.loyalty_card.points_to_go, 150);

    const removed = await t.request('POST', `/v1/loyalties/members/${member.body.code}/balance`, { json: { points: -100 } });
    assert.equal(removed.status, 200, removed.text);
    customer = await t.request('GET', '/v1/customers/fan');
    assert.equal(customer.body.loyalty.campaigns.Club.points, 50);
    assert.equal(customer.body.loyalty.campaigns.Club.loyalty_tier, tiers.body[0].id, 'the balance fell back into Base');
  });
});
