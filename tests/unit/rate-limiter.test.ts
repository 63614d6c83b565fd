import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FixedWindowLimiter } from '../../src/lib/rate-limiter.ts';

describe('fixed-window rate limiter', () => {
  test('allows the limit per window, then refuses until the window turns', () => {
    const limiter = new FixedWindowLimiter();
    const limits = [{ value: 3, windowMs: 60_000 }];
    const t0 = 120_000;
    const results = [0, 1, 2, 3].map(() => limiter.hit('p', limits, t0));
    assert.deepEqual(results.map((r) => r.allowed), [true, true, true, false]);
    assert.deepEqual(results.map((r) => r.remaining), [2, 1, 0, 0]);
    assert.equal(results[3]?.resetAt, 180);
    assert.equal(limiter.hit('p', limits, t0 + 60_000).allowed, true);
  });

  test('buckets are independent and every limit must have room', () => {
    const limiter = new FixedWindowLimiter();
    const limits = [{ value: 10, windowMs: 60_000 }, { value: 2, windowMs: 1000 }];
    assert.equal(limiter.hit('a', limits, 0).allowed, true);
    assert.equal(limiter.hit('a', limits, 1).allowed, true);
    const third = limiter.hit('a', limits, 2);
    assert.equal(third.allowed, false);
    assert.equal(third.limit, 2);
    assert.equal(limiter.hit('b', limits, 3).allowed, true);
    assert.equal(limiter.hit('a', limits, 1000).allowed, true);
  });
});
