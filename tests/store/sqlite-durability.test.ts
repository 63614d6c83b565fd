import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../../src/app.ts';
import type { TypedApp } from '../../src/http/route-context.ts';
import { sortableIds } from '../../src/lib/ids.ts';
import type { Deps } from '../../src/services/context.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { durable, openSqlite, type DbHandle } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { SyncFile } from '../../src/store/sqlite-durability.ts';
import { TEST_KEYS, TestClock, testConfig } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';

// Group commit on SQLite (src/store/sqlite-durability.ts): commits do not wait for the disk, but nothing
// that follows a commit — an HTTP answer above all — leaves before an fsync of the WAL that started after
// that commit has completed, and commits made while one fsync runs share the next.

/** A WAL sync that the test completes by hand (or at once, while `holding` is off). */
class HeldDisk {
  holding = false;
  syncs = 0;
  readonly #pending: Array<() => void> = [];
  readonly sync: SyncFile = (_fd, done) => {
    this.syncs++;
    if (this.holding) this.#pending.push(() => done(null));
    else done(null);
  };
  get waiting(): number {
    return this.#pending.length;
  }
  releaseOne(): void {
    this.#pending.shift()?.();
  }
}

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await sleep(20);
  return done;
}

describe('SQLite group commit: answers wait for the disk', { skip: testDialect() !== 'sqlite' && 'SQLite only' }, () => {
  const dir = join(tmpdir(), 'punchcard-tests');
  const file = join(dir, `durability-${process.pid}-${Date.now()}.db`);
  const disk = new HeldDisk();
  let handle: DbHandle;
  let app: TypedApp;

  before(async () => {
    mkdirSync(dir, { recursive: true });
    handle = openSqlite(`sqlite:${file}`, { syncWal: disk.sync });
    await migrateToLatest(handle.db);
    const clock = new TestClock('2026-03-02T10:00:00.000Z');
    const config = testConfig({ databaseUrl: `sqlite:${file}` });
    const boot = await bootstrap({ db: handle.db, dialect: 'sqlite', clock, ids: sortableIds, config });
    const deps: Deps = { db: handle.db, dialect: 'sqlite', clock, ids: sortableIds, config, pepper: boot.pepper };
    app = await buildApp({ ...deps, logger: false });
  });

  after(async () => {
    disk.holding = false;
    while (disk.waiting > 0) disk.releaseOne();
    await app?.close();
    await handle?.close();
    for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
  });

  test('durable() resolves only after an fsync that began after the commit', async () => {
    disk.holding = true;
    await handle.db.insertInto('settings').values({ key: 'durability-1', value: 'x' }).execute();
    const syncsBefore = disk.syncs;
    const waiting = durable(handle.db);
    assert.equal(await settled(waiting), false, 'not durable while the fsync is held');
    assert.equal(disk.syncs, syncsBefore + 1);
    disk.releaseOne();
    assert.equal(await settled(waiting), true);
    // Nothing committed since: no further fsync is needed.
    await durable(handle.db);
    assert.equal(disk.syncs, syncsBefore + 1);
  });

  test('commits made while an fsync runs share the next one', async () => {
    disk.holding = true;
    await handle.db.insertInto('settings').values({ key: 'durability-group-0', value: 'x' }).execute();
    const first = durable(handle.db);
    const syncsBefore = disk.syncs;
    const later: Array<Promise<void>> = [];
    for (let i = 1; i <= 20; i++) {
      await handle.db.insertInto('settings').values({ key: `durability-group-${i}`, value: 'x' }).execute();
      later.push(durable(handle.db));
    }
    assert.equal(disk.syncs, syncsBefore, 'the running fsync is not joined by commits made after it began');
    disk.releaseOne();
    await first;
    assert.equal(await settled(Promise.all(later)), false, 'the later commits wait for an fsync of their own');
    assert.equal(disk.syncs, syncsBefore + 1, 'one more fsync for all twenty');
    disk.releaseOne();
    await Promise.all(later);
  });

  test('an HTTP answer that follows a write leaves only once the write is on disk', async () => {
    disk.holding = true;
    const answer = app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { 'x-app-id': TEST_KEYS.server.id, 'x-app-token': TEST_KEYS.server.secret, 'content-type': 'application/json' },
      payload: JSON.stringify({ source_id: 'durable-customer' }),
    });
    // Wait for the write to reach its fsync (a loaded machine may take a while to get there), then
    // make sure the answer is still held.
    for (const deadline = Date.now() + 10_000; disk.waiting === 0 && Date.now() < deadline; ) await sleep(10);
    assert.ok(disk.waiting > 0, 'the write reached an fsync');
    assert.equal(await settled(answer), false, 'no answer while the fsync is held');
    while (disk.waiting > 0) disk.releaseOne();
    const res = await answer;
    assert.equal(res.statusCode, 200);
  });

  test('a failed fsync fails the answer instead of acknowledging an unsafe write', async () => {
    disk.holding = false;
    const failing = openSqlite(`sqlite:${file}`, { syncWal: (_fd, done) => done(new Error('disk on fire')) });
    try {
      await failing.db.insertInto('settings').values({ key: 'durability-failing', value: 'x' }).execute();
      await assert.rejects(durable(failing.db), /disk on fire/);
    } finally {
      await failing.close();
    }
  });
});
