import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { insertRedemption, listRedemptions, type NewRedemptionRow, type RedemptionListQuery } from '../../src/store/redemption-records.ts';
import { createTestDatabase, writtenBefore, type TestDatabase } from '../helpers/database.ts';

// The redemption list's `total` for campaign and result conditions comes from redemption_counts
// (migration 0025). Records written before the migration are counted by it; records written after are
// counted as they are written; every combination must agree with counting the records themselves.

const BEFORE = '2026-11-22-0024-voucher-category-index';

async function insertOld(handle: TestDatabase, id: string, projectId: string, campaignName: string | null, result: 'SUCCESS' | 'FAILURE'): Promise<void> {
  await sql`insert into redemptions (id, project_id, object, result, status, metadata, related_object_type, related_object_id, campaign_name, channel, created_at)
    values (${id}, ${projectId}, 'redemption', ${result}, ${result === 'SUCCESS' ? 'SUCCEEDED' : 'FAILED'}, '{}', 'voucher', 'v_1', ${campaignName}, '{}', '2026-01-01T00:00:00.000Z')`.execute(handle.db);
}

describe('redemption counts', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    await writtenBefore(handle, BEFORE, async () => {
      await insertOld(handle, 'r_o1', 'proj_a', 'Spring', 'SUCCESS');
      await insertOld(handle, 'r_o2', 'proj_a', 'Spring', 'SUCCESS');
      await insertOld(handle, 'rf_o3', 'proj_a', 'Spring', 'FAILURE');
      await insertOld(handle, 'r_o4', 'proj_a', null, 'SUCCESS');
      await insertOld(handle, 'r_o5', 'proj_b', 'Spring', 'SUCCESS');
    });
  });
  after(async () => handle.close());

  const base: RedemptionListQuery = { projectId: 'proj_a', limit: 1, offset: 0, sort: 'created_at', descending: true };
  const conditions: Array<Partial<RedemptionListQuery>> = [
    {},
    { results: ['SUCCESS'] },
    { results: ['FAILURE'] },
    { campaignName: 'Spring' },
    { campaignName: 'Spring', results: ['SUCCESS'] },
    { campaignName: 'Spring', results: ['FAILURE'] },
    { campaignName: 'Autumn' },
    { campaignName: '' },
  ];

  /** The same conditions counted over the records (a date condition sends the list down that path). */
  const countedOverRecords = async (condition: Partial<RedemptionListQuery>) =>
    (await listRedemptions(handle.db, { ...base, ...condition, createdAfter: '2000-01-01T00:00:00.000Z' })).total;

  test('records written before the migration are counted by it', async () => {
    const expected = [4, 3, 1, 3, 2, 1, 0, 0];
    for (const [i, condition] of conditions.entries()) {
      const { total } = await listRedemptions(handle.db, { ...base, ...condition });
      assert.equal(total, expected[i], JSON.stringify(condition));
      assert.equal(await countedOverRecords(condition), expected[i], `records, ${JSON.stringify(condition)}`);
    }
    assert.equal((await listRedemptions(handle.db, { ...base, projectId: 'proj_b' })).total, 1);
  });

  test('records written after it are counted as they are written, whatever shard they land on', async () => {
    const record = (id: string, campaignName: string | null, result: 'SUCCESS' | 'FAILURE'): NewRedemptionRow => ({
      id, project_id: 'proj_a', object: 'redemption', result, status: result === 'SUCCESS' ? 'SUCCEEDED' : 'FAILED', metadata: '{}',
      related_object_type: 'voucher', related_object_id: 'v_2', campaign_name: campaignName, channel: '{}', created_at: '2026-02-01T00:00:00.000Z',
    });
    for (let k = 0; k < 40; k++) await insertRedemption(handle.db, record(`r_n${k}`, k % 4 === 0 ? null : 'Spring', k % 5 === 0 ? 'FAILURE' : 'SUCCESS'));
    await insertRedemption(handle.db, record('r_autumn', 'Autumn', 'SUCCESS'));
    for (const condition of conditions) {
      const { total } = await listRedemptions(handle.db, { ...base, ...condition });
      assert.equal(total, await countedOverRecords(condition), JSON.stringify(condition));
    }
    assert.equal((await listRedemptions(handle.db, base)).total, 45);
    const shards = await handle.db.selectFrom('redemption_counts').select('shard').where('project_id', '=', 'proj_a').where('campaign_name', '=', 'Spring').where('result', '=', 'SUCCESS').execute();
    assert.ok(shards.length > 1, 'one campaign and result spread over several rows');
  });
});
