import { parseFormula } from './parser.ts';

/**
 * The problem with a formula, or null when it parses: the form the discount and earning-rule checks use
 * to refuse a bad formula when it is stored, never when it is evaluated.
 */
export function checkFormula(text: string): string | null {
  const result = parseFormula(text);
  return result.ok ? null : result.error;
}
