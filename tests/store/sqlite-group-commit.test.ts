import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { durable, openSqlite, type DbHandle } from '../../src/store/db.ts';
import { requestsWaitingForTurn } from '../../src/lib/slices.ts';
import { MAX_GROUP_MS } from '../../src/store/sqlite-group-commit.ts';
import type { SyncFile } from '../../src/store/sqlite-durability.ts';
import { testDialect } from '../helpers/database.ts';

// Transactions that queue for SQLite's connection share one COMMIT (src/store/sqlite-group-commit.ts):
// each runs in a savepoint of the group, fails alone, and nothing that follows it is told before the
// group's COMMIT and the fsync after it are done.

const require = createRequire(import.meta.url);
const Sqlite = require('better-sqlite3') as { prototype: { prepare: (sql: string) => Record<string, unknown> } };
let commits = 0;
const prepare = Sqlite.prototype.prepare;
Sqlite.prototype.prepare = function counted(this: unknown, text: string) {
  const statement = prepare.call(this, text);
  if (/^commit$/i.test(text.trim())) {
    const run = statement.run as (...a: unknown[]) => unknown;
    statement.run = (...a: unknown[]) => {
      commits++;
      return run.apply(statement, a);
    };
  }
  return statement;
};

describe('SQLite transactions commit in groups', { skip: testDialect() !== 'sqlite' && 'SQLite only' }, () => {
  const dir = join(tmpdir(), 'punchcard-tests');
  const file = join(dir, `group-commit-${process.pid}-${Date.now()}.db`);
  let holding = false;
  const held: Array<() => void> = [];
  const syncWal: SyncFile = (_fd, done) => (holding ? held.push(() => done(null)) : done(null));
  let handle: DbHandle;

  before(async () => {
    mkdirSync(dir, { recursive: true });
    handle = openSqlite(`sqlite:${file}`, { syncWal });
    await sql`create table notes (id integer primary key, body text not null)`.execute(handle.db);
  });
  after(async () => {
    await handle.close();
    for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
  });

  const insert = (body: string, fail = false) =>
    handle.db.transaction().execute(async (tx) => {
      await sql`insert into notes (body) values (${body})`.execute(tx);
      if (fail) throw new Error(`${body} failed`);
    });
  const bodies = async () => (await sql<{ body: string }>`select body from notes order by id`.execute(handle.db)).rows.map((r) => r.body);

  test('transactions that arrive together share one COMMIT; one that fails rolls back alone', async () => {
    await durable(handle.db);
    commits = 0;
    const results = await Promise.allSettled([insert('a'), insert('b'), insert('c', true), insert('d'), insert('e')]);
    await durable(handle.db);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(await bodies(), ['a', 'b', 'd', 'e']);
    assert.equal(commits, 1, `${commits} COMMITs for 5 transactions`);
  });

  test('the first transaction of a group failing leaves the next ones whole', async () => {
    await sql`delete from notes`.execute(handle.db);
    await durable(handle.db);
    const results = await Promise.allSettled([insert('x', true), insert('y'), insert('z')]);
    await durable(handle.db);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(await bodies(), ['y', 'z']);
  });

  test('durable() waits for the group to commit and for the fsync after it', async () => {
    holding = true;
    try {
      await insert('held');
      let told = false;
      const answer = durable(handle.db).then(() => (told = true));
      await sleep(30);
      assert.equal(told, false, 'an answer left before its group was on disk');
      assert.ok(held.length >= 1, 'the group committed and its fsync started');
      holding = false;
      while (held.length > 0) held.shift()?.();
      await answer;
      assert.equal(told, true);
    } finally {
      holding = false;
      while (held.length > 0) held.shift()?.();
    }
  });

  test('while API requests wait for their turn, the group waits for them (up to MAX_GROUP_MS) and then commits', async () => {
    await durable(handle.db);
    commits = 0;
    // One transaction per pass of the event loop, as requests run under load (src/http/plugins/turns.ts).
    const nextPass = () => new Promise<void>((resolve) => setImmediate(resolve));
    requestsWaitingForTurn.add();
    try {
      for (const body of ['p1', 'p2', 'p3']) {
        await insert(body);
        await nextPass();
        await nextPass();
      }
      assert.equal(commits, 0, 'the group stays open while a request waits for its turn');
      // A waiting request that never touches the database does not hold the group past its age limit.
      const answered = durable(handle.db);
      await sleep(2 * MAX_GROUP_MS);
      assert.equal(commits, 1, `committed once the group was ${MAX_GROUP_MS} ms old`);
      await answered;
    } finally {
      requestsWaitingForTurn.remove();
    }
    // Nobody waiting: a lone transaction commits at the next pass, as before.
    await insert('p4');
    await nextPassAfterCommit();
    assert.equal(commits, 2);
  });
});

async function nextPassAfterCommit(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
