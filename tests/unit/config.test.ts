import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, defaultDatabasePoolSize, loadConfig } from '../../src/config.ts';

describe('configuration from the environment', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/punchcard.db');
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.defaultProject.serverKey, null);
    assert.equal(config.managementKey, null);
    assert.equal(config.oauthTokenTtlSeconds, 900);
    assert.deepEqual(config.webhookAllowNetworks, [], 'webhook targets reach only public addresses by default');
  });

  test('LOG_FORMAT: pretty at a terminal and json elsewhere (containers, pipes) unless set', () => {
    assert.equal(loadConfig({}, true).logFormat, 'pretty');
    assert.equal(loadConfig({}, false).logFormat, 'json');
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat, 'json');
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }, false).logFormat, 'pretty');
    assert.equal(loadConfig({ LOG_FORMAT: '' }, false).logFormat, 'json');
  });

  test('networks webhooks may reach: comma-separated CIDRs, IPv4 and IPv6', () => {
    const config = loadConfig({ PUNCHCARD_WEBHOOK_ALLOW_NETWORKS: ' 127.0.0.0/8, 10.0.0.0/8 ,fd00::/8,' });
    assert.deepEqual(config.webhookAllowNetworks, ['127.0.0.0/8', '10.0.0.0/8', 'fd00::/8']);
  });

  test('server limits: request timeout, keep-alive and connections, by default and set', () => {
    assert.deepEqual(loadConfig({}).server, { requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, maxConnections: 1024, maxConnectionsPerAddress: 256, firstRequestTimeoutMs: 10_000 });
    const config = loadConfig({ PUNCHCARD_REQUEST_TIMEOUT_MS: '5000', PUNCHCARD_KEEP_ALIVE_TIMEOUT_MS: '2000', PUNCHCARD_MAX_CONNECTIONS: '64' });
    assert.deepEqual(config.server, { requestTimeoutMs: 5000, keepAliveTimeoutMs: 2000, maxConnections: 64, maxConnectionsPerAddress: 16, firstRequestTimeoutMs: 10_000 });
    const shares = loadConfig({ PUNCHCARD_MAX_CONNECTIONS_PER_ADDRESS: '40', PUNCHCARD_FIRST_REQUEST_TIMEOUT_MS: '3000' });
    assert.equal(shares.server.maxConnectionsPerAddress, 40);
    assert.equal(shares.server.firstRequestTimeoutMs, 3000);
    assert.throws(() => loadConfig({ PUNCHCARD_MAX_CONNECTIONS_PER_ADDRESS: '0' }), /PUNCHCARD_MAX_CONNECTIONS_PER_ADDRESS must be an integer from 1/);
  });

  test('trusted proxies: addresses and networks, and which forwarding header they write', () => {
    assert.deepEqual(loadConfig({}).proxies, { trusted: [], header: 'x-forwarded-for' }, 'no proxy is trusted by default');
    const config = loadConfig({ PUNCHCARD_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8 ,fd00::/8,::1', PUNCHCARD_FORWARDED_HEADER: 'Forwarded' });
    assert.deepEqual(config.proxies, { trusted: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1'], header: 'forwarded' });
    assert.throws(() => loadConfig({ PUNCHCARD_TRUSTED_PROXIES: 'proxy.internal' }), /PUNCHCARD_TRUSTED_PROXIES entry "proxy.internal" is not an address or network/);
    assert.throws(() => loadConfig({ PUNCHCARD_TRUSTED_PROXIES: '10.0.0.1/40' }), /PUNCHCARD_TRUSTED_PROXIES entry/);
    assert.throws(() => loadConfig({ PUNCHCARD_FORWARDED_HEADER: 'x-real-ip' }), /PUNCHCARD_FORWARDED_HEADER must be x-forwarded-for or forwarded/);
  });

  test('cockpit links last 90 days by default', () => {
    assert.equal(loadConfig({}).cockpitLinkDays, 90);
    assert.equal(loadConfig({ PUNCHCARD_COCKPIT_LINK_DAYS: '7' }).cockpitLinkDays, 7);
    assert.throws(() => loadConfig({ PUNCHCARD_COCKPIT_LINK_DAYS: '0' }), /PUNCHCARD_COCKPIT_LINK_DAYS must be an integer from 1 to 3650/);
  });

  test('operations: shutdown timeout, PostgreSQL pool, worker metrics port, by default and set', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.shutdownTimeoutMs, 20_000);
    assert.equal(defaults.databasePoolSize, defaultDatabasePoolSize());
    assert.equal(defaults.workerMetricsPort, null);
    const set = loadConfig({ PUNCHCARD_SHUTDOWN_TIMEOUT_MS: '0', PUNCHCARD_DATABASE_POOL_SIZE: '25', PUNCHCARD_WORKER_METRICS_PORT: '9464' });
    assert.equal(set.shutdownTimeoutMs, 0);
    assert.equal(set.databasePoolSize, 25);
    assert.equal(set.workerMetricsPort, 9464);
    // Two connections per core and one more, at most 10.
    assert.deepEqual([1, 2, 4, 5, 64].map((cores) => defaultDatabasePoolSize(cores)), [3, 5, 9, 10, 10]);
    assert.throws(() => loadConfig({ PUNCHCARD_DATABASE_POOL_SIZE: '0' }), /PUNCHCARD_DATABASE_POOL_SIZE must be an integer from 1 to 1000/);
    assert.throws(() => loadConfig({ PUNCHCARD_WORKER_METRICS_PORT: '70000' }), /PUNCHCARD_WORKER_METRICS_PORT must be a port/);
  });

  test('tracing follows the OpenTelemetry variables and is off without an endpoint', () => {
    assert.equal(loadConfig({}).tracing, null);
    assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%3D,x=1' }).tracing, {
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'punchcard',
      headers: { 'api-key': 'abc=', x: '1' },
    });
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example.com/traces', OTEL_SERVICE_NAME: 'pc-eu' }).tracing?.tracesUrl, 'https://otel.example.com/traces');
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing, null);
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing, null);
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), ConfigError);
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'zipkin' }), /otlp or none/);
  });

  test('fixed keys and origins', () => {
    const config = loadConfig({
      PUNCHCARD_APP_ID: 'my-app-id-1',
      PUNCHCARD_APP_TOKEN: 'my-app-token-1',
      PUNCHCARD_CLIENT_ORIGINS: 'https://a.example.com, http://localhost:3000 ,*',
      DATABASE_URL: 'postgres://u@localhost:5432/db',
      PUBLIC_URL: 'https://api.example.com/',
    });
    assert.deepEqual(config.defaultProject.serverKey, { id: 'my-app-id-1', secret: 'my-app-token-1' });
    assert.deepEqual(config.defaultProject.clientOrigins, ['https://a.example.com', 'http://localhost:3000', '*']);
    assert.equal(config.publicUrl, 'https://api.example.com');
    assert.equal(config.databaseUrl, 'postgres://u@localhost:5432/db');
  });

  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'sqlite:' }, /DATABASE_URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ LOG_FORMAT: 'yaml' }, /^LOG_FORMAT must be one of pretty, json, got "yaml"$/],
    [{ LOG_FORMAT: 'JSON' }, /LOG_FORMAT/],
    [{ PUBLIC_URL: 'ftp://x' }, /PUBLIC_URL/],
    [{ PUNCHCARD_APP_ID: 'only-the-id' }, /PUNCHCARD_APP_TOKEN/],
    [{ PUNCHCARD_APP_ID: 'short', PUNCHCARD_APP_TOKEN: 'long-enough-token' }, /PUNCHCARD_APP_ID/],
    [{ PUNCHCARD_CLIENT_ORIGINS: 'https://a.example.com/path' }, /bare origin/],
    [{ PUNCHCARD_OAUTH_TOKEN_TTL: '0' }, /PUNCHCARD_OAUTH_TOKEN_TTL/],
    [{ PUNCHCARD_WORKER: 'maybe' }, /PUNCHCARD_WORKER/],
    [{ PUNCHCARD_REQUEST_TIMEOUT_MS: '999' }, /PUNCHCARD_REQUEST_TIMEOUT_MS must be an integer from 1000/],
    [{ PUNCHCARD_REQUEST_TIMEOUT_MS: '30s' }, /PUNCHCARD_REQUEST_TIMEOUT_MS/],
    [{ PUNCHCARD_KEEP_ALIVE_TIMEOUT_MS: '0' }, /PUNCHCARD_KEEP_ALIVE_TIMEOUT_MS/],
    [{ PUNCHCARD_MAX_CONNECTIONS: '0' }, /PUNCHCARD_MAX_CONNECTIONS/],
    [{ PUNCHCARD_MAX_CONNECTIONS: '-5' }, /PUNCHCARD_MAX_CONNECTIONS/],
    [{ PUNCHCARD_WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/8,192.168.1.1' }, /PUNCHCARD_WEBHOOK_ALLOW_NETWORKS entry "192.168.1.1"/],
    [{ PUNCHCARD_WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/33' }, /PUNCHCARD_WEBHOOK_ALLOW_NETWORKS/],
    [{ PUNCHCARD_WEBHOOK_ALLOW_NETWORKS: 'localhost/8' }, /PUNCHCARD_WEBHOOK_ALLOW_NETWORKS/],
  ];
  for (const [env, message] of bad) {
    test(`refuses ${JSON.stringify(env)} with a one-line reason`, () => {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message) && !error.message.includes('\n'));
    });
  }
});
