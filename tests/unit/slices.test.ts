import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Turns } from '../../src/http/plugins/turns.ts';
import { Pacer, Slice, yieldToRequests } from '../../src/lib/slices.ts';

// Background jobs give the event loop back between slices, and the API requests queued for their turn on
// SQLite (src/http/plugins/turns.ts) run before the job's next slice, up to a bound.

function queueRequests(turns: Turns, count: number, ran: string[]): Promise<unknown> {
  return Promise.all(Array.from({ length: count }, (_, i) => turns.next().then(() => ran.push(`request ${i + 1}`))));
}

describe('slices of background work', () => {
  test('a slice is full after its item count', () => {
    const slice = new Slice(3, Number.POSITIVE_INFINITY);
    assert.deepEqual([slice.add(), slice.add(), slice.add()], [false, false, true]);
    assert.equal(new Slice(10, Number.POSITIVE_INFINITY).add(10), true);
  });

  test('every request waiting for its turn runs before the next slice', async () => {
    const turns = new Turns();
    const ran: string[] = [];
    const requests = queueRequests(turns, 5, ran);
    await yieldToRequests();
    ran.push('next slice');
    await requests;
    assert.deepEqual(ran, ['request 1', 'request 2', 'request 3', 'request 4', 'request 5', 'next slice']);
  });

  test('a steady stream of requests slows a job down but does not stop it', async () => {
    const turns = new Turns();
    const ran: string[] = [];
    const requests = queueRequests(turns, 40, ran);
    await yieldToRequests();
    const before = ran.length;
    await requests;
    assert.ok(before > 1 && before < 40, `requests run before the next slice: ${before}`);
  });

  test('a pacer gives way at once when requests wait for their turn, whatever time is left in its slice', async () => {
    const turns = new Turns();
    const ran: string[] = [];
    const pacer = new Pacer(Number.POSITIVE_INFINITY);
    await pacer.between();
    assert.equal(ran.length, 0, 'nothing waits: the loop goes on');
    const requests = queueRequests(turns, 3, ran);
    await pacer.between();
    ran.push('next step');
    await requests;
    assert.deepEqual(ran, ['request 1', 'request 2', 'request 3', 'next step']);
  });
});
