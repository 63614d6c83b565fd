import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkFormula } from '../../src/domain/formulas/check.ts';
import { evaluateFormula, type FormulaEvaluation } from '../../src/domain/formulas/evaluate.ts';
import {
  dateToFormulaDays,
  evaluateWithMinorUnits,
  formulaUnitsToMinor,
  minorToFormulaUnits,
  toFormulaVariables,
} from '../../src/domain/formulas/money.ts';
import { MAX_FORMULA_DEPTH, MAX_FORMULA_LENGTH, parseFormula, type Formula } from '../../src/domain/formulas/parser.ts';
import { roundHalfAwayFromZero } from '../../src/domain/formulas/rounding.ts';
import {
  FORMULA_FUNCTIONS,
  FORMULA_VARIABLES,
  METADATA_SOURCES,
  type FormulaVariables,
} from '../../src/domain/formulas/variables.ts';

function parsed(text: string): Formula {
  const result = parseFormula(text);
  if (!result.ok) throw new assert.AssertionError({ message: `${text} should parse: ${result.error}` });
  return result.formula;
}

function run(text: string, variables: FormulaVariables = {}): FormulaEvaluation {
  return evaluateFormula(parsed(text), variables);
}

function value(text: string, variables: FormulaVariables = {}): number {
  const result = run(text, variables);
  if (!result.ok) throw new assert.AssertionError({ message: `${text} should evaluate: ${result.message}` });
  return result.value;
}

const VARS: FormulaVariables = {
  values: { ORDER_AMOUNT: 465, ORDER_ITEMS_QUANTITY: 3, ORDER_UNITS_QUANTITY: 5, VOUCHER_PUBLISH_COUNT: 1, ORDER_ITEM_PRICE: 19.99 },
  metadata: {
    CUSTOMER: { age: 30, favorite_brands: ['Nike', 'Puma'], tier: 'gold', score: '12.5', nothing: null, nested: { a: 1 }, vip: true },
    ORDER: { region: 'EU', weight: 2 },
  },
};

describe('formula evaluation', () => {
  const cases: Array<[string, number]> = [
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['-2 * 3', -6],
    ['- -2', 2],
    ['+5', 5],
    ['2 * -3', -6],
    ['-(2 + 3)', -5],
    ['.5 + 0.25', 0.75],
    ['7 / 2', 3.5],
    ['IF(1 < 2; 10; 20)', 10],
    ['IF(2 <= 2; 10; 20)', 10],
    ['IF(1 > 2; 10; 20)', 20],
    ['IF(2 >= 3; 10; 20)', 20],
    ['IF(2 = 2; 1; 0)', 1],
    ['IF(2 <> 2; 1; 0)', 0],
    ['IF(2 != 3; 1; 0)', 1],
    ['IF(0.1 + 0.2 = 0.3; 1; 0)', 1],
    ['IF(0.1 + 0.2 > 0.3; 1; 0)', 0],
    ['IF(1 < 2 AND 3 < 4; 1; 0)', 1],
    ['IF(1 < 2 AND 3 > 4; 1; 0)', 0],
    ['IF(1 > 2 OR 3 < 4; 1; 0)', 1],
    ['IF(1 > 2 OR 3 > 4 AND 1 = 1; 1; 0)', 0],
    ['IF(AND(1; 2 > 1); 1; 0)', 1],
    ['IF(OR(0; 0); 1; 0)', 0],
    ['IF(NOT(1 > 2); 1; 0)', 1],
    ['IF(0; 1; 2)', 2],
    ['IF(IF(1 > 0; 2 > 1; 1 > 2); 5; 6)', 5],
    ['MIN(3; 1; 2)', 1],
    ['MAX(3; 1; 2)', 3],
    ['MIN(7)', 7],
    ['ROUND(2.675; 2)', 2.68],
    ['ROUND(1.005; 2)', 1.01],
    ['ROUND(2.5)', 3],
    ['ROUND(-2.5)', -3],
    ['ROUND(1234.5; -2)', 1200],
    ['ROUND(10 / 3; 1 + 1)', 3.33],
    ['ROUND(0.285 * 100)', 29],
    ['1 / 3 * 3', 1],
    // Vendor examples (OpenAPI), with ORDER_AMOUNT 465 and the customer 30 years old.
    ['IF(ORDER_AMOUNT > 400;0;20)', 0],
    ['IF(ORDER_AMOUNT > 300;15;5)', 15],
    ['IF(VOUCHER_PUBLISH_COUNT = 1;25;5)', 25],
    ['CUSTOMER_METADATA("age")', 30],
    ['IF(ORDER_UNITS_QUANTITY > 3;CUSTOMER_METADATA("age") + 2;CUSTOMER_METADATA("age") - 2)', 32],
    ['IF(ORDER_UNITS_QUANTITY > 3;CUSTOMER_METADATA("age") / 5;CUSTOMER_METADATA("age") / 10)', 6],
    ['IF(ORDER_AMOUNT > 100;CUSTOMER_METADATA("age");CUSTOMER_METADATA("age") / 2)', 30],
    ['IF(ORDER_AMOUNT > 100;CUSTOMER_METADATA("age") + 2;CUSTOMER_METADATA("age") - -2)', 32],
    ['IF(CUSTOMER_METADATA("favorite_brands") contains "Nike";20;CUSTOMER_METADATA("age"))', 20],
    ['IF(CUSTOMER_METADATA("favorite_brands") CONTAINS "Adidas";20;CUSTOMER_METADATA("age"))', 30],
    ['IF(CUSTOMER_METADATA("tier") contains "old";1;0)', 1],
    ['IF(CUSTOMER_METADATA("tier") = "gold";1;0)', 1],
    ['IF(CUSTOMER_METADATA("vip");1;0)', 1],
    ['CUSTOMER_METADATA("score") * 2', 25],
    ['IF(CUSTOMER_METADATA("score") = 12.5;1;0)', 1],
    ['ORDER_METADATA("weight") * ORDER_ITEMS_QUANTITY', 6],
    ['order_amount * 2', 930],
    ['If(Order_Amount > 1; Min(1; 2); Max(3; 4))', 1],
    [' \n\tORDER_ITEM_PRICE * 100 ', 1999],
    ['1 - 1', 0],
    ['0 * -1', 0],
  ];
  for (const [text, expected] of cases) {
    test(text, () => {
      const result = value(text, VARS);
      assert.equal(result, expected);
      assert.ok(!Object.is(result, -0), 'never -0');
    });
  }

  test('every supported variable can be read', () => {
    for (const name of FORMULA_VARIABLES) {
      assert.equal(value(`${name} + 1`, { values: { [name]: 41 } }), 42, name);
      const missing = run(name);
      assert.equal(missing.ok, false, name);
    }
  });

  test('every metadata source can be read', () => {
    for (const source of METADATA_SOURCES) {
      assert.equal(value(`${source}_METADATA("k") * 2`, { metadata: { [source]: { k: 4 } } }), 8, source);
    }
  });

  test('parsing reports the variables and metadata a formula reads', () => {
    const formula = parsed('IF(ORDER_AMOUNT > 1; CUSTOMER_METADATA("a") + ORDER_AMOUNT; ORDER_METADATA("b") * ORDER_UNITS_QUANTITY)');
    assert.deepEqual(formula.variables, ['ORDER_AMOUNT', 'ORDER_UNITS_QUANTITY']);
    assert.deepEqual(formula.metadata, [
      { source: 'CUSTOMER', key: 'a' },
      { source: 'ORDER', key: 'b' },
    ]);
  });
});

describe('formula evaluation failures', () => {
  const cases: Array<[string, FormulaVariables, string, string?]> = [
    ['ORDER_AMOUNT * 2', {}, 'missing_variable', 'ORDER_AMOUNT'],
    ['CUSTOMER_METADATA("missing") + 1', VARS, 'missing_variable', 'CUSTOMER_METADATA("missing")'],
    ['CUSTOMER_METADATA("nothing") + 1', VARS, 'missing_variable', 'CUSTOMER_METADATA("nothing")'],
    ['REDEMPTION_METADATA("x")', VARS, 'missing_variable', 'REDEMPTION_METADATA("x")'],
    ['1 / 0', {}, 'division_by_zero'],
    ['ORDER_AMOUNT / (ORDER_ITEMS_QUANTITY - 3)', VARS, 'division_by_zero'],
    ['ORDER_AMOUNT * 10', { values: { ORDER_AMOUNT: 1e308 } }, 'not_finite'],
    ['ORDER_AMOUNT', { values: { ORDER_AMOUNT: Number.NaN } }, 'not_finite'],
    ['CUSTOMER_METADATA("tier") * 2', VARS, 'type_mismatch'],
    ['CUSTOMER_METADATA("tier")', VARS, 'type_mismatch'],
    ['CUSTOMER_METADATA("nested") + 1', VARS, 'type_mismatch'],
    ['IF(CUSTOMER_METADATA("tier"); 1; 2)', VARS, 'type_mismatch'],
    ['IF(CUSTOMER_METADATA("favorite_brands") = "Nike"; 1; 2)', VARS, 'type_mismatch'],
    ['IF(CUSTOMER_METADATA("age") contains 3; 1; 2)', VARS, 'type_mismatch'],
    ['ROUND(1.5; ORDER_AMOUNT)', VARS, 'out_of_range'],
    ['ROUND(1.5; 0.5 + 0)', {}, 'out_of_range'],
  ];
  for (const [text, variables, reason, variable] of cases) {
    test(`${text} → ${reason}`, () => {
      const result = run(text, variables);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.equal(result.reason, reason);
      assert.equal(typeof result.message, 'string');
      assert.equal(result.variable, variable);
    });
  }

  test('only the branch taken needs its variables', () => {
    assert.equal(value('IF(1 > 0; 5; ORDER_AMOUNT)'), 5);
    assert.equal(value('IF(ORDER_AMOUNT > 400; 0; CUSTOMER_METADATA("x"))', { values: { ORDER_AMOUNT: 500 } }), 0);
    assert.equal(run('IF(ORDER_AMOUNT > 400; 0; CUSTOMER_METADATA("x"))', { values: { ORDER_AMOUNT: 5 } }).ok, false);
    assert.equal(value('IF(1 > 2 AND ORDER_AMOUNT > 1; 1; 0)'), 0, 'AND stops at the first false');
    assert.equal(value('IF(1 < 2 OR ORDER_AMOUNT > 1; 1; 0)'), 1, 'OR stops at the first true');
  });
});

describe('formula parse errors', () => {
  const cases: Array<[string, string]> = [
    ['FOO(1)', 'unknown function FOO at 1'],
    ['1 + BAR(2)', 'unknown function BAR at 5'],
    ['IF(ORDER_AMOUNT > 400;0;20))', "unexpected ')' at 28"],
    ['(1 + 2', "expected ')' at 7, found end of formula"],
    ['1 +', 'unexpected end of formula at 4'],
    ['1 2', "unexpected '2' at 3"],
    ['* 2', "unexpected '*' at 1"],
    ['MAX(1;;2)', "unexpected ';' at 7"],
    ['MAX(1,2)', "unexpected ',' at 6: separate arguments with ';' and write decimals with '.'"],
    ['ROUND(1,5)', "unexpected ',' at 8: separate arguments with ';' and write decimals with '.'"],
    ['UNKNOWN_VARIABLE + 1', 'unknown variable UNKNOWN_VARIABLE at 1'],
    ['ORDER_AMOUNT(1)', 'ORDER_AMOUNT is a variable, not a function, at 1'],
    ['MAX + 1', "expected '(' after MAX at 5"],
    ['CUSTOMER_METADATA', "expected '(' after CUSTOMER_METADATA at 18"],
    ['IF(1; 2)', 'IF takes 3 arguments, got 2, at 1'],
    ['IF(1; 2; 3; 4)', 'IF takes 3 arguments, got 4, at 1'],
    ['MIN()', 'MIN takes at least 1 argument, got 0, at 1'],
    ['NOT(1; 2) + 1', 'NOT takes 1 argument, got 2, at 1'],
    ['ROUND(1; 2; 3)', 'ROUND takes 1 or 2 arguments, got 3, at 1'],
    ['ROUND(1; 11)', 'ROUND takes a whole number of digits from -10 to 10 at 10'],
    ['ROUND(1; 1.5)', 'ROUND takes a whole number of digits from -10 to 10 at 10'],
    ['CUSTOMER_METADATA(age)', 'CUSTOMER_METADATA takes one quoted key, e.g. CUSTOMER_METADATA("tier"), at 19'],
    ['CUSTOMER_METADATA("")', 'CUSTOMER_METADATA takes one quoted key, e.g. CUSTOMER_METADATA("tier"), at 19'],
    ['CUSTOMER_METADATA("a"; "b")', "expected ')' at 22, found ';'"],
    ['VOUCHER_METADATA("a")', 'unknown function VOUCHER_METADATA at 1'],
    ['1 < 2 < 3', "unexpected '<' at 7: comparisons do not chain, combine them with AND"],
    ['1 < 2', 'the formula gives a condition, not a number, at 3'],
    ['"text"', 'the formula gives text, not a number, at 1'],
    ['"a" + 1', "'+' needs numbers at 5"],
    ['-"a"', "'-' needs a number at 1"],
    ['(1 > 2) * 3', "'*' needs numbers at 9"],
    ['IF(1 = "a"; 1; 2)', "'=' compares a number with text at 6"],
    ['IF("a" < "b"; 1; 2)', "'<' needs numbers at 8"],
    ['IF(1; 2; 1 > 0)', 'IF gives a number or a condition; both branches must give the same kind, at 1'],
    ['IF("a"; 1; 2)', 'IF needs a condition first, not text, at 4'],
    ['MAX(1; "a")', 'MAX needs numbers, not text, at 8'],
    ['IF(1 AND "a"; 1; 2)', 'AND needs conditions, not text, at 10'],
    ['IF(3 contains 1; 1; 2)', 'CONTAINS needs a list or text on its left, not a number, at 6'],
    ['#', "unexpected character '#' at 1"],
    ['ORDER_AMOUNT % 2', "unexpected character '%' at 14"],
    ['1.2.3', 'malformed number at 1'],
    ['2ORDER_AMOUNT', 'malformed number at 1'],
    ['1.', 'malformed number at 1'],
    ['CUSTOMER_METADATA("age', 'unterminated text at 19'],
    ['', 'empty formula'],
    ['   ', 'empty formula'],
    ['1'.repeat(31), 'number too long at 1'],
  ];
  for (const [text, error] of cases) {
    test(JSON.stringify(text), () => {
      assert.deepEqual(parseFormula(text), { ok: false, error });
      assert.equal(checkFormula(text), error);
    });
  }

  test(`nesting deeper than ${MAX_FORMULA_DEPTH} levels is refused, up to it is fine`, () => {
    const nested = (depth: number) => `${'('.repeat(depth)}1${')'.repeat(depth)}`;
    assert.equal(parseFormula(nested(MAX_FORMULA_DEPTH)).ok, true);
    const deep = parseFormula(nested(MAX_FORMULA_DEPTH + 1));
    assert.deepEqual(deep, { ok: false, error: `nesting deeper than ${MAX_FORMULA_DEPTH} levels at ${MAX_FORMULA_DEPTH + 1}` });
    const calls = `${'MAX('.repeat(MAX_FORMULA_DEPTH + 1)}1${')'.repeat(MAX_FORMULA_DEPTH + 1)}`;
    assert.equal(parseFormula(calls).ok, false);
    const signs = `${'-'.repeat(MAX_FORMULA_DEPTH + 1)}1`;
    assert.equal(parseFormula(signs).ok, false);
  });

  test(`text longer than ${MAX_FORMULA_LENGTH} characters is refused`, () => {
    const long = `1${' + 1'.repeat(MAX_FORMULA_LENGTH)}`;
    assert.deepEqual(parseFormula(long), { ok: false, error: `formula longer than ${MAX_FORMULA_LENGTH} characters` });
    const terms = Math.floor((MAX_FORMULA_LENGTH - 1) / 4);
    const fits = `1${' + 1'.repeat(terms)}`;
    assert.ok(fits.length <= MAX_FORMULA_LENGTH);
    assert.equal(value(fits), terms + 1);
  });

  test('checkFormula answers null for a good formula', () => {
    assert.equal(checkFormula('IF(ORDER_AMOUNT > 400;0;20)'), null);
  });

  test('the supported names are listed for error details', () => {
    for (const name of ['ORDER_AMOUNT', 'ORDER_ITEMS_QUANTITY', 'ORDER_UNITS_QUANTITY', 'ORDER_ITEM_PRICE', 'ORDER_ITEM_SUBTOTAL', 'CHEAPEST_ORDER_ITEM_PRICE', 'MOST_EXPENSIVE_ORDER_ITEM_AMOUNT', 'VOUCHER_REDEEMED_QUANTITY', 'VOUCHER_PUBLISH_COUNT', 'PROMOTION_TIER_EXPIRATION_DATE']) {
      assert.ok((FORMULA_VARIABLES as readonly string[]).includes(name), name);
    }
    for (const name of ['IF', 'MIN', 'MAX', 'ROUND', 'ORDER_METADATA', 'ORDER_ITEM_PRODUCT_METADATA', 'REDEEMABLE_METADATA']) {
      assert.ok(FORMULA_FUNCTIONS.includes(name), name);
    }
  });
});

describe('formulas never throw', () => {
  // A deterministic generator of formula-like text: whatever parses must evaluate to a number or a typed
  // failure for any variables, and whatever does not parse must be refused with a message, never a throw.
  const pieces = ['1', '0', '2.5', '-', '+', '*', '/', '(', ')', ';', ' ', '<', '>=', '=', '<>', 'AND', 'OR', 'IF(', 'MIN(', 'MAX(',
    'ROUND(', 'NOT(', 'ORDER_AMOUNT', 'ORDER_UNITS_QUANTITY', 'CUSTOMER_METADATA("a")', 'ORDER_METADATA("b")', ' contains ', '"x"', ',', '#'];
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const variableSets: FormulaVariables[] = [
    {},
    { values: { ORDER_AMOUNT: 0, ORDER_UNITS_QUANTITY: 0 }, metadata: { CUSTOMER: { a: 'text' }, ORDER: { b: [1, 2] } } },
    { values: { ORDER_AMOUNT: 1e300, ORDER_UNITS_QUANTITY: -3 }, metadata: { CUSTOMER: { a: 7 }, ORDER: { b: '4' } } },
    { values: { ORDER_AMOUNT: 12.34, ORDER_UNITS_QUANTITY: 2 }, metadata: { CUSTOMER: { a: { deep: 1 } }, ORDER: { b: true } } },
  ];

  test('5000 generated formulas', () => {
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const length = 1 + Math.floor(random() * 14);
      let text = '';
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
      const result = parseFormula(text);
      if (!result.ok) {
        assert.match(result.error, /\S/);
        continue;
      }
      accepted += 1;
      for (const variables of variableSets) {
        const evaluation = evaluateFormula(result.formula, variables);
        if (evaluation.ok) assert.ok(Number.isFinite(evaluation.value), text);
        else assert.ok(['missing_variable', 'division_by_zero', 'not_finite', 'type_mismatch', 'out_of_range'].includes(evaluation.reason), text);
      }
    }
    assert.ok(accepted > 100, `the generator should produce valid formulas too (got ${accepted})`);
  });
});

describe('money in formulas', () => {
  test('the vendor example: IF(ORDER_AMOUNT > 400;0;20) is 0 on a 46500-cent order and 2000 cents on a 30000-cent one', () => {
    const formula = parsed('IF(ORDER_AMOUNT > 400;0;20)');
    assert.deepEqual(evaluateWithMinorUnits(formula, { values: { ORDER_AMOUNT: 46500 } }, 'money'), { ok: true, value: 0 });
    assert.deepEqual(evaluateWithMinorUnits(formula, { values: { ORDER_AMOUNT: 30000 } }, 'money'), { ok: true, value: 2000 });
  });

  test('non-money results are not scaled, but money inputs still are', () => {
    const percent = parsed('IF(ORDER_AMOUNT > 400; 10; 5)');
    assert.deepEqual(evaluateWithMinorUnits(percent, { values: { ORDER_AMOUNT: 46500 } }, 'number'), { ok: true, value: 10 });
    const units = parsed('ORDER_UNITS_QUANTITY * 2');
    assert.deepEqual(evaluateWithMinorUnits(units, { values: { ORDER_UNITS_QUANTITY: 3 } }, 'number'), { ok: true, value: 6 });
  });

  test('conversion is exact on decimal values and rounds half-cents away from zero', () => {
    const cases: Array<[number, number]> = [
      [1999, 19.99],
      [46500, 465],
      [1, 0.01],
      [0, 0],
      [-250, -2.5],
    ];
    for (const [minor, major] of cases) {
      assert.equal(minorToFormulaUnits(minor), major);
      assert.equal(formulaUnitsToMinor(major), minor);
    }
    assert.equal(formulaUnitsToMinor(0.285), 29);
    assert.equal(formulaUnitsToMinor(1.005), 101);
    assert.equal(formulaUnitsToMinor(10 / 3), 333);
    assert.equal(formulaUnitsToMinor(-0.004), 0);
    assert.equal(value('ORDER_ITEM_PRICE * 3', toFormulaVariables({ values: { ORDER_ITEM_PRICE: 1999 } })), 59.97);
  });

  test('only money variables are scaled; metadata is left alone', () => {
    const variables = toFormulaVariables({
      values: { ORDER_AMOUNT: 1050, ORDER_ITEM_SUBTOTAL: 99, ORDER_UNITS_QUANTITY: 7, VOUCHER_REDEEMED_QUANTITY: 2 },
      metadata: { ORDER: { fee: 300 } },
    });
    assert.deepEqual(variables, {
      values: { ORDER_AMOUNT: 10.5, ORDER_ITEM_SUBTOTAL: 0.99, ORDER_UNITS_QUANTITY: 7, VOUCHER_REDEEMED_QUANTITY: 2 },
      metadata: { ORDER: { fee: 300 } },
    });
  });

  test('a failure passes through so the caller can use the static value', () => {
    const formula = parsed('ORDER_METADATA("fee") + ORDER_AMOUNT');
    const result = evaluateWithMinorUnits(formula, { values: { ORDER_AMOUNT: 100 } }, 'money');
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.variable, 'ORDER_METADATA("fee")');
    const huge = evaluateWithMinorUnits(parsed('ORDER_AMOUNT * 1000000'), { values: { ORDER_AMOUNT: 1e13 } }, 'money');
    assert.equal(huge.ok, false);
  });

  test('dates are days since the epoch', () => {
    assert.equal(dateToFormulaDays('1970-01-02T00:00:00.000Z'), 1);
    assert.equal(dateToFormulaDays(new Date('2026-01-01T12:00:00Z')), 20454.5);
    const span = parsed('VOUCHER_EXPIRATION_DATE - VOUCHER_START_DATE');
    const days = value(span.text, {
      values: { VOUCHER_START_DATE: dateToFormulaDays('2026-01-01T00:00:00Z'), VOUCHER_EXPIRATION_DATE: dateToFormulaDays('2026-01-31T00:00:00Z') },
    });
    assert.equal(days, 30);
  });

  test('rounding helper', () => {
    const cases: Array<[number, number, number]> = [
      [2.675, 2, 2.68],
      [-2.675, 2, -2.68],
      [0.5, 0, 1],
      [-0.5, 0, -1],
      [-0.4, 0, 0],
      [1e-7, 2, 0],
      [123456789.125, 2, 123456789.13],
      [155, -1, 160],
    ];
    for (const [x, digits, expected] of cases) assert.equal(roundHalfAwayFromZero(x, digits), expected, `${x} ${digits}`);
  });
});
