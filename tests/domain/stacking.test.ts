import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applicationOrder, DEFAULT_STACKING_RULES, skipsWithoutEffect, StackingTracker, type Stackable, type StackingRules } from '../../src/domain/redemptions/stacking.ts';

const cat = (id: string, hierarchy = 1) => ({ id, hierarchy });
const item = (index: number, ...categories: Array<{ id: string; hierarchy: number }>): Stackable => ({ index, categories });

function run(items: Stackable[], rules: StackingRules): Array<string | null> {
  const tracker = new StackingTracker(rules);
  return items.map((i) => {
    const skip = tracker.check(i);
    if (skip === null) tracker.record(i);
    return skip;
  });
}

describe('stacking rules', () => {
  test('defaults: 5 applied at most, one per category', () => {
    const items = [item(0), item(1), item(2, cat('a')), item(3, cat('a')), item(4), item(5), item(6)];
    assert.deepEqual(run(items, DEFAULT_STACKING_RULES), [
      null,
      null,
      null,
      'applicable_redeemables_per_category_limit_exceeded',
      null,
      null,
      'applicable_redeemables_limit_exceeded',
    ]);
  });

  test('per-category overrides raise the limit for one category', () => {
    const rules = { ...DEFAULT_STACKING_RULES, applicable_redeemables_category_limits: { a: 2 } };
    assert.deepEqual(run([item(0, cat('a')), item(1, cat('a')), item(2, cat('a'))], rules), [null, null, 'applicable_redeemables_per_category_limit_exceeded']);
  });

  test('exclusive categories block common ones; joint ones stack with everything', () => {
    const rules = { ...DEFAULT_STACKING_RULES, exclusive_categories: ['x', 'y'], joint_categories: ['j'], applicable_exclusive_redeemables_limit: 2 };
    assert.deepEqual(run([item(0, cat('x')), item(1), item(2, cat('j')), item(3, cat('y')), item(4, cat('x'))], rules), [
      null,
      'exclusion_rules_not_met',
      null,
      null,
      'applicable_exclusive_redeemables_limit_exceeded',
    ]);
    assert.deepEqual(run([item(0), item(1, cat('x'))], rules), [null, 'exclusion_rules_not_met'], 'a common one applied first keeps exclusive ones out');
  });

  test('exclusive per-category limit', () => {
    const rules = { ...DEFAULT_STACKING_RULES, exclusive_categories: ['x'], applicable_exclusive_redeemables_limit: 5, applicable_redeemables_per_category_limit: 5 };
    assert.deepEqual(run([item(0, cat('x')), item(1, cat('x'))], rules), [null, 'applicable_exclusive_redeemables_per_category_limit_exceeded']);
  });

  test('application order: requested, or by category hierarchy with ties in requested order', () => {
    const items = [item(0, cat('low', 5)), item(1), item(2, cat('high', 0)), item(3, cat('mid', 2)), item(4, cat('mid', 2))];
    assert.deepEqual(applicationOrder(items, DEFAULT_STACKING_RULES).map((i) => i.index), [0, 1, 2, 3, 4]);
    assert.deepEqual(applicationOrder(items, { ...DEFAULT_STACKING_RULES, redeemables_sorting_rule: 'CATEGORY_HIERARCHY' }).map((i) => i.index), [2, 3, 4, 0, 1]);
  });

  test('no-effect handling by rule and per category', () => {
    const rules = { ...DEFAULT_STACKING_RULES, no_effect_skip_categories: ['s'], no_effect_redeem_anyway_categories: ['r'] };
    assert.equal(skipsWithoutEffect(item(0), rules), false);
    assert.equal(skipsWithoutEffect(item(0, cat('s')), rules), true);
    assert.equal(skipsWithoutEffect(item(0, cat('r')), { ...rules, redeemables_no_effect_rule: 'SKIP' }), false);
    assert.equal(skipsWithoutEffect(item(0), { ...rules, redeemables_no_effect_rule: 'SKIP' }), true);
  });
});
