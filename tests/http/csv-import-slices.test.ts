import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { CompiledQuery, QueryResult } from 'kysely';
import { purgeAbandonedUploads } from '../../src/services/csv-imports/abandoned-uploads.ts';
import { DISCARD_MAX_ROWS } from '../../src/services/csv-imports/staged-rows.ts';
import { STAGE_BATCH_ROWS } from '../../src/services/csv-imports/upload.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';

// CSV uploads are staged and discarded in slices, as the background jobs work (src/lib/slices.ts): every
// statement on the staging table is bounded, and the event loop gets a pass between two of them, so
// requests run in between. On SQLite a statement holds the event loop while it runs: staging a 20 MB file
// batch after batch without a pass in between, or deleting a refused 100 MiB upload in one statement (two
// seconds), held every request. What is counted here does not depend on the machine's speed: the rows
// each statement takes, and the pass of the event loop each one starts in.

interface Statement {
  kind: 'insert' | 'delete' | 'select';
  rows: number;
  /** The pass of the event loop the statement was sent in (a setImmediate chain counts them). */
  pass: number;
}

describe(`CSV staging and discarding in slices, on ${testDialect()}`, () => {
  let t: TestApp;
  const statements: Statement[] = [];
  let pass = 0;
  let counting = true;
  const countPasses = () => {
    pass++;
    if (counting) setImmediate(countPasses);
  };

  before(async () => {
    t = await startTestApp();
    // Every statement the server sends outside a transaction goes through this executor (the upload's
    // inserts and deletes do); those on the staging table are recorded.
    const executor = t.db.db.getExecutor();
    const execute = executor.executeQuery.bind(executor);
    Object.assign(executor, {
      async executeQuery<R>(compiled: CompiledQuery<R>): Promise<QueryResult<R>> {
        const sentIn = pass;
        const result = await execute(compiled);
        if (/"csv_import_rows"/.test(compiled.sql)) {
          const kind = /^\s*insert/i.test(compiled.sql) ? 'insert' : /^\s*delete/i.test(compiled.sql) ? 'delete' : 'select';
          statements.push({ kind, rows: Number(result.numAffectedRows ?? result.rows.length), pass: sentIn });
        }
        return result;
      },
    });
    countPasses();
  });
  after(async () => {
    counting = false;
    await t?.close();
  });
  beforeEach(() => {
    statements.length = 0;
  });

  async function stagedRows(): Promise<number> {
    const row = await t.db.db.selectFrom('csv_import_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Statements that were sent in the same pass of the event loop as the one before them. */
  function backToBack(list: readonly Statement[]): Statement[] {
    return list.filter((s, i) => i > 0 && s.pass === list[i - 1]?.pass);
  }

  const ROWS = 6000;

  test('a refused upload: each insert and each delete takes a bounded slice of rows, with a pass of the event loop between any two', async () => {
    // The last record never closes its quote: the file is refused once it has all been staged.
    const csv = ['Source_id,Name', ...Array.from({ length: ROWS }, (_, i) => `sliced-${i},Customer ${i} of the refused file`), 'sliced-last,"never closed'].join('\n');
    const data = new FormData();
    data.append('file', new Blob([csv], { type: 'text/csv' }), 'refused.csv');
    const res = await fetch(`${t.url}/v1/customers/importCSV`, { method: 'POST', headers: t.serverHeaders(), body: data });
    const body = (await res.json()) as { details: string };
    assert.equal(res.status, 400);
    assert.match(body.details, /not valid CSV/);
    assert.equal(await stagedRows(), 0, 'nothing of the refused file stays');
    assert.deepEqual(await t.db.db.selectFrom('csv_uploads').selectAll().execute(), []);

    const inserts = statements.filter((s) => s.kind === 'insert');
    const deletes = statements.filter((s) => s.kind === 'delete');
    // How much was staged before the parser reached the broken record depends on how far it had read
    // ahead of the inserts (on a loaded machine, several batches: 4,500 of 6,000 records once); what
    // matters is that several slices went in, each bounded, and every one of them came out again.
    const staged = inserts.reduce((n, s) => n + s.rows, 0);
    assert.ok(staged >= 2 * STAGE_BATCH_ROWS, `${staged} records staged`);
    assert.equal(deletes.reduce((n, s) => n + s.rows, 0), staged, 'and deleted');
    assert.ok(Math.max(...inserts.map((s) => s.rows)) <= STAGE_BATCH_ROWS, `at most ${STAGE_BATCH_ROWS} rows per insert`);
    assert.ok(Math.max(...deletes.map((s) => s.rows)) <= DISCARD_MAX_ROWS, `at most ${DISCARD_MAX_ROWS} rows per delete: ${deletes.map((s) => s.rows).join(' ')}`);
    assert.deepEqual(backToBack(statements), [], 'a statement on the staging table followed the one before it in the same pass of the event loop');
  });

  test('an upload left by a dead process is purged a slice at a time, with a pass of the event loop between deletes', async () => {
    await t.db.db.insertInto('csv_uploads').values({ id: 'aa_sliced_dead', project_id: t.projectId, kind: 'CUSTOMERS.IMPORT_CSV', created_at: t.clock.now().toISOString() }).execute();
    for (let from = 1; from <= ROWS; from += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({ project_id: t.projectId, import_id: 'aa_sliced_dead', row_no: from + i, line: from + i + 1, cells: '["x","y"]' }));
      await t.db.db.insertInto('csv_import_rows').values(rows).execute();
    }
    statements.length = 0;
    t.clock.advance(25 * 3600_000);
    assert.equal(await purgeAbandonedUploads(t.deps), 1);
    assert.equal(await stagedRows(), 0);
    const deletes = statements.filter((s) => s.kind === 'delete');
    assert.equal(deletes.reduce((n, s) => n + s.rows, 0), ROWS);
    assert.ok(Math.max(...deletes.map((s) => s.rows)) <= DISCARD_MAX_ROWS, `at most ${DISCARD_MAX_ROWS} rows per delete: ${deletes.map((s) => s.rows).join(' ')}`);
    assert.deepEqual(backToBack(deletes), []);
  });

  test('an accepted upload is staged in bounded inserts with a pass of the event loop between any two', async () => {
    const csv = ['Source_id,Name', ...Array.from({ length: ROWS }, (_, i) => `accepted-${i},Customer ${i} of the accepted file`)].join('\n');
    const data = new FormData();
    data.append('file', new Blob([csv], { type: 'text/csv' }), 'accepted.csv');
    const res = await fetch(`${t.url}/v1/customers/importCSV`, { method: 'POST', headers: t.serverHeaders(), body: data });
    assert.equal(res.status, 202, await res.text());
    const inserts = statements.filter((s) => s.kind === 'insert');
    assert.equal(inserts.reduce((n, s) => n + s.rows, 0), ROWS);
    assert.ok(inserts.length >= ROWS / STAGE_BATCH_ROWS);
    assert.deepEqual(backToBack(inserts), []);
  });
});
