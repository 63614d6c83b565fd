import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { keyEnvironment } from './keys.ts';

// A real `punchcard start` in its own process, as an operator runs it: the crash test needs a process it
// can kill -9, the sweeps need a crash to show up as a dead process rather than a failed test runner,
// and two of them can share one PostgreSQL database.

const root = join(import.meta.dirname, '..', '..', '..');
const live = new Set<ChildProcess>();

// A failing test must not leave servers behind: kill exactly the processes this file started.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface ServerOptions {
  databaseUrl: string;
  /** Run the background worker inside the server (default true, as `punchcard start` does). */
  worker?: boolean;
  /** Extra environment (tests never need to change the keys). */
  env?: Record<string, string>;
}

async function freePort(): Promise<number> {
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

export class ServerProcess {
  readonly url: string;
  readonly options: ServerOptions;
  readonly #child: ChildProcess;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly #exited: Promise<void>;
  #tail = '';
  readonly #errors: string[] = [];

  private constructor(child: ChildProcess, url: string, options: ServerOptions) {
    this.#child = child;
    this.url = url;
    this.options = options;
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
        LOG_LEVEL: 'error',
        PUNCHCARD_WORKER: options.worker === false ? 'false' : 'true',
        ...(options.env ?? {}),
      };
      const child = spawn(process.execPath, [join(root, 'bin', 'punchcard.js'), 'start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const server = new ServerProcess(child, `http://127.0.0.1:${port}`, options);
      try {
        await server.#waitReady();
        return server;
      } catch (error) {
        lastError = error;
        await server.kill9();
        if (!/EADDRINUSE/.test(server.logTail())) break;
      }
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  async #waitReady(): Promise<void> {
    // A safety limit so a server that never comes up fails the run instead of hanging it.
    for (let i = 0; i < 1200; i++) {
      if (this.#exit) throw new Error(`server exited before it was ready (${JSON.stringify(this.#exit)}):\n${this.#tail}`);
      if ((await probeStatus(`${this.url}/ready`)) === 200) return;
      await sleep(100);
    }
    throw new Error(`server never became ready:\n${this.#tail}`);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  alive(): boolean {
    return this.#exit === null;
  }

  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | null {
    return this.#exit;
  }

  /** The last ~20 kB the process wrote. */
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

  /** A clean stop (SIGTERM: the server drains and closes its database). */
  async stop(): Promise<void> {
    if (this.#exit) return;
    this.#child.kill('SIGTERM');
    const stopped = await Promise.race([this.#exited.then(() => true), sleep(20_000, undefined, { ref: false }).then(() => false)]);
    if (!stopped) await this.kill9();
  }
}
