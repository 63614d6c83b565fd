import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonText, stringifyAnswer } from '../../src/lib/json-text.ts';

// stringifyAnswer writes stored JSON text unchanged where a JsonText stands; the answer must be exactly
// what JSON.stringify gives for the parsed values.

const stored = (value: unknown) => new JsonText(JSON.stringify(value));

const documents: unknown[] = [
  { id: 'ord_1', items: [{ sku: 'A', quantity: 2, price: 1999 }], metadata: {} },
  { '10': 'numbered keys first', b: 1, '2': [null, true, false, -0.5, 1e21] },
  { text: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 pair \ud83d\ude00 é' },
  { __proto__: null, nested: { deeper: { deepest: [[[]], {}] } } },
  [],
  'a string',
  42,
  null,
];

test('each JsonText is written as its text, and the answer equals JSON.stringify of the parsed values', () => {
  for (const doc of documents) {
    const answer = { id: 'r_1', order: stored(doc), list: [stored(doc), 1, stored(doc)], channel: { of: stored(doc) } };
    const parsed = { id: 'r_1', order: doc, list: [doc, 1, doc], channel: { of: doc } };
    assert.equal(stringifyAnswer(answer), JSON.stringify(parsed));
  }
});

test('an answer without JsonText is JSON.stringify', () => {
  const answer = { a: [1, 'two', { three: null }], b: undefined, when: new Date(0) };
  assert.equal(stringifyAnswer(answer), JSON.stringify(answer));
  assert.equal(stringifyAnswer(undefined), 'null');
});

test('client strings that look like markers stay strings', () => {
  const answer = { note: 'jsontext0n0', other: '"jsontextn1"', order: stored({ x: 1 }) };
  assert.equal(stringifyAnswer(answer), JSON.stringify({ note: 'jsontext0n0', other: '"jsontextn1"', order: { x: 1 } }));
});

test('outside stringifyAnswer, a JsonText serialises as its parsed value', () => {
  assert.equal(JSON.stringify({ order: stored({ id: 'ord_1' }) }), '{"order":{"id":"ord_1"}}');
});

test('an answer serialised inside another (a toJSON that calls stringifyAnswer) keeps both right', () => {
  const inner = { toJSON: () => stringifyAnswer({ a: stored([1, 2]) }) };
  const answer = { inner, after: stored({ b: 2 }) };
  assert.equal(stringifyAnswer(answer), JSON.stringify({ inner: JSON.stringify({ a: [1, 2] }), after: { b: 2 } }));
});
