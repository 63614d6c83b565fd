import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detachMember, withMembers } from '../../src/lib/objects.ts';

// Copy helpers of the hot paths (src/lib/objects.ts): same results as the spread and rest they replace.

describe('object helpers', () => {
  test('withMembers equals a spread with the members after it', () => {
    const base = { id: 'a', n: 1, keep: true };
    assert.deepEqual(withMembers(base, { n: 2, extra: 'x' }), { ...base, n: 2, extra: 'x' });
    assert.deepEqual(base, { id: 'a', n: 1, keep: true });
  });

  test('detachMember answers the row without the member, and its value', () => {
    const row: { id: string; name: string | null; definitions_version: number | null } = { id: 'v_1', name: null, definitions_version: 7 };
    const { row: rest, value } = detachMember(row, 'definitions_version');
    assert.equal(value, 7);
    assert.deepEqual(rest, { id: 'v_1', name: null });
    assert.deepEqual(Object.keys(rest), ['id', 'name']);
    assert.equal(JSON.stringify(rest), '{"id":"v_1","name":null}');
  });

  test('detachMember of a member that is not the last one still removes only it', () => {
    const { row, value } = detachMember({ a: 1, b: null as number | null, c: 3 }, 'b');
    assert.equal(value, null);
    assert.deepEqual(row, { a: 1, c: 3 });
  });
});
