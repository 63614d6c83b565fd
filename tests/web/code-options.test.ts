import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodes, normalizeCodeConfig } from '../../src/domain/codes/code-config.ts';
import { codeOptionsBody, defaultCodeOptions, READABLE_CHARSET } from '../../web/src/pages/campaigns/code-options.ts';

// What the console's code options send, read by the server's own code generation: the default set has no
// look-alike characters, a pattern and prefix shape every code, the project's default sends no charset,
// and an empty limit leaves the codes unlimited.

describe('console code options', () => {
  test('the default: 8 characters from the readable set, no limit', () => {
    const body = codeOptionsBody(defaultCodeOptions(10));
    assert.equal(body.vouchers_count, 10);
    assert.deepEqual(body.voucher, { code_config: { charset: READABLE_CHARSET, length: 8 } });
    const read = normalizeCodeConfig(body.voucher.code_config as never);
    assert.ok(read.ok);
    for (const code of generateCodes(read.config, 200)) assert.match(code, /^[^0O1Il]{8}$/);
    assert.equal(new Set(READABLE_CHARSET).size, 32);
  });

  test('a pattern with prefix and postfix, two uses per code', () => {
    const body = codeOptionsBody({ ...defaultCodeOptions(3), shape: 'pattern', pattern: '##-##', prefix: 'RD-', postfix: '-X', limit: 2 });
    assert.deepEqual(body.voucher, { code_config: { charset: READABLE_CHARSET, pattern: '##-##', prefix: 'RD-', postfix: '-X' }, redemption: { quantity: 2 } });
    const read = normalizeCodeConfig(body.voucher.code_config as never);
    assert.ok(read.ok);
    for (const code of generateCodes(read.config, 50)) assert.match(code, /^RD-[2-9A-HJ-NP-Z]{2}-[2-9A-HJ-NP-Z]{2}-X$/);
  });

  test("the project's default sends no charset; a named set is sent by name", () => {
    assert.deepEqual(codeOptionsBody({ ...defaultCodeOptions(1), charset: 'project' }).voucher, { code_config: { length: 8 } });
    assert.deepEqual(codeOptionsBody({ ...defaultCodeOptions(1), charset: 'numbers', length: 6 }).voucher, { code_config: { charset: 'numbers', length: 6 } });
    assert.deepEqual(codeOptionsBody({ ...defaultCodeOptions(1), charset: 'custom', custom: 'ACDE' }).voucher, { code_config: { charset: 'ACDE', length: 8 } });
  });
});
