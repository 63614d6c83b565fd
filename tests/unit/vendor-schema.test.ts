import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadVendorOpenApi } from '../../scripts/lib/vendor-openapi.ts';
import { vendorResponseProblems, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// The vendor-schema check itself: the vendor's own example answers pass it, and an answer that lacks a
// required member or has a member of the wrong type does not.

describe('vendor response schema check', { skip: vendorSchemasAvailable ? false : 'the vendor OpenAPI document is not on this machine' }, () => {
  const example = (method: string, path: string): unknown => {
    const content = loadVendorOpenApi().paths[path]?.[method]?.responses?.['200']?.content?.['application/json'] as { examples?: Record<string, { value?: unknown }> };
    return Object.values(content.examples ?? {})[0]?.value;
  };

  test("the vendor's example answers conform", () => {
    for (const [method, path] of [
      ['get', '/v1/customers/{customerId}/redeemables'],
      ['post', '/v1/orders/export'],
      ['get', '/v1/locations'],
      ['get', '/v1/campaigns/{campaignId}/transactions'],
    ] as const) {
      assert.deepEqual(vendorResponseProblems(method.toUpperCase(), path, example(method, path)), [], path);
    }
  });

  test('a missing required member and a wrong type are problems, however deep', () => {
    assert.deepEqual(vendorResponseProblems('GET', '/v1/customers/{customerId}/redeemables', { object: 'list', data: [{ redeemable: { status: 'ACTIVE' } }] }), [
      "/data/0/redeemable must have required property 'voucher'",
    ]);
    assert.notDeepEqual(vendorResponseProblems('GET', '/v1/customers/{customerId}/redeemables', { object: 'list', data: [{ id: 7 }] }), []);
    assert.notDeepEqual(vendorResponseProblems('GET', '/v1/customers/{customerId}/redeemables', { data: 'none' }), []);
  });

  test('null only where the schema says nullable or VENDOR_NULLS names the member', () => {
    const order = { id: 'ord_1', object: 'order', amount: 100, customer_id: null, referrer_id: null, metadata: {} };
    // customer_id and referrer_id are nullable; referrer (an object the vendor never marks nullable) is not.
    assert.deepEqual(vendorResponseProblems('GET', '/v1/orders/{orderId}', order), []);
    assert.deepEqual(vendorResponseProblems('GET', '/v1/orders/{orderId}', { ...order, referrer: null }), ['/referrer must be object']);
    // A voucher's validity_timeframe is null in the vendor's own examples, against its schema.
    const example = (loadVendorOpenApi().paths['/v1/vouchers/{code}']?.get?.responses?.['200']?.content?.['application/json'] as { examples?: Record<string, { value?: Record<string, unknown> }> }).examples;
    const voucher = Object.values(example ?? {})[0]?.value as Record<string, unknown>;
    assert.deepEqual(vendorResponseProblems('GET', '/v1/vouchers/{code}', { ...voucher, validity_timeframe: null }), []);
  });
});
