import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXED_KEYS, keyEnvironment } from '../../scripts/lib/keys.ts';
import { launch, waitReady } from '../helpers/launch.ts';

/** Real processes start, migrate and stop here, several at once on a busy machine: more than npm test's default per-test limit. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

// README "Observability": OpenTelemetry tracing is off unless an OTLP endpoint is configured, and then
// no @opentelemetry package is even loaded; when on, every request is a SERVER span named after its
// route that continues the caller's `traceparent`, and the last spans are sent when the server stops.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}

describe('OpenTelemetry tracing', { timeout: 900_000 }, () => {
  let collector: Server;
  let collectorUrl: string;
  const received: Array<{ headers: Record<string, unknown>; spans: OtlpSpan[]; service: string | undefined }> = [];
  const files: string[] = [];

  before(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const doc = JSON.parse(body) as {
          resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const rs of doc.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          received.push({ headers: req.headers, service, spans: rs.scopeSpans.flatMap((s) => s.spans) });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', () => resolve()));
    collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => collector.close(() => resolve()));
    for (const file of files) for (const ext of ['', '-wal', '-shm', '-migration-lock']) rmSync(`${file}${ext}`, { force: true });
  });

  async function startServer(env: Record<string, string>) {
    const file = join(tmpdir(), `tracing-${randomBytes(4).toString('hex')}.db`);
    const importLog = `${file}.imports`;
    files.push(file, importLog);
    const launched = await launch(process.execPath, ['--import', './tests/helpers/import-recorder.mjs', 'bin/punchcard.js', 'start'], {
      ...keyEnvironment(),
      DATABASE_URL: `sqlite:${file}`,
      PUNCHCARD_IMPORT_LOG: importLog,
      ...env,
    });
    await waitReady(launched);
    const imports = () => (existsSync(importLog) ? readFileSync(importLog, 'utf8') : '');
    return { launched, imports };
  }

  test('off by default: no @opentelemetry module is loaded', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const { launched, imports } = await startServer({});
    await fetch(`${launched.url}/v1/customers`, { headers: { 'x-app-id': FIXED_KEYS.server.id, 'x-app-token': FIXED_KEYS.server.secret } });
    launched.child.kill('SIGTERM');
    await launched.exited;
    assert.match(imports(), /node_modules\/fastify\//, 'the recorder works');
    assert.doesNotMatch(imports(), /@opentelemetry/);
  });

  test('on: a SERVER span per request, named by route, continuing traceparent, flushed at stop', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const { launched, imports } = await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_SERVICE_NAME: 'punchcard-under-test', OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=sesame' });
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const res = await fetch(`${launched.url}/v1/customers/cust_unknown`, {
      headers: { 'x-app-id': FIXED_KEYS.server.id, 'x-app-token': FIXED_KEYS.server.secret, traceparent: `00-${traceId}-${parentId}-01` },
    });
    assert.equal(res.status, 404);
    launched.child.kill('SIGTERM');
    assert.deepEqual(await launched.exited, { code: 0, signal: null }, launched.output());
    assert.match(imports(), /@opentelemetry\/sdk-trace-node/);

    const batch = received.find((r) => r.spans.some((s) => s.traceId === traceId));
    assert.ok(batch, `spans received: ${JSON.stringify(received.map((r) => r.spans.map((s) => s.name)))}`);
    assert.equal(batch.service, 'punchcard-under-test');
    assert.equal(batch.headers['x-collector-key'], 'sesame');
    const span = batch.spans.find((s) => s.traceId === traceId);
    assert.ok(span);
    assert.equal(span.name, 'GET /v1/customers/:customerId');
    assert.equal(span.parentSpanId, parentId);
    assert.equal(span.kind, 2, 'SERVER');
    const attribute = (key: string) => span.attributes.find((a) => a.key === key)?.value;
    assert.equal(attribute('http.route')?.stringValue, '/v1/customers/:customerId');
    assert.equal(Number(attribute('http.response.status_code')?.intValue), 404);
  });
});
