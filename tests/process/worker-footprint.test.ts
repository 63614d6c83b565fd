import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { keyEnvironment, serverHeaders } from '../../scripts/lib/keys.ts';
import { launch, waitReady } from '../helpers/launch.ts';

// A separate `punchcard worker` loads neither the HTTP layer nor the API's body schemas (TypeBox, Ajv):
// about 28 MB it would hold for nothing (an idle worker measured 113–116 MB with them left out, 139–142 MB
// with them). The CSV import, whose row checks are those schemas, loads them when its first job runs.

const files: string[] = [];
after(() => {
  for (const file of files) for (const ext of ['', '-wal', '-shm', '-migration-lock']) rmSync(`${file}${ext}`, { force: true });
});

describe('worker footprint', { timeout: 600_000 }, () => {
  test('a worker loads the API schemas only once a CSV import runs, and imports the file', { timeout: 300_000 }, async () => {
    const file = join(tmpdir(), `worker-footprint-${randomBytes(4).toString('hex')}.db`);
    const importLog = `${file}.imports`;
    files.push(file, importLog);
    const env = { ...keyEnvironment(), DATABASE_URL: `sqlite:${file}` };
    const server = await launch(process.execPath, ['bin/punchcard.js', 'start'], { ...env, PUNCHCARD_WORKER: 'false' });
    await waitReady(server);
    const worker = await launch(process.execPath, ['--import', './tests/helpers/import-recorder.mjs', 'bin/punchcard.js', 'worker'], { ...env, PUNCHCARD_IMPORT_LOG: importLog });
    try {
      const deadline = Date.now() + 120_000;
      while (!worker.output().includes('worker is running') && Date.now() < deadline) await sleep(100);
      const imports = () => (existsSync(importLog) ? readFileSync(importLog, 'utf8') : '');
      assert.match(imports(), /\/src\/jobs\/csv-imports\.[jt]s$/m, 'the recorder sees the worker register its jobs');
      assert.doesNotMatch(imports(), /node_modules\/(typebox|ajv|fastify)\//);

      const form = new FormData();
      form.append('file', new Blob(['source_id,name\r\nfootprint-1,Worker Footprint\r\n'], { type: 'text/csv' }), 'customers.csv');
      const started = await fetch(`${server.url}/v1/customers/importCSV`, { method: 'POST', headers: serverHeaders(), body: form });
      assert.equal(started.status, 202, await started.clone().text());
      const { async_action_id: actionId } = (await started.json()) as { async_action_id: string };
      let status = '';
      for (const until = Date.now() + 60_000; status !== 'DONE' && Date.now() < until; await sleep(200)) {
        const action = (await (await fetch(`${server.url}/v1/async-actions/${actionId}`, { headers: serverHeaders() })).json()) as { status: string };
        status = action.status;
      }
      assert.equal(status, 'DONE', worker.output());
      const customer = await fetch(`${server.url}/v1/customers/footprint-1`, { headers: serverHeaders() });
      assert.equal(customer.status, 200);
      assert.equal(((await customer.json()) as { name: string }).name, 'Worker Footprint');
      assert.match(imports(), /node_modules\/typebox\//, 'loaded by the import job');
      assert.doesNotMatch(imports(), /node_modules\/fastify\//);
    } finally {
      worker.child.kill('SIGTERM');
      server.child.kill('SIGTERM');
      await Promise.all([worker.exited, server.exited]);
    }
  });
});
