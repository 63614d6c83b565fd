import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { keyEnvironment } from '../../scripts/lib/keys.ts';
import { copyProject, launch, waitReady } from '../helpers/launch.ts';

// `npm install` builds the console into web/dist (the postinstall). An install made with
// --ignore-scripts has no pages: `punchcard start` builds them before it serves (bin/punchcard.js), and
// when they cannot be built it still serves the API. Each test works on a copy of the project without
// web/dist, so the project's own pages are left alone.

const copies: string[] = [];
after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

const SERVER = ['bin', 'src', 'scripts', 'package.json'];
const WEB = ['src', 'index.html', 'cockpit.html', 'vite.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json'].map((part) => join('web', part));

/** Starts `punchcard start` in `dir`, waits for /ready, and returns what GET `paths` answered. */
async function startAndGet(dir: string, paths: string[]): Promise<{ statuses: number[]; output: string }> {
  const env = { ...keyEnvironment(), DATABASE_URL: `sqlite:${join(dir, 'data.db')}`, PUNCHCARD_WORKER: 'false' };
  const server = await launch(process.execPath, ['bin/punchcard.js', 'start'], env, dir);
  try {
    await waitReady(server, 240_000);
    const statuses: number[] = [];
    for (const path of paths) statuses.push((await fetch(`${server.url}${path}`)).status);
    return { statuses, output: server.output() };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

describe('pages on start', { timeout: 600_000 }, () => {
  test('start builds the console and the cockpit when web/dist is missing, then serves them', async () => {
    const dir = copyProject([...SERVER, ...WEB], ['node_modules', 'web/node_modules']);
    copies.push(dir);
    const { statuses, output } = await startAndGet(dir, ['/dashboard', '/health']);
    assert.deepEqual(statuses, [200, 200], output);
    assert.ok(existsSync(join(dir, 'web', 'dist', 'index.html')));
    assert.ok(existsSync(join(dir, 'web', 'dist', 'cockpit.html')));
    assert.match(output, /Console built into web\/dist/);
  });

  test('when the pages cannot be built, start says so and serves the API', async () => {
    const dir = copyProject(SERVER);
    copies.push(dir);
    const { statuses, output } = await startAndGet(dir, ['/dashboard', '/health']);
    assert.deepEqual(statuses, [503, 200], output);
    assert.match(output, /the console could not be built into web\/dist \(above\); serving the API without it/);
  });
});
