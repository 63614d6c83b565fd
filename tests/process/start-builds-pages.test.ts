import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { keyEnvironment } from '../../scripts/lib/keys.ts';
import { freePort } from '../../scripts/lib/server-process.ts';
import { ROOT } from '../helpers/launch.ts';

// `npm install` builds the console into web/dist (the postinstall). An install made with
// --ignore-scripts has no pages: `punchcard start` builds them before it serves (bin/punchcard.js), and
// when they cannot be built it still serves the API. Each test works on a copy of the project without
// web/dist, so the project's own pages are left alone.

const copies: string[] = [];
after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

function projectCopy(options: { web: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-pages-'));
  copies.push(dir);
  for (const part of ['bin', 'src', 'scripts', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  if (options.web) {
    for (const part of ['src', 'index.html', 'cockpit.html', 'vite.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json']) {
      cpSync(join(ROOT, 'web', part), join(dir, 'web', part), { recursive: true });
    }
    symlinkSync(join(ROOT, 'web', 'node_modules'), join(dir, 'web', 'node_modules'));
  }
  return dir;
}

/** Starts `punchcard start` in `dir`, waits for /ready, and returns what GET `paths` answered. */
async function startAndGet(dir: string, paths: string[]): Promise<{ statuses: number[]; stderr: string }> {
  const port = await freePort();
  const env = { ...process.env, ...keyEnvironment(), PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'data.db')}`, PUNCHCARD_WORKER: 'false', LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, ['bin/punchcard.js', 'start'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const deadline = Date.now() + 240_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status, () => 0);
      if (ready === 200) break;
      assert.equal(child.exitCode, null, `the server exited: ${stderr}`);
      assert.ok(Date.now() < deadline, `not ready in time: ${stderr}`);
      await sleep(200);
    }
    const statuses: number[] = [];
    for (const path of paths) statuses.push((await fetch(`http://127.0.0.1:${port}${path}`)).status);
    return { statuses, stderr };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  }
}

describe('pages on start', { timeout: 600_000 }, () => {
  test('start builds the console and the cockpit when web/dist is missing, then serves them', async () => {
    const dir = projectCopy({ web: true });
    const { statuses, stderr } = await startAndGet(dir, ['/dashboard', '/health']);
    assert.deepEqual(statuses, [200, 200], stderr);
    assert.ok(existsSync(join(dir, 'web', 'dist', 'index.html')));
    assert.ok(existsSync(join(dir, 'web', 'dist', 'cockpit.html')));
    assert.match(stderr, /Console built into web\/dist/);
  });

  test('when the pages cannot be built, start says so and serves the API', async () => {
    const dir = projectCopy({ web: false });
    const { statuses, stderr } = await startAndGet(dir, ['/dashboard', '/health']);
    assert.deepEqual(statuses, [503, 200]);
    assert.match(stderr, /the console could not be built into web\/dist \(above\); serving the API without it/);
  });
});
