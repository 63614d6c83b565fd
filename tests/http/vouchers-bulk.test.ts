import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';
import { assertVendorResponse, vendorRequestExamples, vendorSchemasAvailable } from '../helpers/vendor-schema.ts';

// Voucher bulk and metadata updates (vendor update-vouchers-in-bulk, update-vouchers-metadata-in-bulk):
// 202 with an async action; the worker merges metadata into each voucher named by code, in slices, with
// a `voucher.updated` event each; an unknown code is an error of the result (no upserts).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('voucher bulk and metadata updates', () => {
  let t: TestApp;
  let other: KeyPairOut;
  before(async () => {
    t = await startTestApp();
    other = (
      await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      })
    ).body.server_side_key;
    const schema = await t.request('POST', `/management/v1/projects/${t.projectId}/metadata-schemas`, {
      headers: t.managementHeaders(),
      json: { related_object: 'voucher', properties: { update_value: { type: 'number' } } },
    });
    assert.equal(schema.status, 200, schema.text);
    for (const code of ['example_code', 'example_code2', 'PROMO-CODE810', 'PROMO-CODE726']) {
      await t.sdk().vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { kept: code } } as never);
    }
  });
  after(async () => t.close());

  async function runJobs(): Promise<void> {
    while (await t.worker.runOnce()) {
      // Until no job is due.
    }
  }

  async function action(id: string): Promise<Json> {
    const res = await t.request('GET', `/v1/async-actions/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  const example = (path: string, fallback: unknown) => (vendorSchemasAvailable ? vendorRequestExamples('POST', path).Example : fallback);

  test("bulk: the vendor's example through the SDK merges each voucher's metadata; unknown codes and bad metadata are reported by code", async () => {
    const body = example('/v1/vouchers/bulk/async', [
      { code: 'example_code', metadata: { lang: 'en', update_value: 1 } },
      { code: 'example_code2', metadata: { lang: 'pl', update_value: 2 } },
    ]) as Json[];
    const started: Json = await t.sdk().vouchers.bulkUpdate([...body, { code: 'NO-SUCH', metadata: { a: 1 } }, { code: 'PROMO-CODE726', metadata: { update_value: 'x' } }] as never);
    if (vendorSchemasAvailable) assertVendorResponse('POST', '/v1/vouchers/bulk/async', started, { status: '202' });
    assert.match(started.async_action_id, /^aa_/);
    assert.equal((await action(started.async_action_id)).type, 'VOUCHERS.BULK_UPDATE');
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.status, 'DONE');
    assert.equal(done.result.done_count, 2);
    assert.equal(done.result.failed_count, 2);
    assert.equal(done.result.operation_status, 'FAILED');
    assert.deepEqual(
      done.result.errors.map((e: Json) => [e.code, e.key]),
      [
        ['NO-SUCH', 'not_found'],
        ['PROMO-CODE726', 'metadata_validation_failed'],
      ],
    );
    for (const item of body) {
      const voucher: Json = await t.sdk().vouchers.get(item.code);
      assert.deepEqual(voucher.metadata, { kept: item.code, ...item.metadata }, 'members not sent stay');
    }
    assert.deepEqual(((await t.sdk().vouchers.get('PROMO-CODE726')) as Json).metadata, { kept: 'PROMO-CODE726' }, 'a failed item changes nothing');
    const events = await t.deps.db.selectFrom('events').select(['type', 'voucher_code']).where('type', '=', 'voucher.updated').orderBy('seq').execute();
    assert.deepEqual(
      events.map((e) => e.voucher_code),
      body.map((i) => i.code),
    );
  });

  test("metadata: the vendor's example through the SDK gives every code the same metadata", async () => {
    const body = example('/v1/vouchers/metadata/async', { codes: ['PROMO-CODE810', 'PROMO-CODE726'], metadata: { lang: 'en', authorized_internally: true } }) as Json;
    const started: Json = await t.sdk().vouchers.bulkUpdateMetadata(body);
    if (vendorSchemasAvailable) assertVendorResponse('POST', '/v1/vouchers/metadata/async', started, { status: '202' });
    await runJobs();
    const done = await action(started.async_action_id);
    assert.equal(done.type, 'VOUCHERS.METADATA_UPDATE');
    assert.deepEqual([done.result.done_count, done.result.failed_count, done.result.errors], [2, 0, []]);
    for (const code of body.codes) assert.deepEqual(((await t.sdk().vouchers.get(code)) as Json).metadata, { kept: code, ...body.metadata });
  });

  test("another project's codes are unknown here: reported, never changed", async () => {
    await t.sdk(other).vouchers.create({ code: 'THEIRS-1', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, metadata: { owner: 'them' } } as never);
    const started: Json = await t.sdk().vouchers.bulkUpdateMetadata({ codes: ['THEIRS-1'], metadata: { owner: 'us' } });
    await runJobs();
    const done = await action(started.async_action_id);
    assert.deepEqual(done.result.errors.map((e: Json) => [e.code, e.key]), [['THEIRS-1', 'not_found']]);
    assert.deepEqual(((await t.sdk(other).vouchers.get('THEIRS-1')) as Json).metadata, { owner: 'them' });
  });

  // Empty lists are accepted, as the vendor's schemas require nothing there (request leniency, issue 19);
  // members of the wrong kind are not.
  test('bad bodies are 400 invalid_payload and enqueue nothing', async () => {
    const jobs = async () => Number((await t.deps.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await jobs();
    const cases: Array<[string, unknown]> = [
      ['/v1/vouchers/bulk/async', [{ metadata: { a: 1 } }]],
      ['/v1/vouchers/bulk/async', [{ code: 'example_code', metadata: 'x' }]],
      ['/v1/vouchers/bulk/async', { code: 'example_code' }],
      ['/v1/vouchers/metadata/async', { codes: 'a', metadata: {} }],
    ];
    for (const [path, json] of cases) {
      const res = await t.request('POST', path, { json });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.key, 'invalid_payload');
      assert.ok(res.body.details);
    }
    assert.equal(await jobs(), before);
  });
});
