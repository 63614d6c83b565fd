import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { filterToJson, parseFilter } from '../../src/domain/filters/filter.ts';
import { customerFilterFields } from '../../src/domain/segments/customer-filter.ts';
import { describeFilter, FILTER_FIELDS, FILTER_OPERATORS_BY_KIND, filterProblems, fromFilter, takesSeveral, toFilter, type FilterModel } from '../../web/src/pages/segments/filter.ts';

// The console's auto-update segment filter builder: every field and operator it offers is a filter the
// segment API accepts (its own parser), and the stored filter reads back into the same rows.

const sample = (kind: string, operator: string): string => {
  if (operator === '$has_value' || operator === '$is_unknown') return '';
  if (kind === 'date' || kind === 'instant') return takesSeveral(operator) ? '2026-01-01, 2026-02-01' : '2026-01-01';
  if (['$more_than', '$more_than_equal', '$less_than', '$less_than_equal'].includes(operator)) return '5';
  return takesSeveral(operator) ? 'gold, silver' : 'gold';
};

describe('segment filter builder', () => {
  test('every field with every operator offered is accepted by the segment API and reads back', () => {
    let checked = 0;
    for (const [field, spec] of Object.entries(FILTER_FIELDS)) {
      for (const operator of FILTER_OPERATORS_BY_KIND[spec.kind]) {
        const model: FilterModel = { junction: 'or', rows: [{ field, key: spec.kind === 'metadata' ? 'tier' : '', operator, value: sample(spec.kind, operator) }] };
        assert.deepEqual(filterProblems(model), [], `${field} ${operator}`);
        const stored = filterToJson(parseFilter(toFilter(model), customerFilterFields, { path: '.filter', allowRelativeTime: false }));
        assert.deepEqual(fromFilter(stored), model, `${field} ${operator}`);
        checked += 1;
      }
    }
    assert.ok(checked > 100, `${checked} combinations`);
  });

  test('two rows on one field are that field’s conditions; problems are named per row', () => {
    const model: FilterModel = {
      junction: 'and',
      rows: [
        { field: 'email', key: '', operator: '$ends_with', value: '@example.com' },
        { field: 'email', key: '', operator: '$is_not', value: 'bot@example.com' },
        { field: 'metadata', key: 'visits', operator: '$more_than', value: '3' },
      ],
    };
    assert.deepEqual(toFilter(model), {
      junction: 'and',
      email: { conditions: { $ends_with: ['@example.com'], $is_not: ['bot@example.com'] } },
      'metadata.visits': { conditions: { $more_than: [3] } },
    });
    assert.equal(describeFilter(model), 'E-mail ends with @example.com and E-mail is not bot@example.com and Metadata "visits" more than 3');
    assert.deepEqual(
      filterProblems({ junction: 'and', rows: [{ field: 'metadata', key: '', operator: '$more_than', value: 'many' }, { field: 'created_at', key: '', operator: '$after', value: 'May' }] }),
      [
        { index: 0, message: 'Name the metadata key' },
        { index: 0, message: 'Enter a number' },
        { index: 1, message: 'Enter a date such as 2026-12-31' },
      ],
    );
    assert.equal(fromFilter({ junction: 'and', loyalty_points: { conditions: { $more_than: [1] } } }), null, 'a field the builder does not offer');
  });
});
