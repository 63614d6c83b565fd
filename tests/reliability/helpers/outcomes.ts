import assert from 'node:assert/strict';
import type { HttpResponse } from '../../../scripts/lib/http-client.ts';
import { at, preview } from '../../../scripts/lib/json.ts';

// Tallies of concurrent answers: how many succeeded, and proof that every refusal is the one business
// refusal the attack expects (a 5xx, a deadlock surfacing as 409, or a wrong key fails the test).

export function errorKey(res: HttpResponse): string {
  const key = at(res.body, 'key');
  return typeof key === 'string' ? key : '';
}

export function tally(results: HttpResponse[]): string {
  const counts = new Map<string, number>();
  for (const r of results) {
    const label = r.status >= 200 && r.status < 300 ? String(r.status) : `${r.status} ${errorKey(r)}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k}: ${v}`).join(', ');
}

/** Every answer is a 2xx or a 400 with one of `keys`; answers how many were 2xx. */
export function successesRefusedOnlyBy(results: HttpResponse[], keys: string[]): number {
  let ok = 0;
  for (const r of results) {
    if (r.status >= 200 && r.status < 300) {
      ok++;
      continue;
    }
    assert.ok(r.status === 400 && keys.includes(errorKey(r)), `unexpected answer ${r.status} ${preview(r.text)} (all: ${tally(results)})`);
  }
  return ok;
}
