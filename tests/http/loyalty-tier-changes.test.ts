import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Changing and deleting loyalty tiers (Punchcard extensions): a tier renamed and its range moved (still
// checked against the other tiers), a mapping replaced, a tier deleted and its member placed again by the
// background recalculation, and a tier that an earning rule triggers on kept, with the API's refusal.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('loyalty tiers: update and delete', () => {
  let t: TestApp;
  let programId = '';
  let silver: Json;
  let gold: Json;

  before(async () => {
    t = await startTestApp();
    const program = await t.request('POST', '/v1/loyalties', { json: { name: 'Tiered', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    assert.equal(program.status, 200, program.text);
    programId = program.body.id;
    const created = await t.request('POST', `/v1/loyalties/${programId}/tiers`, {
      json: [
        { name: 'Silver', points: { from: 0, to: 999 } },
        { name: 'Gold', points: { from: 1000 } },
      ],
    });
    assert.equal(created.status, 200, created.text);
    [silver, gold] = created.body;
  });
  after(async () => t.close());

  const drainJobs = async () => {
    while (await t.worker.runOnce()) {
      /* until the queue is empty */
    }
  };

  test('a tier renamed and its range moved; an overlap is refused', async () => {
    const res = await t.request('PUT', `/v1/loyalties/${programId}/tiers/${silver.id}`, { json: { name: 'Bronze', points: { from: 0, to: 499 } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.name, res.body.points], ['Bronze', { from: 0, to: 499 }]);
    const read = await t.request('GET', `/v1/loyalties/${programId}/tiers/${silver.id}`);
    assert.deepEqual([read.body.name, read.body.points.to], ['Bronze', 499]);

    const overlap = await t.request('PUT', `/v1/loyalties/${programId}/tiers/${silver.id}`, { json: { points: { from: 0, to: 1200 } } });
    assert.equal(overlap.status, 400);
    assert.match(overlap.body.details, /overlaps tier 'Gold'/);
    const backwards = await t.request('PUT', `/v1/loyalties/${programId}/tiers/${silver.id}`, { json: { points: { from: 300, to: 200 } } });
    assert.equal(backwards.status, 400);
    assert.equal((await t.request('GET', `/v1/loyalties/${programId}/tiers/${silver.id}`)).body.points.to, 499, 'nothing changed');
    assert.equal((await t.request('PUT', `/v1/loyalties/${programId}/tiers/ltr_missing`, { json: { name: 'x' } })).status, 404);
  });

  test('changes racing each other never leave two tiers over the same points', async () => {
    // Each change checks the program's other ranges and then writes; without the program's lock two of
    // them could each pass the check against the ranges the other had not written yet.
    const race = await t.request('POST', '/v1/loyalties', { json: { name: 'Raced tiers', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    assert.equal(race.status, 200, race.text);
    const id = race.body.id;
    const base = await t.request('POST', `/v1/loyalties/${id}/tiers`, { json: [{ name: 'Base', points: { from: 0, to: 99 } }] });
    assert.equal(base.status, 200, base.text);
    for (let round = 0; round < 5; round++) {
      const from = 1000 * (round + 1);
      const answers = await Promise.all([
        t.request('POST', `/v1/loyalties/${id}/tiers`, { json: [{ name: `A${round}`, points: { from, to: from + 500 } }] }),
        t.request('POST', `/v1/loyalties/${id}/tiers`, { json: [{ name: `B${round}`, points: { from: from + 250, to: from + 900 } }] }),
        t.request('PUT', `/v1/loyalties/${id}/tiers/${base.body[0].id}`, { json: { points: { from: 0, to: from + 100 } } }),
      ]);
      for (const answer of answers) assert.ok(answer.status === 200 || answer.status === 400, answer.text);
      const stored = (await t.request('GET', `/v1/loyalties/${id}/tiers?limit=100`)).body.data as Json[];
      const ranges = stored.map((tier) => [tier.points.from, tier.points.to ?? Number.POSITIVE_INFINITY] as const).sort((a, b) => a[0] - b[0]);
      ranges.reduce((previous, range) => {
        assert.ok(range[0] > previous[1], `round ${round}: overlapping ranges ${JSON.stringify(ranges)}`);
        return range;
      });
      // Put the base back below the next round's ranges.
      assert.equal((await t.request('PUT', `/v1/loyalties/${id}/tiers/${base.body[0].id}`, { json: { points: { from: 0, to: 99 } } })).status, 200);
    }
  });

  test("a tier's earning-rule mapping replaced", async () => {
    const rule = await t.request('POST', `/v1/loyalties/${programId}/earning-rules`, { json: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } }] });
    assert.equal(rule.status, 200, rule.text);
    const ruleId = rule.body[0].id;
    const res = await t.request('PUT', `/v1/loyalties/${programId}/tiers/${gold.id}`, { json: { earning_rules: { [ruleId]: { type: 'MULTIPLY', multiplier: 2 } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.earning_rules[ruleId].multiplier, 2);
    assert.equal(res.body.name, 'Gold', 'what was not sent stays');
    const unknown = await t.request('PUT', `/v1/loyalties/${programId}/tiers/${gold.id}`, { json: { earning_rules: { ern_missing: { type: 'CUSTOM', points: 1 } } } });
    assert.equal(unknown.status, 404);
  });

  test('a tier an earning rule triggers on is kept with the refusal; once the rule is gone it is deleted and its member no longer holds it', async () => {
    const card = await t.request('POST', `/v1/loyalties/${programId}/members`, { json: { customer: { source_id: 'tier-member' } } });
    assert.equal(card.status, 200, card.text);
    const points = await t.request('POST', `/v1/loyalties/${programId}/members/${card.body.code}/balance`, { json: { points: 1500 } });
    assert.equal(points.status, 200, points.text);
    await drainJobs();
    const held = await t.request('GET', `/v1/loyalties/members/${card.body.code}/tiers`);
    assert.deepEqual(held.body.data.map((tier: Json) => tier.id), [gold.id]);

    const trigger = await t.request('POST', `/v1/loyalties/${programId}/earning-rules`, { json: [{ event: 'customer.loyalty.tier.joined', loyalty_tier: { id: gold.id }, loyalty: { type: 'FIXED', points: 5 } }] });
    assert.equal(trigger.status, 200, trigger.text);
    const refused = await t.request('DELETE', `/v1/loyalties/${programId}/tiers/${gold.id}`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'resource_in_use');
    assert.deepEqual(refused.body.related_object_ids, [trigger.body[0].id]);

    assert.equal((await t.request('DELETE', `/v1/loyalties/${programId}/earning-rules/${trigger.body[0].id}`)).status, 204);
    assert.equal((await t.request('DELETE', `/v1/loyalties/${programId}/tiers/${gold.id}`)).status, 204);
    assert.equal((await t.request('GET', `/v1/loyalties/${programId}/tiers/${gold.id}`)).status, 404);
    await drainJobs();
    const after = (await t.request('GET', `/v1/loyalties/members/${card.body.code}/tiers`)).body.data as Json[];
    assert.ok(after.every((tier) => tier.id !== gold.id), 'the card no longer holds the deleted tier');
    assert.equal((await t.request('GET', `/v1/loyalties/${programId}/tiers`)).body.data.length, 1);
  });
});
