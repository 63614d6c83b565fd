// The reliability suite runs at two sizes: `full` (`npm run test:reliability`) and `ci` (inside
// `npm test`, and the default when a file is run by hand, so a stray run never hogs the machine).

export type Scale = 'full' | 'ci';

export function reliabilityScale(): Scale {
  return process.env.PUNCHCARD_RELIABILITY_SCALE === 'full' ? 'full' : 'ci';
}

/** Picks the value for the current scale. */
export function sized<T>(values: { full: T; ci: T }): T {
  return values[reliabilityScale()];
}

/** Per-test time limit for node:test: generous, because a hang must end as a failure, never as a stuck run. */
export function testTimeout(): number {
  return sized({ full: 60 * 60_000, ci: 10 * 60_000 });
}
