import assert from 'node:assert/strict';

// Typed reads of JSON answers: bodies stay `unknown` and each member a caller relies on is checked, so a
// shape change fails with the path that broke instead of a TypeError three calls later.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The member at `path` (object keys or array indexes), or undefined when any step is missing. */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let current: unknown = value;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[step];
    } else {
      if (!isObject(current)) return undefined;
      current = current[step];
    }
  }
  return current;
}

export function str(value: unknown, ...path: Array<string | number>): string {
  const found = at(value, ...path);
  assert.equal(typeof found, 'string', `expected a string at ${path.join('.')} in ${preview(value)}`);
  return found as string;
}

export function num(value: unknown, ...path: Array<string | number>): number {
  const found = at(value, ...path);
  assert.equal(typeof found, 'number', `expected a number at ${path.join('.')} in ${preview(value)}`);
  return found as number;
}

export function list(value: unknown, ...path: Array<string | number>): unknown[] {
  const found = at(value, ...path);
  assert.ok(Array.isArray(found), `expected an array at ${path.join('.')} in ${preview(value)}`);
  return found;
}

export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function preview(value: unknown, max = 600): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
