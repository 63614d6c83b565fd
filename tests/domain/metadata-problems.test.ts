import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { metadataProblems, type MetadataPropertyDefinition, type MetadataSchemaDefinition } from '../../src/domain/metadata-schemas/metadata-problems.ts';
import { deliveredType, MAX_DELIVERY_ATTEMPTS, retryDelayMs, subscribedTypes, WEBHOOK_EVENT_KINDS } from '../../src/domain/webhooks/event-kinds.ts';
import { punchcardSignature, vendorSignature, verifyPunchcardSignature, verifyVendorSignature } from '../../src/domain/webhooks/signature.ts';

const def = (type: MetadataPropertyDefinition['type'], extra: Partial<MetadataPropertyDefinition> = {}): MetadataPropertyDefinition => ({
  type,
  optional: true,
  array: false,
  ...extra,
});

const schema = (properties: Record<string, MetadataPropertyDefinition>, allowDefinedOnly = false): MetadataSchemaDefinition => ({
  properties,
  allow_defined_only: allowDefinedOnly,
});

describe('metadataProblems', () => {
  const cases: Array<{ name: string; schema: MetadataSchemaDefinition; metadata: Record<string, unknown>; problems: string[] }> = [
    { name: 'conforming metadata has no problems', schema: schema({ age: def('number'), vip: def('boolean') }), metadata: { age: 3, vip: true }, problems: [] },
    {
      name: 'wrong type, in the vendor wording',
      schema: schema({ age: def('number') }),
      metadata: { age: 'old' },
      problems: ["age: must be a number (actual value is 'old')"],
    },
    {
      name: 'a required property that is missing or null',
      schema: schema({ tier: def('string', { optional: false }), region: def('string', { optional: false }) }),
      metadata: { region: null },
      problems: [
        "tier: must be defined, the property is required (actual value is 'undefined')",
        "region: must be defined, the property is required (actual value is 'null')",
      ],
    },
    {
      name: 'string lengths and allowed values, all broken constraints on one line',
      schema: schema({ code: def('string', { exact_length: 5, eq: ['ABCDE', 'FGHIJ'] }), nick: def('string', { min_length: 2, max_length: 4 }) }),
      metadata: { code: 'xyz', nick: 'abcdef' },
      problems: [
        "code: must be exactly 5 characters long, must be one of [ABCDE, FGHIJ] (actual value is 'xyz')",
        "nick: must be at most 4 characters long (actual value is 'abcdef')",
      ],
    },
    {
      name: 'number bounds and excluded values',
      schema: schema({ n: def('number', { gt: 0, lte: 10, ne: [7] }), m: def('number', { gte: 5, lt: 6 }) }),
      metadata: { n: 7, m: 6 },
      problems: ["n: must not be one of [7] (actual value is '7')", "m: must be less than 6 (actual value is '6')"],
    },
    {
      name: 'dates, date-times, booleans, image URLs and geopoints',
      schema: schema({
        d: def('date'),
        dt: def('datetime'),
        b: def('boolean'),
        img: def('image_url'),
        geo: def('geopoint'),
        geo2: def('geopoint'),
      }),
      metadata: { d: '2026-02-30', dt: '2026-01-01', b: 'true', img: 'ftp://x/y.png', geo: { latitude: 91, longitude: 0 }, geo2: { type: 'Point', coordinates: [21, 52] } },
      problems: [
        "d: must be a date (YYYY-MM-DD) (actual value is '2026-02-30')",
        "dt: must be an ISO 8601 date-time (actual value is '2026-01-01')",
        "b: must be a boolean (actual value is 'true')",
        "img: must be an http(s) image URL (actual value is 'ftp://x/y.png')",
        'geo: must be a geopoint {latitude, longitude} (actual value is \'{"latitude":91,"longitude":0}\')',
      ],
    },
    {
      name: 'arrays are checked item by item',
      schema: schema({ tags: def('string', { array: true, max_length: 3 }), flags: def('boolean', { array: true }) }),
      metadata: { tags: ['ok', 'toolong'], flags: true },
      problems: ["tags[1]: must be at most 3 characters long (actual value is 'toolong')", "flags: must be an array of boolean (actual value is 'true')"],
    },
    {
      name: 'deleted definitions are not checked',
      schema: schema({ gone: def('number', { optional: false, deleted: true }) }),
      metadata: { gone: 'text' },
      problems: [],
    },
    {
      name: 'allow_defined_only refuses undefined and deleted members',
      schema: schema({ a: def('string'), old: def('string', { deleted: true }) }, true),
      metadata: { a: 'x', b: 1, old: 'y' },
      problems: [
        "b: must be a property defined in the metadata schema, which allows defined properties only (actual value is '1')",
        "old: must be a property defined in the metadata schema, which allows defined properties only (actual value is 'y')",
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(metadataProblems(c.schema, c.metadata), c.problems);
    });
  }

  test('a nested object follows its object_type schema, reported with the dotted path', () => {
    const address = schema({ zip: def('string', { exact_length: 5, optional: false }) }, true);
    const outer = schema({ home: def('object', { object_type: 'address' }), misc: def('object') });
    const nested = (name: string) => (name === 'address' ? address : undefined);
    assert.deepEqual(metadataProblems(outer, { home: { zip: '123', extra: 1 }, misc: { anything: true } }, { nested }), [
      "home.zip: must be exactly 5 characters long (actual value is '123')",
      "home.extra: must be a property defined in the address metadata schema, which allows defined properties only (actual value is '1')",
    ]);
    assert.deepEqual(metadataProblems(outer, { home: 'street' }, { nested }), ["home: must be an object (actual value is 'street')"]);
  });
});

describe('webhook event kinds', () => {
  test('the spec names and the corrected spellings are accepted; deliveries use the corrected spelling', () => {
    assert.equal(WEBHOOK_EVENT_KINDS.length, 65, '60 spec kinds, 4 corrected spellings, customer.consents.updated');
    assert.ok(WEBHOOK_EVENT_KINDS.includes('voucher.loyalty_card.points_aded'));
    assert.ok(WEBHOOK_EVENT_KINDS.includes('voucher.loyalty_card.points_added'));
    assert.ok(!WEBHOOK_EVENT_KINDS.includes('customer.updated'));
    assert.equal(deliveredType('campaign.vouchers.aded'), 'campaign.vouchers.added');
    assert.equal(deliveredType('voucher.gift.balance_aded'), 'voucher.gift.balance_added');
    assert.equal(deliveredType('customer.created'), 'customer.created');
    assert.deepEqual([...subscribedTypes(['voucher.loyalty_card.pending_points.aded', 'voucher.loyalty_card.pending_points.added'])], [
      'voucher.loyalty_card.pending_points.added',
    ]);
  });

  test('retries wait 1 min, doubling, capped at 24 h; 12 attempts in all', () => {
    assert.equal(MAX_DELIVERY_ATTEMPTS, 12);
    const minutes = Array.from({ length: 11 }, (_, i) => retryDelayMs(i + 1) / 60_000);
    assert.deepEqual(minutes, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    assert.equal(retryDelayMs(20), 24 * 3600_000);
  });
});

describe('webhook signatures', () => {
  const secret = 'whsec-test';
  const body = '{"id":"whs_1","type":"customer.created"}';

  test('x-voucherify-signature is the hex HMAC-SHA256 of the body', () => {
    // Expected values computed with `openssl dgst -sha256 -hmac whsec-test`.
    assert.equal(vendorSignature(secret, body), '2431d9c33034f23ad7aaa35c3d87073aaced1362e6ac0292c138291ad622e1fd');
    assert.ok(verifyVendorSignature(secret, body, vendorSignature(secret, body)));
    assert.ok(!verifyVendorSignature(secret, `${body} `, vendorSignature(secret, body)), 'one changed byte fails');
    assert.ok(!verifyVendorSignature('other', body, vendorSignature(secret, body)));
  });

  test('x-punchcard-signature binds the timestamp and refuses old replays', () => {
    const header = punchcardSignature(secret, 1_700_000_000, body);
    assert.equal(header, 't=1700000000,v1=d4d0195b49e04da50b77853849150876373dbf21b71082140acf7b901bf986f0');
    assert.ok(verifyPunchcardSignature(secret, body, header, 1_700_000_100));
    assert.ok(!verifyPunchcardSignature(secret, body, header, 1_700_000_000 + 301), 'too old');
    const forged = header.replace('t=1700000000', 't=1700000200');
    assert.ok(!verifyPunchcardSignature(secret, body, forged, 1_700_000_200), 'a moved timestamp breaks the signature');
  });
});
