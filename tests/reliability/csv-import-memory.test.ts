import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { serverHeaders } from '../../scripts/lib/keys.ts';
import { procMemory, RssSampler, ServerProcess } from '../../scripts/lib/server-process.ts';
import type { ThrowawayDatabase } from '../../scripts/lib/throwaway-database.ts';
import { until } from '../../scripts/lib/until.ts';
import { createRunDatabase } from './helpers/run-database.ts';
import { sized } from './helpers/scale.ts';

// README "CSV imports": a 100,000-row customer file (40,000 rows at the CI scale, which keeps the
// PostgreSQL run inside CI's time budget) goes through `POST /v1/customers/importCSV` into a
// real `punchcard start` (the worker runs inside it, as by default) in bounded memory. The upload is
// parsed as it arrives and staged in the database; the job reads the rows back in slices. The server's
// resident memory may grow while it works (garbage between collections, the database's page cache), but
// holding the file would take several times its size (strings are two bytes a character, and each
// parsed row is an array of strings), so the bound is loose: less than five times the file's size, plus
// HEAP_ALLOWANCE for the working size the heap settles at under a busy job whatever the file (measured
// at 40,000 rows: +15 MB on SQLite, +66 MB on PostgreSQL, after the warm-up). Nothing here is timed.
//
// What is measured is what the import holds, not when V8 collects: the server runs with a full collection
// every second (helpers/collect-often.cjs). Without it, on Node 26 the old space filled with the import's
// garbage (the live heap went from 70 to 236 MB and back to 62 MB once the import ended; RSS +91 MB for a
// 6 MB file, against +4 MB on Node 20), while with it the live heap stayed at 15 MB and RSS grew 4 MB.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ROWS = sized({ full: 100_000, ci: 40_000 });
/** Every BAD_EVERY-th row has an impossible birthdate: rejected, and listed with its line. */
const BAD_EVERY = ROWS / 4;
const WARMUP_ROWS = ROWS / 4;
const HEAP_ALLOWANCE = 80 * 1024 * 1024;

describe(`a ${ROWS.toLocaleString('en')}-row customer CSV import`, { timeout: sized({ full: 60 * 60_000, ci: 15 * 60_000 }) }, () => {
  let database: ThrowawayDatabase;
  let server: ServerProcess;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchcard-csv-memory-'));
    database = await createRunDatabase('csvmemory');
    server = await ServerProcess.start({
      databaseUrl: database.url,
      // A path from the project's root, where the server starts (the test itself runs compiled elsewhere).
      nodeFlags: ['--expose-gc', '--require', './tests/reliability/helpers/collect-often.cjs'],
    });
  });

  after(async () => {
    await server?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function writeCustomers(path: string, rows: number, prefix: string, badEvery = BAD_EVERY): Promise<void> {
    const out = createWriteStream(path);
    out.write('Source_id,Name,Email,Phone,Birthdate,Address_line_1,Address_City,Address_Country,Description,tier,favourite_colour\r\n');
    for (let i = 1; i <= rows; i++) {
      const birthdate = i % badEvery === 0 ? '1990-02-30' : `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`;
      const line = `${prefix}-${i},"Customer ${i}, Jr.",c${i}@example.com,+48 600 ${String(i).padStart(6, '0')},${birthdate},"Street ${i}, flat ${i % 40}",Warsaw,PL,"Joined in ""${2000 + (i % 25)}""\nfrom the shop",${i % 3 === 0 ? 'gold' : 'silver'},blue\r\n`;
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  }

  async function importFile(path: string): Promise<string> {
    const form = new FormData();
    form.append('file', await openAsBlob(path, { type: 'text/csv' }), 'customers.csv');
    const res = await fetch(`${server.url}/v1/customers/importCSV`, { method: 'POST', headers: serverHeaders(), body: form });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 202, JSON.stringify(body));
    return body.async_action_id as string;
  }

  async function finished(id: string, timeoutMs: number): Promise<Json> {
    return until(`import ${id}`, timeoutMs, async () => {
      let res: Response;
      try {
        res = await fetch(`${server.url}/v1/async-actions/${id}`, { headers: serverHeaders() });
      } catch (error) {
        // A kept-alive connection the server closed at that moment is asked again; a dead server fails the test.
        if (server.exitStatus() === null) return null;
        throw new Error(`the server died (${JSON.stringify(server.exitStatus())}): ${String(error)}\n${server.logTail()}`);
      }
      const action = (await res.json()) as Json;
      if (action.status === 'FAILED') throw new Error(`the import failed: ${JSON.stringify(action.result)}`);
      return action.status === 'DONE' ? action : null;
    });
  }

  test('is imported whole, rejected rows listed by line, while the server process stays far below the file size in extra memory', async () => {
    // Warm up first on a quarter of the size: the code paths of an import are compiled, the caches
    // filled and the heap grown to its working size, so what the full file adds is what scales with it.
    const warmup = join(dir, 'warmup.csv');
    await writeCustomers(warmup, WARMUP_ROWS, 'warm', Infinity);
    await finished(await importFile(warmup), sized({ full: 15 * 60_000, ci: 5 * 60_000 }));

    const path = join(dir, 'customers.csv');
    await writeCustomers(path, ROWS, 'big');
    const fileBytes = statSync(path).size;
    const baseline = procMemory(server.pid, 'VmRSS');
    assert.ok(baseline !== null);
    const sampler = new RssSampler(server.pid).start(100);
    const id = await importFile(path);
    const done = await finished(id, sized({ full: 55 * 60_000, ci: 12 * 60_000 }));
    const peak = sampler.stop();
    const growth = peak - baseline;

    const bad = Array.from({ length: ROWS / BAD_EVERY }, (_, i) => (i + 1) * BAD_EVERY);
    assert.equal(done.result.done_count, ROWS - bad.length);
    assert.equal(done.result.failed_count, bad.length);
    // Each record spans two lines (the description holds a line break); the header is line 1.
    assert.deepEqual(
      done.result.failed.map((f: Json) => [f.row, f.line, f.source_id]),
      bad.map((row) => [row, 2 * row, `big-${row}`]),
    );
    for (const f of done.result.failed) assert.match(f.reason, /birthdate/);
    const list = await fetch(`${server.url}/v1/customers?limit=1`, { headers: serverHeaders() });
    assert.equal(((await list.json()) as Json).total, WARMUP_ROWS + ROWS - bad.length);
    const last = await fetch(`${server.url}/v1/customers/big-${ROWS - 1}`, { headers: serverHeaders() });
    const customer = (await last.json()) as Json;
    assert.equal(customer.name, `Customer ${ROWS - 1}, Jr.`);
    assert.equal(customer.description, `Joined in "${2000 + ((ROWS - 1) % 25)}"\nfrom the shop`);

    process.stdout.write(`# file ${(fileBytes / 1048576).toFixed(1)} MiB; server RSS ${(baseline / 1048576).toFixed(0)} MiB before, peak ${(peak / 1048576).toFixed(0)} MiB (+${(growth / 1048576).toFixed(1)} MiB)\n`);
    assert.ok(growth < 5 * fileBytes + HEAP_ALLOWANCE, `the server grew by ${growth} bytes importing a ${fileBytes}-byte file`);
  });
});
