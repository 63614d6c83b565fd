import { serverHeaders } from './keys.ts';

// A minimal JSON client for setting up benchmark fixtures through the public API (the same path a
// merchant takes), failing loudly on any non-2xx answer.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export class Api {
  readonly base: string;
  readonly #headers: Record<string, string>;

  constructor(base: string, headers: Record<string, string> = serverHeaders()) {
    this.base = base;
    this.#headers = headers;
  }

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; json: JsonObject }> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { ...this.#headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const json = text === '' ? {} : (JSON.parse(text) as JsonObject);
    return { status: response.status, json };
  }

  async ok(method: string, path: string, body?: unknown): Promise<JsonObject> {
    const { status, json } = await this.call(method, path, body);
    if (status < 200 || status >= 300) throw new Error(`${method} ${path} → ${status} ${JSON.stringify(json).slice(0, 500)}`);
    return json;
  }
}

export function str(value: JsonValue | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string: ${JSON.stringify(value)}`);
  return value;
}

export function obj(value: JsonValue | undefined, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value;
}

export function arr(value: JsonValue | undefined, what: string): JsonValue[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not an array`);
  return value;
}

/** Runs `work` for 0..count-1 with at most `parallel` in flight. */
export async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(parallel, count) }, async () => {
    while (next < count) {
      const i = next++;
      await work(i);
    }
  });
  await Promise.all(lanes);
}
