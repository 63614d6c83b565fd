import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installTurns, takesTurn, Turns } from '../../src/http/plugins/turns.ts';

// Synchronous request work (what a handler on SQLite does) stands in for a redemption: a busy loop.
const WORK_MS = 3;
function busy(): void {
  const until = performance.now() + WORK_MS;
  while (performance.now() < until);
}

async function serve(withTurns: boolean): Promise<{ app: FastifyInstance; port: number; answered: () => number }> {
  const app = Fastify();
  if (withTurns) installTurns(app);
  let answered = 0;
  app.post('/v1/work', async () => {
    busy();
    answered++;
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, answered: () => answered };
}

function post(port: number, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: '/v1/work', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))));
    });
    request.on('error', reject);
    request.end('{}');
  });
}

/**
 * Keeps the server busy with `busyClients` keep-alive connections, then opens `newcomers` new connections
 * at once and returns, for each newcomer, how many other requests the server answered between sending
 * its first request and answering it.
 */
async function answeredAheadOfNewcomers(withTurns: boolean, busyClients: number, newcomers: number): Promise<number[]> {
  const server = await serve(withTurns);
  let running = true;
  const loops = Array.from({ length: busyClients }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (running) await post(server.port, agent);
    agent.destroy();
  });
  try {
    while (server.answered() < busyClients * 5) await new Promise((r) => setTimeout(r, 5));
    return await Promise.all(
      Array.from({ length: newcomers }, async () => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const sentAt = server.answered();
        await post(server.port, agent);
        agent.destroy();
        return server.answered() - sentAt;
      }),
    );
  } finally {
    running = false;
    await Promise.all(loops);
    await server.app.close();
  }
}

describe('turns: one request of work per pass of the event loop', () => {
  test('grants turns in arrival order', async () => {
    const turns = new Turns();
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => turns.next().then(() => order.push(n))));
    assert.deepEqual(order, [1, 2, 3, 4]);
  });

  test('a waiting turn lets callbacks queued for the next pass run first', async () => {
    const turns = new Turns();
    const seen: string[] = [];
    await Promise.all([
      turns.next().then(() => {
        seen.push('turn 1');
        // Queued while turn 1 runs: lands in the next pass, which must come before turn 2.
        setImmediate(() => seen.push('next pass'));
      }),
      turns.next().then(() => seen.push('turn 2')),
      turns.next().then(() => seen.push('turn 3')),
    ]);
    assert.deepEqual(seen.slice(0, 2), ['turn 1', 'turn 2']);
    assert.ok(seen.indexOf('next pass') < seen.indexOf('turn 3'), seen.join(', '));
  });

  describe('over HTTP, while busy connections keep the server working', () => {
    let ahead: number[] = [];
    before(async () => {
      ahead = await answeredAheadOfNewcomers(true, 8, 16);
    });

    test('a new connection is answered after about one request per connection ahead of it', () => {
      // Without turns Node accepts one connection per pass while each pass answers every busy
      // connection, so the 16th newcomer waits 16 passes of 8+ answers (≥ 128). With turns a pass
      // answers one request, so no newcomer waits behind more than the 24 connections there are.
      assert.ok(Math.max(...ahead) <= 48, `answers ahead of the newcomers: ${ahead.join(', ')}`);
    });
  });

  test('without turns the same load starves new connections (the measured problem)', async () => {
    const ahead = await answeredAheadOfNewcomers(false, 8, 16);
    assert.ok(Math.max(...ahead) > 56, `answers ahead of the newcomers: ${ahead.join(', ')}`);
  });

  test('API requests take turns; health, readiness and metrics probes do not', () => {
    for (const url of ['/v1/redemptions', '/v1/customers/cust_1?x=1', '/client/v1/validations', '/management/v1/projects']) assert.equal(takesTurn(url), true, url);
    for (const url of ['/health', '/ready', '/metrics', '/openapi.json']) assert.equal(takesTurn(url), false, url);
  });
});
