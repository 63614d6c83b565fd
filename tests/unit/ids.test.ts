import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createSortableIds, newRequestId } from '../../src/lib/ids.ts';

describe('sortable ids', () => {
  test('carry the prefix and 20 hex digits', () => {
    const ids = createSortableIds(() => 1_700_000_000_000);
    assert.match(ids.next('cust'), /^cust_[0-9a-f]{20}$/);
  });

  test('sort in creation order, within one millisecond and across them, even if the clock steps back', () => {
    let now = 1_700_000_000_000;
    const ids = createSortableIds(() => now);
    const made: string[] = [];
    for (let i = 0; i < 50; i++) {
      made.push(ids.next('x'));
      if (i % 7 === 0) now += 1;
      if (i === 30) now -= 5;
    }
    assert.deepEqual([...made].sort(), made);
    assert.equal(new Set(made).size, made.length);
  });
});

describe('request ids', () => {
  test('look like the vendor\'s and never repeat, also across the blocks of random bytes they are cut from', () => {
    const made = Array.from({ length: 5000 }, () => newRequestId());
    for (const id of made) assert.match(id, /^v-[0-9a-f]{18}$/);
    assert.equal(new Set(made).size, made.length);
  });
});
