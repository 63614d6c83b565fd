import type { Cell, Row } from './bulk.ts';

// Cloning rows the service wrote. A template row (read back from the database after a real API call) is
// compiled once into fixed text pieces and slots; a clone is the pieces joined with that clone's values.
// Slots are the template's own identifiers (ids, codes, names: literal tokens) and its timestamps, which
// move by the clone's time shift when they belong to the templated request. The clones therefore have
// exactly the columns and JSON shapes the service produces, with their own ids, codes, people and times.

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;

export interface CloneValues {
  /** Literal token → its replacement in this clone. */
  tokens: Map<string, string>;
  /** Added to every timestamp at or after the template request's start. */
  shiftMs: number;
}

type Piece = { text: string } | { token: string } | { time: number; original: string };

interface CompiledText {
  pieces: Piece[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class RowTemplate {
  readonly #compiled: Map<string, CompiledText | Cell>;
  readonly #requestStartMs: number;

  /**
   * @param tokens literal strings of the template that differ per clone (longest first is not needed:
   *   they are matched as whole alternatives, and ids never contain one another)
   * @param requestStartMs timestamps at or after this moment belong to the templated request
   */
  constructor(row: Row, tokens: readonly string[], requestStartMs: number) {
    this.#requestStartMs = requestStartMs;
    const pattern = new RegExp(`${tokens.map(escapeRegExp).join('|')}${tokens.length > 0 ? '|' : ''}${ISO.source}`, 'g');
    this.#compiled = new Map();
    const tokenSet = new Set(tokens);
    for (const [column, value] of Object.entries(row)) {
      if (typeof value !== 'string') {
        this.#compiled.set(column, value);
        continue;
      }
      const pieces: Piece[] = [];
      let at = 0;
      for (const match of value.matchAll(pattern)) {
        const found = match[0];
        const index = match.index ?? 0;
        if (index > at) pieces.push({ text: value.slice(at, index) });
        if (tokenSet.has(found)) pieces.push({ token: found });
        else pieces.push({ time: Date.parse(found), original: found });
        at = index + found.length;
      }
      if (at < value.length) pieces.push({ text: value.slice(at) });
      this.#compiled.set(column, { pieces });
    }
  }

  render(values: CloneValues): Row {
    const out: Row = {};
    for (const [column, compiled] of this.#compiled) {
      if (compiled === null || typeof compiled !== 'object') {
        out[column] = compiled;
        continue;
      }
      let text = '';
      for (const piece of compiled.pieces) {
        if ('text' in piece) text += piece.text;
        else if ('token' in piece) {
          const replacement = values.tokens.get(piece.token);
          if (replacement === undefined) throw new Error(`no value for template token ${piece.token}`);
          text += replacement;
        } else text += piece.time >= this.#requestStartMs ? new Date(piece.time + values.shiftMs).toISOString() : piece.original;
      }
      out[column] = text;
    }
    return out;
  }
}

/**
 * Ids as src/lib/ids.ts makes them (prefix, 12 hex digits of milliseconds, 8 of counter), for a given
 * moment: seeded rows sort by id in the same order as by time, as rows the service writes do.
 */
export class IdMaker {
  #lastMs = -1;
  #counter = 0;

  next(prefix: string, ms: number): string {
    if (ms <= this.#lastMs) {
      ms = this.#lastMs;
      this.#counter += 1;
    } else {
      this.#counter = Math.floor(Math.random() * 0x7fff_ffff);
      this.#lastMs = ms;
    }
    return `${prefix}_${ms.toString(16).padStart(12, '0')}${(this.#counter % 0x1_0000_0000).toString(16).padStart(8, '0')}`;
  }
}
