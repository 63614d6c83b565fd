import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DestinationStream } from 'pino';
import qs from 'qs';
import { sql } from 'kysely';
import type { Config } from './config.ts';
import type { Clock } from './lib/clock.ts';
import { newRequestId, type Ids } from './lib/ids.ts';
import { stringifyAnswer } from './lib/json-text.ts';
import { loggerOptions } from './lib/logging.ts';
import type { Tracing } from './lib/tracing-api.ts';
import { Authenticator } from './services/auth/authenticator.ts';
import type { Deps } from './services/context.ts';
import { durable, type Db, type Dialect } from './store/db.ts';
import { installAuth } from './http/plugins/auth.ts';
import { BODY_LIMIT_BYTES, installBodyParsers } from './http/plugins/body-parsers.ts';
import { installClientCors } from './http/plugins/cors.ts';
import { installCompression } from './http/plugins/compression.ts';
import { installErrorHandling, sendError } from './http/plugins/errors.ts';
import { gracefulCloseOptions, installGracefulClose } from './http/graceful-close.ts';
import { domainError } from './domain/errors.ts';
import { installIdempotency } from './http/plugins/idempotency.ts';
import { installMetrics } from './http/plugins/metrics.ts';
import { installOpenApi } from './http/plugins/openapi.ts';
import { installRateLimits } from './http/plugins/rate-limit.ts';
import { installRequestLeniency } from './http/plugins/request-leniency.ts';
import { installTurns } from './http/plugins/turns.ts';
import { installTextGuard, installValidators } from './http/plugins/validation.ts';
import type { TypedApp } from './http/route-context.ts';
import { registerRoutes } from './http/routes/index.ts';
import { limitConnections, serverLimitOptions } from './http/server-limits.ts';
import { installClientAddress } from './http/client-address.ts';
import { AccessLog } from './http/access-log.ts';
import { ProxyTrust } from './lib/forwarding.ts';

export interface AppOptions {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  ids: Ids;
  config: Config;
  pepper: string;
  /** Pino logger settings (secrets redacted: src/lib/logging.ts); false for silence (tests). `stream` receives the lines (tests). */
  logger?: false | { level: string; stream?: DestinationStream };
  /** Process-level metrics (event loop, memory) at /metrics; off in tests that build many apps. */
  processMetrics?: boolean;
  /** OpenTelemetry tracing when configured (src/lib/tracing.ts): a span per request. */
  tracing?: Tracing | null;
}

export async function buildApp(options: AppOptions): Promise<TypedApp> {
  const app = Fastify({
    logger: options.logger ? { ...loggerOptions(options.logger.level), ...(options.logger.stream ? { stream: options.logger.stream } : {}) } : false,
    // One line per request (./http/access-log.ts).
    logController: new AccessLog(),
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    ...gracefulCloseOptions,
    ...serverLimitOptions(options.config.server),
    routerOptions: {
      ignoreTrailingSlash: true,
      // Bracketed, indexed query strings as the SDK sends them (`created_at[before]=…`, `x[0]=…`).
      querystringParser: (text: string) => qs.parse(text, { depth: 6, arrayLimit: 100, parameterLimit: 1000 }),
    },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const deps: Deps = {
    db: options.db,
    dialect: options.dialect,
    clock: options.clock,
    ids: options.ids,
    config: options.config,
    pepper: options.pepper,
    log: app.log,
  };
  // First, so every later hook and the handler run inside the request's span.
  options.tracing?.installRequestSpans(app);
  const proxies = new ProxyTrust(options.config.proxies.trusted, options.config.proxies.header);
  installClientAddress(app, proxies);
  limitConnections(app, options.config.server, proxies);

  // Response schemas document the API; they must never drop members, so responses are plain JSON (stored
  // JSON shown unchanged is written as it is stored: src/lib/json-text.ts).
  app.setSerializerCompiler(() => stringifyAnswer);
  if (options.dialect === 'sqlite') installTurns(app);
  installValidators(app);
  installTextGuard(app);
  installErrorHandling(app);
  installBodyParsers(app);
  installRequestLeniency(app);

  const authenticator = new Authenticator(deps);
  const sessionPermissions = installAuth(app, authenticator);
  installRateLimits(app, authenticator, deps.clock);
  installIdempotency(app, deps.db, deps.clock);
  // SQLite commits do not wait for the disk (group commit, src/store/sqlite-group-commit.ts and
  // sqlite-durability.ts): an answer leaves only once every commit before it, and the open group, is durable. Registered after the idempotency hook, whose
  // request transactions commit while the answer is being sent.
  if (options.dialect === 'sqlite') {
    app.addHook('onSend', async (_request, _reply, payload) => {
      await durable(deps.db);
      return payload;
    });
  }
  installClientCors(app);
  installGracefulClose(app);
  // Before every route: the plugin adds its hook to each route as it is declared.
  await installCompression(app);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    return payload;
  });

  await installOpenApi(app);
  installMetrics(app, { processMetrics: options.processMetrics ?? false, db: deps.db, clock: deps.clock });

  app.get('/health', { schema: { hide: true }, config: { auth: 'public' } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      return { status: 'ready' };
    } catch {
      return sendError(reply, domainError('service_unavailable', { details: 'The database does not answer' }));
    }
  });

  await registerRoutes(app, { deps, authenticator, sessionPermissions });
  await app.ready();
  return app;
}

export type { Config };
