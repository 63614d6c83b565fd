import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { particularMonth, pointsExpiryDate, readExpirationRules, type ExpirationRules } from '../../src/domain/loyalty/points-expiry.ts';

// When added points stop being usable (loyalty reference 2.8.2): the answer is the last usable day.

describe('points expiry dates', () => {
  const cases: Array<{ name: string; rules: ExpirationRules | null; earned: string; expires: string | null }> = [
    { name: 'no rules: never expire', rules: null, earned: '2026-01-25', expires: null },
    // The reference's examples.
    { name: '25 Jan + 1 month: through 25 Feb', rules: { period_type: 'MONTH', period_value: 1 }, earned: '2026-01-25', expires: '2026-02-25' },
    { name: '31 Jan + 1 month: the shorter month clamps to 28 Feb', rules: { period_type: 'MONTH', period_value: 1 }, earned: '2026-01-31', expires: '2026-02-28' },
    { name: '0 months: that day only', rules: { period_type: 'MONTH', period_value: 0 }, earned: '2026-03-10', expires: '2026-03-10' },
    // Month-end clamping.
    { name: '31 Jan + 1 month in a leap year: 29 Feb', rules: { period_type: 'MONTH', period_value: 1 }, earned: '2028-01-31', expires: '2028-02-29' },
    { name: '30 Jan + 1 month: 28 Feb', rules: { period_type: 'MONTH', period_value: 1 }, earned: '2026-01-30', expires: '2026-02-28' },
    { name: '31 Mar + 1 month: 30 Apr', rules: { period_type: 'MONTH', period_value: 1 }, earned: '2026-03-31', expires: '2026-04-30' },
    { name: '31 Aug + 6 months crosses the year: 28 Feb', rules: { period_type: 'MONTH', period_value: 6 }, earned: '2026-08-31', expires: '2027-02-28' },
    { name: '29 Feb + 12 months: 28 Feb', rules: { period_type: 'MONTH', period_value: 12 }, earned: '2028-02-29', expires: '2029-02-28' },
    { name: '15 Nov + 3 months: 15 Feb', rules: { period_type: 'MONTH', period_value: 3 }, earned: '2026-11-15', expires: '2027-02-15' },
    // Rounding.
    { name: 'END_OF_MONTH', rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' }, earned: '2026-01-10', expires: '2026-02-28' },
    { name: 'END_OF_QUARTER', rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_QUARTER' }, earned: '2026-01-10', expires: '2026-03-31' },
    { name: 'END_OF_QUARTER from the last quarter', rules: { period_type: 'MONTH', period_value: 2, rounding_type: 'END_OF_QUARTER' }, earned: '2026-08-10', expires: '2026-12-31' },
    { name: 'END_OF_HALF_YEAR, first half', rules: { period_type: 'MONTH', period_value: 2, rounding_type: 'END_OF_HALF_YEAR' }, earned: '2026-01-10', expires: '2026-06-30' },
    { name: 'END_OF_HALF_YEAR, second half', rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_HALF_YEAR' }, earned: '2026-06-10', expires: '2026-12-31' },
    { name: 'END_OF_YEAR', rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_YEAR' }, earned: '2026-12-10', expires: '2027-12-31' },
    { name: 'PARTICULAR_MONTH later this year', rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'PARTICULAR_MONTH', rounding_value: 6 }, earned: '2026-02-10', expires: '2026-06-30' },
    { name: 'PARTICULAR_MONTH already passed: next year', rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'PARTICULAR_MONTH', rounding_value: 3 }, earned: '2026-05-10', expires: '2027-03-31' },
    { name: 'PARTICULAR_MONTH of the computed month itself', rules: { period_type: 'MONTH', period_value: 0, rounding_type: 'PARTICULAR_MONTH', rounding_value: 2 }, earned: '2028-02-03', expires: '2028-02-29' },
    // FIXED_DAY_OF_YEAR: the next occurrence on or after the earning day.
    { name: 'fixed day later this year', rules: { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 12, fixed_day: 31 }, earned: '2026-03-02', expires: '2026-12-31' },
    { name: 'fixed day already passed: next year', rules: { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 3, fixed_day: 1 }, earned: '2026-03-02', expires: '2027-03-01' },
    { name: 'fixed day is the earning day: until its end', rules: { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 3, fixed_day: 2 }, earned: '2026-03-02', expires: '2026-03-02' },
    { name: 'fixed 29 Feb in a common year: 28 Feb', rules: { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 2, fixed_day: 29 }, earned: '2026-01-05', expires: '2026-02-28' },
    { name: 'fixed 29 Feb in a leap year', rules: { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 2, fixed_day: 29 }, earned: '2028-01-05', expires: '2028-02-29' },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(pointsExpiryDate(c.rules, c.earned), c.expires));
  }

  test('PARTICULAR_MONTH values name months 1–12 (0 reads as January)', () => {
    assert.deepEqual([0, 1, 6, 12].map(particularMonth), [1, 1, 6, 12]);
  });

  test('stored rules are read back, and anything else is no rules', () => {
    assert.deepEqual(readExpirationRules({ period_type: 'MONTH', period_value: 3, rounding_type: 'END_OF_MONTH' }), {
      period_type: 'MONTH',
      period_value: 3,
      rounding_type: 'END_OF_MONTH',
      rounding_value: undefined,
      fixed_month: undefined,
      fixed_day: undefined,
    });
    assert.equal(readExpirationRules(null), null);
    assert.equal(readExpirationRules({ period_type: 'WEEK' }), null);
    assert.equal(readExpirationRules('MONTH'), null);
  });

  test('a malformed earning day is a programming error, not a silent date', () => {
    assert.throws(() => pointsExpiryDate({ period_type: 'MONTH', period_value: 1 }, '2026-1-5'));
  });
});
