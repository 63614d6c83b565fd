// Preloaded (`node --import`) into the benchmark's server processes only, never into a production server:
// bench/run.ts starts `punchcard start` with `--import bench/server-probe.mjs` and BENCH_PROBE_PORT. It
// counts, in the server's main thread,
//   - SQL statements executed on SQLite (better-sqlite3 Statement run/get/all/iterate, Database exec),
//   - round trips to PostgreSQL (pg Client.prototype.query: a call is one request and its answer, unless
//     the connection still waits for an earlier answer: a statement sent ahead (src/store/pipelining.ts)
//     and the one written behind it share one round trip),
//   - HTTP requests started and answered (the API server's 'request' events, then `end()` of the response),
// and answers on 127.0.0.1:BENCH_PROBE_PORT (a port of its own, so probing adds nothing to the API):
//   GET /snapshot        {cpu: process.cpuUsage() in µs (every thread of the process), statements,
//                         requests: {started, finished}}
//   POST /capture/start  record the text and parameters of every write statement from now on
//   GET /capture         the recorded writes (bench/floor.ts replays them)
//   POST /profile/start  start V8's CPU profiler in the main thread (bench --profile: measured windows only)
//   POST /profile/stop   stop it and answer the .cpuprofile
// Plain JavaScript: it runs before bin/punchcard.js loads the compiled sources. Worker threads
// (the SQLite checkpointer) load it too; only the main thread counts and listens.

import http from 'node:http';
import inspector from 'node:inspector';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const port = Number(process.env.BENCH_PROBE_PORT ?? 0);

if (isMainThread && port > 0) {
  // The app's own copies of the drivers: resolved from the project root, as src/ resolves them.
  const require = createRequire(join(process.cwd(), 'package.json'));
  let statements = 0;
  let started = 0;
  let finished = 0;
  /** @type {Array<{sql: string, params: unknown}> | null} */
  let capture = null;
  const WRITE = /^\s*(insert|update|delete|with\b[\s\S]*\b(insert|update|delete)\b)/i;

  const record = (sql, params) => {
    if (capture !== null && typeof sql === 'string' && WRITE.test(sql) && capture.length < 1000) capture.push({ sql, params });
  };

  try {
    const Database = require('better-sqlite3');
    const probe = new Database(':memory:');
    const Statement = Object.getPrototypeOf(probe.prepare('select 1'));
    probe.close();
    for (const method of ['run', 'get', 'all', 'iterate']) {
      const original = Statement[method];
      Statement[method] = function counted(...args) {
        statements++;
        if (capture !== null) record(this.source, args.length === 1 ? args[0] : args);
        return original.apply(this, args);
      };
    }
    const originalExec = Database.prototype.exec;
    Database.prototype.exec = function countedExec(sql) {
      statements++;
      return originalExec.call(this, sql);
    };
  } catch {
    // better-sqlite3 not installed: a PostgreSQL-only machine
  }

  try {
    const pg = require('pg');
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function counted(config, values, callback) {
      if (!this._activeQuery && this._sentQueryQueue.length === 0) statements++;
      if (capture !== null) {
        if (typeof config === 'string') record(config, Array.isArray(values) ? values : []);
        else if (config && typeof config.text === 'string') record(config.text, config.values ?? []);
      }
      return original.call(this, config, values, callback);
    };
  } catch {
    // pg not installed
  }

  let probeServer = null;
  const originalEmit = http.Server.prototype.emit;
  http.Server.prototype.emit = function emit(event, ...args) {
    if (event === 'request' && this !== probeServer) {
      started++;
      // Answered when the handler ends the response, also when the client has gone meanwhile (the load
      // generator closes its connections at the end of a window; the work of those requests still
      // belongs to the window).
      // A response closed before it was ended (a client that went away; the server drops a request
      // still queued for its turn) counts when it closes.
      const res = args[1];
      const end = res.end;
      let counted = false;
      const done = () => {
        if (!counted) finished++;
        counted = true;
      };
      res.end = function countedEnd(...endArgs) {
        res.end = end;
        done();
        return end.apply(this, endArgs);
      };
      res.once('close', done);
    }
    return originalEmit.call(this, event, ...args);
  };

  // Buffers and bigints survive the trip to the bench process.
  const encode = (value) => JSON.stringify(value, (_key, v) => {
    if (typeof v === 'bigint') return { $bigint: v.toString() };
    if (v && v.type === 'Buffer' && Array.isArray(v.data)) return { $base64: Buffer.from(v.data).toString('base64') };
    return v;
  });

  /** @type {inspector.Session | null} */
  let profiler = null;

  probeServer = http.createServer((req, res) => {
    let body;
    if (req.method === 'POST' && req.url === '/profile/start') {
      profiler = new inspector.Session();
      profiler.connect();
      profiler.post('Profiler.enable', () => profiler?.post('Profiler.start', () => res.end('{}')));
      return;
    }
    if (req.method === 'POST' && req.url === '/profile/stop') {
      const session = profiler;
      profiler = null;
      if (!session) {
        res.statusCode = 409;
        res.end('{}');
        return;
      }
      session.post('Profiler.stop', (error, result) => {
        session.disconnect();
        res.statusCode = error ? 500 : 200;
        res.setHeader('content-type', 'application/json');
        res.end(error ? '{}' : JSON.stringify(result.profile));
      });
      return;
    }
    if (req.method === 'GET' && req.url === '/snapshot') {
      body = JSON.stringify({ cpu: process.cpuUsage(), statements, requests: { started, finished } });
    } else if (req.method === 'POST' && req.url === '/capture/start') {
      capture = [];
      body = '{}';
    } else if (req.method === 'GET' && req.url === '/capture') {
      body = encode(capture ?? []);
      capture = null;
    } else {
      res.statusCode = 404;
      body = '{}';
    }
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  probeServer.listen(port, '127.0.0.1');
  probeServer.unref();
}
