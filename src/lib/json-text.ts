import { randomBytes } from 'node:crypto';
import { UnreadableStoredJson } from './unreadable-rows.ts';

// Stored JSON that an answer shows unchanged (a redemption record's order, customer and voucher
// snapshots, for example) need not be parsed only to be serialised again: `JsonText` carries the stored
// text, and `stringifyAnswer` writes it into the answer as it is. On a page of 50 redemption records the
// parse and the serialisation of those snapshots were about a third of the request's CPU.
//
// The text must be what JSON.stringify wrote (every JSON column is written by toJson in
// src/store/json.ts): then the answer is byte for byte what parsing and serialising it would give.

/**
 * Stands for the JSON value of `text` in an answer. Serialised by anything other than stringifyAnswer
 * (a test's JSON.stringify, a log line), it is parsed, so it never shows up as anything but its value.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (splicing) return splicing.hold(this.text);
    try {
      return JSON.parse(this.text);
    } catch {
      throw new UnreadableStoredJson(this.text);
    }
  }
}

/**
 * Serialises an answer, writing the stored text of each JsonText in its place. JSON.stringify asks each
 * JsonText for its toJSON value: while this runs, that is a marker string (a random per-process token and
 * the text's index) that the second pass replaces by the text. The token is never shown, so no client's
 * string can hold it; should the markers found not be exactly the texts held, the answer is serialised
 * again with every JsonText parsed.
 */
export function stringifyAnswer(value: unknown): string {
  const held: string[] = [];
  const outer = splicing;
  splicing = { hold: (text) => `${TOKEN}${held.push(text) - 1}` };
  let skeleton: string;
  try {
    skeleton = JSON.stringify(value) ?? 'null';
  } finally {
    splicing = outer;
  }
  if (held.length === 0) return skeleton;
  let found = 0;
  const answer = skeleton.replace(MARKER, (_marker, index: string) => {
    found += 1;
    return held[Number(index)] ?? 'null';
  });
  return found === held.length ? answer : JSON.stringify(value);
}

/** Letters and digits only, so it appears in the serialised answer exactly as it is, followed by the index. */
const TOKEN = `jsontext${randomBytes(16).toString('hex')}n`;
const MARKER = new RegExp(`"${TOKEN}(\\d+)"`, 'g');

let splicing: { hold(text: string): string } | null = null;

/** The answer as its client reads it: each JsonText is the JSON value it holds. */
export type Served<T> = T extends JsonText ? never : T extends object ? { [K in keyof T]: Served<T[K]> } : T;

/**
 * For the type checker: an answer holding JsonText members is served as the objects its schema
 * describes, because stringifyAnswer writes each text in its place.
 */
export function served<T>(answer: T): Served<T> {
  return answer as Served<T>;
}
