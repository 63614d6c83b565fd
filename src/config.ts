import { availableParallelism } from 'node:os';
import { parseNetwork } from './lib/address-policy.ts';
import { isTrustedProxyEntry, type ForwardedHeader } from './lib/forwarding.ts';
import { LOG_FORMATS, type LogFormat } from './lib/logging.ts';
import { passwordProblem } from './lib/passwords.ts';

// The one place that reads process.env. Every value is validated here so a bad setting stops the
// process at start with a one-line reason instead of failing later inside a request.

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface KeyPair {
  id: string;
  secret: string;
}

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Base URL the outside world uses to reach this server (links in responses, export downloads). */
  publicUrl: string;
  logLevel: LogLevel;
  /** LOG_FORMAT: readable lines for a terminal or JSON lines for a collector (src/lib/logging.ts). */
  logFormat: LogFormat;
  /** Fixed credentials for the default project and the organisation; absent ones are generated once. */
  defaultProject: {
    serverKey: KeyPair | null;
    clientKey: KeyPair | null;
    clientOrigins: string[] | null;
  };
  managementKey: KeyPair | null;
  oauthTokenTtlSeconds: number;
  /** Run the background worker inside `start`. */
  runWorker: boolean;
  /**
   * Networks (CIDRs) that webhook targets may reach although they are not public: loopback, private,
   * link-local and other special ranges are refused unless listed here. Default none.
   */
  webhookAllowNetworks: string[];
  /** Connection limits of the HTTP server (src/http/server-limits.ts). */
  server: ServerLimits;
  /** Most PostgreSQL connections one process opens (its pool); unused on SQLite. */
  databasePoolSize: number;
  /** How long a stopping process waits for requests in flight and the job in hand (src/lifecycle.ts). */
  shutdownTimeoutMs: number;
  /** Port of a separate `punchcard worker`'s /metrics; null = the worker serves nothing. */
  workerMetricsPort: number | null;
  /** OpenTelemetry tracing (src/lib/tracing.ts); null = off, and no tracing code is loaded. */
  tracing: TracingConfig | null;
  /** Console sign-in (src/services/users/): session lifetime and the first admin from the environment. */
  console: ConsoleConfig;
  /** Reverse proxies whose forwarding headers are believed (src/lib/forwarding.ts); none by default. */
  proxies: { trusted: string[]; header: ForwardedHeader };
  /** How long a customer's cockpit link opens the cockpit after it was handed out, in days (src/services/cockpit/links.ts). */
  cockpitLinkDays: number;
}

export interface ConsoleConfig {
  /** How long a console session lasts after sign-in. */
  sessionTtlSeconds: number;
  /** PUNCHCARD_ADMIN_EMAIL and PUNCHCARD_ADMIN_PASSWORD: the first admin, created at start while no user exists. */
  firstAdmin: { email: string; password: string } | null;
}

export interface TracingConfig {
  /** OTLP/HTTP traces endpoint, e.g. http://collector:4318/v1/traces. */
  tracesUrl: string;
  serviceName: string;
  /** Extra headers for the collector (OTEL_EXPORTER_OTLP_HEADERS), e.g. an API key. */
  headers: Record<string, string>;
}

export interface ServerLimits {
  /** Longest a client may take to send one whole request, headers and body; then 408 and the connection closes. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** Most connections open at once; a connection beyond them is closed as it arrives. */
  maxConnections: number;
  /** Most of those one client address may hold (behind trusted proxies, the forwarded address). */
  maxConnectionsPerAddress: number;
  /** How long a new connection may stay silent before its first request is in; then it is closed. */
  firstRequestTimeoutMs: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function readPort(env: NodeJS.ProcessEnv): number {
  const raw = env.PORT;
  if (raw === undefined || raw === '') return 8080;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  const port = Number(raw);
  if (port > 65535) throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  return port;
}

function readDatabaseUrl(env: NodeJS.ProcessEnv): string {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return 'sqlite:./data/punchcard.db';
  if (raw.startsWith('sqlite:')) {
    if (raw.length === 'sqlite:'.length) throw new ConfigError('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/punchcard.db');
    return raw;
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    return raw;
  }
  throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
}

function readUrl(name: string, raw: string | undefined, fallback: string): string {
  if (raw === undefined || raw === '') return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function readLogLevel(env: NodeJS.ProcessEnv): LogLevel {
  const raw = env.LOG_LEVEL;
  if (raw === undefined || raw === '') return 'info';
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

/** LOG_FORMAT; unset: pretty when standard output is a terminal (a person reads it), json otherwise. */
function readLogFormat(env: NodeJS.ProcessEnv, stdoutIsTerminal: boolean): LogFormat {
  const raw = env.LOG_FORMAT;
  if (raw === undefined || raw === '') return stdoutIsTerminal ? 'pretty' : 'json';
  const format = LOG_FORMATS.find((f) => f === raw);
  if (!format) throw new ConfigError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${raw}"`);
  return format;
}

// Key ids and secrets end up in HTTP headers, so keep them to a safe, unambiguous alphabet.
const KEY_PART = /^[A-Za-z0-9_\-.]{8,128}$/;

function readKeyPair(env: NodeJS.ProcessEnv, idName: string, secretName: string): KeyPair | null {
  const id = env[idName];
  const secret = env[secretName];
  const hasId = id !== undefined && id !== '';
  const hasSecret = secret !== undefined && secret !== '';
  if (!hasId && !hasSecret) return null;
  if (!hasId || !hasSecret) throw new ConfigError(`${idName} and ${secretName} must be set together`);
  if (!KEY_PART.test(id)) throw new ConfigError(`${idName} must be 8-128 characters of letters, digits, "_", "-" or "."`);
  if (!KEY_PART.test(secret)) throw new ConfigError(`${secretName} must be 8-128 characters of letters, digits, "_", "-" or "."`);
  return { id, secret };
}

function readOrigins(env: NodeJS.ProcessEnv): string[] | null {
  const raw = env.PUNCHCARD_CLIENT_ORIGINS;
  if (raw === undefined || raw.trim() === '') return null;
  const origins = raw.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(`PUNCHCARD_CLIENT_ORIGINS entry "${origin}" is not an origin like https://shop.example.com`);
    }
    if (parsed.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(`PUNCHCARD_CLIENT_ORIGINS entry "${origin}" must be a bare origin (scheme, host, port), not a URL with a path`);
    }
  }
  return origins.map((o) => (o === '*' ? o : new URL(o).origin));
}

function readPositiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function readIntInRange(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

function readBoolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function readNetworks(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const networks = raw.split(',').map((n) => n.trim()).filter((n) => n !== '');
  for (const network of networks) {
    if (!parseNetwork(network)) {
      throw new ConfigError(`${name} entry "${network}" is not a network like 10.0.0.0/8 or fd00::/8 (address/prefix length, IPv4 in dotted decimal)`);
    }
  }
  return networks;
}

function readTrustedProxies(env: NodeJS.ProcessEnv): string[] {
  const raw = env.PUNCHCARD_TRUSTED_PROXIES;
  if (raw === undefined || raw.trim() === '') return [];
  const entries = raw.split(',').map((n) => n.trim()).filter((n) => n !== '');
  for (const entry of entries) {
    if (!isTrustedProxyEntry(entry)) {
      throw new ConfigError(`PUNCHCARD_TRUSTED_PROXIES entry "${entry}" is not an address or network like 10.0.0.5, 10.0.0.0/8 or fd00::/8`);
    }
  }
  return entries;
}

function readForwardedHeader(env: NodeJS.ProcessEnv): ForwardedHeader {
  const raw = (env.PUNCHCARD_FORWARDED_HEADER ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'x-forwarded-for') return 'x-forwarded-for';
  if (raw === 'forwarded') return 'forwarded';
  throw new ConfigError(`PUNCHCARD_FORWARDED_HEADER must be x-forwarded-for or forwarded, got "${env.PUNCHCARD_FORWARDED_HEADER}"`);
}

function readOptionalPort(env: NodeJS.ProcessEnv, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) throw new ConfigError(`${name} must be a port from 1 to 65535, got "${raw}"`);
  return Number(raw);
}

// Tracing follows the OpenTelemetry SDK's own variables, so a collector set up for other services works
// unchanged; it is on when an OTLP endpoint is given and not switched off.
function readTracing(env: NodeJS.ProcessEnv): TracingConfig | null {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  let tracesUrl: string;
  if (traces !== undefined && traces !== '') tracesUrl = readUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces, '');
  else if (base !== undefined && base !== '') tracesUrl = `${readUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base, '')}/v1/traces`;
  else return null;
  if (env.OTEL_TRACES_EXPORTER !== undefined && env.OTEL_TRACES_EXPORTER !== '' && env.OTEL_TRACES_EXPORTER !== 'otlp') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none, got "${env.OTEL_TRACES_EXPORTER}"`);
  }
  const headers: Record<string, string> = {};
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at < 1) throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS must be comma-separated name=value pairs');
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  const serviceName = env.OTEL_SERVICE_NAME === undefined || env.OTEL_SERVICE_NAME === '' ? 'punchcard' : env.OTEL_SERVICE_NAME;
  return { tracesUrl, serviceName, headers };
}

function readFirstAdmin(env: NodeJS.ProcessEnv): ConsoleConfig['firstAdmin'] {
  const email = env.PUNCHCARD_ADMIN_EMAIL ?? '';
  const password = env.PUNCHCARD_ADMIN_PASSWORD ?? '';
  if (email === '' && password === '') return null;
  if (email === '' || password === '') throw new ConfigError('PUNCHCARD_ADMIN_EMAIL and PUNCHCARD_ADMIN_PASSWORD must be set together');
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new ConfigError(`PUNCHCARD_ADMIN_EMAIL must be an e-mail address, got "${email}"`);
  const problem = passwordProblem(password);
  if (problem) throw new ConfigError(`PUNCHCARD_ADMIN_PASSWORD ${problem}`);
  return { email, password };
}

/**
 * The PostgreSQL pool of one process when PUNCHCARD_DATABASE_POOL_SIZE is not set: two connections per
 * core of this machine and one more, at most 10. A transaction's time is PostgreSQL's work and this
 * process's JavaScript between its statements, on the same few cores; connections beyond about twice
 * the cores only queue for them, and each transaction then costs more CPU on both sides (context
 * switches, lock and WAL contention). Measured on the 2-core development machine (quick bench, the same
 * hour): a pool of 10 served 200 redemptions/s at 3,394 µs of server and 3,336 µs of PostgreSQL CPU per
 * redemption; a pool of 5, 302/s at 2,266 and 2,537 µs. Machines of 5 cores or more keep 10.
 */
export function defaultDatabasePoolSize(cores: number = availableParallelism()): number {
  return Math.min(10, 2 * cores + 1);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, stdoutIsTerminal: boolean = process.stdout.isTTY === true): Config {
  const port = readPort(env);
  const host = env.HOST === undefined || env.HOST === '' ? '127.0.0.1' : env.HOST;
  const serverKey = readKeyPair(env, 'PUNCHCARD_APP_ID', 'PUNCHCARD_APP_TOKEN');
  const clientKey = readKeyPair(env, 'PUNCHCARD_CLIENT_APP_ID', 'PUNCHCARD_CLIENT_TOKEN');
  const managementKey = readKeyPair(env, 'PUNCHCARD_MANAGEMENT_ID', 'PUNCHCARD_MANAGEMENT_TOKEN');
  if (serverKey && clientKey && serverKey.id === clientKey.id) {
    throw new ConfigError('PUNCHCARD_APP_ID and PUNCHCARD_CLIENT_APP_ID must differ');
  }
  const maxConnections = readIntInRange(env, 'PUNCHCARD_MAX_CONNECTIONS', 1024, 1, 1_000_000);
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    port,
    host,
    databaseUrl: readDatabaseUrl(env),
    publicUrl: readUrl('PUBLIC_URL', env.PUBLIC_URL, `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${port}`),
    logLevel: readLogLevel(env),
    logFormat: readLogFormat(env, stdoutIsTerminal),
    defaultProject: { serverKey, clientKey, clientOrigins: readOrigins(env) },
    managementKey,
    oauthTokenTtlSeconds: readPositiveInt(env, 'PUNCHCARD_OAUTH_TOKEN_TTL', 900),
    runWorker: readBoolean(env, 'PUNCHCARD_WORKER', true),
    webhookAllowNetworks: readNetworks(env, 'PUNCHCARD_WEBHOOK_ALLOW_NETWORKS'),
    server: {
      // A 10 MiB body (the largest accepted) arrives in 30 s at about 2.8 Mbit/s.
      requestTimeoutMs: readIntInRange(env, 'PUNCHCARD_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
      // Longer than the 60 s idle timeout of common load balancers, so they never reuse a connection being closed.
      keepAliveTimeoutMs: readIntInRange(env, 'PUNCHCARD_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000),
      maxConnections,
      // A quarter of the cap: a shop's own backend with a generous pool fits, one client cannot starve the rest.
      maxConnectionsPerAddress: readIntInRange(env, 'PUNCHCARD_MAX_CONNECTIONS_PER_ADDRESS', Math.max(1, Math.floor(maxConnections / 4)), 1, 1_000_000),
      // Browsers open a spare connection ahead of need and leave it idle about 10 s; nothing else waits that long.
      firstRequestTimeoutMs: readIntInRange(env, 'PUNCHCARD_FIRST_REQUEST_TIMEOUT_MS', 10_000, 1_000, 3_600_000),
    },
    databasePoolSize: readIntInRange(env, 'PUNCHCARD_DATABASE_POOL_SIZE', defaultDatabasePoolSize(), 1, 1000),
    // Within the 30 s most orchestrators wait between SIGTERM and SIGKILL.
    shutdownTimeoutMs: readIntInRange(env, 'PUNCHCARD_SHUTDOWN_TIMEOUT_MS', 20_000, 0, 3_600_000),
    workerMetricsPort: readOptionalPort(env, 'PUNCHCARD_WORKER_METRICS_PORT'),
    tracing: readTracing(env),
    console: {
      sessionTtlSeconds: readIntInRange(env, 'PUNCHCARD_SESSION_TTL_HOURS', 12, 1, 720) * 3600,
      firstAdmin: readFirstAdmin(env),
    },
    proxies: { trusted: readTrustedProxies(env), header: readForwardedHeader(env) },
    cockpitLinkDays: readIntInRange(env, 'PUNCHCARD_COCKPIT_LINK_DAYS', 90, 1, 3650),
  };
}
