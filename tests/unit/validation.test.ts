import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ErrorObject } from 'ajv';
import { describeValidationError, isDateOrDateTime } from '../../src/api/checks.ts';

describe('request validation helpers', () => {
  const valid = ['2026-01-31', '2024-02-29', '2026-01-31T10:00:00Z', '2026-01-31T10:00:00.123+02:00', '2026-01-31T10:00', '2026-01-31 10:00:00'];
  const invalid = ['2026-02-30', '2025-02-29', '2026-13-01', '2026-1-1', 'yesterday', '2026-01-31T25:00:00Z', ''];
  for (const v of valid) test(`accepts ${v}`, () => assert.equal(isDateOrDateTime(v), true));
  for (const v of invalid) test(`refuses ${JSON.stringify(v)}`, () => assert.equal(isDateOrDateTime(v), false));

  const err = (e: Partial<ErrorObject>): ErrorObject => ({ instancePath: '', schemaPath: '', keyword: 'type', params: {}, ...e }) as ErrorObject;
  const cases: Array<[ErrorObject[], string, string]> = [
    [[err({ keyword: 'required', params: { missingProperty: 'name' } })], 'body', "Payload should have required property 'name'"],
    [[err({ keyword: 'required', instancePath: '/address', params: { missingProperty: 'city' } })], 'body', "Property .address should have required property 'city'"],
    [[err({ keyword: 'type', instancePath: '/items/0/price', params: { type: 'integer' } })], 'body', 'Property .items[0].price should be integer'],
    [[err({ keyword: 'maximum', instancePath: '/limit', params: { comparison: '<=', limit: 100 } })], 'querystring', 'Property .limit must be <= 100'],
    [[err({ keyword: 'enum', instancePath: '/order', params: { allowedValues: ['a', '-a'] } })], 'querystring', 'Property .order should be equal to one of the allowed values [ a, -a ]'],
    [
      [
        err({ keyword: 'type', instancePath: '/price', params: { type: 'integer' } }),
        err({ keyword: 'type', instancePath: '/price', params: { type: 'null' } }),
        err({ keyword: 'anyOf', instancePath: '/price', params: {} }),
      ],
      'body',
      'Property .price should be integer,null',
    ],
    [[err({ keyword: 'required', params: { missingProperty: 'limit' } })], 'querystring', "Query should have required property 'limit'"],
  ];
  for (const [errors, part, expected] of cases) {
    test(`describes: ${expected}`, () => assert.equal(describeValidationError(errors, part), expected));
  }
});
