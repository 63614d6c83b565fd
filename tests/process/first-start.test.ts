import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import { createRunDatabase } from '../reliability/helpers/run-database.ts';
import { launch, waitReady, type Launched } from '../helpers/launch.ts';

/** Real processes start, migrate and stop here, several at once on a busy machine: more than npm test's default per-test limit. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

// README "Running several processes": started together on a new database (two servers and a worker,
// without keys in the environment), exactly one process creates the keys and prints them; the others say
// which process showed them and where to find them later. The printed keys work on every server.

describe('first start of several processes at once on a new database', { timeout: 900_000 }, () => {
  let database: ThrowawayDatabase;
  const processes: Launched[] = [];

  before(async () => {
    database = await createRunDatabase('first_start');
  });
  after(async () => {
    for (const p of processes) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    await database?.drop();
  });

  test('one process prints every generated key; the others point to it', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    processes.push(
      await launch(process.execPath, ['bin/punchcard.js', 'start'], { ...env, PUNCHCARD_WORKER: 'false' }),
      await launch(process.execPath, ['bin/punchcard.js', 'start'], { ...env, PUNCHCARD_WORKER: 'false' }),
      await launch(process.execPath, ['bin/punchcard.js', 'worker'], env),
    );
    const [serverA, serverB, worker] = processes;
    assert.ok(serverA && serverB && worker);
    await Promise.all([waitReady(serverA), waitReady(serverB)]);
    const deadline = Date.now() + 120_000;
    while (!worker.output().includes('worker is running') && Date.now() < deadline) await sleep(200);

    const creators = processes.filter((p) => p.output().includes('Punchcard created these keys'));
    assert.equal(creators.length, 1, processes.map((p) => p.output()).join('\n-----\n'));
    const [creator] = creators;
    assert.ok(creator);
    const text = creator.output();
    const server = /X-App-Id: (\S+)\s+X-App-Token: (\S+)/.exec(text);
    assert.ok(server, text);
    assert.match(text, /X-Management-Id: \S+\s+X-Management-Token: \S+/);
    assert.match(text, /X-Client-Application-Id: \S+\s+X-Client-Token: \S+/);
    assert.match(text, /`punchcard keys` prints the key ids/);

    const creatorCommand = creator === worker ? 'worker' : 'start';
    for (const other of processes.filter((p) => p !== creator)) {
      assert.match(
        other.output(),
        new RegExp(`The generated keys were shown once by punchcard ${creatorCommand} \\(pid ${creator.child.pid} on host [^)]+\\) at \\S+, in its output\\. \`punchcard keys\` prints the key ids`),
        other.output(),
      );
      assert.doesNotMatch(other.output(), /X-App-Token/);
    }
    for (const target of [serverA, serverB]) {
      const res = await fetch(`${target.url}/v1/customers`, { headers: { 'x-app-id': server[1] ?? '', 'x-app-token': server[2] ?? '' } });
      assert.equal(res.status, 200, 'the printed keys work on every server');
    }
  });
});
