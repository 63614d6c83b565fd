import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, testConfig, TEST_KEYS, type TestApp } from '../helpers/app.ts';

// Connection limits (README "Configuration"): a request must arrive whole within the request timeout —
// a body or headers sent a byte at a time used to hold their connection for minutes — and no more than
// the configured number of connections is open at once. What happens after a request has arrived (a
// long answer, a slow reader) is not bounded by the timeout. Bounds here are generous multiples of the
// configured values: the point is closed-or-not, not how fast.

interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the milliseconds from opening until the server closed the connection. */
  closed: Promise<number>;
}

/** A raw connection; `from` picks the local address (any of 127.0.0.0/8 reaches a loopback server on Linux). */
function open(url: string, from?: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: hostname, port: Number(port), ...(from ? { localAddress: from } : {}) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks).toString('utf8'), closed }));
    socket.once('error', (error) => (socket.connecting ? reject(error) : undefined));
  });
}

/** Resolves with the connection's close time, or null when it is still open after `ms`. */
async function closedWithin(connection: RawConnection, ms: number): Promise<number | null> {
  return Promise.race([connection.closed, sleep(ms).then(() => null)]);
}

/** Writes `text` one byte every `everyMs` until the connection closes or the text is sent. */
async function drip(connection: RawConnection, text: string, everyMs: number): Promise<void> {
  for (const char of text) {
    if (connection.socket.destroyed || !connection.socket.writable) return;
    connection.socket.write(char);
    await sleep(everyMs);
  }
}

const AUTH = `X-App-Id: ${TEST_KEYS.server.id}\r\nX-App-Token: ${TEST_KEYS.server.secret}\r\n`;

describe('request timeout and connection limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { server: { ...testConfig().server, requestTimeoutMs: 1000, keepAliveTimeoutMs: 10_000, maxConnections: 1024 } } });
  });
  after(async () => t?.close());

  test('a body sent one byte every 200 ms is answered 408 in the vendor body and the connection closed', async () => {
    const connection = await open(t.url);
    const body = JSON.stringify({ source_id: 'slow-body', name: 'x'.repeat(200) });
    connection.socket.write(`POST /v1/customers HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    // Sending the whole body this way would take about 45 s.
    const dripping = drip(connection, body, 200);
    const closedAfter = await closedWithin(connection, 15_000);
    connection.socket.destroy();
    await dripping;
    assert.notEqual(closedAfter, null, 'the connection was still open after 15 s');
    const answer = connection.received();
    assert.match(answer, /^HTTP\/1\.1 408 /, answer);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.equal(json.code, 408);
    assert.equal(json.key, 'request_timeout');
    assert.equal(typeof json.request_id, 'string');
    // Nothing was created from the part of the body that arrived.
    const list = await t.request('GET', '/v1/customers?limit=100');
    assert.equal(list.body.customers.some((c: { source_id: string }) => c.source_id === 'slow-body'), false);
  });

  test('headers sent one byte every 200 ms are cut off as well', async () => {
    const connection = await open(t.url);
    const dripping = drip(connection, `GET /v1/customers HTTP/1.1\r\nHost: x\r\n${AUTH}X-Padding: ${'p'.repeat(200)}\r\n\r\n`, 200);
    const closedAfter = await closedWithin(connection, 15_000);
    connection.socket.destroy();
    await dripping;
    assert.notEqual(closedAfter, null, 'the connection was still open after 15 s');
    assert.match(connection.received(), /^HTTP\/1\.1 408 /);
  });

  test('an answer read slowly is not cut by the request timeout, nor is an idle keep-alive connection', async () => {
    const connection = await open(t.url);
    // The OpenAPI document (megabytes) cannot sit in the socket buffers while the reader pauses, so the
    // server is still sending it well past the 1 s request timeout.
    connection.socket.write('GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(100);
    connection.socket.pause();
    await sleep(2500);
    connection.socket.resume();
    const complete = async () => {
      for (let i = 0; i < 300; i++) {
        const text = connection.received();
        const head = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text.slice(0, head))?.[1];
        if (head > 0 && length !== undefined && Buffer.byteLength(text.slice(head + 4)) >= Number(length)) return text;
        await sleep(50);
      }
      return connection.received();
    };
    const first = await complete();
    assert.match(first, /^HTTP\/1\.1 200 /);
    assert.doesNotThrow(() => JSON.parse(first.slice(first.indexOf('\r\n\r\n') + 4)));
    // Idle for longer than the request timeout, then a second request on the same connection.
    await sleep(1500);
    const before = connection.received().length;
    connection.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
    await sleep(500);
    assert.match(connection.received().slice(before), /^HTTP\/1\.1 200 /);
    connection.socket.destroy();
  });
});

describe('connection limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { server: { ...testConfig().server, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 30_000, maxConnections: 3 } } });
  });
  after(async () => t?.close());

  test('with 3 connections allowed the fourth is closed at once, and a freed slot is usable again', async () => {
    const held = [await open(t.url), await open(t.url), await open(t.url)];
    await sleep(100);
    const fourth = await open(t.url);
    fourth.socket.on('error', () => undefined);
    const closedAfter = await closedWithin(fourth, 5000);
    assert.notEqual(closedAfter, null, 'the fourth connection was kept open');
    assert.equal(fourth.received(), '');
    // The three held connections are served.
    const [first] = held as [RawConnection, ...RawConnection[]];
    first.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(300);
    assert.match(first.received(), /^HTTP\/1\.1 200 /);
    // Closing one frees its place.
    first.socket.destroy();
    await first.closed;
    await sleep(100);
    const fifth = await open(t.url);
    fifth.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(300);
    assert.match(fifth.received(), /^HTTP\/1\.1 200 /);
    for (const c of [...held, fifth]) c.socket.destroy();
  });
});

describe('one client address cannot take every connection', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { server: { ...testConfig().server, maxConnections: 20, maxConnectionsPerAddress: 4, firstRequestTimeoutMs: 1000 } } });
  });
  after(async () => t?.close());

  const health = async (connection: RawConnection): Promise<string> => {
    const before = connection.received().length;
    connection.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    for (const deadline = Date.now() + 5000; connection.received().length === before && Date.now() < deadline; ) await sleep(20);
    return connection.received().slice(before);
  };

  test('an address holding its share of idle connections gets no more; other addresses still get theirs', async () => {
    const hog = await Promise.all(Array.from({ length: 4 }, () => open(t.url, '127.0.0.2')));
    const extra = await Promise.all(Array.from({ length: 6 }, () => open(t.url, '127.0.0.2')));
    for (const c of extra) c.socket.on('error', () => undefined);
    for (const c of extra) assert.notEqual(await closedWithin(c, 3000), null, 'a connection beyond the share was kept open');
    // The cap is 20: without the share the hog's ten would leave ten; every other address still gets its four.
    const others = await Promise.all(['127.0.0.3', '127.0.0.3', '127.0.0.4', '127.0.0.4'].map((from) => open(t.url, from)));
    for (const c of others) assert.match(await health(c), /^HTTP\/1\.1 200 /);
    assert.match(await health(hog[0] as RawConnection), /^HTTP\/1\.1 200 /, "the share's own connections are served");
    // Closing one gives the address its place back.
    (hog[1] as RawConnection).socket.destroy();
    await (hog[1] as RawConnection).closed;
    await sleep(100);
    const again = await open(t.url, '127.0.0.2');
    assert.match(await health(again), /^HTTP\/1\.1 200 /);
    const metrics = await t.request('GET', '/metrics', { headers: {} });
    assert.match(metrics.text, /punchcard_connections_refused_total\{reason="address_share"\} [1-9]/);
    for (const c of [...hog, ...others, again]) c.socket.destroy();
  });

  test('a connection that sends no request is closed after the first-request timeout; one in use is not', async () => {
    const silent = await open(t.url, '127.0.0.5');
    const busy = await open(t.url, '127.0.0.5');
    assert.match(await health(busy), /^HTTP\/1\.1 200 /);
    const closedAfter = await closedWithin(silent, 5000);
    assert.notEqual(closedAfter, null, 'the silent connection was kept open');
    assert.ok((closedAfter as number) >= 900, `closed after ${closedAfter} ms, before the timeout`);
    await sleep(1200);
    assert.equal(busy.socket.destroyed, false, 'a kept-alive connection lives by the keep-alive timeout');
    assert.match(await health(busy), /^HTTP\/1\.1 200 /);
    busy.socket.destroy();
  });
});

describe('behind a trusted proxy, connections count against the forwarded address', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { server: { ...testConfig().server, maxConnectionsPerAddress: 2 }, proxies: { trusted: ['127.0.0.1'], header: 'x-forwarded-for' } } });
  });
  after(async () => t?.close());

  const forwardedHealth = async (connection: RawConnection, client: string): Promise<string> => {
    const before = connection.received().length;
    connection.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client}\r\n\r\n`);
    for (const deadline = Date.now() + 5000; connection.received().length === before && Date.now() < deadline; ) await sleep(20);
    return connection.received().slice(before);
  };

  test("the proxy's own connections are not capped; one client's beyond its share get 429 and are closed", async () => {
    const proxied = await Promise.all(Array.from({ length: 6 }, () => open(t.url, '127.0.0.1')));
    // Six connections from the proxy's address: more than the share, all accepted.
    assert.match(await forwardedHealth(proxied[0] as RawConnection, '203.0.113.7'), /^HTTP\/1\.1 200 /);
    assert.match(await forwardedHealth(proxied[1] as RawConnection, '203.0.113.7'), /^HTTP\/1\.1 200 /);
    const third = await forwardedHealth(proxied[2] as RawConnection, '203.0.113.7');
    assert.match(third, /^HTTP\/1\.1 429 /);
    assert.match(third, /connection: close/i);
    assert.match(third, /"too_many_requests"/);
    assert.notEqual(await closedWithin(proxied[2] as RawConnection, 3000), null);
    for (const [i, client] of [[3, '198.51.100.9'], [4, '198.51.100.9'], [5, '192.0.2.44']] as const) {
      assert.match(await forwardedHealth(proxied[i] as RawConnection, client), /^HTTP\/1\.1 200 /, `another client (${client}) has its own share`);
    }
    // A connection the proxy reuses for another client moves to that client's share.
    assert.match(await forwardedHealth(proxied[0] as RawConnection, '192.0.2.44'), /^HTTP\/1\.1 200 /);
    const reused = await open(t.url, '127.0.0.1');
    assert.match(await forwardedHealth(reused, '203.0.113.7'), /^HTTP\/1\.1 200 /, 'the first client has a place again');
    for (const c of [...proxied, reused]) c.socket.destroy();
  });
});
