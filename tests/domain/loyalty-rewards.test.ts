import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cashForPoints, payWithPoints, pointsToCover } from '../../src/domain/loyalty/pay-with-points.ts';
import { imageUrlProblem, ratio, rewardType } from '../../src/domain/loyalty/rewards.ts';

const vendor = { exchange_ratio: 20, points_ratio: 100 };

describe('pay with points (loyalty reference 5.5, promotions reference 3.7)', () => {
  const cases: Array<{ name: string; remaining: number; balance: number; requested: number | null; coin: { exchange_ratio: number; points_ratio: number }; result: ReturnType<typeof payWithPoints> }> = [
    // Vendor example: 100 points = 20.00; 100 points on a 450.00 order → 20.00 off.
    { name: 'points given: their cash value', remaining: 45000, balance: 5000, requested: 100, coin: vendor, result: { ok: true, points: 100, discount: 2000 } },
    // Vendor example: no points given → 23 blocks of 100 cover 450.00.
    { name: 'no points: whole blocks covering what is left', remaining: 45000, balance: 5000, requested: null, coin: vendor, result: { ok: true, points: 2300, discount: 45000 } },
    // Promotions reference 3.7: "100 = $20", 300 points on a 6000-cent order → total 0.
    { name: '300 points cover a 60.00 order exactly', remaining: 6000, balance: 300, requested: 300, coin: vendor, result: { ok: true, points: 300, discount: 6000 } },
    { name: 'points given beyond what is left: only what covers it is taken', remaining: 3000, balance: 1000, requested: 1000, coin: vendor, result: { ok: true, points: 200, discount: 3000 } },
    { name: 'no points and a short balance: whole blocks of the balance (DECISIONS 14)', remaining: 45000, balance: 2250, requested: null, coin: vendor, result: { ok: true, points: 2200, discount: 44000 } },
    { name: 'points given beyond the balance', remaining: 45000, balance: 99, requested: 100, coin: vendor, result: { ok: false, reason: 'points_exceeded' } },
    { name: 'no points and less than one block', remaining: 45000, balance: 99, requested: null, coin: vendor, result: { ok: false, reason: 'points_exceeded' } },
    { name: 'nothing left to pay', remaining: 0, balance: 1000, requested: null, coin: vendor, result: { ok: false, reason: 'nothing_to_pay' } },
    { name: 'one point = 0.01: one minor unit per point', remaining: 1234, balance: 5000, requested: null, coin: { exchange_ratio: 0.01, points_ratio: 1 }, result: { ok: true, points: 1234, discount: 1234 } },
    { name: 'a fraction of a minor unit rounds half up', remaining: 1000, balance: 5000, requested: 3, coin: { exchange_ratio: 0.005, points_ratio: 1 }, result: { ok: true, points: 3, discount: 2 } },
    { name: 'points worth less than a minor unit', remaining: 1000, balance: 5000, requested: 1, coin: { exchange_ratio: 0.004, points_ratio: 1 }, result: { ok: false, reason: 'too_few_points' } },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(payWithPoints({ remaining: c.remaining, balance: c.balance, requested: c.requested, coin: c.coin }), c.result));
  }
  test('cash and cover are inverse in whole blocks', () => {
    assert.equal(cashForPoints(2300, vendor), 46000);
    assert.equal(pointsToCover(45000, vendor), 2300);
    assert.equal(pointsToCover(46000, vendor), 2300);
    assert.equal(pointsToCover(0.29 * 100, { exchange_ratio: 0.1, points_ratio: 1 }), 3);
  });
});

describe('reward definitions (seed 2.2, DECISIONS 20)', () => {
  test('the type follows from the one parameters member', () => {
    assert.deepEqual(rewardType(undefined, { product: { id: 'prod_1' } }), { ok: true, value: 'MATERIAL' });
    assert.deepEqual(rewardType(undefined, { coin: { exchange_ratio: 1 } }), { ok: true, value: 'COIN' });
    assert.deepEqual(rewardType(undefined, { campaign: { id: 'camp_1' } }), { ok: true, value: 'CAMPAIGN' });
    assert.deepEqual(rewardType('COIN', { coin: { exchange_ratio: 1 } }), { ok: true, value: 'COIN' });
  });
  test('refuses no member, several members, or a member that contradicts the type', () => {
    assert.equal(rewardType(undefined, {}).ok, false);
    assert.equal(rewardType(undefined, { coin: {}, product: {} }).ok, false);
    assert.equal(rewardType('MATERIAL', { coin: {} }).ok, false);
    assert.equal(rewardType('MATERIAL', {}).ok, false);
  });
  test('images are HTTPS links to .png or .jpg files', () => {
    assert.equal(imageUrlProblem('https://cdn.example.com/mug.png'), null);
    assert.equal(imageUrlProblem('https://cdn.example.com/a/b/mug.JPG?v=2'), null);
    assert.match(imageUrlProblem('http://cdn.example.com/mug.png') ?? '', /HTTPS/);
    assert.match(imageUrlProblem('https://cdn.example.com/mug.gif') ?? '', /\.png or \.jpg/);
    assert.match(imageUrlProblem('mug.png') ?? '', /absolute URL/);
  });
  test('ratios may be numeric strings', () => {
    assert.deepEqual(ratio('0.5', 'x', false), { ok: true, value: 0.5 });
    assert.deepEqual(ratio(100, 'x', true), { ok: true, value: 100 });
    assert.equal(ratio('1.5', 'x', true).ok, false);
    assert.equal(ratio(0, 'x', false).ok, false);
    assert.equal(ratio('abc', 'x', false).ok, false);
  });
});
