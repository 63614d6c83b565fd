import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker, PermanentJobError } from '../../src/jobs/worker.ts';
import { inTransaction } from '../../src/services/context.ts';
import { enqueueJob, findJob } from '../../src/store/jobs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('job worker', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function enqueue(kind: string, payload: unknown): Promise<string> {
    const id = t.deps.ids.next('job');
    await inTransaction(t.deps, (tx) =>
      enqueueJob(tx, { id, projectId: t.projectId, kind, payload, requestId: 'v-test', now: t.clock.now().toISOString() }),
    );
    return id;
  }

  test('runs a due job once and records its result', async () => {
    const worker = new Worker(t.deps, t.app.log);
    const seen: unknown[] = [];
    worker.register('test.echo', async (job, ctx) => {
      seen.push(job.payload);
      await ctx.progress(50);
      return { echoed: job.payload };
    });
    const id = await enqueue('test.echo', { n: 1 });
    assert.equal(await worker.runOnce(), true);
    assert.equal(await worker.runOnce(), false, 'nothing else is due');
    assert.deepEqual(seen, [{ n: 1 }]);
    const row = await findJob(t.deps.db, t.projectId, id);
    assert.equal(row?.status, 'DONE');
    assert.equal(row?.progress, 100);
    assert.deepEqual(JSON.parse(row?.result ?? 'null'), { echoed: { n: 1 } });
  });

  test('a failing job is retried later with backoff, then succeeds', async () => {
    const worker = new Worker(t.deps, t.app.log);
    let calls = 0;
    worker.register('test.flaky', async () => {
      calls += 1;
      if (calls === 1) throw new Error('temporary outage');
      return 'ok';
    });
    const id = await enqueue('test.flaky', {});
    assert.equal(await worker.runOnce(), true);
    let row = await findJob(t.deps.db, t.projectId, id);
    assert.equal(row?.status, 'ENQUEUED');
    assert.equal(row?.error, 'temporary outage');
    assert.equal(await worker.runOnce(), false, 'not due before the backoff');
    t.clock.advance(5_000);
    assert.equal(await worker.runOnce(), true);
    row = await findJob(t.deps.db, t.projectId, id);
    assert.equal(row?.status, 'DONE');
    assert.equal(row?.attempts, 2);
  });

  test('a permanent error fails the job at once', async () => {
    const worker = new Worker(t.deps, t.app.log);
    worker.register('test.bad', async () => {
      throw new PermanentJobError('bad input');
    });
    const id = await enqueue('test.bad', {});
    assert.equal(await worker.runOnce(), true);
    const row = await findJob(t.deps.db, t.projectId, id);
    assert.equal(row?.status, 'FAILED');
    assert.equal(row?.error, 'bad input');
    assert.ok(row?.finished_at);
  });

  test('a job whose worker died is taken over when its lease runs out', async () => {
    const dead = new Worker(t.deps, t.app.log);
    dead.register('test.slow', () => new Promise(() => undefined)); // never finishes
    const id = await enqueue('test.slow', {});
    void dead.runOnce();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await findJob(t.deps.db, t.projectId, id))?.status, 'IN_PROGRESS');

    const rescuer = new Worker(t.deps, t.app.log);
    rescuer.register('test.slow', async () => 'rescued');
    assert.equal(await rescuer.runOnce(), false, 'lease still valid');
    t.clock.advance(6 * 60_000);
    assert.equal(await rescuer.runOnce(), true);
    const row = await findJob(t.deps.db, t.projectId, id);
    assert.equal(row?.status, 'DONE');
    assert.equal(JSON.parse(row?.result ?? 'null'), 'rescued');
  });

  test('concurrent workers run every job exactly once', async () => {
    const runs = new Map<string, number>();
    const make = () =>
      new Worker(t.deps, t.app.log).register('test.count', async (job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 2));
        return null;
      });
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => enqueue('test.count', { i })));
    const workers = [make(), make(), make()];
    await Promise.all(
      workers.map(async (w) => {
        while (await w.runOnce()) {
          /* drain */
        }
      }),
    );
    assert.equal(runs.size, ids.length);
    for (const id of ids) assert.equal(runs.get(id), 1, id);
  });
});
