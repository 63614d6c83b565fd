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

  test('withMembers keeps the order a spread gives: replaced members where they were, new ones last', () => {
    const copy = withMembers({ id: 'a', n: 1, keep: true, 2: 'two' }, { extra: 'x', n: 2, 1: 'one' });
    assert.deepEqual(Object.keys(copy), Object.keys({ ...{ id: 'a', n: 1, keep: true, 2: 'two' }, ...{ extra: 'x', n: 2, 1: 'one' } }));
    assert.equal(JSON.stringify(copy), '{"1":"one","2":"two","id":"a","n":2,"keep":true,"extra":"x"}');
  });

  test('withMembers copies each shape with its own values, also after the first copy of that shape', () => {
    const first = withMembers({ a: 1, b: { deep: true } }, { c: undefined });
    const second = withMembers({ a: 2, b: null }, { c: 'set' });
    assert.deepEqual(first, { a: 1, b: { deep: true }, c: undefined });
    assert.ok(Object.hasOwn(first, 'c'));
    assert.deepEqual(second, { a: 2, b: null, c: 'set' });
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`column_${i}`, i]));
    assert.deepEqual(withMembers(wide, { column_3: 'x', updated_at: 'now' }), { ...wide, column_3: 'x', updated_at: 'now' });
  });

  test('withMembers tells apart member lists that join into the same text', () => {
    // Wide enough to be copied by a compiled literal: 20 members besides the ones named here.
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`m${i}`, i]));
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ ...wide, 'a,b': 1 }, { c: 2 }],
      [{ ...wide, a: 1, b: 2 }, { c: 3 }],
      [{ ...wide, a: 1 }, { 'b|c': 2 }],
      [{ ...wide, 'a|b': 1 }, { c: 2 }],
    ];
    for (const [base, members] of cases) assert.deepEqual(withMembers(base, members), { ...base, ...members });
  });

  test('withMembers tells apart shapes of one size whose first and last members agree', () => {
    // The shapes are found by their size, first and last base member and member names, then compared whole.
    const shape = (middle: string[]) => Object.fromEntries(['first', ...middle, ...Array.from({ length: 18 }, (_, i) => `m${i}`), 'last'].map((k, i) => [k, i]));
    const bases = [shape(['x', 'y']), shape(['y', 'x']), shape(['x', 'z']), shape(['x', 'y'])];
    for (let round = 0; round < 2; round++) {
      for (const base of bases) {
        const copy = withMembers(base, { extra: round });
        assert.deepEqual(Object.keys(copy), [...Object.keys(base), 'extra']);
        assert.deepEqual(copy, { ...base, extra: round });
      }
    }
  });

  test('withMembers keeps a member named __proto__ a member and the prototype untouched', () => {
    const base = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = withMembers(base, { b: 2 }) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal(copy.polluted, undefined);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'a', 'b']);
    const named = withMembers({ a: 1 }, JSON.parse('{"__proto__": 5}') as object) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(named), Object.prototype);
    assert.deepEqual(Object.keys(named), ['a', '__proto__']);
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`m${i}`, i]));
    const wideCopy = withMembers(JSON.parse(JSON.stringify({ ...wide, ['__proto__']: { polluted: true } })) as object, { b: 2 }) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(wideCopy), Object.prototype);
    assert.equal(wideCopy.polluted, undefined);
    assert.equal(Object.keys(wideCopy).length, 22);
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
