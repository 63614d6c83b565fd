import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildWeb } from '../../scripts/build-web.ts';
import { COMPRESSION_THRESHOLD } from '../../src/http/plugins/compression.ts';
import { WEB_DIST } from '../../src/http/routes/console/assets.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Compressed answers (README "Running in production", compression): JSON from COMPRESSION_THRESHOLD
// bytes, the console's and cockpit's assets as the build compressed them, /openapi.json and /docs from
// bytes kept after the first answer; never an export download or a card image. Raw HTTP, so the test
// sees the bytes on the wire (fetch would ask for and undo the compression itself).

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as sent. */
  wire: Buffer;
  /** The bytes after undoing Content-Encoding. */
  body: Buffer;
}

describe('compression', () => {
  let t: TestApp;

  before(async () => {
    buildWeb();
    t = await startTestApp();
  });
  after(async () => t.close());

  function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${t.url}${path}`, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const wire = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const decoded = encoding === 'br' ? brotliDecompressSync(wire) : encoding === 'gzip' ? gunzipSync(wire) : wire;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, wire, body: decoded });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const keys = () => t.serverHeaders();
  const varies = (r: Raw) => /(^|,)\s*accept-encoding\s*(,|$)/i.test(String(r.headers.vary ?? ''));

  async function bigList(): Promise<void> {
    for (let i = 0; i < 12; i++) {
      const res = await t.request('POST', '/v1/customers', { json: { source_id: `compress-${i}`, name: `Customer number ${i}`, email: `c${i}@example.com`, metadata: { note: 'x'.repeat(40) } } });
      assert.equal(res.status, 200, res.text);
    }
  }

  test('a JSON answer above the threshold: brotli and gzip decode to the same JSON; without Accept-Encoding it is plain, and every variant says it varies', async () => {
    await bigList();
    const plain = await raw('GET', '/v1/customers?limit=12', keys());
    assert.equal(plain.status, 200);
    assert.ok(plain.wire.length > COMPRESSION_THRESHOLD, `the list is ${plain.wire.length} bytes`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(varies(plain), `Vary: ${plain.headers.vary}`);
    const json = JSON.parse(plain.body.toString('utf8')) as { customers: unknown[] };
    assert.equal(json.customers.length, 12);

    for (const encoding of ['br', 'gzip'] as const) {
      const res = await raw('GET', '/v1/customers?limit=12', { ...keys(), 'accept-encoding': encoding });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.ok(varies(res), `Vary: ${res.headers.vary}`);
      assert.ok(res.wire.length < plain.wire.length / 2, `${encoding}: ${res.wire.length} of ${plain.wire.length} bytes`);
      assert.deepEqual(JSON.parse(res.body.toString('utf8')), json);
    }
    // A browser's usual header: brotli preferred; q-values respected; identity or q=0 is the plain answer.
    assert.equal((await raw('GET', '/v1/customers?limit=12', { ...keys(), 'accept-encoding': 'gzip, deflate, br, zstd' })).headers['content-encoding'], 'br');
    assert.equal((await raw('GET', '/v1/customers?limit=12', { ...keys(), 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding'], 'gzip');
    assert.equal((await raw('GET', '/v1/customers?limit=12', { ...keys(), 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);
    assert.equal((await raw('GET', '/v1/customers?limit=12', { ...keys(), 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding'], undefined);
  });

  test('a small answer is sent as it is, and does not claim to vary', async () => {
    for (const path of ['/v1/customers/cust_missing', '/health']) {
      const res = await raw('GET', path, { ...keys(), 'accept-encoding': 'br, gzip' });
      assert.ok(res.wire.length > 0 && res.wire.length < COMPRESSION_THRESHOLD, `${path}: ${res.wire.length} bytes`);
      assert.equal(res.headers['content-encoding'], undefined, path);
      assert.equal(varies(res), false, path);
      JSON.parse(res.wire.toString('utf8'));
    }
  });

  test('the console and cockpit assets are sent precompressed from the build, smaller, with their exact length', async () => {
    for (const pagePath of ['/dashboard/', '/cockpit']) {
      const page = await raw('GET', pagePath, { 'accept-encoding': 'br, gzip' });
      assert.equal(page.status, 200);
      const assets = [...page.body.toString('utf8').matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] as string);
      assert.ok(assets.length >= 2, `${pagePath} links its script and styles`);
      for (const asset of assets) {
        const file = readFileSync(`${WEB_DIST}${asset.slice('/dashboard/'.length)}`);
        const plain = await raw('GET', asset);
        assert.equal(plain.headers['content-encoding'], undefined);
        assert.ok(plain.wire.equals(file));
        assert.ok(varies(plain), `${asset} Vary: ${plain.headers.vary}`);
        for (const [encoding, suffix] of [['br', '.br'], ['gzip', '.gz']] as const) {
          const res = await raw('GET', asset, { 'accept-encoding': encoding });
          assert.equal(res.status, 200);
          assert.equal(res.headers['content-encoding'], encoding, asset);
          assert.ok(varies(res));
          assert.match(String(res.headers['content-type']), asset.endsWith('.js') ? /javascript/ : /text\/css/);
          // The build's file, sent as it is (not compressed again per request).
          assert.ok(res.wire.equals(readFileSync(`${WEB_DIST}${asset.slice('/dashboard/'.length)}${suffix}`)), `${asset} ${encoding}`);
          assert.equal(res.headers['content-length'], String(res.wire.length));
          assert.ok(res.wire.length < file.length, `${asset} ${encoding}: ${res.wire.length} of ${file.length}`);
          assert.ok(res.body.equals(file));
        }
      }
    }
  });

  test('/openapi.json, /docs and its script: compressed once, the same bytes every time, decoding to the plain ones', async () => {
    for (const path of ['/openapi.json', '/docs', '/docs/redoc.standalone.js']) {
      const plain = await raw('GET', path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(varies(plain), `${path} Vary: ${plain.headers.vary}`);
      for (const encoding of ['br', 'gzip'] as const) {
        const first = await raw('GET', path, { 'accept-encoding': encoding });
        const second = await raw('GET', path, { 'accept-encoding': encoding });
        assert.equal(first.headers['content-encoding'], encoding, path);
        assert.ok(varies(first));
        assert.equal(first.headers['content-length'], String(first.wire.length));
        assert.ok(first.wire.length < plain.wire.length / 3, `${path} ${encoding}: ${first.wire.length} of ${plain.wire.length}`);
        assert.ok(first.wire.equals(second.wire), `${path}: the kept bytes`);
        assert.ok(first.body.equals(plain.wire));
      }
    }
    const doc = await raw('GET', '/openapi.json', { 'accept-encoding': 'br' });
    assert.equal((JSON.parse(doc.body.toString('utf8')) as { openapi: string }).openapi, '3.1.0');
  });

  test('an export download and card images are never compressed', async () => {
    await bigList().catch(() => undefined);
    const created = await t.request('POST', '/v1/exports', { json: { exported_object: 'customer', parameters: { fields: ['id', 'name', 'email', 'source_id', 'metadata'] } } });
    assert.equal(created.status, 200, created.text);
    while (await t.worker.runOnce()) {
      // the export job
    }
    const done = await t.request('GET', `/v1/exports/${created.body.id}`);
    assert.equal(done.body.status, 'DONE', done.text);
    const url = new URL(done.body.result.url as string);
    const file = await raw('GET', `${url.pathname}${url.search}`, { 'accept-encoding': 'br, gzip' });
    assert.equal(file.status, 200);
    assert.ok(file.wire.length > COMPRESSION_THRESHOLD, `the file is ${file.wire.length} bytes`);
    assert.equal(file.headers['content-encoding'], undefined);
    assert.equal(file.headers['content-length'], String(file.wire.length));
    assert.match(file.wire.toString('utf8'), /^id,name,email,source_id/);

    const voucher = await t.request('POST', '/v1/vouchers', { json: { type: 'DISCOUNT_VOUCHER', code: 'COMPRESS-QR-1', discount: { type: 'AMOUNT', amount_off: 100 } } });
    assert.equal(voucher.status, 200, voucher.text);
    for (const link of [voucher.body.assets.qr.url, voucher.body.assets.barcode.url] as string[]) {
      for (const query of ['?size=40', '?format=svg&size=40']) {
        const image = await raw('GET', `${new URL(link).pathname}${query}`, { 'accept-encoding': 'br, gzip' });
        assert.equal(image.status, 200);
        assert.match(String(image.headers['content-type']), /^image\/(png|svg\+xml)/);
        assert.equal(image.headers['content-encoding'], undefined, `${link}${query}`);
      }
    }
  });
});
