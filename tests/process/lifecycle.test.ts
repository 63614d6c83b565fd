import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { keyEnvironment, FIXED_KEYS } from '../../scripts/lib/keys.ts';
import { freePort } from '../../scripts/lib/server-process.ts';
import { commandLine, descendants, launch, startBanner, waitGone, waitReady, type Launched } from '../helpers/launch.ts';

/** Real processes start, migrate and stop here, several at once on a busy machine: more than npm test's default per-test limit. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

// README "Stopping and restarting": SIGTERM or SIGINT stops the server in every launch path, with no
// process left behind; requests in flight are finished and answered with `Connection: close`; new
// connections are refused; the process exits 0 after closing its database.

const dir = join(tmpdir(), 'punchcard-lifecycle');
mkdirSync(dir, { recursive: true });
const files: string[] = [];
function freshDatabase(): string {
  const file = join(dir, `${randomBytes(6).toString('hex')}.db`);
  files.push(file);
  return `sqlite:${file}`;
}

function serverPid(launched: Launched): number {
  const pid = descendants(launched.child.pid ?? 0).find((p) => / bin\/punchcard\.js start$|punchcard start$/.test(commandLine(p) ?? ''));
  const node = pid ?? descendants(launched.child.pid ?? 0).find((p) => (commandLine(p) ?? '').includes('punchcard'));
  if (node === undefined) throw new Error(`no server process under ${launched.child.pid}: ${descendants(launched.child.pid ?? 0).map(commandLine).join(' | ')}`);
  return node;
}

describe('process lifecycle', { timeout: 900_000 }, () => {
  after(() => {
    for (const file of files) for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
  });

  for (const [title, command, args] of [
    ['npm start', 'npm', ['start']],
    ['npx punchcard start', 'npx', ['--no-install', 'punchcard', 'start']],
  ] as const) {
    test(`SIGTERM to the npm process of \`${title}\` stops the server; no orphan is left`, { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
      const launched = await launch(command, [...args], { ...keyEnvironment(), DATABASE_URL: freshDatabase() });
      await waitReady(launched);
      const server = serverPid(launched);
      launched.child.kill('SIGTERM');
      const gone = await waitGone(server, 30_000);
      // An orphan must not outlive a failing run.
      if (!gone) process.kill(server, 'SIGKILL');
      assert.ok(gone, `server ${server} still ran 30 s after npm got SIGTERM:\n${launched.output()}`);
      await launched.exited;
      await assert.rejects(fetch(`${launched.url}/health`), 'nothing answers any more');
      assert.match(launched.output(), /"msg":"stopped"/, 'the server ran its stop sequence');
    });
  }

  test('a request in flight at SIGTERM is answered with Connection: close; new connections are refused; exit 0', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    // Readable lines, as at a terminal: the banner in one block, one line per request.
    const launched = await launch(process.execPath, ['bin/punchcard.js', 'start'], { ...keyEnvironment(), DATABASE_URL: freshDatabase(), LOG_FORMAT: 'pretty' });
    await waitReady(launched);
    assert.match(startBanner(launched.output())[0] ?? '', /^Punchcard is serving /);
    const body = JSON.stringify({ source_id: 'in-flight', name: 'Sent across a shutdown' });
    const socket = net.connect(launched.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Headers and half the body: the request is on its way when the signal comes.
    socket.write(
      `POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-App-Id: ${FIXED_KEYS.server.id}\r\nX-App-Token: ${FIXED_KEYS.server.secret}\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(300);
    launched.child.kill('SIGTERM');
    await sleep(1000);
    await assert.rejects(fetch(`${launched.url}/health`), 'a new connection is refused while the server drains');

    socket.write(body.slice(10));
    await closed;
    const [head = '', payload = ''] = answer.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 200 /, answer);
    assert.match(head, /\r\nconnection: close\r\n/i, 'the client is told to take its next request elsewhere');
    assert.match(payload, /"source_id":"in-flight"/);
    const exit = await launched.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, launched.output());
    assert.match(launched.output(), /^\[[\d:.]+\] INFO: stopped$/m);
    const requestLines = launched.output().split('\n').filter((line) => line.includes('/v1/customers'));
    assert.equal(requestLines.length, 1, launched.output());
    assert.match(requestLines[0] ?? '', /^\[[\d:.]+\] INFO: POST \/v1\/customers 200 [\d.]+ ms \{"reqId":"[^"]+","client":"127\.0\.0\.1"\}$/);
  });

  test('a separate worker serves /metrics on PUNCHCARD_WORKER_METRICS_PORT; SIGINT stops it', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const metricsPort = await freePort();
    const launched = await launch(process.execPath, ['bin/punchcard.js', 'worker'], {
      ...keyEnvironment(),
      DATABASE_URL: freshDatabase(),
      PUNCHCARD_WORKER_METRICS_PORT: String(metricsPort),
    });
    const deadline = Date.now() + 120_000;
    while (!launched.output().includes('worker is running') && Date.now() < deadline) await sleep(200);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /^punchcard_job_queue_depth\{kind="webhook\.delivery",state="due"\} 0$/m);
    assert.match(text, /^punchcard_process_resident_memory_bytes /m);
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/v1/customers`)).status, 404, 'nothing but /metrics');

    launched.child.kill('SIGINT');
    assert.deepEqual(await launched.exited, { code: 0, signal: null }, launched.output());
    assert.match(launched.output(), /"reason":"SIGINT"/);
  });
});
