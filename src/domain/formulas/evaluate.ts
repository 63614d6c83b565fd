import { validRoundingDigits, type Formula, type FormulaNode } from './parser.ts';
import { roundHalfAwayFromZero } from './rounding.ts';
import type { FormulaVariables } from './variables.ts';

// Evaluates a parsed formula. Evaluation never throws: a value the formula needs but the caller did not
// give, a division by zero, a metadata value of the wrong kind or a result that is not a finite number
// come back as a typed failure, so the caller can fall back to the static value (reference 0.1).

export type FormulaFailureReason =
  /** A variable or metadata key the evaluated branch needs is absent (or null). */
  | 'missing_variable'
  | 'division_by_zero'
  /** An intermediate or final result is infinite or not a number. */
  | 'not_finite'
  /** A metadata value is of a kind the formula cannot use there (text in a sum, an object, …). */
  | 'type_mismatch'
  /** A computed ROUND digit count is not a whole number within ±10. */
  | 'out_of_range';

export interface FormulaFailure {
  ok: false;
  reason: FormulaFailureReason;
  message: string;
  /** For missing_variable: the name, e.g. `ORDER_AMOUNT` or `CUSTOMER_METADATA("age")`. */
  variable?: string;
}

export type FormulaEvaluation = { ok: true; value: number } | FormulaFailure;

class EvaluationFailure extends Error {
  constructor(readonly failure: FormulaFailure) {
    super(failure.message);
  }
}

function failWith(reason: FormulaFailureReason, message: string, variable?: string): never {
  throw new EvaluationFailure({ ok: false, reason, message, ...(variable !== undefined ? { variable } : {}) });
}

type Value = number | boolean | string | readonly unknown[];

const NUMERIC_TEXT = /^\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*$/;

/** Equal within a relative 1e-9: sums of decimal money (0.1 + 0.2) must still equal the literal 0.3. */
function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function finite(value: number, pos: number): number {
  if (!Number.isFinite(value)) failWith('not_finite', `the result at ${pos} is not a finite number`);
  return value;
}

/**
 * A value as a spreadsheet shows it: 15 significant digits. Intermediate results keep full precision
 * (1 / 3 * 3 is 1), but what ROUND rounds and what the formula answers are read this way, so 19.99 * 100
 * answers 1999 rather than 1998.9999999999998 and ROUND(0.285 * 100) is 29, as its author expects.
 */
function spreadsheetPrecision(value: number): number {
  return Number(value.toPrecision(15));
}

/** Metadata values are numbers, text, booleans or lists; numeric text counts as a number where one is needed. */
function toNumber(value: Value, pos: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value)) return Number(value);
  return failWith('type_mismatch', `a number is needed at ${pos}, the value is ${describe(value)}`);
}

function toCondition(value: Value, pos: number): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return failWith('type_mismatch', `a condition is needed at ${pos}, the value is ${describe(value)}`);
}

function describe(value: Value): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'text';
  return typeof value === 'boolean' ? 'a condition' : 'a number';
}

/** Loose equality as a spreadsheet user expects it: "5" equals 5, numbers compare with a tolerance. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = typeof a === 'string' && NUMERIC_TEXT.test(a) ? Number(a) : a;
    const y = typeof b === 'string' && NUMERIC_TEXT.test(b) ? Number(b) : b;
    return typeof x === 'number' && typeof y === 'number' && close(x, y);
  }
  return a === b;
}

function metadataValue(raw: unknown, label: string, pos: number): Value {
  if (raw === undefined || raw === null) return failWith('missing_variable', `${label} is not set (at ${pos})`, label);
  if (typeof raw === 'number') return finite(raw, pos);
  if (typeof raw === 'string' || typeof raw === 'boolean' || Array.isArray(raw)) return raw as Value;
  return failWith('type_mismatch', `${label} holds an object, which a formula cannot use (at ${pos})`);
}

function evaluate(node: FormulaNode, vars: FormulaVariables): Value {
  switch (node.kind) {
    case 'number':
    case 'string':
      return node.value;
    case 'variable': {
      const value = vars.values?.[node.name];
      if (value === undefined) return failWith('missing_variable', `${node.name} is not available (at ${node.pos})`, node.name);
      return finite(value, node.pos);
    }
    case 'metadata': {
      const label = `${node.source}_METADATA(${JSON.stringify(node.key)})`;
      const source = vars.metadata?.[node.source];
      const raw = source && Object.hasOwn(source, node.key) ? source[node.key] : undefined;
      return metadataValue(raw, label, node.pos);
    }
    case 'negate':
      return -toNumber(evaluate(node.operand, vars), node.pos);
    case 'arithmetic': {
      const left = toNumber(evaluate(node.left, vars), node.left.pos);
      const right = toNumber(evaluate(node.right, vars), node.right.pos);
      switch (node.op) {
        case '+':
          return finite(left + right, node.pos);
        case '-':
          return finite(left - right, node.pos);
        case '*':
          return finite(left * right, node.pos);
        case '/':
          if (right === 0) failWith('division_by_zero', `division by zero at ${node.pos}`);
          return finite(left / right, node.pos);
      }
      break;
    }
    case 'compare': {
      const left = evaluate(node.left, vars);
      const right = evaluate(node.right, vars);
      if (node.op === '=' || node.op === '<>') {
        if (Array.isArray(left) || Array.isArray(right)) {
          failWith('type_mismatch', `'=' cannot compare a list at ${node.pos}; use CONTAINS`);
        }
        return node.op === '=' ? same(left, right) : !same(left, right);
      }
      const a = toNumber(left, node.left.pos);
      const b = toNumber(right, node.right.pos);
      switch (node.op) {
        case '<':
          return a < b && !close(a, b);
        case '<=':
          return a < b || close(a, b);
        case '>':
          return a > b && !close(a, b);
        case '>=':
          return a > b || close(a, b);
      }
      break;
    }
    case 'contains': {
      const haystack = evaluate(node.left, vars);
      const needle = evaluate(node.right, vars);
      if (Array.isArray(haystack)) return haystack.some((entry) => same(entry, needle));
      if (typeof haystack === 'string' && (typeof needle === 'string' || typeof needle === 'number')) {
        return haystack.includes(String(needle));
      }
      return failWith('type_mismatch', `CONTAINS needs a list or text on its left at ${node.pos}, the value is ${describe(haystack)}`);
    }
    case 'logical':
      // Short-circuit, like IF: a missing value in a part that does not decide the answer is no failure.
      if (node.op === 'AND') {
        for (const arg of node.args) if (!toCondition(evaluate(arg, vars), arg.pos)) return false;
        return true;
      }
      for (const arg of node.args) if (toCondition(evaluate(arg, vars), arg.pos)) return true;
      return false;
    case 'not':
      return !toCondition(evaluate(node.operand, vars), node.operand.pos);
    case 'if':
      // Only the branch taken is evaluated, so it alone decides whether a variable is needed.
      return toCondition(evaluate(node.condition, vars), node.condition.pos) ? evaluate(node.then, vars) : evaluate(node.otherwise, vars);
    case 'extreme': {
      const values = node.args.map((arg) => toNumber(evaluate(arg, vars), arg.pos));
      return node.fn === 'MIN' ? Math.min(...values) : Math.max(...values);
    }
    case 'round': {
      const value = toNumber(evaluate(node.value, vars), node.value.pos);
      const digits = node.digits === null ? 0 : toNumber(evaluate(node.digits, vars), node.digits.pos);
      if (!validRoundingDigits(digits)) failWith('out_of_range', `ROUND digits must be a whole number within ±10 at ${node.pos}`);
      return finite(roundHalfAwayFromZero(spreadsheetPrecision(value), digits), node.pos);
    }
  }
  // Unreachable: every node kind returns above; the parser makes no other kinds.
  return failWith('type_mismatch', `unknown formula element at ${node.pos}`);
}

/**
 * The value of a formula for the given variables (in formula units: money in major units, see
 * money.ts). Never throws for any formula parseFormula accepted.
 */
export function evaluateFormula(formula: Formula, variables: FormulaVariables): FormulaEvaluation {
  try {
    const value = spreadsheetPrecision(finite(toNumber(evaluate(formula.root, variables), formula.root.pos), formula.root.pos));
    return { ok: true, value: value === 0 ? 0 : value };
  } catch (error) {
    if (error instanceof EvaluationFailure) return error.failure;
    throw error;
  }
}
