import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// `Idempotency-Key` (ARCHITECTURE "Concurrency rules"): a keyed request runs at most once, its answer is
// stored with its change and replayed; a different request with the key, or one while the first runs, is
// 409; answers that carry secrets are never stored (a retry is 409 `idempotency_answer_withheld`).

const project = { name: 'Idempotent', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' };

describe('Idempotency-Key', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  async function customerCount(sourceId: string): Promise<number> {
    const rows = await t.db.db.selectFrom('customers').select('id').where('source_id', '=', sourceId).execute();
    return rows.length;
  }

  async function projectCount(): Promise<number> {
    const list = await t.request('GET', '/management/v1/projects', { headers: t.managementHeaders() });
    return list.body.total as number;
  }

  test('replays the first answer for the same request and refuses a different one with 409', async () => {
    const headers = { ...t.serverHeaders(), 'Idempotency-Key': 'create-customer-1' };
    const first = await t.request('POST', '/v1/customers', { headers, json: { source_id: 'idem-1', name: 'First' } });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const replay = await t.request('POST', '/v1/customers', { headers, json: { source_id: 'idem-1', name: 'First' } });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.text, first.text);
    const different = await t.request('POST', '/v1/customers', { headers, json: { source_id: 'idem-1', name: 'Changed' } });
    assert.equal(different.status, 409);
    assert.equal(different.body.key, 'idempotency_key_reused');
    const stored = await t.request('GET', '/v1/customers/idem-1', { headers: t.serverHeaders() });
    assert.equal(stored.body.name, 'First');
  });

  test('an error answer is stored and replayed too, and changes nothing', async () => {
    const headers = { ...t.serverHeaders(), 'Idempotency-Key': 'bad-redemption-1' };
    const json = { redeemables: [{ object: 'voucher', id: 'NO-SUCH-CODE' }] };
    const first = await t.request('POST', '/v1/redemptions', { headers, json });
    assert.equal(first.status, 404);
    const replay = await t.request('POST', '/v1/redemptions', { headers, json });
    assert.equal(replay.status, 404);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.text, first.text);
  });

  test('concurrent duplicates run once: every answer is the first one or 409 in progress', async () => {
    const headers = { ...t.serverHeaders(), 'Idempotency-Key': 'race-customer-1' };
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => t.request('POST', '/v1/customers', { headers, json: { source_id: 'idem-race', name: 'Raced' } })),
    );
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.id));
    assert.equal(ids.size, 1);
    for (const a of answers) assert.ok(a.status === 200 || (a.status === 409 && a.body.key === 'idempotency_request_in_progress'), `${a.status} ${a.text}`);
    assert.equal(await customerCount('idem-race'), 1);
    const events = await t.db.db.selectFrom('events').select('id').where('type', '=', 'customer.created').where('customer_id', 'in', [...ids] as string[]).execute();
    assert.equal(events.length, 1);
  });

  test('a key is scoped to its project or to the organisation', async () => {
    const a = await t.request('POST', '/v1/customers', { headers: { ...t.serverHeaders(), 'Idempotency-Key': 'shared-key' }, json: { source_id: 'idem-scope' } });
    const b = await t.request('POST', '/management/v1/projects', {
      headers: { ...t.managementHeaders(), 'Idempotency-Key': 'shared-key' },
      json: { ...project, name: 'Scoped key' },
    });
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(b.body.name, 'Scoped key');
  });

  test('a new project runs once per key, and its keys are never stored or shown again', async () => {
    const headers = { ...t.managementHeaders(), 'Idempotency-Key': 'create-project-once' };
    const count = await projectCount();
    const first = await t.request('POST', '/management/v1/projects', { headers, json: { ...project, name: 'Once' } });
    assert.equal(first.status, 200);
    const secret = first.body.server_side_key.app_token as string;
    const retry = await t.request('POST', '/management/v1/projects', { headers, json: { ...project, name: 'Once' } });
    assert.equal(retry.status, 409);
    assert.equal(retry.body.key, 'idempotency_answer_withheld');
    assert.ok(!retry.text.includes(secret));
    assert.equal(await projectCount(), count + 1);
    const rows = await t.db.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'create-project-once').execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.state, 'withheld');
    assert.equal(rows[0]?.response_body, null);
  });

  test('an OAuth token is never stored for replay', async () => {
    const headers = { ...t.serverHeaders(), 'Idempotency-Key': 'token-once' };
    const form = { grant_type: 'client_credentials', scope: 'customers' };
    const first = await t.request('POST', '/v1/oauth/token', { headers, form });
    assert.equal(first.status, 200);
    const token = first.body.access_token as string;
    const retry = await t.request('POST', '/v1/oauth/token', { headers, form });
    assert.equal(retry.status, 409);
    assert.equal(retry.body.key, 'idempotency_answer_withheld');
    assert.ok(!retry.text.includes(token));
    const dump = JSON.stringify(await t.db.db.selectFrom('idempotency_keys').selectAll().execute());
    assert.ok(!dump.includes(token), 'the token is nowhere in the idempotency store');
  });

  test('a refused secret-bearing request is replayed normally (its error holds no secret)', async () => {
    const headers = { ...t.serverHeaders(), 'Idempotency-Key': 'token-bad-scope' };
    const form = { grant_type: 'client_credentials', scope: 'customers,products' };
    const first = await t.request('POST', '/v1/oauth/token', { headers, form });
    assert.equal(first.status, 400);
    const retry = await t.request('POST', '/v1/oauth/token', { headers, form });
    assert.equal(retry.status, 400);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  });

  test('when the answer cannot be stored, the change is undone too: a retry runs it exactly once', async () => {
    // A trigger makes storing this key's answer fail after the handler's service has done its work, as a
    // crash between the two would. The request must answer 5xx and leave nothing behind.
    const key = 'fails-after-change';
    if (t.db.dialect === 'sqlite') {
      await sql.raw(`create trigger refuse_answer before insert on idempotency_keys when new.key = '${key}' begin select raise(abort, 'refused for the test'); end`).execute(t.db.db);
    } else {
      await sql.raw(`create function refuse_answer() returns trigger language plpgsql as $$ begin if new.key = '${key}' then raise exception 'refused for the test'; end if; return new; end $$`).execute(t.db.db);
      await sql.raw('create trigger refuse_answer before insert on idempotency_keys for each row execute function refuse_answer()').execute(t.db.db);
    }
    const headers = { ...t.serverHeaders(), 'Idempotency-Key': key };
    const failed = await t.request('POST', '/v1/customers', { headers, json: { source_id: 'idem-undone' } });
    assert.equal(failed.status, 500);
    assert.equal(await customerCount('idem-undone'), 0);
    const events = await t.db.db.selectFrom('events').select('id').where('type', '=', 'customer.created').execute();
    await sql.raw(t.db.dialect === 'sqlite' ? 'drop trigger refuse_answer' : 'drop trigger refuse_answer on idempotency_keys').execute(t.db.db);
    const retried = await t.request('POST', '/v1/customers', { headers, json: { source_id: 'idem-undone' } });
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal(await customerCount('idem-undone'), 1);
    const after = await t.db.db.selectFrom('events').select('id').where('type', '=', 'customer.created').execute();
    assert.equal(after.length, events.length + 1);
  });
});
