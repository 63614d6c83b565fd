import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, describe, test } from 'node:test';
import type { Insertable } from 'kysely';
import { parseCsv } from '../../src/domain/exports/csv.ts';
import { EXPORT_FILTER_CATALOGS, operatorsOf, type FilterFieldSpec } from '../../src/domain/exports/filters.ts';
import { EXPORT_OBJECTS, EXPORTED_OBJECTS, type ExportedObject } from '../../src/domain/exports/objects.ts';
import type { FilterOperator } from '../../src/domain/filters/filter.ts';
import { internalActor } from '../../src/services/context.ts';
import { EXPORT_BATCH_SIZE, EXPORT_CHUNK_CHARS, runExport } from '../../src/services/exports/run-export.ts';
import { insertRedemption, type NewRedemptionRow } from '../../src/store/redemption-records.ts';
import type { CustomersTable, VouchersTable } from '../../src/store/schema.ts';
import { startTestApp, type KeyPairOut, type TestApp, type TestResponse } from '../helpers/app.ts';

// Exports (seed 4.14, platform reference 7, DECISIONS 25): create, list, get, delete, the job that writes
// the CSV file in batches, the download link, every filter operator against real rows, and tenancy.

const NOW = '2026-03-10T12:00:00.000Z';

interface ExportObject {
  id: string;
  object: string;
  created_at: string;
  status: string;
  channel: string;
  exported_object: string;
  parameters: { order: string; fields: string[]; filters: Record<string, unknown>; campaign_id?: string };
  result: { url: string | null; url_expires_at?: string; row_count?: number; message?: string } | null;
  user_id: string | null;
}

interface Project {
  id: string;
  keys: KeyPairOut;
  headers: Record<string, string>;
}

describe('exports', () => {
  let t: TestApp;
  let projects = 0;

  before(async () => {
    t = await startTestApp({ clockStart: NOW });
  });
  after(async () => t.close());

  async function newProject(): Promise<Project> {
    projects += 1;
    const res = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: `Exports ${projects}`, case_sensitive_codes: true, timezone: 'UTC', currency: 'USD' },
    });
    assert.equal(res.status, 200, res.text);
    const keys = res.body.server_side_key as KeyPairOut;
    return { id: res.body.id as string, keys, headers: t.serverHeaders(keys) };
  }

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // Until no job is due.
    }
  }

  async function post(json: unknown, headers?: Record<string, string>): Promise<TestResponse> {
    return t.request('POST', '/v1/exports', { json, ...(headers ? { headers } : {}) });
  }

  async function get(id: string, headers?: Record<string, string>): Promise<TestResponse> {
    return t.request('GET', `/v1/exports/${id}`, headers ? { headers } : {});
  }

  /** Creates an export at NOW, runs it, downloads its file through the link (no keys) and parses it. */
  async function exportRows(json: unknown, project?: Project): Promise<{ object: ExportObject; rows: string[][] }> {
    t.clock.set(NOW);
    const created = await post(json, project?.headers);
    assert.equal(created.status, 200, created.text);
    // Filters relative to now are resolved against this instant; the fixtures are chosen around it.
    assert.equal(created.body.created_at, NOW);
    await runJobs();
    const done = await get(created.body.id, project?.headers);
    assert.equal(done.body.status, 'DONE', done.text);
    const file = await fetch(done.body.result.url);
    assert.equal(file.status, 200);
    const rows = parseCsv(await file.text());
    return { object: done.body as ExportObject, rows };
  }

  async function csvColumn(json: unknown, project: Project): Promise<string[]> {
    const { rows } = await exportRows(json, project);
    return rows.slice(1).map((r) => r[0] as string);
  }

  async function exportCount(project?: Project): Promise<number> {
    const res = await t.request('GET', '/v1/exports', project ? { headers: project.headers } : {});
    return res.body.total as number;
  }

  // ---- fixtures written straight to the tables (full control of times and counters) ----

  let seq = 0;
  const nextId = (prefix: string) => `${prefix}_${String(++seq).padStart(8, '0')}`;

  async function insertCategory(projectId: string, name: string): Promise<string> {
    const id = nextId('cat');
    await t.deps.db.insertInto('categories').values({ id, project_id: projectId, name, hierarchy: 1, created_at: NOW }).execute();
    return id;
  }

  async function insertCampaign(projectId: string, name: string, campaignType: 'DISCOUNT_COUPONS' | 'LOYALTY_PROGRAM' = 'DISCOUNT_COUPONS'): Promise<string> {
    const id = nextId('camp');
    await t.deps.db
      .insertInto('campaigns')
      .values({
        id,
        project_id: projectId,
        name,
        campaign_type: campaignType,
        type: 'STATIC',
        auto_join: false,
        join_once: false,
        use_voucher_metadata_schema: false,
        active: true,
        metadata: '{}',
        creation_status: 'DONE',
        vouchers_generation_status: 'DONE',
        protected: false,
        created_at: NOW,
      })
      .execute();
    return id;
  }

  async function insertVoucher(projectId: string, fields: Partial<Insertable<VouchersTable>> & { code: string }): Promise<string> {
    const id = fields.id ?? nextId('v');
    await t.deps.db
      .insertInto('vouchers')
      .values({
        type: 'DISCOUNT_VOUCHER',
        discount: JSON.stringify({ type: 'PERCENT', percent_off: 10 }),
        active: true,
        metadata: '{}',
        is_referral_code: false,
        created_at: NOW,
        ...fields,
        id,
        project_id: projectId,
        code_key: fields.code,
      })
      .execute();
    return id;
  }

  async function insertCustomer(projectId: string, fields: Partial<Insertable<CustomersTable>> = {}): Promise<string> {
    const id = fields.id ?? nextId('cust');
    await t.deps.db
      .insertInto('customers')
      .values({ metadata: '{}', system_metadata: '{}', created_at: NOW, ...fields, id, project_id: projectId })
      .execute();
    return id;
  }

  async function insertPublication(projectId: string, voucherId: string, customerId: string, fields: { created_at?: string; channel?: string; campaign_id?: string } = {}) {
    const id = nextId('pub');
    await t.deps.db
      .insertInto('publications')
      .values({
        id,
        project_id: projectId,
        voucher_id: voucherId,
        customer_id: customerId,
        campaign_id: fields.campaign_id ?? null,
        channel: fields.channel ?? 'API',
        metadata: '{}',
        result: 'SUCCESS',
        created_at: fields.created_at ?? NOW,
      })
      .execute();
    return id;
  }

  // ---- the API ----

  describe('create, get, list, delete (official SDK)', () => {
    test('create answers the scheduled export, echoing the parameters with defaults filled in', async () => {
      const sdk = t.sdk();
      const created = (await sdk.distributions.exports.create({ exported_object: 'voucher' } as never)) as unknown as ExportObject;
      assert.match(created.id, /^exp_/);
      assert.equal(created.object, 'export');
      assert.equal(created.status, 'SCHEDULED');
      assert.equal(created.result, null);
      assert.equal(created.channel, 'API');
      assert.equal(created.user_id, null);
      assert.equal(created.exported_object, 'voucher');
      assert.deepEqual(created.parameters, { order: '-created_at', fields: ['code', 'voucher_type', 'value', 'discount_type'], filters: { junction: 'and' } });

      const got = (await sdk.distributions.exports.get(created.id)) as unknown as ExportObject;
      assert.deepEqual(got, created);
    });

    test('the SDK call of the wire capture (upper-case junction, redemption fields) is accepted as sent', async () => {
      const body = {
        exported_object: 'redemption',
        parameters: { order: '-created_at', fields: ['id', 'object', 'voucher_code'], filters: { junction: 'AND', result: { conditions: { $in: ['SUCCESS'] } } } },
      };
      const created = (await t.sdk().distributions.exports.create(body as never)) as unknown as ExportObject;
      assert.deepEqual(created.parameters, {
        order: '-created_at',
        fields: ['id', 'object', 'voucher_code'],
        filters: { junction: 'and', result: { conditions: { $in: ['SUCCESS'] } } },
      });
    });

    test('list pages newest first by default, with data_ref exports and the total', async () => {
      const p = await newProject();
      const ids: string[] = [];
      for (const object of ['order', 'customer', 'publication'] as const) {
        const res = await post({ exported_object: object }, p.headers);
        ids.push(res.body.id);
        // The first one is finished before the others are created.
        if (object === 'order') await runJobsFor(res.body.id, p);
      }
      const sdk = t.sdk(p.keys);
      const first = (await sdk.distributions.exports.list({ limit: 2 } as never)) as unknown as { object: string; data_ref: string; exports: ExportObject[]; total: number };
      assert.equal(first.object, 'list');
      assert.equal(first.data_ref, 'exports');
      assert.equal(first.total, 3);
      assert.deepEqual(first.exports.map((e) => e.id), [ids[2], ids[1]]);
      const second = await t.request('GET', '/v1/exports?limit=2&page=2', { headers: p.headers });
      assert.deepEqual(second.body.exports.map((e: ExportObject) => e.id), [ids[0]]);
      const oldest = await t.request('GET', '/v1/exports?order=created_at', { headers: p.headers });
      assert.deepEqual(oldest.body.exports.map((e: ExportObject) => e.id), ids);
      const beyond = await t.request('GET', '/v1/exports?page=5', { headers: p.headers });
      assert.deepEqual(beyond.body.exports, []);

      // Ordered by status: the one done sorts before the scheduled ones.
      const byStatus = await t.request('GET', '/v1/exports?order=status', { headers: p.headers });
      assert.deepEqual(byStatus.body.exports.map((e: ExportObject) => [e.id, e.status]), [[ids[0], 'DONE'], [ids[1], 'SCHEDULED'], [ids[2], 'SCHEDULED']]);
      const byStatusDesc = await t.request('GET', '/v1/exports?order=-status', { headers: p.headers });
      assert.deepEqual(byStatusDesc.body.exports.map((e: ExportObject) => e.id), [ids[2], ids[1], ids[0]]);
      const bad = await t.request('GET', '/v1/exports?order=name&limit=500', { headers: p.headers });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.key, 'invalid_query_params');
    });

    async function runJobsFor(id: string, p: Project): Promise<void> {
      await runJobs();
      const res = await get(id, p.headers);
      assert.equal(res.body.status, 'DONE');
    }

    test('delete answers 204, then the export is gone (404 with resource_type export)', async () => {
      const sdk = t.sdk();
      const created = (await sdk.distributions.exports.create({ exported_object: 'order' } as never)) as unknown as ExportObject;
      assert.equal(await sdk.distributions.exports.delete(created.id), '');
      const gone = await get(created.id);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.key, 'not_found');
      assert.equal(gone.body.resource_type, 'export');
      assert.equal(gone.body.details, `Cannot find export with id ${created.id}`);
      const again = await t.request('DELETE', `/v1/exports/${created.id}`);
      assert.equal(again.status, 404);
      // The job finds its export gone and ends without a trace.
      await runJobs();
      assert.equal((await get(created.id)).status, 404);
    });

    test('the export lifecycle is recorded as internal events, without the download link', async () => {
      const p = await newProject();
      const { object } = await exportRows({ exported_object: 'customer' }, p);
      await t.request('DELETE', `/v1/exports/${object.id}`, { headers: p.headers });
      const events = await t.deps.db.selectFrom('events').select(['type', 'data']).where('project_id', '=', p.id).where('entity_id', '=', object.id).orderBy('seq').execute();
      assert.deepEqual(events.map((e) => e.type), ['export.created', 'export.started', 'export.completed', 'export.deleted']);
      for (const event of events) assert.doesNotMatch(event.data, /token=/);
      const completed = JSON.parse(events[2]?.data ?? '{}') as { export: ExportObject };
      assert.equal(completed.export.status, 'DONE');
      assert.equal(completed.export.result?.url, null);
    });
  });

  describe('bad requests change nothing', () => {
    async function refused(json: unknown): Promise<TestResponse> {
      const before = await exportCount();
      const res = await post(json);
      assert.equal(await exportCount(), before);
      assert.equal(res.status, 400, res.text);
      return res;
    }

    test('an unsupported field is 400 invalid_export_fields listing the allowed fields', async () => {
      const res = await refused({ exported_object: 'voucher', parameters: { fields: ['code', 'secret'] } });
      assert.equal(res.body.key, 'invalid_export_fields');
      assert.equal(res.body.message, 'Invalid Export');
      assert.equal(res.body.details, `Unsupported field used. Allowed fields: ${EXPORT_OBJECTS.voucher.allowedFields.join(', ')}, metadata.<key>`);
      const points = await refused({ exported_object: 'points_expiration', parameters: { fields: ['metadata'] } });
      assert.equal(points.body.details, 'Unsupported field used. Allowed fields: id, campaign_id, voucher_id, points, status, expires_at');
    });

    test('schema violations and per-object checks are 400 invalid_payload naming the property', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, "Payload should have required property 'exported_object'"],
        [{ exported_object: 'product' }, 'Property .exported_object should be equal to one of the allowed values [ voucher, redemption, customer, publication, order, points_expiration, voucher_transactions ]'],
        [{ exported_object: 'voucher', parameters: { fields: 'code' } }, 'Property .parameters.fields should be array'],
        [{ exported_object: 'order', parameters: { order: 'code' } }, 'Property .parameters.order should be equal to one of the allowed values [ -created_at, created_at, -updated_at, updated_at, -status, status ]'],
        [{ exported_object: 'order', parameters: { fields: ['id', 'id'] } }, "Property .parameters.fields[1] repeats the field 'id'"],
        [{ exported_object: 'order', parameters: { campaign_id: 'camp_1' } }, 'Property .parameters.campaign_id applies to voucher, voucher_transactions, points_expiration exports only, not order'],
        [{ exported_object: 'customer', parameters: { voucher_id: 'v_1' } }, 'Property .parameters.voucher_id applies to voucher_transactions exports only, not customer'],
        [{ exported_object: 'order', parameters: { filters: { name: { conditions: { $is: ['x'] } } } } }, 'Property .parameters.filters.name is not a filterable field of order exports. Filterable fields: created_at, updated_at, status, source_id, amount, total_amount, discount_amount, total_discount_amount, items_discount_amount, metadata.<key>'],
        [{ exported_object: 'order', parameters: { filters: { status: { conditions: { $equals: ['PAID'] } } } } }, `Property .parameters.filters.status.conditions.$equals is not a filter operator; operators: $in, $not_in, $is, $is_not, $is_days_ago, $is_days_in_future, $has_value, $is_unknown, $contains, $not_contain, $starts_with, $ends_with, $more_than, $less_than, $more_than_ago, $less_than_ago, $more_than_future, $less_than_future, $more_than_equal, $less_than_equal, $after, $before, $count, $count_less, $count_more`],
        [{ exported_object: 'order', parameters: { filters: { created_at: { conditions: { $is: ['2026-01-01'] } } } } }, 'Property .parameters.filters.created_at.conditions.$is cannot be used on field created_at; its operators: $after, $before'],
        [{ exported_object: 'order', parameters: { filters: { status: { conditions: { $in: ['SHIPPED'] } } } } }, 'Property .parameters.filters.status.conditions.$in[0] should be equal to one of the allowed values [ CREATED, PAID, CANCELED, FULFILLED ]'],
        [{ exported_object: 'order', parameters: { filters: { amount: { conditions: { $more_than: ['lots'] } } } } }, 'Property .parameters.filters.amount.conditions.$more_than should be an array of exactly one value, a number'],
        [{ exported_object: 'order', parameters: { filters: { junction: 'both' } } }, 'Property .parameters.filters.junction should be equal to one of the allowed values [ and, or ]'],
      ];
      for (const [json, details] of cases) {
        const res = await refused(json);
        assert.equal(res.body.key, 'invalid_payload', JSON.stringify(json));
        assert.equal(res.body.details, details);
      }
    });

    test('a voucher export of an unknown campaign is 404 and creates nothing', async () => {
      const before = await exportCount();
      const res = await post({ exported_object: 'voucher', parameters: { campaign_id: 'camp_nope' } });
      assert.equal(res.status, 404);
      assert.equal(res.body.resource_type, 'campaign');
      assert.equal(await exportCount(), before);
    });
  });

  // ---- the job and the file ----

  describe('the file', () => {
    test('DONE gives an absolute link on the public URL; the link answers the CSV without keys', async () => {
      const p = await newProject();
      await insertCustomer(p.id, { source_id: 'ann', name: 'Ann, the "first"', created_at: '2026-03-01T00:00:00.000Z' });
      await insertCustomer(p.id, { source_id: 'bob', name: 'Bob', created_at: '2026-03-02T00:00:00.000Z' });
      t.clock.set(NOW);
      const created = await post({ exported_object: 'customer', parameters: { order: 'created_at' } }, p.headers);
      assert.equal(created.body.status, 'SCHEDULED');
      await runJobs();
      const done = (await get(created.body.id, p.headers)).body as ExportObject;
      assert.equal(done.status, 'DONE');
      assert.equal(done.result?.row_count, 2);
      const url = new URL(done.result?.url ?? '');
      assert.equal(url.origin, t.url);
      assert.equal(url.pathname, `/v1/exports/${done.id}`);
      assert.ok(url.searchParams.get('token'));
      assert.equal(Date.parse(done.result?.url_expires_at ?? '') - Date.parse(NOW) >= 24 * 3600_000, true);

      const file = await fetch(url);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'text/plain; charset=utf-8');
      const text = await file.text();
      assert.equal(file.headers.get('content-length'), String(Buffer.byteLength(text)));
      assert.equal(text, 'name,source_id\r\n"Ann, the ""first""",ann\r\nBob,bob\r\n');

      // The same path without the token is the export object, under the usual keys.
      const object = await t.request('GET', url.pathname, { headers: p.headers });
      assert.equal(object.body.id, done.id);
      const anonymous = await t.request('GET', url.pathname, { headers: {} });
      assert.equal(anonymous.status, 401);
      // The vendor's SDK sends its keys along with the token: also fine.
      const withKeys = await t.request('GET', `${url.pathname}${url.search}`, { headers: p.headers });
      assert.equal(withKeys.status, 200);
      assert.equal(withKeys.text, text);
    });

    test('a wrong, foreign, expired or revoked token is 401 unauthorized', async () => {
      const p = await newProject();
      const q = await newProject();
      await insertCustomer(p.id, { name: 'P' });
      const a = (await exportRows({ exported_object: 'customer' }, p)).object;
      const b = (await exportRows({ exported_object: 'order' }, p)).object;
      const token = new URL(a.result?.url ?? '').searchParams.get('token') ?? '';
      const download = (id: string, tok: string, headers: Record<string, string> = {}) =>
        t.request('GET', `/v1/exports/${id}?token=${encodeURIComponent(tok)}`, { headers });

      assert.equal((await download(a.id, token)).status, 200);
      for (const res of [
        await download(a.id, 'nonsense'),
        await download(a.id, `${token.slice(0, -2)}xx`),
        await download(a.id, ''),
        // A token opens its own export only.
        await download(b.id, token),
        // Keys of another project do not go with this project's token.
        await download(a.id, token, q.headers),
      ]) {
        assert.equal(res.status, 401);
        assert.equal(res.body.key, 'unauthorized');
        assert.equal(res.body.message, 'Unauthorized');
      }
      t.clock.set(new Date(Date.parse(a.result?.url_expires_at ?? '') + 1).toISOString());
      const expired = await download(a.id, token);
      assert.equal(expired.status, 401);
      assert.match(expired.body.details, /expired/);
      t.clock.set(NOW);
      await t.request('DELETE', `/v1/exports/${a.id}`, { headers: p.headers });
      assert.equal((await download(a.id, token)).status, 401);
    });

    test('a scheduled export has no file yet: its token-less object has result null', async () => {
      const p = await newProject();
      const created = await post({ exported_object: 'order' }, p.headers);
      const res = await t.request('GET', `/v1/exports/${created.body.id}?token=x`, { headers: {} });
      assert.equal(res.status, 401);
      assert.equal((await get(created.body.id, p.headers)).body.result, null);
    });

    test('deleting an export deletes its file', async () => {
      const p = await newProject();
      await insertCustomer(p.id, { name: 'X' });
      const { object } = await exportRows({ exported_object: 'customer' }, p);
      const chunks = () => t.deps.db.selectFrom('export_chunks').select('seq').where('project_id', '=', p.id).where('export_id', '=', object.id).execute();
      assert.equal((await chunks()).length, 1);
      assert.equal((await t.request('DELETE', `/v1/exports/${object.id}`, { headers: p.headers })).status, 204);
      assert.equal((await chunks()).length, 0);
    });

    test('an export of nothing is a file with the header row only', async () => {
      const p = await newProject();
      const { object, rows } = await exportRows({ exported_object: 'points_expiration' }, p);
      assert.equal(object.result?.row_count, 0);
      assert.deepEqual(rows, [['id', 'campaign_id', 'voucher_id', 'status', 'expires_at', 'points']]);
    });

    test('an export whose stored parameters cannot be used ends ERROR with the reason, dropping its file', async () => {
      const p = await newProject();
      const created = await post({ exported_object: 'order' }, p.headers);
      await t.deps.db.updateTable('exports').set({ parameters: JSON.stringify({ order: 'shoe_size', fields: ['id'], filters: {} }) }).where('id', '=', created.body.id).execute();
      await runJobs();
      const failed = (await get(created.body.id, p.headers)).body as ExportObject;
      assert.equal(failed.status, 'ERROR');
      assert.equal(failed.result?.url, null);
      assert.match(failed.result?.message ?? '', /not usable/);
      const events = await t.deps.db.selectFrom('events').select('type').where('entity_id', '=', created.body.id).orderBy('seq').execute();
      assert.deepEqual(events.map((e) => e.type), ['export.created', 'export.started', 'export.failed']);
    });

    test('rows are read in batches in the requested order, and a run that stopped half-way resumes without repeating a row', async () => {
      const p = await newProject();
      const total = EXPORT_BATCH_SIZE * 2 + 37;
      const rows: Array<Insertable<CustomersTable>> = [];
      // Wide enough that every batch fills a chunk of its own.
      const metadata = JSON.stringify({ filler: 'y'.repeat(Math.ceil(EXPORT_CHUNK_CHARS / EXPORT_BATCH_SIZE)) });
      for (let i = 0; i < total; i++) {
        // Names repeat and some are missing, so the order needs its id tie-break and its NULL handling.
        rows.push({
          id: `cust_bulk${String(i).padStart(6, '0')}`,
          project_id: p.id,
          name: i % 7 === 0 ? null : `n${String(i % 50).padStart(2, '0')}`,
          metadata,
          system_metadata: '{}',
          created_at: new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString(),
        });
      }
      for (let i = 0; i < rows.length; i += 400) await t.deps.db.insertInto('customers').values(rows.slice(i, i + 400)).execute();
      const expected = [...rows].sort((a, b) => {
        const an = a.name ?? '';
        const bn = b.name ?? '';
        if (an !== bn) return an < bn ? 1 : -1;
        return String(a.id) < String(b.id) ? 1 : -1;
      });

      // A first attempt that dies after its first chunk.
      t.clock.set(NOW);
      const created = await post({ exported_object: 'customer', parameters: { order: '-name', fields: ['id', 'name', 'metadata'] } }, p.headers);
      const actor = internalActor(p.id, 'test');
      await assert.rejects(
        runExport(t.deps, actor, p.id, created.body.id, {
          progress: async () => {
            throw new Error('worker died');
          },
        }),
        /worker died/,
      );
      const half = await t.deps.db.selectFrom('exports').select(['status', 'row_count', 'chunk_count']).where('id', '=', created.body.id).executeTakeFirstOrThrow();
      assert.deepEqual({ ...half, row_count: Number(half.row_count) }, { status: 'IN_PROGRESS', row_count: EXPORT_BATCH_SIZE, chunk_count: 1 });
      // The worker's retry continues from the last committed chunk.
      t.clock.advance(10 * 60_000);
      await runJobs();
      const done = (await get(created.body.id, p.headers)).body as ExportObject;
      assert.equal(done.status, 'DONE');
      assert.equal(done.result?.row_count, total);
      const file = parseCsv(await (await fetch(done.result?.url ?? '')).text());
      assert.deepEqual(file[0], ['id', 'name', 'metadata']);
      assert.deepEqual(
        file.slice(1).map((r) => r[0]),
        expected.map((r) => r.id),
      );
      t.clock.set(NOW);
    });
  });

  // ---- columns per object ----

  describe('columns', () => {
    test('vouchers: campaign, category, holder and the value as the vendor renders it', async () => {
      const p = await newProject();
      const campaign = await insertCampaign(p.id, 'Spring Sale');
      const category = await insertCategory(p.id, 'Seasonal');
      const holder = await insertCustomer(p.id, { source_id: 'holder-1' });
      await insertVoucher(p.id, {
        code: 'AMT',
        campaign_id: campaign,
        category_id: category,
        holder_id: holder,
        discount: JSON.stringify({ type: 'AMOUNT', amount_off: 1250, effect: 'APPLY_TO_ORDER' }),
        validity_day_of_week: JSON.stringify([1, 2]),
        validity_timeframe: JSON.stringify({ interval: 'P2D', duration: 'PT1H' }),
        redemption_quantity: 3,
        redeemed_quantity: 1,
        metadata: JSON.stringify({ tier: 'gold' }),
        additional_info: 'note, with comma',
      });
      await insertVoucher(p.id, { code: 'PCT', discount: JSON.stringify({ type: 'PERCENT', percent_off: 12.5, amount_limit: 500 }) });
      await insertVoucher(p.id, { code: 'GIFT', type: 'GIFT_VOUCHER', discount: null, gift_amount: 200000, gift_balance: 150050 });
      await insertVoucher(p.id, { code: 'CARD', type: 'LOYALTY_CARD', discount: null, loyalty_points: 900, loyalty_balance: 700 });
      await insertVoucher(p.id, { code: 'UNIT', discount: JSON.stringify({ type: 'UNIT', unit_off: 2, unit_type: 'prod_1', effect: 'ADD_MISSING_ITEMS' }) });
      await insertVoucher(p.id, { code: 'BINNED', binned_at: NOW });

      const fields = [
        'code', 'voucher_type', 'value', 'discount_type', 'campaign', 'category', 'gift_balance', 'loyalty_balance', 'redemption_quantity',
        'redemption_count', 'active', 'validity_day_of_week', 'validity_timeframe_interval', 'validity_timeframe_duration', 'customer_id',
        'customer_source_id', 'discount_amount_limit', 'discount_effect', 'discount_unit_type', 'discount_unit_effect', 'metadata', 'metadata.tier',
        'additional_info', 'campaign_id',
      ];
      const { rows } = await exportRows({ exported_object: 'voucher', parameters: { order: 'code', fields } }, p);
      assert.deepEqual(rows[0], fields);
      const byCode = new Map(rows.slice(1).map((r) => [r[0], Object.fromEntries(fields.map((f, i) => [f, r[i]]))]));
      assert.deepEqual([...byCode.keys()], ['AMT', 'CARD', 'GIFT', 'PCT', 'UNIT']);
      assert.deepEqual(byCode.get('AMT'), {
        code: 'AMT', voucher_type: 'DISCOUNT_VOUCHER', value: '12.50', discount_type: 'AMOUNT', campaign: 'Spring Sale', category: 'Seasonal',
        gift_balance: '', loyalty_balance: '', redemption_quantity: '3', redemption_count: '1', active: 'true', validity_day_of_week: '1,2',
        validity_timeframe_interval: 'P2D', validity_timeframe_duration: 'PT1H', customer_id: holder, customer_source_id: 'holder-1',
        discount_amount_limit: '', discount_effect: 'APPLY_TO_ORDER', discount_unit_type: '', discount_unit_effect: '', metadata: '{"tier":"gold"}',
        'metadata.tier': 'gold', additional_info: 'note, with comma', campaign_id: campaign,
      });
      assert.equal(byCode.get('PCT')?.value, '12.5');
      assert.equal(byCode.get('PCT')?.discount_amount_limit, '500');
      assert.equal(byCode.get('GIFT')?.value, '1500.50');
      assert.equal(byCode.get('GIFT')?.gift_balance, '150050');
      assert.equal(byCode.get('GIFT')?.discount_type, '');
      assert.equal(byCode.get('CARD')?.value, '700');
      assert.equal(byCode.get('CARD')?.loyalty_balance, '700');
      assert.equal(byCode.get('UNIT')?.value, '2');
      assert.equal(byCode.get('UNIT')?.discount_unit_effect, 'ADD_MISSING_ITEMS');
      assert.equal(byCode.get('UNIT')?.discount_effect, '');

      // parameters.campaign_id narrows to that campaign.
      const only = await csvColumn({ exported_object: 'voucher', parameters: { campaign_id: campaign, fields: ['code'] } }, p);
      assert.deepEqual(only, ['AMT']);
    });

    test('vouchers: qr and barcode links point at the asset routes', async () => {
      const p = await newProject();
      await insertVoucher(p.id, { code: 'QR-1' });
      const { rows } = await exportRows({ exported_object: 'voucher', parameters: { fields: ['qr_code', 'bar_code'] } }, p);
      assert.match(rows[1]?.[0] ?? '', new RegExp(`^${t.url}/v1/assets/qr/`));
      assert.match(rows[1]?.[1] ?? '', new RegExp(`^${t.url}/v1/assets/barcode/`));
    });

    test('redemptions: the record and what its snapshots say', async () => {
      const p = await newProject();
      const customer = await insertCustomer(p.id, { source_id: 'now-id', name: 'Now Name' });
      const base = { project_id: p.id, metadata: '{"m":1}', related_object_type: 'voucher', related_object_id: 'v_x', channel: '{"channel_type":"API"}' };
      const records: NewRedemptionRow[] = [
        {
          ...base,
          id: 'r_0001',
          object: 'redemption',
          result: 'SUCCESS',
          status: 'SUCCEEDED',
          customer_id: customer,
          voucher_code: 'SAVE10',
          campaign_name: 'Camp',
          tracking_id: 'track_1',
          order_id: 'ord_1',
          customer_snapshot: JSON.stringify({ id: customer, source_id: 'then-id', name: 'Then Name' }),
          order_snapshot: JSON.stringify({ id: 'ord_1', amount: 12000 }),
          order_amount: 12000,
          gift: JSON.stringify({ amount: 500 }),
          loyalty_card: JSON.stringify({ points: 12 }),
          created_at: '2026-03-01T10:00:00.000Z',
        },
        {
          ...base,
          id: 'rf_0002',
          object: 'redemption',
          result: 'FAILURE',
          status: 'FAILED',
          failure_code: 'voucher_expired',
          failure_message: 'Voucher expired',
          customer_id: customer,
          created_at: '2026-03-02T10:00:00.000Z',
        },
      ];
      for (const record of records) await insertRedemption(t.deps.db, record);
      const fields = [...EXPORT_OBJECTS.redemption.allowedFields];
      const { rows } = await exportRows({ exported_object: 'redemption', parameters: { order: 'created_at', fields } }, p);
      const [success, failure] = rows.slice(1).map((r) => Object.fromEntries(fields.map((f, i) => [f, r[i]])));
      assert.deepEqual(success, {
        id: 'r_0001', object: 'redemption', date: '2026-03-01T10:00:00.000Z', voucher_code: 'SAVE10', campaign: 'Camp', promotion_tier_id: '',
        customer_id: customer, customer_source_id: 'then-id', customer_name: 'Then Name', tracking_id: 'track_1', order_id: 'ord_1',
        order_amount: '12000', gift_amount: '500', loyalty_points: '12', result: 'SUCCESS', failure_code: '', failure_message: '', metadata: '{"m":1}',
      });
      // Without a snapshot, the customer as they are now.
      assert.equal(failure?.customer_source_id, 'now-id');
      assert.equal(failure?.failure_code, 'voucher_expired');
      assert.equal(failure?.order_amount, '');
      // Sorted by something else, the date comes from the record itself.
      const byId = await exportRows({ exported_object: 'redemption', parameters: { order: '-id', fields: ['id', 'date'] } }, p);
      assert.deepEqual(byId.rows.slice(1), [['rf_0002', '2026-03-02T10:00:00.000Z'], ['r_0001', '2026-03-01T10:00:00.000Z']]);
    });

    test('customers: summary columns equal the customer object of the API', async () => {
      const p = await newProject();
      const res = await t.request('POST', '/v1/customers', {
        headers: p.headers,
        json: { source_id: 'sum-1', name: 'Sum', email: 's@x.io', address: { city: 'Berlin', country: 'DE' }, birthdate: '1990-05-01', metadata: { vip: true } },
      });
      assert.equal(res.status, 200, res.text);
      const id = res.body.id as string;
      for (const amount of [1000, 2001]) {
        const order = await t.request('POST', '/v1/orders', { headers: p.headers, json: { amount, status: 'PAID', customer: { id } } });
        assert.equal(order.status, 200, order.text);
      }
      const camp = await insertCampaign(p.id, 'Points', 'LOYALTY_PROGRAM');
      await insertVoucher(p.id, { code: 'LC-1', type: 'LOYALTY_CARD', discount: null, holder_id: id, campaign_id: camp, loyalty_points: 300, loyalty_balance: 250 });
      const customer = (await t.request('GET', `/v1/customers/${id}`, { headers: p.headers })).body;
      const fields = [...EXPORT_OBJECTS.customer.allowedFields];
      const { rows } = await exportRows({ exported_object: 'customer', parameters: { fields } }, p);
      const row = Object.fromEntries(fields.map((f, i) => [f, rows[1]?.[i]]));
      assert.equal(row.id, id);
      assert.equal(row.address_city, 'Berlin');
      assert.equal(row.address_country, 'DE');
      assert.equal(row.orders_total_count, String(customer.summary.orders.total_count));
      assert.equal(row.orders_total_amount, String(customer.summary.orders.total_amount));
      assert.equal(row.orders_average_amount, String(customer.summary.orders.average_amount));
      assert.equal(row.orders_last_order_amount, String(customer.summary.orders.last_order_amount));
      assert.equal(row.orders_last_order_date, customer.summary.orders.last_order_date);
      assert.equal(row.loyalty_points, String(customer.loyalty.points));
      assert.equal(row.loyalty_points, '300');
      assert.equal(row.redemptions_total_redeemed, '0');
      assert.equal(row.birthdate, '1990-05-01');
      assert.equal(row.metadata, '{"vip":true}');
    });

    test('orders, publications, points buckets and card transactions', async () => {
      const p = await newProject();
      const order = await t.request('POST', '/v1/orders', { headers: p.headers, json: { source_id: 'o-1', amount: 5000, metadata: { shop: 'north' } } });
      assert.equal(order.status, 200, order.text);
      const orderFields = [...EXPORT_OBJECTS.order.allowedFields, 'metadata.shop'];
      const orders = await exportRows({ exported_object: 'order', parameters: { fields: orderFields } }, p);
      const o = Object.fromEntries(orderFields.map((f, i) => [f, orders.rows[1]?.[i]]));
      assert.equal(o.id, order.body.id);
      assert.equal(o.source_id, 'o-1');
      assert.equal(o.status, 'CREATED');
      assert.equal(o.amount, '5000');
      assert.equal(o.total_amount, '5000');
      assert.equal(o['metadata.shop'], 'north');

      const camp = await insertCampaign(p.id, 'Pub Camp');
      const cust = await insertCustomer(p.id, { source_id: 'pub-cust' });
      const voucher = await insertVoucher(p.id, { code: 'PUB-1', campaign_id: camp, type: 'LOYALTY_CARD', discount: null });
      await insertPublication(p.id, voucher, cust, { campaign_id: camp, channel: 'Email' });
      const pubFields = [...EXPORT_OBJECTS.publication.allowedFields];
      const pubs = await exportRows({ exported_object: 'publication', parameters: { fields: pubFields } }, p);
      assert.deepEqual(
        Object.fromEntries(pubFields.map((f, i) => [f, pubs.rows[1]?.[i]])),
        { code: 'PUB-1', voucher_code: 'PUB-1', customer_id: cust, customer_source_id: 'pub-cust', date: NOW, channel: 'Email', campaign: 'Pub Camp', is_winner: '', metadata: '{}' },
      );
      const defaults = await exportRows({ exported_object: 'publication' }, p);
      assert.deepEqual(defaults.rows, [['code', 'customer_id', 'date', 'channel'], ['PUB-1', cust, NOW, 'Email']]);

      await t.deps.db
        .insertInto('loyalty_buckets')
        .values([
          { id: 'lopb_2', project_id: p.id, voucher_id: voucher, campaign_id: camp, points: 40, initial_points: 50, expires_at: '2026-06-30', status: 'ACTIVE', created_at: NOW },
          { id: 'lopb_1', project_id: p.id, voucher_id: voucher, campaign_id: camp, points: 0, initial_points: 10, expires_at: '2026-01-31', status: 'EXPIRED', created_at: NOW },
          { id: 'lopb_3', project_id: p.id, voucher_id: voucher, campaign_id: camp, points: 5, initial_points: 5, expires_at: null, status: 'ACTIVE', created_at: NOW },
        ])
        .execute();
      const buckets = await exportRows({ exported_object: 'points_expiration' }, p);
      assert.deepEqual(buckets.rows.slice(1), [
        ['lopb_1', camp, voucher, 'EXPIRED', '2026-01-31', '0'],
        ['lopb_2', camp, voucher, 'ACTIVE', '2026-06-30', '40'],
        // Never expiring: last when soonest first.
        ['lopb_3', camp, voucher, 'ACTIVE', '', '5'],
      ]);
      const latestFirst = await csvColumn({ exported_object: 'points_expiration', parameters: { order: '-expires_at' } }, p);
      assert.deepEqual(latestFirst, ['lopb_3', 'lopb_2', 'lopb_1']);

      await t.deps.db
        .insertInto('voucher_transactions')
        .values({
          id: 'vtx_1',
          project_id: p.id,
          voucher_id: voucher,
          campaign_id: camp,
          type: 'POINTS_ADDITION',
          source_id: 'src-1',
          source: 'API',
          reason: 'bonus',
          amount: 50,
          balance_after: 45,
          total_after: 60,
          operation_type: 'MANUAL',
          details: JSON.stringify({ balance: { points: 50 } }),
          created_at: NOW,
        })
        .execute();
      const vtxFields = [...EXPORT_OBJECTS.voucher_transactions.allowedFields];
      const vtx = await exportRows({ exported_object: 'voucher_transactions', parameters: { fields: vtxFields } }, p);
      assert.deepEqual(
        Object.fromEntries(vtxFields.map((f, i) => [f, vtx.rows[1]?.[i]])),
        {
          id: 'vtx_1', campaign_id: camp, voucher_id: voucher, type: 'POINTS_ADDITION', source_id: 'src-1', reason: 'bonus', source: 'API',
          balance: '45', amount: '50', related_transaction_id: '', created_at: NOW, details: '{"balance":{"points":50}}',
        },
      );
    });
  });

  // ---- filters against real rows ----

  describe('filter operators on vouchers (now = 2026-03-10T12:00:00.000Z)', () => {
    let p: Project;
    const ids: Record<string, string> = {};
    let seasonal = '';
    let holderOne = '';

    before(async () => {
      p = await newProject();
      seasonal = await insertCategory(p.id, 'Seasonal');
      const clearance = await insertCategory(p.id, 'Clearance');
      holderOne = await insertCustomer(p.id, { source_id: 'h1' });
      const holderTwo = await insertCustomer(p.id, { source_id: 'h2' });
      ids.V1 = await insertVoucher(p.id, {
        code: 'SUMMER-1',
        created_at: '2026-03-10T09:00:00.000Z',
        start_date: '2026-03-01T00:00:00.000Z',
        expiration_date: '2026-03-11T10:00:00.000Z',
        validity_day_of_week: '[1,2,3]',
        validity_timeframe: JSON.stringify({ interval: 'P2D', duration: 'PT1H' }),
        category_id: seasonal,
        metadata: JSON.stringify({ tier: 'gold', n: 5, tags: ['a', 'b'] }),
        redemption_quantity: 5,
        redeemed_quantity: 5,
        holder_id: holderOne,
      });
      ids.V2 = await insertVoucher(p.id, {
        code: 'WINTER-2',
        created_at: '2026-03-05T12:00:00.000Z',
        active: false,
        expiration_date: '2026-03-20T00:00:00.000Z',
        validity_day_of_week: '[6]',
        metadata: JSON.stringify({ tier: 'silver', n: 10 }),
        redeemed_quantity: 2,
        is_referral_code: true,
      });
      ids.V3 = await insertVoucher(p.id, {
        code: 'SUMMER-3',
        created_at: '2026-02-08T12:00:00.000Z',
        updated_at: '2026-03-09T12:00:00.000Z',
        category_id: clearance,
        redemption_quantity: 1,
        holder_id: holderTwo,
      });
      ids.V4 = await insertVoucher(p.id, {
        code: 'SPRING-4',
        created_at: '2026-03-08T08:00:00.000Z',
        expiration_date: '2026-03-09T00:00:00.000Z',
        validity_day_of_week: '[0,6]',
        category_id: seasonal,
        metadata: JSON.stringify({ tier: 'gold', n: '7' }),
      });
      await insertPublication(p.id, ids.V1, holderOne);
      await insertPublication(p.id, ids.V3, holderTwo);
    });

    const codes = (filters: Record<string, unknown>) => csvColumn({ exported_object: 'voucher', parameters: { order: 'code', fields: ['code'], filters } }, p);
    const c = (field: string, conditions: Record<string, unknown>) => ({ [field]: { conditions } });

    const cases: Array<[string, () => Record<string, unknown>, string[]]> = [
      ['$is', () => c('code', { $is: ['WINTER-2'] }), ['WINTER-2']],
      ['$is_not', () => c('code', { $is_not: ['WINTER-2'] }), ['SPRING-4', 'SUMMER-1', 'SUMMER-3']],
      ['$in', () => c('code', { $in: ['SUMMER-1', 'SPRING-4'] }), ['SPRING-4', 'SUMMER-1']],
      ['$not_in', () => c('code', { $not_in: ['SUMMER-1', 'SPRING-4'] }), ['SUMMER-3', 'WINTER-2']],
      ['$contains', () => c('code', { $contains: ['MM'] }), ['SUMMER-1', 'SUMMER-3']],
      ['$not_contain', () => c('code', { $not_contain: ['MM'] }), ['SPRING-4', 'WINTER-2']],
      ['$starts_with (no wildcards)', () => c('code', { $starts_with: ['SPR', 'S_M'] }), ['SPRING-4']],
      ['$ends_with', () => c('code', { $ends_with: ['-2', '-3'] }), ['SUMMER-3', 'WINTER-2']],
      ['$has_value', () => c('expiration_date', { $has_value: [] }), ['SPRING-4', 'SUMMER-1', 'WINTER-2']],
      ['$is_unknown', () => c('expiration_date', { $is_unknown: [] }), ['SUMMER-3']],
      ['$after', () => c('created_at', { $after: ['2026-03-06'] }), ['SPRING-4', 'SUMMER-1']],
      ['$before', () => c('created_at', { $before: ['2026-03-06T00:00:00Z'] }), ['SUMMER-3', 'WINTER-2']],
      ['$is on a date-time: that UTC day', () => c('created_at', { $is: ['2026-03-05'] }), ['WINTER-2']],
      ['$is_days_ago', () => c('created_at', { $is_days_ago: [2] }), ['SPRING-4']],
      ['$is_days_in_future', () => c('expiration_date', { $is_days_in_future: [1] }), ['SUMMER-1']],
      ['$more_than_ago', () => c('created_at', { $more_than_ago: [5] }), ['SUMMER-3']],
      ['$more_than on a date (days ago)', () => c('created_at', { $more_than: ['20'] }), ['SUMMER-3']],
      ['$more_than_equal on a date: the boundary instant is included', () => c('created_at', { $more_than_equal: [5] }), ['SUMMER-3', 'WINTER-2']],
      ['$less_than_ago', () => c('created_at', { $less_than_ago: [4] }), ['SPRING-4', 'SUMMER-1']],
      ['$less_than on a date (days ago)', () => c('created_at', { $less_than: [1] }), ['SUMMER-1']],
      ['$less_than_equal on a date: the boundary instant is included', () => c('created_at', { $less_than_equal: [5] }), ['SPRING-4', 'SUMMER-1', 'WINTER-2']],
      ['$more_than_future', () => c('expiration_date', { $more_than_future: [5] }), ['WINTER-2']],
      ['$less_than_future', () => c('expiration_date', { $less_than_future: [2] }), ['SUMMER-1']],
      ['$more_than on a number', () => c('redemption.quantity', { $more_than: [1] }), ['SUMMER-1']],
      ['$less_than on a number', () => c('redemption.redeemed_quantity', { $less_than: [2] }), ['SPRING-4', 'SUMMER-3']],
      ['$more_than_equal on a number', () => c('redemption.redeemed_quantity', { $more_than_equal: ['2'] }), ['SUMMER-1', 'WINTER-2']],
      ['$less_than_equal on a number (a missing value fails)', () => c('redemption.quantity', { $less_than_equal: [1] }), ['SUMMER-3']],
      ['$count on a set', () => c('validity_day_of_week', { $count: [2] }), ['SPRING-4']],
      ['$count_less on a set (none set counts 0)', () => c('validity_day_of_week', { $count_less: [2] }), ['SUMMER-3', 'WINTER-2']],
      ['$count_more on a set', () => c('validity_day_of_week', { $count_more: [2] }), ['SUMMER-1']],
      ['$in on a set: some value is one of them', () => c('validity_day_of_week', { $in: ['6'] }), ['SPRING-4', 'WINTER-2']],
      ['$is_not on a set: no value is it', () => c('validity_day_of_week', { $is_not: [6] }), ['SUMMER-1', 'SUMMER-3']],
      ['$is_unknown on a set: empty', () => c('validity_day_of_week', { $is_unknown: [] }), ['SUMMER-3']],
      ['$count on a JSON array member', () => c('metadata.tags', { $count: [2] }), ['SUMMER-1']],
      ['created_date $is', () => c('created_date', { $is: ['2026-03-08'] }), ['SPRING-4']],
      ['updated_at $has_value: never updated has none', () => c('updated_at', { $has_value: [] }), ['SUMMER-3']],
      ['start_date $before', () => c('start_date', { $before: ['2026-03-02'] }), ['SUMMER-1']],
      ['active $is true (text "true" as the seed sends it)', () => c('active', { $is: ['true'] }), ['SPRING-4', 'SUMMER-1', 'SUMMER-3']],
      ['active $is_not true', () => c('active', { $is_not: [true] }), ['WINTER-2']],
      ['redemption_status $is', () => c('redemption_status', { $is: ['FULLY_REDEEMED'] }), ['SUMMER-1']],
      ['redemption_status $in', () => c('redemption_status', { $in: ['PARTIALLY_REDEEMED', 'NOT_REDEEMED'] }), ['SPRING-4', 'SUMMER-3', 'WINTER-2']],
      ['categories $in (names)', () => c('categories', { $in: ['Seasonal'] }), ['SPRING-4', 'SUMMER-1']],
      ['categories $count 0', () => c('categories', { $count: [0] }), ['WINTER-2']],
      ['category_ids $is', () => c('category_ids', { $is: [seasonal] }), ['SPRING-4', 'SUMMER-1']],
      ['vouchers $in (id or code)', () => c('vouchers', { $in: [ids.V1, 'WINTER-2'] }), ['SUMMER-1', 'WINTER-2']],
      ['holder_id $has_value', () => c('holder_id', { $has_value: [] }), ['SUMMER-1', 'SUMMER-3']],
      ['is_referral_code $is', () => c('is_referral_code', { $is: [true] }), ['WINTER-2']],
      ['published_for_customer_id $is', () => c('published_for_customer_id', { $is: [holderOne] }), ['SUMMER-1']],
      ['published_for_customer_id $not_in', () => c('published_for_customer_id', { $not_in: [holderOne] }), ['SPRING-4', 'SUMMER-3', 'WINTER-2']],
      ['validity_timeframe $has_value', () => c('validity_timeframe', { $has_value: [] }), ['SUMMER-1']],
      ['metadata $is on a string member', () => c('metadata.tier', { $is: ['gold'] }), ['SPRING-4', 'SUMMER-1']],
      ['metadata $is with a number: number members and their text', () => c('metadata.n', { $is: [7] }), ['SPRING-4']],
      ['metadata $more_than: only number members compare', () => c('metadata.n', { $more_than: [4] }), ['SUMMER-1', 'WINTER-2']],
      ['metadata $starts_with', () => c('metadata.tier', { $starts_with: ['sil'] }), ['WINTER-2']],
      ['metadata $is_unknown: missing members', () => c('metadata.tier', { $is_unknown: [] }), ['SUMMER-3']],
      ['conditions of one field all hold', () => c('code', { $starts_with: ['SUMMER'], $ends_with: ['-3'] }), ['SUMMER-3']],
      ['junction and', () => ({ junction: 'and', ...c('metadata.tier', { $is: ['gold'] }), ...c('active', { $is: [true] }), ...c('created_at', { $less_than_ago: [1] }) }), ['SUMMER-1']],
      ['junction or', () => ({ junction: 'OR', ...c('code', { $is: ['SUMMER-3'] }), ...c('metadata.n', { $more_than: [6] }) }), ['SUMMER-3', 'WINTER-2']],
    ];
    for (const [name, filters, expected] of cases) {
      test(name, async () => assert.deepEqual(await codes(filters()), expected));
    }
  });

  describe('filter fields of the other objects', () => {
    let p: Project;
    const ids: Record<string, string> = {};

    before(async () => {
      p = await newProject();
      ids.camp = await insertCampaign(p.id, 'Alpha');
      ids.ann = await insertCustomer(p.id, { source_id: 'ann', name: 'Ann', email: 'ann@x.io', address_city: 'Oslo', address: JSON.stringify({ city: 'Oslo', country: 'NO' }), birthday: '1990-03-11', created_at: '2026-03-01T00:00:00.000Z', orders_total_count: 2, orders_total_amount: 3000, metadata: '{"vip":true}' });
      ids.bob = await insertCustomer(p.id, { source_id: 'bob', name: 'Bob', email: 'bob@y.io', created_at: '2026-03-05T00:00:00.000Z', updated_at: '2026-03-09T10:00:00.000Z', system_metadata: '{"src":"import"}' });
      ids.v1 = await insertVoucher(p.id, { code: 'ALPHA-1', campaign_id: ids.camp, type: 'LOYALTY_CARD', discount: null, holder_id: ids.ann, loyalty_points: 120, loyalty_balance: 100 });
      ids.v2 = await insertVoucher(p.id, { code: 'OTHER-2' });
      await insertPublication(p.id, ids.v1, ids.ann, { created_at: '2026-02-01T00:00:00.000Z', campaign_id: ids.camp });
      await insertPublication(p.id, ids.v2, ids.bob, { created_at: '2026-03-09T00:00:00.000Z' });
      const redemption = { project_id: p.id, metadata: '{}', related_object_id: 'x', channel: '{}', created_at: NOW };
      await t.deps.db
        .insertInto('redemptions')
        .values([
          { ...redemption, id: 'r_a', object: 'redemption', result: 'SUCCESS', status: 'SUCCEEDED', related_object_type: 'voucher', voucher_id: ids.v1, voucher_code: 'ALPHA-1', campaign_id: ids.camp, campaign_name: 'Alpha', customer_id: ids.ann, created_at: '2026-03-01T00:00:00.000Z' },
          { ...redemption, id: 'rf_b', object: 'redemption', result: 'FAILURE', status: 'FAILED', failure_code: 'voucher_disabled', related_object_type: 'promotion_tier', customer_id: ids.bob, parent_id: 'r_p' },
          { ...redemption, id: 'rr_c', object: 'redemption_rollback', result: 'SUCCESS', status: 'SUCCEEDED', related_object_type: 'voucher', voucher_id: ids.v2, voucher_code: 'OTHER-2', channel: '{"channel_type":"USER","channel_id":"jane@shop.io"}' },
        ])
        .execute();
      for (const [source, status, amount] of [['o-1', 'PAID', 1000], ['o-2', 'CREATED', 5000]] as const) {
        const res = await t.request('POST', '/v1/orders', { headers: p.headers, json: { source_id: source, status, amount, metadata: { shop: source === 'o-1' ? 'north' : 'south' } } });
        assert.equal(res.status, 200, res.text);
      }
      await t.deps.db
        .insertInto('loyalty_buckets')
        .values([
          { id: 'lopb_a', project_id: p.id, voucher_id: ids.v1, campaign_id: ids.camp, points: 10, initial_points: 10, expires_at: '2026-04-01', status: 'ACTIVE', created_at: NOW },
          { id: 'lopb_b', project_id: p.id, voucher_id: 'v_other', campaign_id: 'camp_other', points: 10, initial_points: 10, expires_at: '2026-04-01', status: 'ACTIVE', created_at: NOW },
        ])
        .execute();
      const vtx = { project_id: p.id, type: 'POINTS_ADDITION', amount: 1, balance_after: 1, total_after: 1, operation_type: 'MANUAL' as const, details: '{}' };
      await t.deps.db
        .insertInto('voucher_transactions')
        .values([
          { ...vtx, id: 'vtx_a', voucher_id: ids.v1, campaign_id: ids.camp, created_at: '2026-03-09T12:00:00.000Z' },
          { ...vtx, id: 'vtx_b', voucher_id: 'v_card_b', campaign_id: null, created_at: '2026-02-01T12:00:00.000Z' },
        ])
        .execute();
    });

    const first = (object: ExportedObject, filters: Record<string, unknown>, order: string) =>
      csvColumn({ exported_object: object, parameters: { order, fields: [object === 'customer' ? 'source_id' : object === 'order' ? 'source_id' : 'id'], filters } }, p);

    test('redemptions: identity fields ($is on id or name), related_object ($in), parent, user login, status', async () => {
      const r = (filters: Record<string, unknown>) => first('redemption', filters, 'id');
      assert.deepEqual(await r({ campaign: { conditions: { $is: ['Alpha'] } } }), ['r_a']);
      assert.deepEqual(await r({ campaign: { conditions: { $is: [ids.camp] } } }), ['r_a']);
      assert.deepEqual(await r({ customer: { conditions: { $is: ['bob'] } } }), ['rf_b']);
      assert.deepEqual(await r({ customer: { conditions: { $is: [ids.bob] } } }), ['rf_b']);
      assert.deepEqual(await r({ voucher: { conditions: { $is: ['OTHER-2'] } } }), ['rr_c']);
      assert.deepEqual(await r({ related_object: { conditions: { $in: ['promotion_tier'] } } }), ['rf_b']);
      assert.deepEqual(await r({ parent_redemption_id: { conditions: { $is: ['r_p'] } } }), ['rf_b']);
      assert.deepEqual(await r({ user_login: { conditions: { $has_value: [] } } }), ['rr_c']);
      assert.deepEqual(await r({ object: { conditions: { $is: ['redemption_rollback'] } } }), ['rr_c']);
      assert.deepEqual(await r({ result: { conditions: { $is: ['SUCCESS'] } }, status: { conditions: { $is: ['SUCCEEDED'] } }, created_at: { conditions: { $before: ['2026-03-05'] } } }), ['r_a']);
      assert.deepEqual(await r({ failure_code: { conditions: { $starts_with: ['voucher_'] } } }), ['rf_b']);
    });

    test('customers: city, addresses, summaries, loyalty points, publications, metadata', async () => {
      const cst = (filters: Record<string, unknown>) => first('customer', filters, 'source_id');
      assert.deepEqual(await cst({ city: { conditions: { $is: ['Oslo'] } } }), ['ann']);
      assert.deepEqual(await cst({ 'address.country': { conditions: { $is: ['NO'] } } }), ['ann']);
      assert.deepEqual(await cst({ email: { conditions: { $ends_with: ['@y.io'] } } }), ['bob']);
      assert.deepEqual(await cst({ birthday: { conditions: { $is_days_in_future: [1] } } }), []);
      assert.deepEqual(await cst({ birthday: { conditions: { $before: ['1991-01-01'] } } }), ['ann']);
      assert.deepEqual(await cst({ updated_at: { conditions: { $is: ['2026-03-09'] } } }), ['bob']);
      assert.deepEqual(await cst({ created_at: { conditions: { $after: ['2026-03-02'] } } }), ['bob']);
      assert.deepEqual(await cst({ 'summary.orders.total_count': { conditions: { $more_than_equal: [2] } } }), ['ann']);
      assert.deepEqual(await cst({ 'summary.orders.average_amount': { conditions: { $is: [1500] } } }), ['ann']);
      assert.deepEqual(await cst({ 'loyalty.points': { conditions: { $more_than: [100] } } }), ['ann']);
      assert.deepEqual(await cst({ [`loyalty_points.${ids.camp}`]: { conditions: { $is: [100] } } }), ['ann']);
      assert.deepEqual(await cst({ 'summary.redemptions.loyalty_card.points_to_go': { conditions: { $is: [0] } } }), ['bob']);
      assert.deepEqual(await cst({ 'publications.created_at': { conditions: { $after: ['2026-03-01'] } } }), ['bob']);
      assert.deepEqual(await cst({ 'publications.created_at': { conditions: { $less_than_ago: [30], $before: ['2026-03-01'] } } }), []);
      assert.deepEqual(await cst({ 'publications.related_object_id': { conditions: { $is: [ids.v1] } } }), ['ann']);
      assert.deepEqual(await cst({ 'metadata.vip': { conditions: { $is: [true] } } }), ['ann']);
      assert.deepEqual(await cst({ 'system_metadata.src': { conditions: { $is: ['import'] } } }), ['bob']);
    });

    test('publications: campaign by name, voucher type and code, customer by source id', async () => {
      const pub = (filters: Record<string, unknown>) => csvColumn({ exported_object: 'publication', parameters: { order: 'created_at', fields: ['voucher_code'], filters } }, p);
      assert.deepEqual(await pub({ campaign: { conditions: { $is: ['Alpha'] } } }), ['ALPHA-1']);
      assert.deepEqual(await pub({ customer: { conditions: { $is: ['bob'] } } }), ['OTHER-2']);
      assert.deepEqual(await pub({ voucher: { conditions: { $is: ['ALPHA-1'] } } }), ['ALPHA-1']);
      assert.deepEqual(await pub({ voucher_type: { conditions: { $is: ['LOYALTY_CARD'] } } }), ['ALPHA-1']);
      assert.deepEqual(await pub({ campaign_name: { conditions: { $is_unknown: [] } } }), ['OTHER-2']);
      assert.deepEqual(await pub({ related_object_id: { conditions: { $is: [ids.v2] } } }), ['OTHER-2']);
      assert.deepEqual(await pub({ failure_code: { conditions: { $has_value: [] } } }), []);
      assert.deepEqual(await pub({ created_at: { conditions: { $after: ['2026-03-01'] } } }), ['OTHER-2']);
    });

    test('orders, points buckets and card transactions', async () => {
      assert.deepEqual(await first('order', { status: { conditions: { $is: ['PAID'] } } }, 'created_at'), ['o-1']);
      assert.deepEqual(await first('order', { amount: { conditions: { $more_than: [2000] } } }, 'created_at'), ['o-2']);
      assert.deepEqual(await first('order', { 'metadata.shop': { conditions: { $in: ['north'] } } }, 'created_at'), ['o-1']);
      assert.deepEqual(await first('order', {}, '-status'), ['o-1', 'o-2']);
      assert.deepEqual(await first('points_expiration', { campaign_id: { conditions: { $is: [ids.camp] } } }, 'expires_at'), ['lopb_a']);
      assert.deepEqual(await first('points_expiration', { voucher_id: { conditions: { $not_in: [ids.v1] } } }, 'expires_at'), ['lopb_b']);
      assert.deepEqual(await first('voucher_transactions', { created_at: { conditions: { $less_than: [2] } } }, '-created_at'), ['vtx_a']);
      assert.deepEqual(await first('voucher_transactions', { created_at: { conditions: { $more_than: [2] } } }, '-created_at'), ['vtx_b']);
      assert.deepEqual(await first('voucher_transactions', { campaign_id: { conditions: { $is_unknown: [] } } }, '-created_at'), ['vtx_b']);
      assert.deepEqual(await first('voucher_transactions', { voucher_id: { conditions: { $starts_with: ['v_card'] } } }, '-created_at'), ['vtx_b']);
    });

    test('every filterable field of every object, with every operator it takes, runs to DONE', async () => {
      const operand = (spec: FilterFieldSpec, op: FilterOperator): unknown[] => {
        if (op === '$has_value' || op === '$is_unknown') return [];
        if (['$count', '$count_less', '$count_more', '$is_days_ago', '$is_days_in_future', '$more_than_ago', '$less_than_ago', '$more_than_future', '$less_than_future'].includes(op)) return [1];
        const type = spec.type === 'set' ? spec.element : spec.type;
        if (type === 'json' && ['$more_than', '$less_than', '$more_than_equal', '$less_than_equal'].includes(op)) return [1];
        if (type === 'datetime' || type === 'date') return ['$more_than', '$less_than', '$more_than_equal', '$less_than_equal'].includes(op) ? [1] : ['2026-03-01'];
        if (type === 'number' || type === 'integer') return [1];
        if (type === 'boolean') return [true];
        if (type === 'enum') return [spec.values?.[0]];
        return ['x'];
      };
      for (const object of EXPORTED_OBJECTS) {
        const filters: Record<string, unknown> = { junction: 'or' };
        const catalog = EXPORT_FILTER_CATALOGS[object];
        for (const [field, spec] of Object.entries(catalog.fields)) {
          const ops = operatorsOf(spec).filter((op) => !spec.only || spec.only.includes(op));
          filters[field] = { conditions: Object.fromEntries(ops.map((op) => [op, operand(spec, op)])) };
        }
        if (catalog.prefixes.metadata) filters['metadata.k'] = { conditions: Object.fromEntries(operatorsOf({ type: 'json' }).map((op) => [op, operand({ type: 'json' }, op)])) };
        const { object: done } = await exportRows({ exported_object: object, parameters: { fields: [...EXPORT_OBJECTS[object].allowedFields], filters } }, p);
        assert.equal(done.status, 'DONE', object);
      }
    });
  });

  describe('tenancy', () => {
    test("one project's exports never show, reach or download another's rows or files", async () => {
      const a = await newProject();
      const b = await newProject();
      await insertCustomer(a.id, { source_id: 'a-only' });
      await insertCustomer(b.id, { source_id: 'b-only' });
      const exportA = await exportRows({ exported_object: 'customer' }, a);
      const exportB = await exportRows({ exported_object: 'customer' }, b);
      assert.deepEqual(exportA.rows.slice(1).map((r) => r[1]), ['a-only']);
      assert.deepEqual(exportB.rows.slice(1).map((r) => r[1]), ['b-only']);

      // B can neither see, list nor delete A's export.
      assert.equal((await get(exportA.object.id, b.headers)).status, 404);
      assert.equal((await t.request('DELETE', `/v1/exports/${exportA.object.id}`, { headers: b.headers })).status, 404);
      const listB = await t.request('GET', '/v1/exports', { headers: b.headers });
      assert.deepEqual(listB.body.exports.map((e: ExportObject) => e.id), [exportB.object.id]);
      // A's token opens A's file only, even on B's export id, and not with B's keys.
      const tokenA = new URL(exportA.object.result?.url ?? '').searchParams.get('token') ?? '';
      assert.equal((await t.request('GET', `/v1/exports/${exportB.object.id}?token=${tokenA}`, { headers: {} })).status, 401);
      assert.equal((await t.request('GET', `/v1/exports/${exportA.object.id}?token=${tokenA}`, { headers: b.headers })).status, 401);
      // A forged token claiming B's project fails its hash.
      const forged = `${Buffer.from(b.id).toString('base64url')}.${tokenA.split('.')[1]}`;
      assert.equal((await t.request('GET', `/v1/exports/${exportB.object.id}?token=${forged}`, { headers: {} })).status, 401);
      // Still intact for A.
      assert.equal((await fetch(exportA.object.result?.url ?? '')).status, 200);
    });
  });

  describe('memory', () => {
    test('exporting tens of thousands of rows keeps the heap flat', async () => {
      setFlagsFromString('--expose_gc');
      const gc = runInNewContext('gc') as () => void;
      const p = await newProject();
      const total = 20_000;
      // Each row carries 1.5 KB, so holding the export (rows or file) in memory would add some 60 MB.
      const filler = 'x'.repeat(1500);
      for (let i = 0; i < total; i += 500) {
        const rows: Array<Insertable<CustomersTable>> = [];
        for (let j = i; j < Math.min(total, i + 500); j++) {
          rows.push({ id: `cust_mem${String(j).padStart(6, '0')}`, project_id: p.id, source_id: `m${j}`, metadata: JSON.stringify({ filler }), system_metadata: '{}', created_at: NOW });
        }
        await t.deps.db.insertInto('customers').values(rows).execute();
      }
      t.clock.set(NOW);
      const created = await post({ exported_object: 'customer', parameters: { fields: ['source_id', 'metadata'] } }, p.headers);
      gc();
      const baseline = process.memoryUsage().heapUsed;
      let peak = baseline;
      let samples = 0;
      // Sampled after every committed chunk, where a run that held all its rows (or the file) would still
      // hold them; the run is the one the worker makes, with a measuring progress hook.
      await runExport(t.deps, internalActor(p.id, 'test'), p.id, created.body.id, {
        progress: async () => {
          gc();
          samples += 1;
          peak = Math.max(peak, process.memoryUsage().heapUsed);
        },
      });
      const done = (await get(created.body.id, p.headers)).body as ExportObject;
      assert.equal(done.result?.row_count, total);
      const growthMb = (peak - baseline) / 1024 / 1024;
      assert.ok(growthMb < 25, `heap grew by ${growthMb.toFixed(1)} MB while exporting`);
      const stored = await t.deps.db.selectFrom('exports').select('chunk_count').where('id', '=', created.body.id).executeTakeFirstOrThrow();
      assert.equal(samples, stored.chunk_count);
      assert.ok(samples > 10, `only ${samples} chunks`);

      // The download streams too: count the records without keeping the text (no cell holds a line feed,
      // and a CRLF may straddle two reads, so line feeds are counted).
      const file = await fetch(done.result?.url ?? '');
      let lines = 0;
      for await (const part of file.body as unknown as AsyncIterable<Uint8Array>) {
        for (const byte of part) if (byte === 0x0a) lines += 1;
      }
      assert.equal(lines, total + 1);
    });
  });
});
