import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seriesAttempt, type AttemptRecord } from '../../src/services/webhooks/delivery.ts';

// A delivery's attempts are numbered over its whole life; retries and the 12-attempt limit count within a
// series (the first sending, or one re-send). seriesAttempt tells the series from the log alone.

const record = (attempt: number, series_attempt: number | undefined, ok: boolean): AttemptRecord => ({
  attempt,
  ...(series_attempt !== undefined ? { series_attempt } : {}),
  at: '2026-01-01T00:00:00.000Z',
  response_status: ok ? 200 : 503,
  error: ok ? null : 'answered HTTP 503',
  duration_ms: 1,
});

describe('webhook attempt series', () => {
  test('a first attempt, and a retry after a failure, continue the series', () => {
    assert.equal(seriesAttempt([], 1), 1);
    assert.equal(seriesAttempt([record(1, 1, false)], 2), 2);
    assert.equal(seriesAttempt([record(1, 1, false), record(2, 2, false)], 3), 3);
  });

  test('after a success or the last allowed failure, the next attempt is a re-send\'s first', () => {
    assert.equal(seriesAttempt([record(1, 1, false), record(2, 2, true)], 3), 1);
    const givenUp = Array.from({ length: 12 }, (_, i) => record(i + 1, i + 1, false));
    assert.equal(seriesAttempt(givenUp, 13), 1);
    assert.equal(seriesAttempt([...givenUp, record(13, 1, false)], 14), 2);
  });

  test('an attempt cut short by a crash counts without a record', () => {
    assert.equal(seriesAttempt([record(1, 1, false)], 3), 3, 'attempt 2 was claimed, never recorded');
    assert.equal(seriesAttempt([record(1, 1, true)], 3), 2, 'the re-send\'s first try was cut short');
  });

  test('records written before re-sends kept counting number each series from 1', () => {
    assert.equal(seriesAttempt([record(1, undefined, false), record(2, undefined, false)], 3), 3);
    const oldResent = [record(1, undefined, true), record(1, undefined, false)];
    assert.equal(seriesAttempt(oldResent, 2), 2);
  });
});
