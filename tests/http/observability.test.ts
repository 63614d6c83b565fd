import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redactUrl } from '../../src/lib/logging.ts';
import { startTestApp, TEST_KEYS, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/redemption-fixtures.ts';

// README "Observability": the access log never carries a secret (credential headers, export download
// tokens, card image ids), and /metrics reports HTTP by route and status, redemptions by result, and the
// job queue by kind.

describe('logs and metrics', () => {
  let t: TestApp;
  const lines: string[] = [];

  before(async () => {
    t = await startTestApp({ log: { write: (line: string) => void lines.push(line) } });
  });
  after(async () => t.close());

  async function metrics(): Promise<string[]> {
    const res = await t.request('GET', '/metrics', { headers: {} });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    return res.text.split('\n');
  }
  const value = (all: string[], prefix: string) => {
    const line = all.find((l) => l.startsWith(prefix));
    return line === undefined ? undefined : Number(line.slice(prefix.length).trim());
  };

  test('the export download token and credentials never reach the log', async () => {
    const created = await t.request('POST', '/v1/exports', { json: { exported_object: 'customer' } });
    assert.equal(created.status, 200, created.text);
    while (await t.worker.runOnce()) {
      // until the export is done
    }
    const done = await t.request('GET', `/v1/exports/${created.body.id}`);
    const url = new URL(done.body.result.url as string);
    const token = url.searchParams.get('token');
    assert.ok(token && token.length >= 16);
    const download = await fetch(`${t.url}${url.pathname}${url.search}`);
    assert.equal(download.status, 200);
    await download.text();

    const log = lines.join('');
    assert.ok(log.includes(`/v1/exports/${created.body.id}?token=[Redacted]`), 'the download is logged, without its token');
    assert.ok(!log.includes(token), 'the token appears nowhere in the log');
    assert.ok(!log.includes(TEST_KEYS.server.secret), 'nor does the server secret');
  });

  test('URL redaction keeps the route and drops credentials', () => {
    assert.equal(redactUrl('/v1/exports/exp_1?token=abc&x=1'), '/v1/exports/exp_1?token=[Redacted]&x=1');
    assert.equal(redactUrl('/v1/exports/exp_1?x=1&TOKEN=abc'), '/v1/exports/exp_1?x=1&TOKEN=[Redacted]');
    assert.equal(redactUrl('/v1/assets/qr/secret-asset-id'), '/v1/assets/qr/[Redacted]');
    assert.equal(redactUrl('/v1/customers?limit=10'), '/v1/customers?limit=10');
  });

  test('/metrics: HTTP by route and status, redemptions by result and reason', async () => {
    const f = fixtures(t);
    const voucher = await f.amountVoucher(500, { redemption: { quantity: 1 } });
    const redeem = () => t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: voucher.code }], order: { amount: 2000 } } });
    const before = await metrics();
    const successes = value(before, 'punchcard_redemptions_total{route="/v1/redemptions",result="SUCCESS",reason=""}') ?? 0;
    const exceeded = value(before, 'punchcard_redemptions_total{route="/v1/redemptions",result="FAILURE",reason="quantity_exceeded"}') ?? 0;
    assert.equal((await redeem()).status, 200);
    const second = await redeem();
    assert.equal(second.status, 400);
    assert.equal(second.body.key, 'quantity_exceeded');
    const unknown = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: 'NO-SUCH-CODE' }] } });
    assert.equal(unknown.status, 404);

    const after = await metrics();
    assert.equal(value(after, 'punchcard_redemptions_total{route="/v1/redemptions",result="SUCCESS",reason=""}'), successes + 1);
    assert.equal(value(after, 'punchcard_redemptions_total{route="/v1/redemptions",result="FAILURE",reason="quantity_exceeded"}'), exceeded + 1);
    assert.ok((value(after, `punchcard_redemptions_total{route="/v1/redemptions",result="FAILURE",reason="${unknown.body.key}"}`) ?? 0) >= 1);
    assert.ok((value(after, 'punchcard_http_requests_total{method="POST",route="/v1/redemptions",status="400"}') ?? 0) >= 1);
    assert.ok((value(after, 'punchcard_http_request_duration_seconds_count{method="POST",route="/v1/redemptions"}') ?? 0) >= 3);
    // A request that is not a redemption is not counted as one.
    assert.equal(after.filter((l) => l.startsWith('punchcard_redemptions_total{route="/v1/vouchers')).length, 0);
  });

  test('/metrics: job queue depth and the age of the oldest due job, by kind', async () => {
    const created = await t.request('POST', '/v1/exports', { json: { exported_object: 'voucher' } });
    assert.equal(created.status, 200);
    t.clock.advance(90_000);
    let all = await metrics();
    assert.equal(value(all, 'punchcard_job_queue_depth{kind="export.generate",state="due"}'), 1);
    const age = value(all, 'punchcard_job_queue_oldest_age_seconds{kind="export.generate"}') ?? 0;
    assert.ok(age >= 90 && age < 120, `oldest age ${age}`);
    assert.notEqual(value(all, 'punchcard_job_queue_depth{kind="webhook.delivery",state="due"}'), undefined, 'deliveries are a queue too');

    while (await t.worker.runOnce()) {
      // drain
    }
    all = await metrics();
    assert.equal(value(all, 'punchcard_job_queue_depth{kind="export.generate",state="due"}'), 0, 'an emptied queue reads 0');
    assert.equal(value(all, 'punchcard_job_queue_oldest_age_seconds{kind="export.generate"}'), 0);
    assert.ok((value(all, 'punchcard_jobs_total{kind="export.generate",outcome="done"}') ?? 0) >= 1);
  });
});
