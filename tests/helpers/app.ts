import type { AddressInfo } from 'node:net';
import sdk from '@voucherify/sdk';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/app.ts';
import type { TypedApp } from '../../src/http/route-context.ts';
import { defaultDatabasePoolSize, type Config } from '../../src/config.ts';
import { createWorker } from '../../src/jobs/registry.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { sortableIds } from '../../src/lib/ids.ts';
import type { Deps } from '../../src/services/context.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { CLIENT_ACTIONS_ON } from './client-actions.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

const { VoucherifyServerSide, VoucherifyClientSide } = sdk;

/** A manual clock that also moves forward 1 ms on every read, so events get distinct, ordered times. */
export class TestClock extends ManualClock {
  override now(): Date {
    const at = super.now();
    this.advance(1);
    return at;
  }
}

export const TEST_ORIGIN = 'https://shop.example.com';

export const TEST_KEYS = {
  server: { id: 'test-app-id-0001', secret: 'test-app-secret-0001' },
  client: { id: 'test-client-id-0001', secret: 'test-client-secret-0001' },
  management: { id: 'test-mgmt-id-0001', secret: 'test-mgmt-secret-0001' },
};

export interface KeyPairOut {
  app_id: string;
  app_token: string;
}

export interface TestApp {
  url: string;
  app: TypedApp;
  db: TestDatabase;
  deps: Deps;
  clock: TestClock;
  worker: Worker;
  projectId: string;
  /** The official SDK, server side, with the default project's keys (or the given ones). */
  sdk(keys?: KeyPairOut): ReturnType<typeof VoucherifyServerSide>;
  clientSdk(keys?: KeyPairOut, origin?: string): ReturnType<typeof VoucherifyClientSide>;
  /** fetch against the server; JSON bodies are encoded, the default server keys are sent unless `headers` replaces them. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  serverHeaders(keys?: KeyPairOut): Record<string, string>;
  clientHeaders(keys?: KeyPairOut, origin?: string): Record<string, string>;
  managementHeaders(): Record<string, string>;
  /**
   * Turns on the default project's client-side actions through the management API, as an operator does:
   * a new project (the default one too) allows none (README "Client-side API").
   */
  allowClientActions(): Promise<void>;
  close(): Promise<void>;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: 'sqlite::memory:',
    publicUrl: 'http://127.0.0.1:0',
    logLevel: 'silent',
    logFormat: 'json',
    defaultProject: { serverKey: TEST_KEYS.server, clientKey: TEST_KEYS.client, clientOrigins: [TEST_ORIGIN] },
    managementKey: TEST_KEYS.management,
    oauthTokenTtlSeconds: 900,
    runWorker: false,
    webhookAllowNetworks: [],
    server: { requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, maxConnections: 1024, maxConnectionsPerAddress: 256, firstRequestTimeoutMs: 10_000 },
    databasePoolSize: defaultDatabasePoolSize(),
    shutdownTimeoutMs: 20_000,
    workerMetricsPort: null,
    tracing: null,
    console: { sessionTtlSeconds: 12 * 3600, firstAdmin: null },
    proxies: { trusted: [], header: 'x-forwarded-for' },
    cockpitLinkDays: 90,
    ...overrides,
  };
}

export async function startTestApp(
  options: { config?: Partial<Config>; clockStart?: string; /** Where the app's log lines go (silent otherwise). */ log?: DestinationStream } = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  const clock = new TestClock(options.clockStart ?? '2026-03-02T10:00:00.000Z');
  const config = testConfig({ ...options.config, databaseUrl: db.url });
  const boot = await bootstrap({ db: db.db, dialect: db.dialect, clock, ids: sortableIds, config });
  const deps: Deps = { db: db.db, dialect: db.dialect, clock, ids: sortableIds, config, pepper: boot.pepper };
  const app = await buildApp({ ...deps, logger: options.log ? { level: 'info', stream: options.log } : false });
  // The worker's reports of rows it left out go where the server's do.
  deps.log = app.log;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  deps.config.publicUrl = url;
  const worker = createWorker(deps, app.log);

  const serverHeaders = (keys?: KeyPairOut) => ({
    'X-App-Id': keys?.app_id ?? TEST_KEYS.server.id,
    'X-App-Token': keys?.app_token ?? TEST_KEYS.server.secret,
  });
  const clientHeaders = (keys?: KeyPairOut, origin = TEST_ORIGIN) => ({
    'X-Client-Application-Id': keys?.app_id ?? TEST_KEYS.client.id,
    'X-Client-Token': keys?.app_token ?? TEST_KEYS.client.secret,
    origin,
  });
  const managementHeaders = () => ({
    'X-Management-Id': TEST_KEYS.management.id,
    'X-Management-Token': TEST_KEYS.management.secret,
  });

  const request: TestApp['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? serverHeaders()) };
    let body: string | undefined = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    }
    const response = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };

  return {
    url,
    app,
    db,
    deps,
    clock,
    worker,
    projectId: boot.defaultProjectId,
    sdk: (keys) =>
      VoucherifyServerSide({
        applicationId: keys?.app_id ?? TEST_KEYS.server.id,
        secretKey: keys?.app_token ?? TEST_KEYS.server.secret,
        apiUrl: url,
      }),
    clientSdk: (keys, origin = TEST_ORIGIN) =>
      VoucherifyClientSide({
        clientApplicationId: keys?.app_id ?? TEST_KEYS.client.id,
        clientSecretKey: keys?.app_token ?? TEST_KEYS.client.secret,
        apiUrl: url,
        origin,
      }),
    serverHeaders,
    clientHeaders,
    managementHeaders,
    request,
    async allowClientActions() {
      const answer = await request('PUT', `/management/v1/projects/${boot.defaultProjectId}`, { headers: managementHeaders(), json: CLIENT_ACTIONS_ON });
      if (answer.status !== 200) throw new Error(`enabling client-side actions: ${answer.status} ${answer.text}`);
    },
    async close() {
      await worker.stop();
      await app.close();
      await db.close();
    },
  };
}
