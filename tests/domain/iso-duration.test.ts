import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addIsoDuration, isoDurationMs, parseIsoDuration } from '../../src/domain/time/iso-duration.ts';

describe('ISO 8601 durations', () => {
  test('parses every component', () => {
    assert.deepEqual(parseIsoDuration('P1Y2M3W4DT5H6M7.5S'), { years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7.5 });
    assert.deepEqual(parseIsoDuration('PT15M'), { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 15, seconds: 0 });
  });
  test('refuses malformed durations', () => {
    for (const bad of ['', 'P', 'PT', '1D', 'P1H', 'PT1D', 'P-1D', 'P1DT']) assert.equal(parseIsoDuration(bad), null, bad);
  });
  test('adds months keeping the day, clamped to the month end', () => {
    const d = parseIsoDuration('P1M');
    assert.ok(d);
    assert.equal(addIsoDuration(new Date('2026-01-31T10:00:00Z'), d).toISOString(), '2026-02-28T10:00:00.000Z');
    assert.equal(addIsoDuration(new Date('2026-03-15T00:00:00Z'), d).toISOString(), '2026-04-15T00:00:00.000Z');
  });
  test('adds days and times', () => {
    const d = parseIsoDuration('P1DT2H');
    assert.ok(d);
    assert.equal(addIsoDuration(new Date('2026-12-31T23:00:00Z'), d).toISOString(), '2027-01-02T01:00:00.000Z');
  });
  test('approximate length for windows', () => {
    const d = parseIsoDuration('PT1M');
    assert.ok(d);
    assert.equal(isoDurationMs(d), 60_000);
  });
});
