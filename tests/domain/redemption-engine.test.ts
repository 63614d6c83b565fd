import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startState, totalsOf, type UnitFacts } from '../../src/domain/discounts/apply.ts';
import type { OrderLine } from '../../src/domain/orders/order-math.ts';
import { evaluateRedeemables, type Candidate, type CandidatePayload, type EngineContext } from '../../src/domain/redemptions/engine.ts';
import { periodStart } from '../../src/domain/redemptions/periods.ts';
import { qualificationFilterProblem, qualifies, type QualificationSubject } from '../../src/domain/redemptions/qualification-filters.ts';
import { redeemablesProblem } from '../../src/domain/redemptions/request.ts';
import { sessionExpiry } from '../../src/domain/redemptions/session.ts';
import { DEFAULT_STACKING_RULES, type StackingRules } from '../../src/domain/redemptions/stacking.ts';
import { compileRuleSet } from '../../src/domain/rules/definition.ts';
import type { DiscountInput } from '../../src/api/discounts.ts';

// The pure evaluation loop (promotions reference 3, 6.6, 6.7): the reference's worked examples A–D as
// table cases, eligibility order and keys, stacking and application modes, and the small pure helpers.

const NOW = new Date('2026-03-02T10:00:00.000Z'); // a Monday

function line(id: string, price: number, quantity = 1): OrderLine {
  return {
    product_id: id,
    sku_id: null,
    related_object: null,
    source_id: null,
    quantity,
    discount_quantity: 0,
    initial_quantity: quantity,
    price,
    amount: price * quantity,
    initial_amount: price * quantity,
    discount_amount: 0,
    product: { id, source_id: null, name: null, price, metadata: {} },
    sku: null,
    metadata: {},
  };
}

let next = 0;
function candidate(payload: CandidatePayload, extra: Partial<Candidate> = {}): Candidate {
  const index = next++;
  return {
    index,
    id: `R${index}`,
    object: 'voucher',
    found: true,
    windows: [],
    quantity: { limit: null, redeemed: 0, lockedByOthers: 0 },
    referrerId: null,
    holderId: null,
    payload,
    rules: [],
    categories: [],
    counters: {},
    formula: { values: {}, metadata: {} },
    ...extra,
  };
}

const discount = (d: DiscountInput, units: Map<string, UnitFacts> = new Map()): CandidatePayload => ({ type: 'discount', discount: d, units });

function context(rules: Partial<StackingRules> = {}, extra: Partial<EngineContext> = {}): EngineContext {
  return {
    now: NOW,
    timeZone: 'UTC',
    rules: { ...DEFAULT_STACKING_RULES, ...rules },
    customer: null,
    segmentIds: [],
    orderPresent: true,
    orderMetadata: {},
    redemptionMetadata: {},
    collectionsOf: () => [],
    ...extra,
  };
}

/** A candidate list with fresh indices 0..n-1 (the engine keys outcomes by request position). */
function request(...cs: Candidate[]): Candidate[] {
  return cs.map((c, index) => ({ ...c, index }));
}

const onlyA = (applicableTo: string[]) =>
  compileRuleSet({ rules: { logic: '' }, error: null, applicable_to: { included: applicableTo.map((id) => ({ object: 'product', id, effect: 'APPLY_TO_EVERY' })), excluded: [], included_all: false } });

describe('worked examples', () => {
  const orderAB = () => startState([line('prod_A', 2000, 2), line('prod_B', 3000)], 0, null, null);

  const cases: Array<{ name: string; candidates: () => Candidate[]; start: () => ReturnType<typeof startState>; expect: number[] }> = [
    // [discount_amount, items_discount_amount, total_discount_amount, total_amount, applied order, applied items total]
    { name: 'A: AMOUNT 1500 to order', candidates: () => request(candidate(discount({ type: 'AMOUNT', amount_off: 1500 }))), start: orderAB, expect: [1500, 0, 1500, 5500, 1500, 0] },
    { name: 'A: AMOUNT 9000 clamps at the total', candidates: () => request(candidate(discount({ type: 'AMOUNT', amount_off: 9000 }))), start: orderAB, expect: [7000, 0, 7000, 0, 7000, 0] },
    {
      name: 'A: a second redemption on the order adds to the 1500 it carries',
      candidates: () => request(candidate(discount({ type: 'AMOUNT', amount_off: 1000 }))),
      start: () => startState([line('prod_A', 2000, 2), line('prod_B', 3000)], 1500, null, null),
      expect: [2500, 0, 2500, 4500, 1000, 0],
    },
    {
      name: 'B: PERCENT 10 to prod_A items',
      candidates: () => request(candidate(discount({ type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' }), { rules: [{ ruleId: 'r', compiled: onlyA(['prod_A']) }] })),
      start: orderAB,
      expect: [0, 400, 400, 6600, 0, 400],
    },
    {
      name: 'B: amount_limit 300',
      candidates: () => request(candidate(discount({ type: 'PERCENT', percent_off: 10, amount_limit: 300, effect: 'APPLY_TO_ITEMS' }), { rules: [{ ruleId: 'r', compiled: onlyA(['prod_A']) }] })),
      start: orderAB,
      expect: [0, 300, 300, 6700, 0, 300],
    },
    {
      name: 'B: both lines, aggregated_amount_limit 500',
      candidates: () =>
        request(candidate(discount({ type: 'PERCENT', percent_off: 10, aggregated_amount_limit: 500, effect: 'APPLY_TO_ITEMS' }), { rules: [{ ruleId: 'r', compiled: onlyA(['prod_A', 'prod_B']) }] })),
      start: orderAB,
      expect: [0, 500, 500, 6500, 0, 500],
    },
    {
      name: 'C: item discount, gift credits 100, PERCENT 40, AMOUNT 30',
      candidates: () =>
        request(
          candidate(discount({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS' })),
          candidate({ type: 'gift', code: 'G', balance: 5000, lockedByOthers: 0, effect: 'APPLY_TO_ORDER', credits: 100 }),
          candidate(discount({ type: 'PERCENT', percent_off: 40, effect: 'APPLY_TO_ORDER' }), { object: 'promotion_tier' }),
          candidate(discount({ type: 'AMOUNT', amount_off: 30, effect: 'APPLY_TO_ORDER' }), { object: 'promotion_tier' }),
        ),
      start: () => startState([line('p1', 2000), line('p2', 700)], 0, null, null),
      expect: [490, 1700, 2190, 510, 490, 1700],
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const evaluation = evaluateRedeemables(c.candidates(), c.start(), context());
      assert.equal(evaluation.valid, true, JSON.stringify(evaluation.outcomes.map((o) => (o.status === 'INAPPLICABLE' ? o.failure : o.status))));
      const totals = totalsOf(evaluation.final);
      const applied = evaluation.final.applied;
      assert.deepEqual(
        [totals.discount_amount, totals.items_discount_amount, totals.total_discount_amount, totals.total_amount, applied.order, applied.items.reduce((s, d) => s + d, 0)],
        c.expect,
      );
    });
  }

  test('C: each snapshot is cumulative, each effect only its own', () => {
    const cs = cases.find((c) => c.name.startsWith('C:'));
    const evaluation = evaluateRedeemables(cs?.candidates() ?? [], cs?.start() ?? startState([], 0, null, null), context());
    assert.deepEqual(
      evaluation.applied.map((o) => totalsOf(o.state).total_amount),
      [1000, 900, 540, 510],
    );
    assert.deepEqual(
      evaluation.applied.map((o) => o.consumption.discount),
      [1700, 100, 360, 30],
    );
    assert.equal(evaluation.applied[1]?.consumption.credits, 100);
  });

  test('D: UNIT ADD_MANY_ITEMS', () => {
    const units = new Map<string, UnitFacts>([
      ['red', { product_id: 'red', sku_id: null, price: 2900, product: null, sku: null }],
      ['blue', { product_id: 'blue', sku_id: null, price: 3100, product: null, sku: null }],
    ]);
    const d: DiscountInput = {
      type: 'UNIT',
      effect: 'ADD_MANY_ITEMS',
      units: [
        { unit_type: 'red', unit_off: 1, effect: 'ADD_MISSING_ITEMS' },
        { unit_type: 'blue', unit_off: 1, effect: 'ADD_NEW_ITEMS' },
      ],
    };
    const evaluation = evaluateRedeemables(request(candidate(discount(d, units))), startState([line('red', 2900), line('blue', 3100)], 0, null, null), context());
    const totals = totalsOf(evaluation.final);
    assert.deepEqual([totals.amount, totals.items_discount_amount, totals.total_amount], [9100, 6000, 3100]);
    assert.deepEqual(evaluation.final.lines.map((l) => [l.quantity, l.discount_quantity, l.discount_amount]), [
      [1, 1, 2900],
      [2, 1, 3100],
    ]);
  });
});

describe('eligibility and modes', () => {
  const start = () => startState([], 0, 1000, null);

  test('checks run in the reference order: not found, validity, quantity with locks, referrer', () => {
    const closed = { subject: 'Voucher X', window: { active: false } };
    const cases: Array<[Candidate, string]> = [
      [candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { found: false, windows: [closed] }), 'not_found'],
      [candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { windows: [closed], quantity: { limit: 1, redeemed: 1, lockedByOthers: 0 } }), 'voucher_disabled'],
      [candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { windows: [{ subject: 'x', window: { start_date: '2026-04-01T00:00:00Z' } }] }), 'voucher_not_active'],
      [candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { object: 'promotion_tier', windows: [{ subject: 'x', window: { expiration_date: '2026-01-01T00:00:00Z' } }] }), 'promotion_inactive'],
      [candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { quantity: { limit: 3, redeemed: 1, lockedByOthers: 2 } }), 'quantity_exceeded'],
      [candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { referrerId: 'cust_me' }), 'referrer_not_permitted_to_redeem'],
    ];
    for (const [c, key] of cases) {
      const evaluation = evaluateRedeemables(request(c), start(), context({}, { customer: { id: 'cust_me', metadata: {} } }));
      const outcome = evaluation.outcomes[0];
      assert.equal(outcome?.status, 'INAPPLICABLE');
      assert.equal(outcome?.status === 'INAPPLICABLE' ? outcome.failure.key : null, key);
      assert.equal(evaluation.failure?.key, key);
    }
  });

  test('ALL mode skips after a failure; PARTIAL applies the rest; nothing applied → no_applicable_redeemables', () => {
    const missing = () => candidate(discount({ type: 'AMOUNT', amount_off: 1 }), { found: false });
    const good = () => candidate(discount({ type: 'AMOUNT', amount_off: 100 }));
    const all = evaluateRedeemables(request(missing(), good()), start(), context());
    assert.deepEqual(all.outcomes.map((o) => o.status), ['INAPPLICABLE', 'SKIPPED']);
    assert.equal(all.valid, false);
    const partial = evaluateRedeemables(request(missing(), good()), start(), context({ redeemables_application_mode: 'PARTIAL' }));
    assert.deepEqual(partial.outcomes.map((o) => o.status), ['INAPPLICABLE', 'APPLICABLE']);
    assert.equal(partial.valid, true);
    assert.equal(totalsOf(partial.final).total_amount, 900);
    const skipped = evaluateRedeemables(request(good()), startState([], 0, 0, null), context({ redeemables_no_effect_rule: 'SKIP' }));
    assert.equal(skipped.failure?.key, 'no_applicable_redeemables');
  });

  test('gift: credits above the available balance (locks counted) fail; without credits the balance covers the order', () => {
    const gift = (credits: number | null) => candidate({ type: 'gift', code: 'G', balance: 1000, lockedByOthers: 400, effect: 'APPLY_TO_ORDER', credits });
    const over = evaluateRedeemables(request(gift(700)), start(), context());
    assert.equal(over.failure?.key, 'gift_amount_exceeded');
    const auto = evaluateRedeemables(request(gift(null)), start(), context());
    assert.equal(auto.applied[0]?.consumption.credits, 600);
    const noOrder = evaluateRedeemables(request(gift(null)), start(), context({}, { orderPresent: false }));
    assert.equal(noOrder.failure?.key, 'missing_amount');
  });

  test('pay with points: holder, reward, points and order checks', () => {
    const coin = { exchange_ratio: 20, points_ratio: 100 };
    const card = (reward: Extract<CandidatePayload, { type: 'loyalty' }>['reward'], holderId: string | null = 'cust_h') =>
      candidate({ type: 'loyalty', code: 'L', balance: 1000, lockedByOthers: 0, holderId, reward });
    const reward = (points: number | null) => ({ state: 'coin' as const, id: 'rew', assignmentId: 'rewa', coin, points, stockLeft: null });
    const key = (c: Candidate, extra: Partial<EngineContext> = {}) => evaluateRedeemables(request(c), startState([], 0, 45000, null), context({}, extra)).failure?.key ?? 'ok';
    assert.equal(key(card({ state: 'missing' })), 'missing_reward');
    assert.equal(key(card(reward(null), null)), 'invalid_customer');
    assert.equal(key(card(reward(null)), { customer: { id: 'cust_other', metadata: {} } }), 'invalid_customer');
    assert.equal(key(card(reward(2000))), 'loyalty_card_points_exceeded');
    assert.equal(key(card(reward(null)), { orderPresent: false }), 'missing_order');
    const paid = evaluateRedeemables(request(card(reward(null))), startState([], 0, 45000, null), context());
    assert.equal(paid.applied[0]?.consumption.points, 1000, 'the whole balance in blocks of 100');
    assert.equal(totalsOf(paid.final).total_amount, 45000 - 20000);
  });

  test('rules decide with the running order; a failing rule answers its family key and message', () => {
    const rule = compileRuleSet({ rules: { 1: { name: 'order.amount', conditions: { $more_than: [800] }, rules: {} }, logic: '1' }, error: { message: 'Big orders only' }, applicable_to: { included: [], excluded: [], included_all: false } });
    const first = candidate(discount({ type: 'AMOUNT', amount_off: 300 }));
    const guarded = candidate(discount({ type: 'AMOUNT', amount_off: 10 }), { rules: [{ ruleId: 'val_1', compiled: rule }] });
    const evaluation = evaluateRedeemables(request(first, guarded), start(), context({ redeemables_application_mode: 'PARTIAL' }));
    const outcome = evaluation.outcomes[1];
    assert.equal(outcome?.status, 'INAPPLICABLE');
    if (outcome?.status === 'INAPPLICABLE') {
      assert.equal(outcome.failure.key, 'order_rules_violated');
      assert.equal(outcome.failure.ruleMessage, 'Big orders only');
    }
  });
});

describe('pure helpers', () => {
  test('request-level problems', () => {
    assert.equal(redeemablesProblem([{ object: 'voucher', id: 'a' }], 30), null);
    assert.equal(redeemablesProblem([{ object: 'voucher', id: 'a' }, { object: 'voucher', id: 'a' }], 30)?.key, 'duplicated_redeemables');
    assert.equal(redeemablesProblem([{ object: 'voucher', id: 'a' }, { object: 'promotion_tier', id: 'a' }], 30), null, 'a code and a tier id may look alike');
    assert.equal(redeemablesProblem([{ object: 'promotion_stack', id: 's' }, { object: 'voucher', id: 'a' }], 30)?.key, 'invalid_redeemables');
    assert.equal(redeemablesProblem([{ object: 'voucher', id: 'a' }, { object: 'voucher', id: 'b' }], 1)?.key, 'invalid_redeemables');
  });

  test('session expiry by unit', () => {
    assert.equal(sessionExpiry(NOW, 7, 'DAYS').toISOString(), '2026-03-09T10:00:00.000Z');
    assert.equal(sessionExpiry(NOW, 90, 'MINUTES').toISOString(), '2026-03-02T11:30:00.000Z');
    assert.equal(sessionExpiry(NOW, 5, 'NANOSECONDS').getTime(), NOW.getTime() + 1, 'at least a millisecond');
  });

  test('counter periods in the project time zone', () => {
    assert.equal(periodStart(new Date('2026-03-04T10:15:30.250Z'), 'UTC', 'daily'), '2026-03-04T00:00:00.000Z');
    assert.equal(periodStart(new Date('2026-03-04T10:15:30.250Z'), 'UTC', 'weekly'), '2026-03-02T00:00:00.000Z');
    assert.equal(periodStart(new Date('2026-03-04T10:15:30.250Z'), 'UTC', 'monthly'), '2026-03-01T00:00:00.000Z');
    assert.equal(periodStart(new Date('2026-03-04T01:00:00.000Z'), 'GMT+05:00', 'daily'), '2026-03-03T19:00:00.000Z');
  });

  test('qualification filters', () => {
    const subject: QualificationSubject = {
      id: 'CODE',
      object: 'voucher',
      createdAt: '2026-01-01T00:00:00.000Z',
      campaignId: 'camp_1',
      campaignType: 'DISCOUNT_COUPONS',
      categoryIds: ['cat_1'],
      resourceId: 'v_1',
      resourceType: 'voucher',
      voucherType: 'DISCOUNT_VOUCHER',
      code: 'CODE',
      holderRole: 'OWNER',
    };
    assert.equal(qualifies(subject, { campaign_id: { conditions: { $is: ['camp_1'] } } }), true);
    assert.equal(qualifies(subject, { campaign_id: { conditions: { $is_not: ['camp_1'] } } }), false);
    assert.equal(qualifies(subject, { junction: 'or', campaign_id: { conditions: { $in: ['x'] } }, category_id: { conditions: { $in: ['cat_1'] } } }), true);
    assert.equal(qualifies(subject, { voucher_type: { conditions: { $is_unknown: '' } } }), false);
    assert.match(qualificationFilterProblem({ size: { conditions: {} } }) ?? '', /size/);
    assert.match(qualificationFilterProblem({ code: { conditions: { $like: ['x'] } } }) ?? '', /\$like/);
  });
});
