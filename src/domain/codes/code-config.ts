import { randomBytes } from 'node:crypto';

// Voucher code generation (loyalty reference 1.4, promotions reference 1.3): code = prefix + pattern
// with every `#` replaced by a random charset character (or `length` random characters) + postfix.

export interface CodeConfigInput {
  length?: number | undefined;
  charset?: string | undefined;
  prefix?: string | undefined;
  postfix?: string | undefined;
  pattern?: string | undefined;
  initial_count?: number | undefined;
}

/** The normalised config, as campaigns echo it: `length` equals the number of `#` in `pattern`. */
export interface CodeConfig {
  length: number;
  charset: string;
  prefix: string;
  postfix: string;
  pattern: string;
}

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Named character sets the dashboard offers; any other string is a custom set. */
export const NAMED_CHARSETS: Record<string, string> = {
  alphanumeric: DIGITS + LOWER + UPPER,
  alphabetic: LOWER + UPPER,
  alphabetic_lowercase: LOWER,
  alphabetic_uppercase: UPPER,
  numbers: DIGITS,
};

export const DEFAULT_LENGTH = 8;
export const MAX_CODE_LENGTH = 200;

export type CodeConfigResult = { ok: true; config: CodeConfig } | { ok: false; error: string };

export function normalizeCodeConfig(input: CodeConfigInput | null | undefined, defaultCharset?: string | null): CodeConfigResult {
  const given = input ?? {};
  const rawCharset = given.charset ?? defaultCharset ?? 'alphanumeric';
  const charset = [...new Set([...(NAMED_CHARSETS[rawCharset] ?? rawCharset)])].join('');
  if ([...charset].length < 2) return { ok: false, error: 'code_config.charset must offer at least 2 distinct characters' };
  if (charset.includes('#')) return { ok: false, error: "code_config.charset cannot contain '#'" };
  const prefix = given.prefix ?? '';
  const postfix = given.postfix ?? '';
  let pattern: string;
  if (given.pattern !== undefined && given.pattern !== '') {
    pattern = given.pattern;
    if (!pattern.includes('#')) return { ok: false, error: "code_config.pattern must contain at least one '#'" };
  } else {
    const length = given.length ?? DEFAULT_LENGTH;
    if (!Number.isInteger(length) || length < 1) return { ok: false, error: 'code_config.length must be a positive integer' };
    pattern = '#'.repeat(length);
  }
  const length = [...pattern].filter((c) => c === '#').length;
  if (prefix.length + pattern.length + postfix.length > MAX_CODE_LENGTH) {
    return { ok: false, error: `codes would be longer than ${MAX_CODE_LENGTH} characters` };
  }
  return { ok: true, config: { length, charset, prefix, postfix, pattern } };
}

/** How many distinct codes the config can produce (Infinity when beyond exact integers). */
export function codeSpace(config: CodeConfig): number {
  return [...config.charset].length ** config.length;
}

/** A source of random bytes; injectable so tests can generate deterministic codes. */
export type RandomBytes = (n: number) => Uint8Array;

export const cryptoRandom: RandomBytes = (n) => randomBytes(n);

/**
 * Generates `count` codes in one go. Characters are drawn by rejection sampling so every charset member
 * is equally likely whatever the charset size; codes may repeat (callers drop duplicates and collisions).
 */
export function generateCodes(config: CodeConfig, count: number, random: RandomBytes = cryptoRandom): string[] {
  const { pattern, prefix, postfix } = config;
  const chars = [...config.charset];
  const size = chars.length;
  const limit = 256 - (256 % size);
  const slots = [...pattern];
  const randomPerCode = config.length;
  const out: string[] = new Array(count);
  let pool = random(Math.max(64, Math.ceil(count * randomPerCode * 1.3)));
  let at = 0;
  const next = (): string => {
    for (;;) {
      if (at >= pool.length) {
        pool = random(Math.max(64, Math.ceil(randomPerCode * 64)));
        at = 0;
      }
      const byte = pool[at++] as number;
      if (byte < limit) return chars[byte % size] as string;
    }
  };
  for (let i = 0; i < count; i++) {
    let code = prefix;
    for (const slot of slots) code += slot === '#' ? next() : slot;
    out[i] = code + postfix;
  }
  return out;
}
