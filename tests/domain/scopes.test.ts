import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KNOWN_SCOPES, parseScopes, scopesAllowPath } from '../../src/domain/auth/scopes.ts';

describe('OAuth scopes', () => {
  test('every scope of seed part 5 is known, plus api and client_api', () => {
    const seedScopes = [
      'vouchers', 'client_vouchers', 'promotions', 'client_promotions', 'campaigns', 'client_publish', 'publications',
      'exports', 'client_validate', 'validations', 'client_validations', 'qualifications', 'client_qualifications',
      'client_redeem', 'redemptions', 'client_redemptions', 'customers', 'client_customers', 'orders', 'products', 'skus',
      'validation-rules', 'validation-rules-assignments', 'segments', 'events', 'client_events', 'rewards', 'assets',
      'task-results', 'loyalties', 'client_consents', 'consents', 'async-actions', 'product-collections', 'categories',
      'metadata-schemas', 'locations', 'referrals', 'trash-bin', 'templates', 'api', 'client_api',
    ];
    assert.deepEqual([...KNOWN_SCOPES].sort(), [...seedScopes].sort());
  });

  const parseCases: Array<[string, ReturnType<typeof parseScopes>]> = [
    ['customers', { ok: true, scopes: ['customers'] }],
    ['customers products', { ok: true, scopes: ['customers', 'products'] }],
    ['customers  products customers', { ok: true, scopes: ['customers', 'products'] }],
    ['customers,products', { ok: false, reason: 'commas', bad: 'customers,products' }],
    ['customers, products', { ok: false, reason: 'commas', bad: 'customers, products' }],
    ['customers nonsense', { ok: false, reason: 'unknown', bad: 'nonsense' }],
    ['', { ok: false, reason: 'empty', bad: '' }],
    ['   ', { ok: false, reason: 'empty', bad: '   ' }],
  ];
  for (const [input, expected] of parseCases) {
    test(`parseScopes(${JSON.stringify(input)})`, () => assert.deepEqual(parseScopes(input), expected));
  }

  const pathCases: Array<[string[], string, boolean]> = [
    [['customers'], '/v1/customers', true],
    [['customers'], '/v1/customers/cust_1/activities', true],
    [['customers'], '/v1/customers/', true],
    [['customers'], '/v1/customersx', false],
    [['customers'], '/v1/products', false],
    [['customers'], '/client/v1/customers', false],
    [['client_customers'], '/client/v1/customers', true],
    [['products'], '/v1/products/prod_1/skus/sku_1', true],
    [['products'], '/v1/skus/sku_1', false],
    [['skus'], '/v1/skus/sku_1', true],
    [['skus'], '/v1/SKUs/sku_1', true],
    [['api'], '/v1/redemptions', true],
    [['api'], '/client/v1/redemptions', false],
    [['client_api'], '/client/v1/redemptions', true],
    [['client_api'], '/v1/redemptions', false],
    [['loyalties', 'rewards'], '/v1/rewards/rew_1', true],
    [['validation-rules'], '/v1/validation-rules-assignments', false],
    [['validation-rules-assignments'], '/v1/validation-rules-assignments', true],
    [[], '/v1/customers', false],
  ];
  for (const [scopes, path, allowed] of pathCases) {
    test(`${scopes.join(' ') || '(none)'} ${allowed ? 'opens' : 'does not open'} ${path}`, () =>
      assert.equal(scopesAllowPath(scopes, path), allowed));
  }
});
