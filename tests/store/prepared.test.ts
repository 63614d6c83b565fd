import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { prepared } from '../../src/store/prepared.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { projectRow } from '../helpers/rows.ts';

// Prepared queries are compiled once with placeholders; these tests check that every run binds its own
// arguments (single values, lists of several lengths, constants written into the build) on both
// databases, inside and outside transactions, and that a build misusing an argument fails loudly.

const CREATED = '2026-01-01T00:00:00.000Z';


const byName = prepared((db, p: { projectId: string; name: string }) =>
  db.selectFrom('categories').select(['id', 'name', 'hierarchy']).where('project_id', '=', p.projectId).where('name', '=', p.name),
);

const byIds = prepared((db, p: { projectId: string; ids: string[] }) =>
  db.selectFrom('categories').select('id').where('project_id', '=', p.projectId).where('id', 'in', p.ids).orderBy('id'),
);

/** A constant (`'cat_b'`) between two arguments: the compiled parameters mix both. */
const notBWithin = prepared((db, p: { projectId: string; maxHierarchy: number }) =>
  db
    .selectFrom('categories')
    .select('id')
    .where('project_id', '=', p.projectId)
    .where('id', '<>', 'cat_b')
    .where('hierarchy', '<=', p.maxHierarchy)
    .orderBy('id'),
);

const rename = prepared((db, p: { projectId: string; id: string; name: string }) =>
  db.updateTable('categories').set({ name: p.name }).where('project_id', '=', p.projectId).where('id', '=', p.id),
);

const insertCategories = prepared((db, p: { rows: Array<{ id: string; project_id: string; name: string; hierarchy: number; created_at: string; updated_at?: string }> }) =>
  db.insertInto('categories').values(p.rows),
);

const patchCategory = prepared((db, p: { projectId: string; id: string; patch: { name?: string; hierarchy?: number } }) =>
  db.updateTable('categories').set(p.patch).where('project_id', '=', p.projectId).where('id', '=', p.id),
);

const hierarchyOf = prepared((db, p: { id: string }) => db.selectFrom('categories').select(['name', 'hierarchy', 'updated_at']).where('id', '=', p.id));

/** An optional filter: absent, its condition is left out (a separate compilation). */
const inProject = prepared((db, p: { projectId: string; minHierarchy: number | undefined }) => {
  const query = db.selectFrom('categories').select('id').where('project_id', '=', p.projectId).orderBy('id');
  return p.minHierarchy === undefined ? query : query.where('hierarchy', '>=', p.minHierarchy);
});

describe('prepared queries', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    for (const id of ['proj_1', 'proj_2']) await handle.db.insertInto('projects').values(projectRow(id)).execute();
    await handle.db
      .insertInto('categories')
      .values(
        ['a', 'b', 'c', 'd'].map((k, i) => ({ id: `cat_${k}`, project_id: 'proj_1', name: `name ${k}`, hierarchy: i + 1, created_at: CREATED, updated_at: null })),
      )
      .execute();
    await handle.db.insertInto('categories').values({ id: 'cat_x', project_id: 'proj_2', name: 'name a', hierarchy: 1, created_at: CREATED }).execute();
  });
  after(async () => handle.close());

  test('each run binds its own arguments', async () => {
    assert.deepEqual(await byName.first(handle.db, { projectId: 'proj_1', name: 'name c' }), { id: 'cat_c', name: 'name c', hierarchy: 3 });
    assert.deepEqual(await byName.first(handle.db, { projectId: 'proj_2', name: 'name a' }), { id: 'cat_x', name: 'name a', hierarchy: 1 });
    assert.equal(await byName.first(handle.db, { projectId: 'proj_2', name: 'name c' }), undefined);
  });

  test('a list argument binds each member, whatever its length', async () => {
    const ids = async (list: string[]) => (await byIds.all(handle.db, { projectId: 'proj_1', ids: list })).map((r) => r.id);
    assert.deepEqual(await ids(['cat_d']), ['cat_d']);
    assert.deepEqual(await ids(['cat_d', 'cat_a', 'cat_x']), ['cat_a', 'cat_d']);
    assert.deepEqual(await ids(['cat_b', 'cat_c']), ['cat_b', 'cat_c']);
    assert.deepEqual(await ids(['cat_a']), ['cat_a']);
  });

  test('constants written into the build stay in place between the arguments', async () => {
    const ids = async (maxHierarchy: number) => (await notBWithin.all(handle.db, { projectId: 'proj_1', maxHierarchy })).map((r) => r.id);
    assert.deepEqual(await ids(3), ['cat_a', 'cat_c']);
    assert.deepEqual(await ids(1), ['cat_a']);
  });

  test('an absent (undefined) argument is compiled apart from a present one', async () => {
    const ids = async (minHierarchy: number | undefined) => (await inProject.all(handle.db, { projectId: 'proj_1', minHierarchy })).map((r) => r.id);
    assert.deepEqual(await ids(3), ['cat_c', 'cat_d']);
    assert.deepEqual(await ids(undefined), ['cat_a', 'cat_b', 'cat_c', 'cat_d']);
    assert.deepEqual(await ids(4), ['cat_d']);
  });

  test('writes report affected rows and run inside a transaction', async () => {
    await handle.db.transaction().execute(async (tx) => {
      const result = await rename.run(tx, { projectId: 'proj_1', id: 'cat_a', name: 'renamed' });
      assert.equal(Number(result.numAffectedRows), 1);
      assert.equal((await byName.first(tx, { projectId: 'proj_1', name: 'renamed' }))?.id, 'cat_a');
    });
    const missed = await rename.run(handle.db, { projectId: 'proj_2', id: 'cat_a', name: 'other' });
    assert.equal(Number(missed.numAffectedRows), 0);
  });

  test('rows to insert and columns to set bind per key, whichever keys a call sends', async () => {
    const row = (id: string, hierarchy: number) => ({ id, project_id: 'proj_2', name: id, hierarchy, created_at: CREATED });
    await insertCategories.run(handle.db, { rows: [row('cat_r1', 7), row('cat_r2', 8)] });
    await insertCategories.run(handle.db, { rows: [{ ...row('cat_r3', 9), updated_at: '2026-02-02T00:00:00.000Z' }] });
    assert.deepEqual(await hierarchyOf.first(handle.db, { id: 'cat_r2' }), { name: 'cat_r2', hierarchy: 8, updated_at: null });
    assert.deepEqual(await hierarchyOf.first(handle.db, { id: 'cat_r3' }), { name: 'cat_r3', hierarchy: 9, updated_at: '2026-02-02T00:00:00.000Z' });

    await patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_r1', patch: { hierarchy: 70 } });
    await patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_r1', patch: { name: 'renamed r1', hierarchy: undefined } });
    assert.deepEqual(await hierarchyOf.first(handle.db, { id: 'cat_r1' }), { name: 'renamed r1', hierarchy: 70, updated_at: null });
  });

  test('runs that alternate structures each bind under their own (the last structure is reused only when it matches)', async () => {
    const row = (id: string, hierarchy: number) => ({ id, project_id: 'proj_2', name: id, hierarchy, created_at: CREATED });
    // Same keys, then one left undefined, then an extra key, then more rows, then the first structure again.
    await insertCategories.run(handle.db, { rows: [row('cat_s1', 11)] });
    await insertCategories.run(handle.db, { rows: [{ ...row('cat_s2', 12), updated_at: undefined }] });
    await insertCategories.run(handle.db, { rows: [{ ...row('cat_s3', 13), updated_at: '2026-03-03T00:00:00.000Z' }] });
    await insertCategories.run(handle.db, { rows: [row('cat_s4', 14), { ...row('cat_s5', 15), updated_at: '2026-05-05T00:00:00.000Z' }, row('cat_s6', 16)] });
    await insertCategories.run(handle.db, { rows: [row('cat_s7', 17)] });
    const stored = await handle.db.selectFrom('categories').select(['id', 'hierarchy', 'updated_at']).where('id', 'like', 'cat_s%').orderBy('id').execute();
    assert.deepEqual(stored, [
      { id: 'cat_s1', hierarchy: 11, updated_at: null },
      { id: 'cat_s2', hierarchy: 12, updated_at: null },
      { id: 'cat_s3', hierarchy: 13, updated_at: '2026-03-03T00:00:00.000Z' },
      { id: 'cat_s4', hierarchy: 14, updated_at: null },
      { id: 'cat_s5', hierarchy: 15, updated_at: '2026-05-05T00:00:00.000Z' },
      { id: 'cat_s6', hierarchy: 16, updated_at: null },
      { id: 'cat_s7', hierarchy: 17, updated_at: null },
    ]);
    // A set of columns whose keys come in another order or another number.
    await patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_s1', patch: { name: 'n1', hierarchy: 21 } });
    await patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_s2', patch: { hierarchy: 22, name: 'n2' } });
    await patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_s3', patch: { name: 'n3' } });
    const patched = await handle.db.selectFrom('categories').select(['id', 'name', 'hierarchy']).where('id', 'in', ['cat_s1', 'cat_s2', 'cat_s3']).orderBy('id').execute();
    assert.deepEqual(patched, [
      { id: 'cat_s1', name: 'n1', hierarchy: 21 },
      { id: 'cat_s2', name: 'n2', hierarchy: 22 },
      { id: 'cat_s3', name: 'n3', hierarchy: 13 },
    ]);
    // An object in a value's place is refused on a structure just run with plain values too.
    await assert.rejects(
      patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_s3', patch: { name: { text: 'n' } as unknown as string } }),
      /plain value/,
    );
  });

  test('an expression passed as an argument is refused (it belongs in the build)', async () => {
    await assert.rejects(patchCategory.run(handle.db, { projectId: 'proj_2', id: 'cat_r1', patch: { hierarchy: sql<number>`hierarchy + 1` as unknown as number } }), /plain value/);
  });

  test('a build that writes an argument into the SQL text or ignores it is refused', async () => {
    const inlined = prepared((db, p: { name: string }) => db.selectFrom('categories').select('id').where(sql.lit(p.name), '=', 'x'));
    await assert.rejects(inlined.all(handle.db, { name: 'x' }), /SQL text/);
    const ignored = prepared((db, _p: { projectId: string }) => db.selectFrom('categories').select('id'));
    await assert.rejects(ignored.all(handle.db, { projectId: 'proj_1' }), /not a parameter/);
  });
});
