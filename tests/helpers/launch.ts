import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/server-process.ts';

// Launches Punchcard the way an operator does (`npm start`, `npx punchcard start`, `node bin/…`) for
// tests of the process itself: its output, its process tree, how it stops.

export const ROOT = join(import.meta.dirname, '..', '..');

export interface Launched {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

/**
 * A copy of the parts of the project a test needs, in a new temporary folder, with `links` (installed
 * dependencies such as node_modules) linked rather than copied. The caller removes the folder.
 */
export function copyProject(parts: readonly string[], links: readonly string[] = ['node_modules']): string {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-copy-'));
  for (const part of parts) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  for (const link of links) symlinkSync(join(ROOT, link), join(dir, link));
  return dir;
}

/** Runs `command args` in the project folder (or `cwd`) with Punchcard's environment on a free port. */
export async function launch(command: string, args: string[], env: Record<string, string>, cwd = ROOT): Promise<Launched> {
  const port = await freePort();
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      started.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => text, exited };
}

/** Waits until `/ready` answers 200 (the first start migrates, which takes a while on a busy machine). */
export async function waitReady(launched: Launched, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${launched.url}/ready`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (launched.child.exitCode !== null) throw new Error(`exited before it was ready:\n${launched.output()}`);
    await sleep(200);
  }
  throw new Error(`not ready within ${timeoutMs} ms:\n${launched.output()}`);
}

/** Every process below `pid` (children, grandchildren, …). */
export function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are none
  }
  const children = out.split('\n').map((l) => Number(l.trim())).filter((n) => n > 0);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The command line of a process, or null once it is gone. */
export function commandLine(pid: number): string | null {
  try {
    return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (commandLine(pid) === null) return true;
    await sleep(100);
  }
  return false;
}

/**
 * The start banner of `punchcard start` as it appears in `output`: the lines from the first of the block
 * (the keys shown once, or the "serving" line) to the console line (and the setup link under it). A log
 * line inside the block, or a block in pieces, makes it throw.
 */
export function startBanner(output: string): string[] {
  const lines = output.split('\n');
  const first = lines.findIndex((line) => line.startsWith('Punchcard created these keys') || line.startsWith('The generated keys were shown once') || line.startsWith('Punchcard is serving'));
  const consoleLine = lines.findIndex((line) => line.startsWith('Console: '));
  if (first === -1 || consoleLine === -1 || consoleLine < first) throw new Error(`no start banner in:\n${output}`);
  const last = lines[consoleLine + 1]?.startsWith('  http') ? consoleLine + 1 : consoleLine;
  const banner = lines.slice(first, last + 1);
  const logLine = banner.find((line) => line.startsWith('{') || /^\[\d\d:\d\d:\d\d/.test(line) || /listening/i.test(line) && !line.startsWith('Listening on '));
  if (logLine !== undefined) throw new Error(`a log line inside the start banner: ${logLine}\n${output}`);
  for (const needle of ['Punchcard is serving', 'Listening on ']) {
    if (banner.filter((line) => line.startsWith(needle)).length !== 1) throw new Error(`"${needle}" is not in the banner once:\n${output}`);
  }
  return banner;
}
