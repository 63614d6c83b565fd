import { setTimeout as sleep } from 'node:timers/promises';
import { ServerProcess } from '../scripts/lib/server-process.ts';
import type { JobResult } from './jobs.ts';
import { latencyProbes, stats, timedRequest, type ProbeStats } from './probes.ts';
import type { Pools } from './scenarios.ts';

// How the API fares while a burst of console sign-ins arrives at once (issue 43): each sign-in costs a
// memory-hard password hash (about 300 ms of a core here). The burst is 120 sign-ins for e-mails that
// have no account — what anyone can send — sent at once, twice: all from one client address (the
// throttle refuses all but its allowance before hashing) and from 120 different addresses behind a
// trusted proxy (the throttle lets each through, so only the bound on waiting hashes limits the work).
// The /health and redemption probes (bench/probes.ts) run for BASELINE_SECONDS before the bursts and
// then until the last sign-in has answered.

const BURST = 120;
const BASELINE_SECONDS = 5;

export interface SignInBurst extends JobResult {
  health: ProbeStats;
  redeem: ProbeStats;
  baseline: { health: ProbeStats; redeem: ProbeStats };
  /** The sign-ins' answers: status → count, and their latencies. */
  signIns: { statuses: Record<string, number>; latency: ProbeStats };
}

async function burst(url: URL, forwardedFor: (i: number) => string): Promise<Array<{ status: number; ms: number }>> {
  return Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      timedRequest(url, {
        method: 'POST',
        path: '/console/v1/session',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor(i) },
        body: JSON.stringify({ email: `nobody-${i}-${Date.now()}@bench.example.com`, password: 'not-a-real-password' }),
        agent: false,
      }),
    ),
  );
}

export async function signInBurstLatency(databaseUrl: string, pools: Pools): Promise<SignInBurst> {
  // The bench's loopback is the "proxy": its X-Forwarded-For is believed, as behind a real one.
  const server = await ServerProcess.start({ databaseUrl, env: { PUNCHCARD_TRUSTED_PROXIES: '127.0.0.1' } });
  const url = new URL(server.url);
  const probes = latencyProbes(url, pools);
  try {
    const baselineEnds = performance.now() + BASELINE_SECONDS * 1000;
    const [baseHealth, baseRedeem] = await probes.run(() => performance.now() < baselineEnds);
    let running = true;
    const during = probes.run(() => running);
    const started = performance.now();
    const oneAddress = await burst(url, () => '198.51.100.1');
    // Let the probes see the server settle between the bursts.
    await sleep(1000);
    const manyAddresses = await burst(url, (i) => `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`);
    const seconds = (performance.now() - started) / 1000;
    running = false;
    const [health, redeem] = await during;
    const answers = [...oneAddress, ...manyAddresses];
    const statuses: Record<string, number> = {};
    for (const [label, list] of [
      ['one address', oneAddress],
      ['120 addresses', manyAddresses],
    ] as const) {
      for (const a of list) statuses[`${label} ${a.status}`] = (statuses[`${label} ${a.status}`] ?? 0) + 1;
    }
    return {
      name: `${BURST} sign-ins at once, twice`,
      seconds,
      rows: answers.length,
      peakRss: 0,
      detail: Object.entries(statuses)
        .map(([k, n]) => `${k}×${n}`)
        .join(', '),
      health,
      redeem,
      baseline: { health: baseHealth, redeem: baseRedeem },
      signIns: { statuses, latency: stats(answers.map((a) => a.ms), answers.filter((a) => a.status === 0).length) },
    };
  } finally {
    probes.close();
    await server.stop();
  }
}
