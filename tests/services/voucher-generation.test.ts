import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeCodeConfig } from '../../src/domain/codes/code-config.ts';
import { drawCodes } from '../../src/services/campaigns/voucher-generation.ts';

function config(input: Parameters<typeof normalizeCodeConfig>[0]) {
  const result = normalizeCodeConfig(input);
  if (!result.ok) throw new Error(result.error);
  return result.config;
}

test('drawCodes answers the count asked for, distinct by key and sorted by key', () => {
  const drawn = drawCodes(config({ length: 6, prefix: 'X-' }), true, 5000);
  assert.equal(drawn.length, 5000);
  assert.equal(new Set(drawn.map((d) => d.key)).size, 5000);
  for (let i = 1; i < drawn.length; i++) assert.ok((drawn[i - 1]?.key ?? '') < (drawn[i]?.key ?? ''), `not sorted at ${i}`);
  for (const { code, key } of drawn) {
    assert.equal(key, code);
    assert.match(code, /^X-[0-9A-Za-z]{6}$/);
  }
});

test('drawCodes compares codes as a case-insensitive project does', () => {
  // 2 letters in either case: 52² codes but only 26² distinct keys.
  const drawn = drawCodes(config({ length: 2, charset: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ' }), false, 300);
  assert.equal(new Set(drawn.map((d) => d.key)).size, 300);
  for (const { code, key } of drawn) assert.equal(key, code.toLowerCase());
});

test('drawCodes refuses a draw the code space cannot hold comfortably', () => {
  assert.throws(() => drawCodes(config({ length: 2, charset: '0123456789' }), true, 60), (error: { key?: string; details?: string }) => error.key === 'invalid_code_config' && /allows 100 codes/.test(error.details ?? ''));
});
