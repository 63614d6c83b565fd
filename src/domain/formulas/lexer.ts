// Splits formula text into tokens. Positions are 1-based character columns, as error messages show them.

export type TokenKind = 'number' | 'string' | 'name' | 'operator' | 'lparen' | 'rparen' | 'separator' | 'end';

export interface Token {
  kind: TokenKind;
  /** The text as written (for strings: the content without quotes, escapes resolved). */
  text: string;
  pos: number;
}

export class FormulaSyntaxError extends Error {}

const OPERATORS = ['<=', '>=', '<>', '!=', '<', '>', '=', '+', '-', '*', '/'];
const NUMBER = /^[0-9]+(\.[0-9]+)?|^\.[0-9]+/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
/** A longer literal is a typo, and beyond 2^53 it would not be read exactly anyway. */
const MAX_NUMBER_LENGTH = 30;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    const pos = i + 1;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      i += 1;
      continue;
    }
    const rest = text.slice(i);
    const number = NUMBER.exec(rest);
    if (number) {
      const literal = number[0];
      if (literal.length > MAX_NUMBER_LENGTH) throw new FormulaSyntaxError(`number too long at ${pos}`);
      // `1.2.3` or `12abc` are typos, not two tokens in a row.
      const next = rest[literal.length];
      if (next !== undefined && /[A-Za-z0-9_.]/.test(next)) {
        throw new FormulaSyntaxError(`malformed number at ${pos}`);
      }
      tokens.push({ kind: 'number', text: literal, pos });
      i += literal.length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', text: name[0], pos });
      i += name[0].length;
      continue;
    }
    if (char === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        const c = text[j];
        if (c === undefined) throw new FormulaSyntaxError(`unterminated text at ${pos}`);
        if (c === '"') break;
        if (c === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) {
          value += text[j + 1];
          j += 2;
          continue;
        }
        value += c;
        j += 1;
      }
      tokens.push({ kind: 'string', text: value, pos });
      i = j + 1;
      continue;
    }
    if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'lparen' : 'rparen', text: char, pos });
      i += 1;
      continue;
    }
    if (char === ';') {
      tokens.push({ kind: 'separator', text: char, pos });
      i += 1;
      continue;
    }
    if (char === ',') {
      // Refused rather than read as a separator: `ROUND(1,5)` may mean 1.5 to someone who writes decimal
      // commas, and guessing would silently compute something else.
      throw new FormulaSyntaxError(`unexpected ',' at ${pos}: separate arguments with ';' and write decimals with '.'`);
    }
    const operator = OPERATORS.find((op) => rest.startsWith(op));
    if (operator) {
      tokens.push({ kind: 'operator', text: operator, pos });
      i += operator.length;
      continue;
    }
    throw new FormulaSyntaxError(`unexpected character '${char}' at ${pos}`);
  }
  tokens.push({ kind: 'end', text: '', pos: text.length + 1 });
  return tokens;
}
