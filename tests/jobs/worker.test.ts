import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
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

  test('a stopping worker releases the job in hand at its next progress report, without counting the attempt', async () => {
    const lines = captureLog();
    const worker = new Worker(t.deps, lines.log);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    worker.register('test.long', async (_job, ctx) => {
      started();
      await gate;
      await ctx.progress(10);
      return 'ran to the end';
    });
    const id = await enqueue('test.long', {});
    const attempt = worker.runOnce();
    await running;
    const stopped = worker.stop();
    proceed();
    await attempt;
    await stopped;

    const row = await findJob(t.deps.db, t.projectId, id);
    assert.equal(row?.status, 'ENQUEUED', 'back in the queue, not DONE');
    assert.equal(row?.locked_by, null);
    assert.equal(row?.attempts, 0, 'a shutdown does not use up an attempt');
    assert.ok(row && row.run_at <= t.clock.now().toISOString(), 'due at once');
    assert.ok(lines.find('job released for another worker: this one is stopping', { job_id: id, outcome: 'released' }));

    const next = new Worker(t.deps, t.app.log).register('test.long', async () => 'resumed');
    assert.equal(await next.runOnce(), true);
    assert.equal((await findJob(t.deps.db, t.projectId, id))?.status, 'DONE');
  });

  test('the worker logs every job it runs with its kind, attempt and outcome', async () => {
    const lines = captureLog();
    const worker = new Worker(t.deps, lines.log);
    worker.register('test.logged', async () => 'fine');
    worker.register('test.refused', async () => {
      throw new PermanentJobError('cannot be done');
    });
    const done = await enqueue('test.logged', {});
    const failed = await enqueue('test.refused', {});
    while (await worker.runOnce()) {
      /* drain */
    }
    const ok = lines.find('job done', { job_id: done, job_kind: 'test.logged', outcome: 'done', attempt: 1 });
    assert.ok(ok, lines.all().join('\n'));
    assert.equal(typeof ok.duration_ms, 'number');
    assert.equal(ok.level, 30, 'info');
    const bad = lines.find('job failed', { job_id: failed, job_kind: 'test.refused', outcome: 'failed' });
    assert.ok(bad);
    assert.equal(bad.level, 50, 'error');
  });
});

/** A pino logger whose lines the test reads back. */
function captureLog() {
  const written: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void written.push(line) });
  const parsed = () => written.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    log,
    all: () => written,
    find(msg: string, fields: Record<string, unknown>): Record<string, unknown> | undefined {
      return parsed().find((line) => line.msg === msg && Object.entries(fields).every(([k, v]) => line[k] === v));
    },
  };
}
