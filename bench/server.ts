import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_KEYS, BENCH_ORIGIN } from './keys.ts';

// A real `punchcard start` (or `punchcard worker`) in its own process, exactly as an operator runs it
// (README "Command line"): the benchmark must measure the shipped entry point with its loader, plugins
// and worker, and the load generator must not share the server's event loop.

const root = join(import.meta.dirname, '..');
const live = new Set<ChildProcess>();

// An aborted run must not leave servers behind: kill exactly the processes this module started.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerOptions {
  databaseUrl: string;
  /** `start` serves HTTP (and runs the worker unless `worker` is false); `worker` runs jobs only. */
  command?: 'start' | 'worker';
  worker?: boolean;
  logLevel?: string;
  /** Extra node flags, e.g. --cpu-prof for profiling runs. */
  nodeFlags?: string[];
  env?: Record<string, string>;
}

/** Reads a /proc/<pid>/status memory line in bytes (VmRSS, VmHWM); null once the process is gone. */
export function procMemory(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Samples a process's resident set while a measurement runs. VmHWM is the kernel's own high-water mark
 * since the process started, so it also covers what the process used before the window (start-up,
 * seeding); the sampled maximum of VmRSS is the peak inside the window, which is what a scenario reports.
 */
export class RssSampler {
  readonly #pid: number;
  #peak = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(pid: number) {
    this.#pid = pid;
  }

  start(everyMs = 100): this {
    this.sample();
    this.#timer = setInterval(() => this.sample(), everyMs);
    return this;
  }

  sample(): void {
    const rss = procMemory(this.#pid, 'VmRSS');
    if (rss !== null && rss > this.#peak) this.#peak = rss;
  }

  stop(): number {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.sample();
    return this.#peak;
  }
}

export class ServerProcess {
  readonly url: string;
  readonly port: number;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #exitCode: number | null | undefined = undefined;
  #tail = '';

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    live.add(child);
    this.#exited = new Promise((resolve) => {
      child.on('exit', (code) => {
        this.#exitCode = code;
        live.delete(child);
        resolve();
      });
    });
    const keep = (chunk: Buffer) => {
      this.#tail = (this.#tail + chunk.toString('utf8')).slice(-8_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  get pid(): number {
    const pid = this.#child.pid;
    if (pid === undefined) throw new Error('server process has no pid');
    return pid;
  }

  /** Recent output, for error messages. */
  get tail(): string {
    return this.#tail;
  }

  static async start(options: ServerOptions): Promise<ServerProcess> {
    const port = await freePort();
    const command = options.command ?? 'start';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      // Request logging costs real time per request; production runs at warn or above under load.
      LOG_LEVEL: options.logLevel ?? 'warn',
      PUNCHCARD_APP_ID: BENCH_KEYS.server.id,
      PUNCHCARD_APP_TOKEN: BENCH_KEYS.server.secret,
      PUNCHCARD_CLIENT_APP_ID: BENCH_KEYS.client.id,
      PUNCHCARD_CLIENT_TOKEN: BENCH_KEYS.client.secret,
      PUNCHCARD_CLIENT_ORIGINS: BENCH_ORIGIN,
      PUNCHCARD_MANAGEMENT_ID: BENCH_KEYS.management.id,
      PUNCHCARD_MANAGEMENT_TOKEN: BENCH_KEYS.management.secret,
      PUNCHCARD_WORKER: options.worker === false ? 'false' : 'true',
      ...options.env,
    };
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), join(root, 'bin', 'punchcard.js'), command], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(child, port);
    if (command === 'worker') {
      await server.#waitForOutput('worker is running', 120_000);
      return server;
    }
    await server.#waitForHealth(180_000);
    return server;
  }

  async #waitForHealth(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#exitCode !== undefined) throw new Error(`server exited with ${this.#exitCode} before it was ready:\n${this.#tail}`);
      try {
        const response = await fetch(`${this.url}/health`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`server did not become healthy within ${timeoutMs} ms:\n${this.#tail}`);
  }

  async #waitForOutput(text: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#tail.includes(text)) return;
      if (this.#exitCode !== undefined) throw new Error(`process exited with ${this.#exitCode}:\n${this.#tail}`);
      await sleep(100);
    }
    throw new Error(`process did not print "${text}" within ${timeoutMs} ms:\n${this.#tail}`);
  }

  /** SIGTERM (graceful: the worker finishes its job, profiles are written), then SIGKILL after a while. */
  async stop(): Promise<void> {
    if (this.#exitCode !== undefined) return;
    this.#child.kill('SIGTERM');
    const killed = await Promise.race([this.#exited.then(() => false), sleep(30_000).then(() => true)]);
    if (killed) {
      this.#child.kill('SIGKILL');
      await this.#exited;
    }
  }
}
