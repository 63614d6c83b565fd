import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { keyEnvironment } from './keys.ts';

// A real `punchcard start` (or `punchcard worker`) in its own process, exactly as an operator runs it
// (README "Command line"). The benchmark must measure the shipped entry point with its loader, plugins
// and worker, and its load generator must not share the server's event loop; the reliability suite needs
// a process it can kill -9, a crash that shows up as a dead process rather than a failed test runner, and
// two processes sharing one PostgreSQL database.

const root = join(import.meta.dirname, '..', '..');
const live = new Set<ChildProcess>();

// An aborted run or a failing test must not leave servers behind: kill exactly the processes this module
// started.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface ServerOptions {
  databaseUrl: string;
  /** `start` serves HTTP (and runs the worker unless `worker` is false); `worker` runs jobs only. */
  command?: 'start' | 'worker';
  /** Run the background worker inside `start` (default true, as `punchcard start` does). */
  worker?: boolean;
  /** Default warn, what production runs at under load: request logging (info) costs real time per request. */
  logLevel?: string;
  /** Extra node flags, e.g. --cpu-prof for profiling runs. */
  nodeFlags?: string[];
  /** Extra environment; the keys are always the fixed ones (./keys.ts). */
  env?: Record<string, string>;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

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

/** One GET on a connection of its own (no keep-alive socket outlives it); 0 when nothing answers. */
function probeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
  });
}

/** Pino writes one JSON object per line; these are the error and fatal ones. */
function isErrorLine(line: string): boolean {
  const match = /"level":(\d+)/.exec(line);
  return match?.[1] !== undefined && Number(match[1]) >= 50;
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
  readonly #child: ChildProcess;
  #exit: ExitStatus | null = null;
  readonly #exited: Promise<void>;
  #tail = '';
  readonly #errors: string[] = [];

  private constructor(child: ChildProcess, url: string) {
    this.#child = child;
    this.url = url;
    live.add(child);
    this.#exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.#exit = { code, signal };
        live.delete(child);
        resolve();
      });
    });
    let partial = '';
    const onData = (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (isErrorLine(line) && this.#errors.length < 200) this.#errors.push(line);
        this.#tail = (this.#tail + line + '\n').slice(-20_000);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  }

  static async start(options: ServerOptions): Promise<ServerProcess> {
    const command = options.command ?? 'start';
    let lastError: unknown;
    // The free port can be taken between the probe and the listen; another port then does.
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...keyEnvironment(),
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: options.databaseUrl,
        LOG_LEVEL: options.logLevel ?? 'warn',
        PUNCHCARD_WORKER: options.worker === false ? 'false' : 'true',
        ...(options.env ?? {}),
      };
      const args = [...(options.nodeFlags ?? []), join(root, 'bin', 'punchcard.js'), command];
      const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const server = new ServerProcess(child, `http://127.0.0.1:${port}`);
      try {
        // A worker serves no HTTP; it says when it has started.
        if (command === 'worker') await server.#waitFor(async () => server.#tail.includes('worker is running'));
        else await server.#waitFor(async () => (await probeStatus(`${server.url}/ready`)) === 200);
        return server;
      } catch (error) {
        lastError = error;
        await server.kill9();
        if (!/EADDRINUSE/.test(server.logTail())) break;
      }
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  async #waitFor(ready: () => Promise<boolean>): Promise<void> {
    // A safety limit so a process that never comes up fails the run instead of hanging it; generous,
    // because the first start migrates the database and the machine may be busy seeding.
    const timeoutMs = 180_000;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#exit) throw new Error(`server exited before it was ready (${JSON.stringify(this.#exit)}):\n${this.#tail}`);
      if (await ready()) return;
      await sleep(100);
    }
    throw new Error(`server was not ready within ${timeoutMs} ms:\n${this.#tail}`);
  }

  get pid(): number {
    const pid = this.#child.pid;
    if (pid === undefined) throw new Error('server process has no pid');
    return pid;
  }

  alive(): boolean {
    return this.#exit === null;
  }

  exitStatus(): ExitStatus | null {
    return this.#exit;
  }

  /** The last ~20 kB the process wrote, for failure messages. */
  logTail(): string {
    return this.#tail;
  }

  /** Lines the server logged at level error or fatal (every 5xx is logged so). */
  errorLines(): string[] {
    return [...this.#errors];
  }

  /** kill -9: no shutdown hook runs, open transactions die with the process. */
  async kill9(): Promise<void> {
    if (this.#exit) return;
    this.#child.kill('SIGKILL');
    await this.#exited;
  }

  /**
   * A clean stop (SIGTERM: the server drains and closes its database, the worker finishes its job, CPU
   * profiles are written); kill -9 if it has not exited after 30 s.
   */
  async stop(): Promise<void> {
    if (this.#exit) return;
    this.#child.kill('SIGTERM');
    const stopped = await Promise.race([this.#exited.then(() => true), sleep(30_000, undefined, { ref: false }).then(() => false)]);
    if (!stopped) await this.kill9();
  }
}
