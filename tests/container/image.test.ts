import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import sdk from '@voucherify/sdk';
import pg from 'pg';
import { freePort } from '../../scripts/lib/server-process.ts';

// The container image as an operator uses it (README "Running in a container"): built from the
// Containerfile, run on SQLite with a volume — the first start prints keys, the official SDK redeems
// through the server's port, a restart keeps every write and prints no new keys, SIGTERM stops it in time,
// the process is not root, the health check passes — and on PostgreSQL with a worker container beside it.
//
// No image registry is reachable here: the base image the Containerfile names is made by
// scripts/container/make-node-base.sh (Debian bookworm from debootstrap plus Node from the npm registry) and
// tagged with the official name. Podman runs it (runc, cgroupfs, explicit ulimits: what works on this
// machine kind). Without podman the test is skipped loudly, and fails when PUNCHCARD_REQUIRE_CONTAINER=1 (CI).

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const PODMAN_GLOBAL = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
const IMAGE = 'localhost/punchcard:test';

function podmanAvailable(): boolean {
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const available = podmanAvailable();
const required = process.env.PUNCHCARD_REQUIRE_CONTAINER === '1';
if (!available) {
  const banner = '!'.repeat(78);
  process.stderr.write(`\n${banner}\n!!! Container image test SKIPPED: podman is not installed (apt-get install podman runc debootstrap).\n${banner}\n`);
}

/** `ulimit` values for `podman run`: at most what this machine allows. */
function ulimits(): string[] {
  const hard = (flag: string) => Number(execFileSync('bash', ['-c', `ulimit -H ${flag}`], { encoding: 'utf8' }).trim()) || 4096;
  const files = Math.min(65_536, hard('-n'));
  const processes = Math.min(16_384, hard('-u'));
  return ['--ulimit', `nofile=${files}:${files}`, '--ulimit', `nproc=${processes}:${processes}`];
}

async function podman(args: string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await run('podman', [...PODMAN_GLOBAL, ...args], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Every container the test starts carries it, so a run that was killed is cleaned up by the next one. */
const LABEL = 'io.punchcard.test=image';
const containers: string[] = [];
async function startContainer(name: string, args: string[], command: string[] = []): Promise<string> {
  containers.push(name);
  await podman(['run', '-d', '--name', name, '--label', LABEL, '--network', 'host', ...ulimits(), ...args, IMAGE, ...command]);
  return name;
}

const logsOf = (name: string) => podman(['logs', name]).catch(() => '');

async function waitHealthy(url: string, name: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(300);
  }
  throw new Error(`${name} did not become ready:\n${await logsOf(name)}`);
}

/** Stops a container with SIGTERM (podman stop) and answers how long it took and how it exited. */
async function stopTimed(name: string): Promise<{ ms: number; exitCode: number }> {
  const started = Date.now();
  await podman(['stop', '-t', '40', name], 60_000);
  const exitCode = Number(await podman(['inspect', '--format', '{{.State.ExitCode}}', name]));
  return { ms: Date.now() - started, exitCode };
}

function keysOf(output: string): { appId: string; appToken: string } {
  const match = /X-App-Id: (\S+)\s+X-App-Token: (\S+)/.exec(output);
  assert.ok(match, `no server keys in the first start's output:\n${output}`);
  return { appId: match[1] as string, appToken: match[2] as string };
}

describe('the container image', { skip: !available && !required ? 'podman is not installed' : false, timeout: 45 * 60_000 }, () => {
  const suffix = randomBytes(4).toString('hex');
  const volume = `punchcard-test-${suffix}`;

  before(
    async () => {
      assert.ok(available, 'podman is required (PUNCHCARD_REQUIRE_CONTAINER=1) but not installed');
      const stale = (await podman(['ps', '-a', '-q', '--filter', `label=${LABEL}`])).split('\n').filter((id) => id !== '');
      if (stale.length > 0) await podman(['rm', '-f', '-t', '0', ...stale]);
      const nodeMajor = /^ARG NODE_VERSION=(\d+)$/m.exec(readFileSync(join(ROOT, 'Containerfile'), 'utf8'))?.[1];
      assert.ok(nodeMajor, 'the Containerfile names its Node version');
      await run('bash', [join(ROOT, 'scripts', 'container', 'make-node-base.sh'), nodeMajor], { timeout: 20 * 60_000, maxBuffer: 64 * 1024 * 1024 });
      await podman(['build', '--isolation', 'chroot', '--pull=never', '--format', 'docker', '-t', IMAGE, '-f', 'Containerfile', '.'], 30 * 60_000);
    },
    { timeout: 45 * 60_000 },
  );

  after(async () => {
    for (const name of containers) await podman(['rm', '-f', '-t', '0', name]).catch(() => undefined);
    await podman(['volume', 'rm', '-f', volume]).catch(() => undefined);
  });

  test('on SQLite with a volume: keys at first start, a redemption through the SDK, not root, healthy; a restart keeps every write; SIGTERM stops it in time', { timeout: 10 * 60_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const name = await startContainer(`punchcard-sqlite-${suffix}`, ['-e', `PORT=${port}`, '-e', `PUBLIC_URL=${url}`, '-e', 'PUNCHCARD_SHUTDOWN_TIMEOUT_MS=10000', '-v', `${volume}:/data`]);
    await waitHealthy(url, name);
    const firstOutput = await logsOf(name);
    assert.match(firstOutput, /Punchcard created these keys/);
    assert.match(firstOutput, /\/dashboard\/setup#token=/, 'the console setup link is in the log');
    const keys = keysOf(firstOutput);

    const user = await podman(['exec', name, 'id', '-u']);
    assert.notEqual(user, '0', 'the server runs as root');
    assert.equal((await podman(['top', name, 'user'])).split('\n').slice(1).map((l) => l.trim()).join(','), 'punchcard');
    await podman(['healthcheck', 'run', name]);

    const client = sdk.VoucherifyServerSide({ applicationId: keys.appId, secretKey: keys.appToken, apiUrl: url });
    await client.vouchers.create({ code: 'CONTAINER-10', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } } as never);
    const redeemed = await client.redemptions.redeem('CONTAINER-10', { order: { amount: 5000 } });
    assert.equal(redeemed.result, 'SUCCESS');

    const stopped = await stopTimed(name);
    assert.equal(stopped.exitCode, 0, await logsOf(name));
    assert.ok(stopped.ms < 15_000, `SIGTERM took ${stopped.ms} ms (shutdown timeout 10 s)`);

    await podman(['start', name]);
    await waitHealthy(url, name);
    const voucher = await client.vouchers.get('CONTAINER-10');
    assert.equal(voucher.redemption?.redeemed_quantity, 1, 'the redemption survived the restart');
    const restarted = await logsOf(name);
    assert.equal(restarted.match(/Punchcard created these keys/g)?.length, 1, 'no new keys at the second start');
    assert.equal((await stopTimed(name)).exitCode, 0);
  });

  test('punchcard commands as arguments: --version and keys', { timeout: 5 * 60_000 }, async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    assert.equal(await podman(['run', '--rm', ...ulimits(), IMAGE, '--version']), `punchcard ${version}`);
    const keys = await podman(['run', '--rm', ...ulimits(), '-v', `${volume}:/data`, IMAGE, 'keys']);
    assert.match(keys, /X-App-Id\s+app_/);
  });

  test('on PostgreSQL with a worker container beside the server: the worker runs the jobs', { skip: !process.env.PUNCHCARD_TEST_PG_URL && 'PostgreSQL not configured (PUNCHCARD_TEST_PG_URL)', timeout: 10 * 60_000 }, async () => {
    const adminUrl = process.env.PUNCHCARD_TEST_PG_URL as string;
    const database = `pc_container_${suffix}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${database}`);
    try {
      const databaseUrl = new URL(adminUrl);
      databaseUrl.pathname = `/${database}`;
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const common = ['-e', `DATABASE_URL=${databaseUrl}`, '-e', `PUBLIC_URL=${url}`];
      const api = await startContainer(`punchcard-api-${suffix}`, [...common, '-e', `PORT=${port}`, '-e', 'PUNCHCARD_WORKER=false']);
      await waitHealthy(url, api);
      const worker = await startContainer(`punchcard-worker-${suffix}`, common, ['worker']);
      const keys = keysOf(await logsOf(api));
      const client = sdk.VoucherifyServerSide({ applicationId: keys.appId, secretKey: keys.appToken, apiUrl: url });
      await client.customers.create({ source_id: 'container-pg', name: 'Pat' });
      // The SDK has no export calls: plain fetch with the same keys.
      const headers = { 'x-app-id': keys.appId, 'x-app-token': keys.appToken, 'content-type': 'application/json' };
      const created = await fetch(`${url}/v1/exports`, { method: 'POST', headers, body: JSON.stringify({ exported_object: 'customer', parameters: { fields: ['id', 'name'] } }) });
      assert.equal(created.status, 200, await created.clone().text());
      const exported = (await created.json()) as { id: string; status: string };
      let status = exported.status;
      for (const deadline = Date.now() + 60_000; status !== 'DONE' && Date.now() < deadline; ) {
        await sleep(500);
        status = ((await (await fetch(`${url}/v1/exports/${exported.id}`, { headers })).json()) as { status: string }).status;
      }
      assert.equal(status, 'DONE', `the worker container did not run the export:\n${await logsOf(worker)}`);
      assert.match(await logsOf(worker), /worker is running/);
      for (const name of [worker, api]) assert.equal((await stopTimed(name)).exitCode, 0, await logsOf(name));
    } finally {
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });
});
