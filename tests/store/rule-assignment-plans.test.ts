import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { deleteTierAssignments } from '../../src/store/promotion-tiers.ts';
import { deleteRuleAssignmentsOf } from '../../src/store/rewards.ts';
import { deleteAssignmentsOf } from '../../src/store/validation-rules.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// Deleting the validation rule assignments of one object (a promotion tier, a campaign and its vouchers,
// a reward assignment) must read that object's entries of an index, not every assignment of the project:
// SQLite, which keeps no statistics here, chose validation_rule_assignments_unique on project_id alone,
// and DELETE /v1/promotions/tiers/{id} read the project's whole table (migration 0029).

describe('rule assignment deletion query plans', () => {
  let handle: TestDatabase;
  before(async () => {
    handle = await createTestDatabase();
    // Enough rows of several objects, rules and types that PostgreSQL plans as it would on real data.
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      id: `asgm_${i}`,
      project_id: i % 4 === 0 ? 'proj_other' : 'proj_plan',
      rule_id: `val_${i % 20}`,
      related_object_type: ['voucher', 'campaign', 'promotion_tier', 'reward_assignment'][i % 4] as string,
      related_object_id: `obj_${i}`,
      created_at: '2026-03-02T10:00:00.000Z',
    }));
    for (let i = 0; i < rows.length; i += 500) await handle.db.insertInto('validation_rule_assignments').values(rows.slice(i, i + 500)).execute();
    if (handle.dialect === 'postgres') await sql`analyze validation_rule_assignments`.execute(handle.db);
  });
  after(async () => handle.close());

  const deletions: Array<[string, (db: TestDatabase['db']) => Promise<unknown>]> = [
    ['a promotion tier', (db) => deleteTierAssignments(db, 'proj_plan', 'obj_2')],
    ['some rules of a promotion tier', (db) => deleteTierAssignments(db, 'proj_plan', 'obj_2', ['val_2'])],
    ['a campaign', (db) => deleteAssignmentsOf(db, 'proj_plan', 'campaign', 'obj_1')],
    ['a campaign and its vouchers', (db) => deleteAssignmentsOf(db, 'proj_plan', 'voucher', ['obj_5', 'obj_9'])],
    ['a reward assignment', (db) => deleteRuleAssignmentsOf(db, 'proj_plan', 'obj_3')],
  ];
  for (const [what, run] of deletions) {
    test(`the assignments of ${what}: an index searched by the object's id, not the project's assignments`, async () => {
      const [plan = ''] = await planOfStatements(handle, run);
      if (handle.dialect === 'sqlite') assert.match(plan, /USING (COVERING )?INDEX validation_rule_assignments_\w+ \(.*related_object_id=\?/, plan);
      else assert.match(plan, /Index Cond: .*related_object_id/, plan);
    });
  }
});
