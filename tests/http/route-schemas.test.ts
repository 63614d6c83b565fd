import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compilePendingValidators } from '../../src/http/plugins/validation.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Validators compile when a route first checks a request (src/http/plugins/validation.ts), and
// `punchcard start` compiles the rest before it listens. This is that step: every schema of every
// route compiles, and a route that was never called still refuses bad input.

describe('route schemas', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('every request schema of every route compiles', () => {
    const routes = t.app.printRoutes({ commonPrefix: false }).split('\n').length;
    const compiled = compilePendingValidators();
    assert.ok(compiled > 200, `only ${compiled} validators were waiting to compile (${routes} route lines)`);
    assert.equal(compilePendingValidators(), 0, 'each validator compiles once');
  });

  test('a validator compiled ahead of its first request checks it as on first use', async () => {
    const res = await t.request('POST', '/v1/customers', { json: { name: 42 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.key, 'invalid_payload');
    assert.match(res.body.details, /name/);
  });
});
