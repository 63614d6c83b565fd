// The `logic` expression of a rule set: rule numbers combined with `and` / `or` and parentheses, in any
// letter case (`"1 and 2"`, `" 1 AND 2 AND (  3 AND 4 )"`). The vendor is silent on precedence; `and`
// binds tighter than `or`, as in every mainstream language. Anything else is refused when the rule is
// saved (reference 5.2 *Rec.*).

export type LogicNode = { type: 'rule'; key: string } | { type: 'and' | 'or'; left: LogicNode; right: LogicNode };

export class LogicError extends Error {}

type Token = { kind: 'number' | 'and' | 'or' | '(' | ')'; text: string; at: number };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+)|([A-Za-z]+)|(\()|(\))|(\S))/y;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < text.length && (match = pattern.exec(text)) !== null) {
    const at = match.index + (match[0].length - match[0].trimStart().length);
    if (match[1] !== undefined) tokens.push({ kind: 'number', text: match[1], at });
    else if (match[2] !== undefined) {
      const word = match[2].toLowerCase();
      if (word !== 'and' && word !== 'or') throw new LogicError(`unexpected token '${match[2]}' at position ${at + 1}`);
      tokens.push({ kind: word, text: match[2], at });
    } else if (match[3] !== undefined) tokens.push({ kind: '(', text: '(', at });
    else if (match[4] !== undefined) tokens.push({ kind: ')', text: ')', at });
    else if (match[5] !== undefined) throw new LogicError(`unexpected token '${match[5]}' at position ${at + 1}`);
  }
  return tokens;
}

/**
 * Parses a logic expression; `null` for an empty one (a rule set that only carries `applicable_to`).
 * Rule numbers are returned as written without leading zeros, to be matched against the rule keys.
 */
export function parseLogic(text: string): LogicNode | null {
  const tokens = tokenize(text);
  if (tokens.length === 0) return null;
  let position = 0;
  const peek = () => tokens[position];
  const describe = (token: Token | undefined) => (token ? `'${token.text}' at position ${token.at + 1}` : 'end of expression');

  const factor = (): LogicNode => {
    const token = peek();
    if (token?.kind === 'number') {
      position++;
      return { type: 'rule', key: String(Number(token.text)) };
    }
    if (token?.kind === '(') {
      position++;
      const inner = expression();
      if (peek()?.kind !== ')') throw new LogicError(`expected ')' but found ${describe(peek())}`);
      position++;
      return inner;
    }
    throw new LogicError(`expected a rule number or '(' but found ${describe(token)}`);
  };
  const term = (): LogicNode => {
    let node = factor();
    while (peek()?.kind === 'and') {
      position++;
      node = { type: 'and', left: node, right: factor() };
    }
    return node;
  };
  const expression = (): LogicNode => {
    let node = term();
    while (peek()?.kind === 'or') {
      position++;
      node = { type: 'or', left: node, right: term() };
    }
    return node;
  };

  const tree = expression();
  if (position < tokens.length) throw new LogicError(`unexpected ${describe(peek())}`);
  return tree;
}

/** Rule keys an expression names, in order of appearance. */
export function logicKeys(node: LogicNode | null): string[] {
  if (node === null) return [];
  if (node.type === 'rule') return [node.key];
  return [...logicKeys(node.left), ...logicKeys(node.right)];
}
