import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ACTIVITY_WINDOW, countActivitiesInRange, listCustomerActivities } from '../../src/store/events.ts';
import { listCardActivity } from '../../src/store/loyalty.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { planOfStatements } from '../helpers/query-plans.ts';

// Activity lists read a bounded part of a history however long it is (README "HTTP conventions"): totals
// count up to ACTIVITY_WINDOW, and filters the activity index does not hold, or orders other than
// created_at, are served only while the date range holds at most that many activities. Before, every
// request counted (and for such filters or orders read and sorted) the customer's or card's whole
// history, and under load these lists took over 10 s.

const OVER = ACTIVITY_WINDOW + 50;
const DAY_MS = 86_400_000;
const FIRST = Date.parse('2026-03-03T00:00:00.000Z');

describe('activity lists over a long history', () => {
  let t: TestApp;
  let customerId: string;
  let quietCustomerId: string;
  let programId: string;
  let cardCode: string;

  /** `count` activities of the customer (and of the card when given), one a minute from FIRST. */
  async function history(count: number, customer: string, card: string | null): Promise<void> {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: `evcus_bound_${customer}_${i}`,
      project_id: t.projectId,
      type: 'customer.custom_event',
      activity_type: 'customer.custom_event',
      activity_category: 'ACTION' as const,
      customer_id: customer,
      campaign_id: i % 2 === 0 ? 'camp_even' : 'camp_odd',
      campaign_type: 'LOYALTY_PROGRAM',
      campaign_name: 'Bounds',
      voucher_code: card,
      category_name: null,
      product_ids: null,
      entity_id: null,
      data: JSON.stringify({ n: i }),
      source: JSON.stringify({ channel: 'API' }),
      group_id: 'v-bounds',
      created_at: new Date(FIRST + i * 60_000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 500) await t.db.db.insertInto('events').values(rows.slice(i, i + 500)).execute();
  }

  before(async () => {
    t = await startTestApp();
    const customer = await t.request('POST', '/v1/customers', { json: { source_id: 'long-history', name: 'Long history' } });
    customerId = customer.body.id;
    const quiet = await t.request('POST', '/v1/customers', { json: { source_id: 'short-history' } });
    quietCustomerId = quiet.body.id;
    const program = await t.request('POST', '/v1/loyalties', { json: { name: 'Bounds', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    programId = program.body.id;
    const card = await t.request('POST', `/v1/loyalties/${programId}/members`, { json: { customer: { id: customerId } } });
    cardCode = card.body.code;
    await history(OVER, customerId, cardCode);
    await history(30, quietCustomerId, null);
    // Other customers' and cards' activities, so PostgreSQL's statistics look like a real project's.
    for (let k = 0; k < 40; k++) await history(250, `cust_other_${k}`, `OTHER-${k}`);
    if (t.db.dialect === 'postgres') await sql`analyze events`.execute(t.db.db);
  });
  after(async () => t?.close());

  const activities = (customer: string, query = '') => t.request('GET', `/v1/customers/${customer}/activities${query}`);

  test('the total counts up to the window; a shorter history is counted exactly', async () => {
    const long = await activities(customerId);
    assert.equal(long.status, 200);
    assert.equal(long.body.total, ACTIVITY_WINDOW);
    assert.equal(long.body.data.length, 10);
    const quiet = await activities(quietCustomerId);
    assert.equal(quiet.body.total, 30 + 1, 'its 30 activities and customer.created');
    const tail = await activities(customerId, `?start_date=${new Date(FIRST + (OVER - 40) * 60_000).toISOString()}`);
    assert.equal(tail.body.total, 40);
  });

  test('orders other than created_at and filters outside the index: 400 over the window, served once the dates narrow it', async () => {
    const narrowed = `&start_date=2026-03-03&end_date=${new Date(FIRST + 4 * DAY_MS).toISOString().slice(0, 10)}`;
    for (const query of ['?order=type', '?order=-campaign', '?campaign_id=camp_even', '?campaign_type=LOYALTY_PROGRAM', '?product_id=prod_1']) {
      const refused = await activities(customerId, query);
      assert.equal(refused.status, 400, `${query}: ${refused.text}`);
      assert.equal(refused.body.key, 'invalid_query_params');
      assert.match(refused.body.details, /narrow start_date\/end_date/);
      const served = await activities(customerId, `${query}${narrowed}`);
      assert.equal(served.status, 200, `${query}${narrowed}: ${served.text}`);
      assert.equal(served.body.total <= 5 * 24 * 60, true);
      // A short history takes every filter and order as before.
      assert.equal((await activities(quietCustomerId, query)).status, 200);
    }
    const even = await activities(customerId, `?campaign_id=camp_even${narrowed}`);
    assert.ok(even.body.data.every((a: { id: string }) => Number(a.id.split('_').pop()) % 2 === 0));
    const newer = await t.request('GET', `/v1/customers/${customerId}/activity?type=customer.custom_event`);
    assert.equal(newer.status, 400);
    const newest = await t.request('GET', `/v1/customers/${customerId}/activity?limit=5`);
    assert.equal(newest.status, 200);
    assert.equal(newest.body.data.length, 5);
    assert.equal(newest.body.has_more, true);
  });

  test("a loyalty card's activities: the deprecated list counts up to the window and its deepest page is served", async () => {
    for (const path of [`/v1/loyalties/${programId}/members/${cardCode}/activities`, `/v1/loyalties/members/${cardCode}/activities`]) {
      const first = await t.request('GET', path);
      assert.equal(first.status, 200);
      assert.equal(first.body.total, ACTIVITY_WINDOW);
      const deepest = await t.request('GET', `${path}?page=100&limit=100`);
      assert.equal(deepest.status, 200);
      assert.equal(deepest.body.activities.length, 100);
    }
    const cursor = await t.request('GET', `/v1/loyalties/members/${cardCode}/activity?limit=3`);
    assert.equal(cursor.status, 200);
    assert.equal(cursor.body.has_more, true);
  });

  test('every statement reads an activity index, and the counts stop after the window', async () => {
    const query = { projectId: t.projectId, customerId, limit: 10, sort: 'created_at' as const, descending: true };
    const card = { projectId: t.projectId, voucherCode: cardCode, since: '2026-01-01T00:00:00.000Z', limit: 10, descending: true };
    const statements = [
      ...(await planOfStatements(t.db, (db) => listCustomerActivities(db, query, { withTotal: true }))),
      ...(await planOfStatements(t.db, (db) => countActivitiesInRange(db, { ...query, startDate: '2026-03-03T00:00:00.000Z' }))),
      ...(await planOfStatements(t.db, (db) => listCardActivity(db, { ...card, withTotal: true }))),
    ];
    for (const plan of statements) assert.match(plan, /events_(customer|voucher)_activity/, plan);
    // The cursor list of a card counts nothing: one statement.
    assert.equal((await planOfStatements(t.db, (db) => listCardActivity(db, { ...card, withTotal: false }))).length, 1);
    // What the counts read is bounded by the window, whatever the history holds.
    assert.equal(await countActivitiesInRange(t.db.db, query), ACTIVITY_WINDOW + 1);
  });
});
