import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addDuration,
  decideTier,
  DEFAULT_POLICY,
  heldOn,
  NO_MEMBERSHIP,
  nextPeriodStart,
  periodExpiration,
  periodOf,
  qualifyingTier,
  readTiersPolicy,
  roundDay,
  tiersExpirationProblem,
  type Membership,
  type TiersPolicy,
} from '../../src/domain/loyalty/tiers.ts';
import { parseIsoDuration } from '../../src/domain/time/iso-duration.ts';
import { startOfLocalDay } from '../../src/domain/time/local-day.ts';

// Ranges as in the vendor example: 1-249, 250-499, 500-1000.
const TIERS = [
  { id: 'ltr_silver', from: 250, to: 499 },
  { id: 'ltr_bronze', from: 1, to: 249 },
  { id: 'ltr_gold', from: 500, to: 1000 },
];

function policy(value: unknown): TiersPolicy {
  return readTiersPolicy(value);
}

const seedPolicy = policy({
  qualification_type: 'BALANCE',
  start_date: { type: 'IMMEDIATE' },
  expiration_date: { type: 'CUSTOM', extend: 'P3M', rounding: { type: 'MONTH', strategy: 'END' } },
});

const quarterly = policy({
  qualification_type: 'POINTS_IN_PERIOD',
  qualification_period: 'QUARTER',
  start_date: { type: 'IMMEDIATE' },
  expiration_date: { type: 'END_OF_NEXT_PERIOD', extend: 'P1D' },
});

describe('loyalty_tiers_expiration', () => {
  test('reads the seed example and echoes END as the default rounding strategy', () => {
    assert.equal(tiersExpirationProblem({ qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: 'P3M', rounding: { type: 'MONTH' } } }), null);
    assert.deepEqual(seedPolicy.rounding, { type: 'MONTH', strategy: 'END', value: null });
    assert.equal(seedPolicy.expiration, 'CUSTOM');
  });
  const problems: Array<[string, unknown, RegExp]> = [
    ['an unknown qualification', { qualification_type: 'VISITS', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'BALANCE_DROP' } }, /qualification_type/],
    ['POINTS_IN_PERIOD without a period', { qualification_type: 'POINTS_IN_PERIOD', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'END_OF_PERIOD' } }, /qualification_period/],
    ['NEXT_PERIOD on BALANCE', { qualification_type: 'BALANCE', start_date: { type: 'NEXT_PERIOD' }, expiration_date: { type: 'BALANCE_DROP' } }, /NEXT_PERIOD/],
    ['a period expiry on BALANCE', { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'END_OF_PERIOD' } }, /needs qualification_type POINTS_IN_PERIOD/],
    ['a malformed extend', { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: '3 months' } }, /extend/],
    ['CUSTOM rounding without a month', { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: 'P1M', rounding: { type: 'CUSTOM' } } }, /month index/],
  ];
  for (const [name, value, error] of problems) {
    test(`refuses ${name}, and such a policy reads as the default`, () => {
      assert.match(tiersExpirationProblem(value) ?? '', error);
      assert.deepEqual(readTiersPolicy(value), DEFAULT_POLICY);
    });
  }
});

describe('calendar arithmetic', () => {
  const periods: Array<[string, 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR', string, string]> = [
    ['2026-02-14', 'MONTH', '2026-02-01', '2026-02-28'],
    ['2026-05-14', 'QUARTER', '2026-04-01', '2026-06-30'],
    ['2026-07-01', 'HALF_YEAR', '2026-07-01', '2026-12-31'],
    ['2024-02-29', 'YEAR', '2024-01-01', '2024-12-31'],
  ];
  for (const [day, period, start, end] of periods) {
    test(`${period} period of ${day}`, () => assert.deepEqual(periodOf(day, period), { start, end }));
  }
  test('next period start', () => {
    assert.equal(nextPeriodStart('2026-12-15', 'QUARTER'), '2027-01-01');
    assert.equal(nextPeriodStart('2026-01-31', 'MONTH'), '2026-02-01');
  });
  test('durations keep the day of month, clamped', () => {
    assert.equal(addDuration('2026-01-31', parseIsoDuration('P1M')), '2026-02-28');
    assert.equal(addDuration('2026-11-30', parseIsoDuration('P3M')), '2027-02-28');
    assert.equal(addDuration('2026-03-31', parseIsoDuration('P1D')), '2026-04-01');
    assert.equal(addDuration('2026-03-31', parseIsoDuration('P2W')), '2026-04-14');
  });
  const roundings: Array<[string, Parameters<typeof roundDay>[1], string]> = [
    ['2026-05-14', { type: 'MONTH', strategy: 'END', value: null }, '2026-05-31'],
    ['2026-05-14', { type: 'MONTH', strategy: 'START', value: null }, '2026-05-01'],
    ['2026-05-14', { type: 'QUARTER', strategy: 'END', value: null }, '2026-06-30'],
    ['2026-05-14', { type: 'HALF_YEAR', strategy: 'START', value: null }, '2026-01-01'],
    ['2026-05-14', { type: 'YEAR', strategy: 'END', value: null }, '2026-12-31'],
    // CUSTOM: month `value` (0 = January) on or after the day.
    ['2026-05-14', { type: 'CUSTOM', strategy: 'END', value: 1 }, '2027-02-28'],
    ['2026-05-14', { type: 'CUSTOM', strategy: 'END', value: 8 }, '2026-09-30'],
  ];
  for (const [day, rounding, expected] of roundings) {
    test(`rounding ${rounding?.type} ${rounding?.strategy} of ${day}`, () => assert.equal(roundDay(day, rounding), expected));
  }
  test('period expirations add extend after the period end', () => {
    assert.equal(periodExpiration(quarterly, '2026-02-10'), '2026-07-01');
  });
  test('the start of a local day in a zone', () => {
    assert.equal(startOfLocalDay('2026-04-01', 'UTC').toISOString(), '2026-04-01T00:00:00.000Z');
    assert.equal(startOfLocalDay('2026-04-01', 'Europe/Warsaw').toISOString(), '2026-03-31T22:00:00.000Z');
    assert.equal(startOfLocalDay('2026-01-15', 'America/New_York').toISOString(), '2026-01-15T05:00:00.000Z');
    assert.equal(startOfLocalDay('2026-01-15', 'GMT+05:30').toISOString(), '2026-01-14T18:30:00.000Z');
  });
});

describe('the qualifying tier', () => {
  const cases: Array<[number, string | null]> = [
    [0, null],
    [1, 'ltr_bronze'],
    [249, 'ltr_bronze'],
    [250, 'ltr_silver'],
    [1000, 'ltr_gold'],
    // Above the top range the top tier stays (vendor silent).
    [5000, 'ltr_gold'],
  ];
  for (const [metric, tier] of cases) test(`${metric} points → ${tier}`, () => assert.equal(qualifyingTier(TIERS, metric)?.id ?? null, tier));
  test('a gap between ranges keeps the lower tier', () => {
    assert.equal(qualifyingTier([{ id: 'a', from: 0, to: 10 }, { id: 'b', from: 20, to: null }], 15)?.id, 'a');
  });
});

function held(tierId: string, startDate: string, expirationDate: string | null = null): Membership {
  return { current: { tierId, startDate, expirationDate }, pending: null };
}

describe('tier membership decisions', () => {
  const cases: Array<{ name: string; policy: TiersPolicy; stored: Membership; metric: number; today: string; change: string | null; current: Membership['current']; pending?: Membership['pending'] }> = [
    // Default: the tier follows the balance both ways, at once.
    { name: 'joining the first tier', policy: DEFAULT_POLICY, stored: NO_MEMBERSHIP, metric: 100, today: '2026-03-02', change: 'joined', current: { tierId: 'ltr_bronze', startDate: '2026-03-02', expirationDate: null } },
    { name: 'upgrading keeps no expiry', policy: DEFAULT_POLICY, stored: held('ltr_bronze', '2026-01-01'), metric: 600, today: '2026-03-02', change: 'upgraded', current: { tierId: 'ltr_gold', startDate: '2026-03-02', expirationDate: null } },
    { name: 'a balance drop downgrades at once', policy: DEFAULT_POLICY, stored: held('ltr_gold', '2026-01-01'), metric: 300, today: '2026-03-02', change: 'downgraded', current: { tierId: 'ltr_silver', startDate: '2026-03-02', expirationDate: null } },
    { name: 'falling below every tier leaves', policy: DEFAULT_POLICY, stored: held('ltr_bronze', '2026-01-01'), metric: 0, today: '2026-03-02', change: 'left', current: null },
    { name: 'staying in range changes nothing', policy: DEFAULT_POLICY, stored: held('ltr_silver', '2026-01-01'), metric: 400, today: '2026-03-02', change: null, current: { tierId: 'ltr_silver', startDate: '2026-01-01', expirationDate: null } },
    // Seed policy: CUSTOM expiry P3M rounded to the month end, counted from the drop.
    { name: 'a drop starts the grace period instead of downgrading', policy: seedPolicy, stored: held('ltr_gold', '2026-01-10'), metric: 100, today: '2026-03-02', change: null, current: { tierId: 'ltr_gold', startDate: '2026-01-10', expirationDate: '2026-06-30' } },
    { name: 'inside the grace period the tier is kept', policy: seedPolicy, stored: held('ltr_gold', '2026-01-10', '2026-06-30'), metric: 100, today: '2026-06-30', change: null, current: { tierId: 'ltr_gold', startDate: '2026-01-10', expirationDate: '2026-06-30' } },
    { name: 'after the grace period the tier drops to what qualifies', policy: seedPolicy, stored: held('ltr_gold', '2026-01-10', '2026-06-30'), metric: 100, today: '2026-07-01', change: 'downgraded', current: { tierId: 'ltr_bronze', startDate: '2026-07-01', expirationDate: null } },
    { name: 'back in range during the grace period prolongs the tier', policy: seedPolicy, stored: held('ltr_gold', '2026-01-10', '2026-06-30'), metric: 700, today: '2026-04-01', change: 'prolonged', current: { tierId: 'ltr_gold', startDate: '2026-01-10', expirationDate: null } },
    { name: 'an upgrade during a grace period applies at once', policy: seedPolicy, stored: held('ltr_silver', '2026-01-10', '2026-06-30'), metric: 700, today: '2026-04-01', change: 'upgraded', current: { tierId: 'ltr_gold', startDate: '2026-04-01', expirationDate: null } },
    // POINTS_IN_PERIOD, quarterly, until the end of the next quarter plus a day.
    { name: 'points in the period reach a tier held until the end of the next period', policy: quarterly, stored: NO_MEMBERSHIP, metric: 300, today: '2026-02-10', change: 'joined', current: { tierId: 'ltr_silver', startDate: '2026-02-10', expirationDate: '2026-07-01' } },
    { name: 'reaching the tier again in a later period prolongs it', policy: quarterly, stored: held('ltr_silver', '2026-02-10', '2026-07-01'), metric: 300, today: '2026-05-05', change: 'prolonged', current: { tierId: 'ltr_silver', startDate: '2026-02-10', expirationDate: '2026-10-01' } },
    { name: 'falling short never shortens a period tier', policy: quarterly, stored: held('ltr_silver', '2026-02-10', '2026-07-01'), metric: 0, today: '2026-05-05', change: null, current: { tierId: 'ltr_silver', startDate: '2026-02-10', expirationDate: '2026-07-01' } },
    { name: 'an expired period tier with no points leaves', policy: quarterly, stored: held('ltr_silver', '2026-02-10', '2026-07-01'), metric: 0, today: '2026-07-02', change: 'left', current: null },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const decision = decideTier({ tiers: TIERS, policy: c.policy, stored: c.stored, metric: c.metric, today: c.today });
      assert.equal(decision.change, c.change);
      assert.deepEqual(decision.membership.current, c.current);
      assert.deepEqual(decision.membership.pending, c.pending ?? null);
    });
  }

  const nextPeriod = policy({
    qualification_type: 'POINTS_IN_PERIOD',
    qualification_period: 'MONTH',
    start_date: { type: 'NEXT_PERIOD' },
    expiration_date: { type: 'END_OF_PERIOD', extend: 'P0D' },
  });
  test('NEXT_PERIOD: the tier waits for the next period, then replaces the held one', () => {
    const reached = decideTier({ tiers: TIERS, policy: nextPeriod, stored: held('ltr_bronze', '2026-02-01', '2026-02-28'), metric: 600, today: '2026-02-20' });
    assert.equal(reached.change, null);
    assert.deepEqual(reached.membership.pending, { tierId: 'ltr_gold', startDate: '2026-03-01', expirationDate: '2026-03-31' });
    assert.equal(heldOn(reached.membership, '2026-02-28')?.tierId, 'ltr_bronze');
    assert.equal(heldOn(reached.membership, '2026-03-01')?.tierId, 'ltr_gold');
    const started = decideTier({ tiers: TIERS, policy: nextPeriod, stored: reached.membership, metric: 0, today: '2026-03-01' });
    assert.equal(started.change, 'upgraded');
    assert.deepEqual(started.membership, { current: { tierId: 'ltr_gold', startDate: '2026-03-01', expirationDate: '2026-03-31' }, pending: null });
  });

  test('a tier that no longer exists is treated as not held', () => {
    const decision = decideTier({ tiers: TIERS, policy: DEFAULT_POLICY, stored: held('ltr_deleted', '2026-01-01'), metric: 100, today: '2026-03-02' });
    assert.equal(decision.change, 'joined');
    assert.equal(decision.from, null);
  });
});
