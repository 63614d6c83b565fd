import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { freePort, ServerProcess } from '../scripts/lib/server-process.ts';

// The bench's side of bench/server-probe.mjs: starts a server process with the probe preloaded and reads
// its counters (CPU, SQL statements or PostgreSQL round trips, HTTP requests) around a measured window.

export interface ProbeSnapshot {
  cpu: { user: number; system: number };
  statements: number;
  requests: { started: number; finished: number };
}

/** What a window cost one or more server processes, summed over them. */
export interface ProbeDelta {
  /** CPU time of the server processes (user + system, every thread), µs. */
  cpuUs: number;
  /** SQLite statements or PostgreSQL round trips. */
  statements: number;
  /** Requests the servers answered in the window. */
  requests: number;
}

export interface CapturedWrite {
  sql: string;
  params: unknown;
}

export class Probe {
  readonly #url: string;

  constructor(port: number) {
    this.#url = `http://127.0.0.1:${port}`;
  }

  async snapshot(): Promise<ProbeSnapshot> {
    const response = await fetch(`${this.#url}/snapshot`);
    if (!response.ok) throw new Error(`probe answered ${response.status}`);
    return (await response.json()) as ProbeSnapshot;
  }

  /**
   * A snapshot taken once every request the server has started is answered (the load generator has
   * stopped; answers still in flight are part of the window they belong to). Gives up waiting after 10 s.
   */
  async quiet(): Promise<ProbeSnapshot> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const snap = await this.snapshot();
      if (snap.requests.started === snap.requests.finished) return snap;
      if (Date.now() > deadline) {
        process.stderr.write(`  probe: ${snap.requests.started - snap.requests.finished} requests still unanswered after 10 s; counting on\n`);
        return snap;
      }
      await sleep(10);
    }
  }

  async startCapture(): Promise<void> {
    const response = await fetch(`${this.#url}/capture/start`, { method: 'POST' });
    if (!response.ok) throw new Error(`probe answered ${response.status}`);
  }

  async startProfile(): Promise<void> {
    const response = await fetch(`${this.#url}/profile/start`, { method: 'POST' });
    if (!response.ok) throw new Error(`probe answered ${response.status}`);
  }

  /** The V8 CPU profile (.cpuprofile JSON text) since startProfile(). */
  async stopProfile(): Promise<string> {
    const response = await fetch(`${this.#url}/profile/stop`, { method: 'POST' });
    if (!response.ok) throw new Error(`probe answered ${response.status}`);
    return response.text();
  }

  async capture(): Promise<CapturedWrite[]> {
    const response = await fetch(`${this.#url}/capture`);
    if (!response.ok) throw new Error(`probe answered ${response.status}`);
    return JSON.parse(await response.text(), (_key, v: unknown) => {
      if (v && typeof v === 'object' && '$bigint' in v) return BigInt(String((v as { $bigint: string }).$bigint));
      if (v && typeof v === 'object' && '$base64' in v) return Buffer.from(String((v as { $base64: string }).$base64), 'base64');
      return v;
    }) as CapturedWrite[];
  }
}

export interface ProbedServer {
  server: ServerProcess;
  probe: Probe;
}

const PROBE_MODULE = pathToFileURL(join(import.meta.dirname, 'server-probe.mjs')).href;

export async function startProbedServer(databaseUrl: string): Promise<ProbedServer> {
  const port = await freePort();
  const server = await ServerProcess.start({ databaseUrl, nodeFlags: ['--import', PROBE_MODULE], env: { BENCH_PROBE_PORT: String(port) } });
  const probe = new Probe(port);
  await probe.snapshot(); // fails loudly if the probe did not load
  return { server, probe };
}

export async function quietAll(servers: readonly ProbedServer[]): Promise<ProbeSnapshot[]> {
  return Promise.all(servers.map((s) => s.probe.quiet()));
}

export function delta(before: readonly ProbeSnapshot[], after: readonly ProbeSnapshot[]): ProbeDelta {
  let cpuUs = 0;
  let statements = 0;
  let requests = 0;
  after.forEach((a, i) => {
    const b = before[i];
    if (!b) return;
    cpuUs += a.cpu.user + a.cpu.system - b.cpu.user - b.cpu.system;
    statements += a.statements - b.statements;
    requests += a.requests.finished - b.requests.finished;
  });
  return { cpuUs, statements, requests };
}
