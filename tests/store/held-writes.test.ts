import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { flushWrites, holdWrites } from '../../src/store/held-writes.ts';
import { prepared } from '../../src/store/prepared.ts';
import { inSavepoint } from '../../src/store/savepoints.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Writes held for the commit (PostgreSQL sends them as one statement of data-modifying WITH parts) must
// land exactly as if each had been sent on its own: two writes of one row both count, a savepoint that
// rolls back takes its writes with it, and the order of writes to one table is kept.

const addCount = prepared((db, p: { projectId: string; n: number }) =>
  db
    .insertInto('redemption_counts')
    .values({ project_id: p.projectId, campaign_name: 'held', result: 'SUCCESS', shard: 0, n: p.n })
    .onConflict((oc) => oc.columns(['project_id', 'campaign_name', 'result', 'shard']).doUpdateSet({ n: sql<number>`redemption_counts.n + excluded.n` })),
);

const insertCount = prepared((db, p: { projectId: string; n: number }) =>
  db.insertInto('redemption_counts').values({ project_id: p.projectId, campaign_name: 'held', result: 'SUCCESS', shard: 0, n: p.n }),
);

describe('writes held for the commit', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
  });
  after(async () => handle.close());

  const countOf = async (projectId: string) =>
    Number((await handle.db.selectFrom('redemption_counts').select('n').where('project_id', '=', projectId).executeTakeFirst())?.n ?? 0);

  test('two upserts of one row in one transaction both count, and nothing is written before the flush', async () => {
    await handle.db.transaction().execute(async (tx) => {
      holdWrites(tx);
      await addCount.write(tx, { projectId: 'proj_held_1', n: 1 });
      await addCount.write(tx, { projectId: 'proj_held_1', n: 2 });
      await addCount.write(tx, { projectId: 'proj_held_2', n: 5 });
      if (handle.dialect === 'postgres') {
        const seen = await tx.selectFrom('redemption_counts').select('n').where('project_id', '=', 'proj_held_1').execute();
        assert.deepEqual(seen, [], 'a held write is not sent before the flush');
      }
      await flushWrites(tx);
    });
    assert.equal(await countOf('proj_held_1'), 3);
    assert.equal(await countOf('proj_held_2'), 5);
  });

  test('a savepoint that rolls back drops the writes it held', async () => {
    await handle.db.transaction().execute(async (tx) => {
      holdWrites(tx);
      await addCount.write(tx, { projectId: 'proj_held_3', n: 1 });
      await assert.rejects(
        inSavepoint(tx, async () => {
          await addCount.write(tx, { projectId: 'proj_held_3', n: 100 });
          throw new Error('step failed');
        }),
        /step failed/,
      );
      await flushWrites(tx);
    });
    assert.equal(await countOf('proj_held_3'), 1);
  });

  // On PostgreSQL the held writes go out without waiting for their answers, and so does BEGIN
  // (src/store/pipelining.ts): an error in either must still fail the transaction as a whole.
  test('a held write that fails fails the commit, and nothing of the transaction stays', async () => {
    await assert.rejects(
      handle.db.transaction().execute(async (tx) => {
        await addCount.run(tx, { projectId: 'proj_held_4', n: 7 });
        holdWrites(tx);
        await addCount.write(tx, { projectId: 'proj_held_5', n: 1 });
        await insertCount.write(tx, { projectId: 'proj_held_4', n: 1 });
        await flushWrites(tx);
      }),
      /unique|duplicate/i,
    );
    assert.equal(await countOf('proj_held_4'), 0);
    assert.equal(await countOf('proj_held_5'), 0);
    // The connection went back to the pool in a clean state: every later transaction commits.
    for (let i = 0; i < 12; i++) {
      await handle.db.transaction().execute(async (tx) => {
        holdWrites(tx);
        await addCount.write(tx, { projectId: 'proj_held_6', n: 1 });
        await flushWrites(tx);
      });
    }
    assert.equal(await countOf('proj_held_6'), 12);
  });

  test("a transaction whose first statement fails rejects with that statement's error", async () => {
    for (let i = 0; i < 12; i++) {
      await assert.rejects(
        handle.db.transaction().execute(async (tx) => {
          await sql`select * from no_such_table`.execute(tx);
        }),
        /no such table|does not exist/i,
      );
    }
    await handle.db.transaction().execute(async (tx) => addCount.run(tx, { projectId: 'proj_held_7', n: 2 }));
    assert.equal(await countOf('proj_held_7'), 2);
  });

  // Held writes flushed outside a transaction have no COMMIT to surface their error: they are awaited.
  // Last in this file: `handle.db` holds its writes from here on.
  // (SQLite holds nothing: the write itself fails.)
  test('a held write that fails outside a transaction is an error of the flush', async () => {
    await addCount.run(handle.db, { projectId: 'proj_held_8', n: 3 });
    holdWrites(handle.db);
    const writeAndFlush = async () => {
      await insertCount.write(handle.db, { projectId: 'proj_held_8', n: 1 });
      await flushWrites(handle.db);
    };
    await assert.rejects(writeAndFlush(), /unique|duplicate|constraint/i);
    assert.equal(await countOf('proj_held_8'), 3);
  });
});
