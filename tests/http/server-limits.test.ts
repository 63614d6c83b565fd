import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, TEST_KEYS, type TestApp } from '../helpers/app.ts';

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

function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: hostname, port: Number(port) });
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
    t = await startTestApp({ config: { server: { requestTimeoutMs: 1000, keepAliveTimeoutMs: 10_000, maxConnections: 1024 } } });
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
    t = await startTestApp({ config: { server: { requestTimeoutMs: 30_000, keepAliveTimeoutMs: 30_000, maxConnections: 3 } } });
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
