import { FormulaSyntaxError, tokenize, type Token } from './lexer.ts';
import {
  FORMULA_FUNCTION_ARITY,
  isFormulaFunction,
  isFormulaVariable,
  metadataSourceOf,
  type FormulaVariableName,
  type MetadataSource,
} from './variables.ts';

// The formula language (promotions reference 3.12): spreadsheet-like expressions with `;` between
// arguments. Grammar, loosest binding first:
//
//   formula    := or
//   or         := and ( OR and )*
//   and        := compare ( AND compare )*
//   compare    := additive ( ( < | <= | > | >= | = | <> | != | CONTAINS ) additive )?
//   additive   := term ( ( + | - ) term )*
//   term       := unary ( ( * | / ) unary )*
//   unary      := ( - | + ) unary | primary
//   primary    := number | "text" | VARIABLE | FUNCTION ( formula ( ; formula )* ) | ( formula )
//
// Names are case-insensitive. Comparisons do not chain (`1 < 2 < 3` is refused). Everything the parser
// accepts can be evaluated without throwing: unknown names, wrong arities, misplaced text and
// conditions where a number is needed are refused here, at creation time.

/** Longer formulas are refused; the vendor's examples are a few dozen characters. */
export const MAX_FORMULA_LENGTH = 1000;
/** Deepest nesting of parentheses, calls and unary signs. */
export const MAX_FORMULA_DEPTH = 32;

/** What a node gives: `any` for metadata, whose type is known only when evaluated. */
export type ValueType = 'number' | 'boolean' | 'string' | 'any';

export type CompareOperator = '<' | '<=' | '>' | '>=' | '=' | '<>';
export type ArithmeticOperator = '+' | '-' | '*' | '/';

type NodeBody =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'variable'; name: FormulaVariableName }
  | { kind: 'metadata'; source: MetadataSource; key: string }
  | { kind: 'negate'; operand: FormulaNode }
  | { kind: 'arithmetic'; op: ArithmeticOperator; left: FormulaNode; right: FormulaNode }
  | { kind: 'compare'; op: CompareOperator; left: FormulaNode; right: FormulaNode }
  | { kind: 'contains'; left: FormulaNode; right: FormulaNode }
  | { kind: 'logical'; op: 'AND' | 'OR'; args: FormulaNode[] }
  | { kind: 'not'; operand: FormulaNode }
  | { kind: 'if'; condition: FormulaNode; then: FormulaNode; otherwise: FormulaNode }
  | { kind: 'extreme'; fn: 'MIN' | 'MAX'; args: FormulaNode[] }
  | { kind: 'round'; value: FormulaNode; digits: FormulaNode | null };

export type FormulaNode = NodeBody & { pos: number; type: ValueType };

/** A parsed formula; only parseFormula makes them, so evaluation can trust its shape. */
export interface Formula {
  readonly text: string;
  readonly root: FormulaNode;
  /** The plain variables it reads (in first-use order), so callers compute only those. */
  readonly variables: readonly FormulaVariableName[];
  /** The metadata it reads. */
  readonly metadata: readonly { source: MetadataSource; key: string }[];
}

export type ParseResult = { ok: true; formula: Formula } | { ok: false; error: string };

const COMPARE_OPERATORS: Record<string, CompareOperator> = {
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  '=': '=',
  '<>': '<>',
  '!=': '<>',
};

function fail(message: string): never {
  throw new FormulaSyntaxError(message);
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of formula';
    case 'string':
      return `text "${token.text}"`;
    default:
      return `'${token.text}'`;
  }
}

/** A value of this type can stand where a number is needed (metadata is checked when evaluated). */
function numeric(type: ValueType): boolean {
  return type === 'number' || type === 'any';
}

/** A condition: a comparison, or a number read spreadsheet-style (0 is false). */
function conditional(type: ValueType): boolean {
  return type === 'boolean' || type === 'number' || type === 'any';
}

function typeName(type: ValueType): string {
  return type === 'boolean' ? 'a condition' : type === 'string' ? 'text' : 'a number';
}

/** How far ROUND may shift: beyond this a double has no digits left to round, or no integer part. */
export const MAX_ROUND_DIGITS = 10;

export function validRoundingDigits(digits: number): boolean {
  return Number.isInteger(digits) && Math.abs(digits) <= MAX_ROUND_DIGITS;
}

/** The value of a constant number (`2`, `-2`), or null for anything computed. */
function literalNumber(node: FormulaNode): number | null {
  if (node.kind === 'number') return node.value;
  if (node.kind === 'negate' && node.operand.kind === 'number') return -node.operand.value;
  return null;
}

class Parser {
  private index = 0;
  private depth = 0;
  readonly variables = new Set<FormulaVariableName>();
  readonly metadata = new Map<string, { source: MetadataSource; key: string }>();

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    // tokenize always ends with an `end` token, and the parser never moves past it.
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private expect(kind: Token['kind'], what: string): Token {
    const token = this.peek();
    if (token.kind !== kind) fail(`expected ${what} at ${token.pos}, found ${describe(token)}`);
    return this.next();
  }

  private enter(pos: number): void {
    this.depth += 1;
    if (this.depth > MAX_FORMULA_DEPTH) fail(`nesting deeper than ${MAX_FORMULA_DEPTH} levels at ${pos}`);
  }

  private leave(): void {
    this.depth -= 1;
  }

  /** The keyword a name token spells in operator position (AND, OR, CONTAINS), if any. */
  private keyword(): string | null {
    const token = this.peek();
    return token.kind === 'name' ? token.text.toUpperCase() : null;
  }

  parseFormula(): FormulaNode {
    const root = this.parseOr();
    const rest = this.peek();
    if (rest.kind !== 'end') fail(`unexpected ${describe(rest)} at ${rest.pos}`);
    if (!numeric(root.type)) fail(`the formula gives ${typeName(root.type)}, not a number, at ${root.pos}`);
    return root;
  }

  private parseOr(): FormulaNode {
    const first = this.parseAnd();
    const args = [first];
    while (this.keyword() === 'OR') {
      this.next();
      args.push(this.parseAnd());
    }
    return args.length === 1 ? first : this.logical('OR', args, first.pos);
  }

  private parseAnd(): FormulaNode {
    const first = this.parseCompare();
    const args = [first];
    while (this.keyword() === 'AND') {
      this.next();
      args.push(this.parseCompare());
    }
    return args.length === 1 ? first : this.logical('AND', args, first.pos);
  }

  private logical(op: 'AND' | 'OR', args: FormulaNode[], pos: number): FormulaNode {
    for (const arg of args) {
      if (!conditional(arg.type)) fail(`${op} needs conditions, not ${typeName(arg.type)}, at ${arg.pos}`);
    }
    return { kind: 'logical', op, args, pos, type: 'boolean' };
  }

  private parseCompare(): FormulaNode {
    const left = this.parseAdditive();
    const token = this.peek();
    if (this.keyword() === 'CONTAINS') {
      this.next();
      const right = this.parseAdditive();
      if (left.type !== 'any' && left.type !== 'string') {
        fail(`CONTAINS needs a list or text on its left, not ${typeName(left.type)}, at ${token.pos}`);
      }
      if (right.type === 'boolean') fail(`CONTAINS needs a value to look for, not a condition, at ${right.pos}`);
      this.refuseChain();
      return { kind: 'contains', left, right, pos: token.pos, type: 'boolean' };
    }
    const op = token.kind === 'operator' ? COMPARE_OPERATORS[token.text] : undefined;
    if (!op) return left;
    this.next();
    const right = this.parseAdditive();
    if (op === '=' || op === '<>') {
      const known = [left.type, right.type].filter((t) => t !== 'any');
      if (known.length === 2 && known[0] !== known[1]) {
        fail(`'${token.text}' compares ${typeName(left.type)} with ${typeName(right.type)} at ${token.pos}`);
      }
    } else if (!numeric(left.type) || !numeric(right.type)) {
      fail(`'${token.text}' needs numbers at ${token.pos}`);
    }
    this.refuseChain();
    return { kind: 'compare', op, left, right, pos: token.pos, type: 'boolean' };
  }

  private refuseChain(): void {
    const token = this.peek();
    if ((token.kind === 'operator' && COMPARE_OPERATORS[token.text]) || this.keyword() === 'CONTAINS') {
      fail(`unexpected ${describe(token)} at ${token.pos}: comparisons do not chain, combine them with AND`);
    }
  }

  private parseAdditive(): FormulaNode {
    let left = this.parseTerm();
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'operator' || (token.text !== '+' && token.text !== '-')) return left;
      this.next();
      left = this.arithmetic(token, left, this.parseTerm());
    }
  }

  private parseTerm(): FormulaNode {
    let left = this.parseUnary();
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'operator' || (token.text !== '*' && token.text !== '/')) return left;
      this.next();
      left = this.arithmetic(token, left, this.parseUnary());
    }
  }

  private arithmetic(token: Token, left: FormulaNode, right: FormulaNode): FormulaNode {
    if (!numeric(left.type) || !numeric(right.type)) fail(`'${token.text}' needs numbers at ${token.pos}`);
    return { kind: 'arithmetic', op: token.text as ArithmeticOperator, left, right, pos: token.pos, type: 'number' };
  }

  private parseUnary(): FormulaNode {
    const token = this.peek();
    if (token.kind === 'operator' && (token.text === '-' || token.text === '+')) {
      this.next();
      this.enter(token.pos);
      const operand = this.parseUnary();
      this.leave();
      if (!numeric(operand.type)) fail(`'${token.text}' needs a number at ${token.pos}`);
      return token.text === '-' ? { kind: 'negate', operand, pos: token.pos, type: 'number' } : operand;
    }
    return this.parsePrimary();
  }

  private parsePrimary(): FormulaNode {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { kind: 'number', value: Number(token.text), pos: token.pos, type: 'number' };
      case 'string':
        return { kind: 'string', value: token.text, pos: token.pos, type: 'string' };
      case 'lparen': {
        this.enter(token.pos);
        const inner = this.parseOr();
        this.leave();
        this.expect('rparen', "')'");
        return inner;
      }
      case 'name':
        return this.parseName(token);
      default:
        return fail(`unexpected ${describe(token)} at ${token.pos}`);
    }
  }

  private parseName(token: Token): FormulaNode {
    const name = token.text.toUpperCase();
    const call = this.peek().kind === 'lparen';
    if (!call) {
      if (isFormulaVariable(name)) {
        this.variables.add(name);
        return { kind: 'variable', name, pos: token.pos, type: 'number' };
      }
      if (isFormulaFunction(name) || metadataSourceOf(name)) fail(`expected '(' after ${name} at ${this.peek().pos}`);
      return fail(`unknown variable ${token.text} at ${token.pos}`);
    }
    const source = metadataSourceOf(name);
    if (source) return this.parseMetadata(token, name, source);
    if (!isFormulaFunction(name)) {
      return fail(isFormulaVariable(name) ? `${name} is a variable, not a function, at ${token.pos}` : `unknown function ${token.text} at ${token.pos}`);
    }
    const args = this.parseArguments(token);
    const arity = FORMULA_FUNCTION_ARITY[name];
    if (args.length < arity.min || (arity.max !== null && args.length > arity.max)) {
      const expected = arity.min === arity.max ? `${arity.min}` : arity.max === null ? `at least ${arity.min}` : `${arity.min} or ${arity.max}`;
      const noun = (arity.max ?? arity.min) === 1 ? 'argument' : 'arguments';
      fail(`${name} takes ${expected} ${noun}, got ${args.length}, at ${token.pos}`);
    }
    return this.call(name, args, token.pos);
  }

  private parseArguments(token: Token): FormulaNode[] {
    this.expect('lparen', "'('");
    this.enter(token.pos);
    const args: FormulaNode[] = [];
    if (this.peek().kind !== 'rparen') {
      args.push(this.parseOr());
      while (this.peek().kind === 'separator') {
        this.next();
        args.push(this.parseOr());
      }
    }
    this.leave();
    this.expect('rparen', "';' or ')'");
    return args;
  }

  private parseMetadata(token: Token, name: string, source: MetadataSource): FormulaNode {
    this.expect('lparen', "'('");
    const key = this.peek();
    if (key.kind !== 'string' || key.text === '') fail(`${name} takes one quoted key, e.g. ${name}("tier"), at ${key.pos}`);
    this.next();
    this.expect('rparen', "')'");
    this.metadata.set(`${source}\u0000${key.text}`, { source, key: key.text });
    return { kind: 'metadata', source, key: key.text, pos: token.pos, type: 'any' };
  }

  private call(name: keyof typeof FORMULA_FUNCTION_ARITY, args: FormulaNode[], pos: number): FormulaNode {
    const needNumbers = () => {
      for (const arg of args) if (!numeric(arg.type)) fail(`${name} needs numbers, not ${typeName(arg.type)}, at ${arg.pos}`);
    };
    switch (name) {
      case 'IF': {
        const [condition, then, otherwise] = args as [FormulaNode, FormulaNode, FormulaNode];
        if (!conditional(condition.type)) fail(`IF needs a condition first, not ${typeName(condition.type)}, at ${condition.pos}`);
        let type: ValueType;
        if (then.type === otherwise.type || otherwise.type === 'any') type = then.type;
        else if (then.type === 'any') type = otherwise.type;
        else return fail(`IF gives ${typeName(then.type)} or ${typeName(otherwise.type)}; both branches must give the same kind, at ${pos}`);
        return { kind: 'if', condition, then, otherwise, pos, type };
      }
      case 'MIN':
      case 'MAX':
        needNumbers();
        return { kind: 'extreme', fn: name, args, pos, type: 'number' };
      case 'ROUND': {
        needNumbers();
        const digits = args[1] ?? null;
        const literal = digits === null ? null : literalNumber(digits);
        if (digits !== null && literal !== null && !validRoundingDigits(literal)) {
          fail(`ROUND takes a whole number of digits from -${MAX_ROUND_DIGITS} to ${MAX_ROUND_DIGITS} at ${digits.pos}`);
        }
        return { kind: 'round', value: args[0] as FormulaNode, digits, pos, type: 'number' };
      }
      case 'AND':
      case 'OR':
        return this.logical(name, args, pos);
      case 'NOT': {
        const operand = args[0] as FormulaNode;
        if (!conditional(operand.type)) fail(`NOT needs a condition, not ${typeName(operand.type)}, at ${operand.pos}`);
        return { kind: 'not', operand, pos, type: 'boolean' };
      }
    }
  }
}

/**
 * Parses and checks a formula. The error names the 1-based position and the problem, e.g. "unknown
 * function FOO at 1" or "unexpected ')' at 12".
 */
export function parseFormula(text: string): ParseResult {
  if (typeof text !== 'string') return { ok: false, error: 'a formula must be text' };
  if (text.length > MAX_FORMULA_LENGTH) return { ok: false, error: `formula longer than ${MAX_FORMULA_LENGTH} characters` };
  if (text.trim() === '') return { ok: false, error: 'empty formula' };
  try {
    const parser = new Parser(tokenize(text));
    const root = parser.parseFormula();
    return {
      ok: true,
      formula: Object.freeze({ text, root, variables: [...parser.variables], metadata: [...parser.metadata.values()] }),
    };
  } catch (error) {
    if (error instanceof FormulaSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}
