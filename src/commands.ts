import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';
import type { buildApp } from './app.ts';
import type { Config, KeyPair } from './config.ts';
import { closeGracefully } from './http/graceful-close.ts';
import { refreshQueueMetrics } from './jobs/queue-metrics.ts';
import { createWorker } from './jobs/registry.ts';
import { stopOnSignals } from './lifecycle.ts';
import { logDestination, loggerOptions } from './lib/logging.ts';
import { collectProcessMetrics, registry } from './lib/metrics.ts';
import { startTracing } from './lib/tracing.ts';
import { systemClock } from './lib/clock.ts';
import { sortableIds } from './lib/ids.ts';
import { bootstrap, loadPepper, rotateGeneratedKeys } from './services/projects/bootstrap.ts';
import { describeFirstAdmin, prepareFirstAdmin } from './services/users/first-admin.ts';
import { listAccounts, operatorLink } from './services/users/operator.ts';
import { durable, openDatabase, type DbHandle } from './store/db.ts';
import { describeConnectionError } from './store/connection-errors.ts';
import { findDefaultProject, listProjects, toProjectObject } from './store/projects.ts';
import { listLiveApiKeys, listLiveManagementKeys } from './store/keys.ts';
import { migrateToLatestExclusively } from './store/migrate.ts';

// What the commands of `punchcard` do (src/main.ts reads the command line and loads this module only
// when a command runs, so `--help`, `--version` and mistakes answer without loading the engine).

/** Which process this is, for the operators' records ("punchcard worker (pid 42 on host app-1)"). */
function processName(command: string): string {
  return `punchcard ${command} (pid ${process.pid} on host ${hostname()})`;
}

function openConfigured(config: Config, options: { longRunning?: boolean } = {}): DbHandle {
  // A serving process checkpoints SQLite's WAL in a thread of its own (src/store/sqlite-durability.ts).
  return openDatabase(config.databaseUrl, { checkpointer: options.longRunning === true, max: config.databasePoolSize });
}

async function openAndMigrate(config: Config, options: { longRunning?: boolean } = {}): Promise<DbHandle> {
  const handle = openConfigured(config, options);
  try {
    await migrateToLatestExclusively(handle.db, config.databaseUrl);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw explained(config, error);
  }
  return handle;
}

/** A database error an operator can act on (a missing PostgreSQL database names itself and how to create it). */
function explained(config: Config, error: unknown): unknown {
  const sentence = describeConnectionError(config.databaseUrl, error);
  return sentence === null ? error : new Error(sentence, { cause: error });
}

function describeSecrets(title: string, pairs: { management?: KeyPair; server?: KeyPair; client?: KeyPair }): string {
  const lines: string[] = [];
  if (pairs.management) lines.push(`  Management   X-Management-Id: ${pairs.management.id}   X-Management-Token: ${pairs.management.secret}`);
  if (pairs.server) lines.push(`  Server-side  X-App-Id: ${pairs.server.id}   X-App-Token: ${pairs.server.secret}`);
  if (pairs.client) lines.push(`  Client-side  X-Client-Application-Id: ${pairs.client.id}   X-Client-Token: ${pairs.client.secret}`);
  if (lines.length === 0) return '';
  return `\n${title}\n${lines.join('\n')}\n\n`;
}

export async function start(config: Config, serveHttp: boolean): Promise<void> {
  const command = serveHttp ? 'start' : 'worker';
  // One destination for the process's lines and the HTTP server's, written synchronously (src/lib/logging.ts).
  const destination = await logDestination(config.logFormat);
  const log = pino(loggerOptions(config.logLevel), destination);
  // Tracing first, so it is in place before anything it observes; absent unless configured.
  const tracing = config.tracing ? await startTracing(config.tracing) : null;
  const handle = await openAndMigrate(config, { longRunning: true });
  const boot = await bootstrap({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, process: processName(command) });
  // Keys are shown once: they must be on disk before anyone sees them.
  await durable(handle.db);
  // The banner (keys shown once, where the server listens, how to reach the console) is written as one
  // block once the process is up, so no log line lands inside it. Should the start fail before then, the
  // keys just generated are still shown: they are stored hashed and cannot be shown again.
  let keysBlock = describeSecrets('Punchcard created these keys; the secrets are shown only now, store them safely:', boot.generated);
  if (Object.keys(boot.generated).length > 0) {
    keysBlock += 'Later, `punchcard keys` prints the key ids; `punchcard keys --rotate` replaces lost secrets.\n';
  } else if (boot.keysShownBy) {
    const shown = boot.keysShownBy;
    keysBlock +=
      `The generated keys were shown once by ${shown.by} at ${shown.at}, in its output. ` +
      '`punchcard keys` prints the key ids; `punchcard keys --rotate` replaces lost secrets.\n';
  }
  const deps = { db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper: boot.pepper, log };

  const worker = createWorker(deps, log);
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  let metricsServer: Server | null = null;
  try {
    if (!serveHttp || config.runWorker) worker.start();
    if (serveHttp) {
      await warnAboutOpenOrigins(handle, log);
      // Loaded only here: a jobs-only process needs none of the HTTP layer (routes, schemas, validators),
      // which costs about 30 MB of resident memory (an idle worker: 177 MB with it, 147 MB without).
      const [{ buildApp }, { compilePendingValidators }] = await Promise.all([import('./app.ts'), import('./http/plugins/validation.ts')]);
      app = await buildApp({ ...deps, logger: { level: config.logLevel, stream: destination }, processMetrics: true, tracing });
      await app.ready();
      // Validators compile on first use (src/http/plugins/validation.ts); a served process compiles them
      // all now, so no request waits for one (and an invalid schema stops the start).
      compilePendingValidators();
      // Before listening: the admin named by PUNCHCARD_ADMIN_EMAIL can sign in from the first answer on.
      const firstAdmin = await prepareFirstAdmin(deps);
      await durable(handle.db);
      const addresses = await listenQuietly(app, config);
      process.stdout.write(
        keysBlock +
          `Punchcard is serving ${config.publicUrl} (API docs at ${config.publicUrl}/docs)\n` +
          `Listening on ${addresses.join(', ')}\n` +
          describeFirstAdmin(firstAdmin, config.publicUrl),
      );
    } else {
      if (config.workerMetricsPort !== null) metricsServer = await serveWorkerMetrics(deps, config.host, config.workerMetricsPort);
      process.stdout.write(`${keysBlock}Punchcard worker is running\n`);
    }
  } catch (error) {
    process.stdout.write(keysBlock);
    throw error;
  }

  stopOnSignals({
    hardLimitMs: config.shutdownTimeoutMs + 5_000,
    onHardLimit: () => log.error('shutdown took too long; exiting now'),
    stop: async (reason) => {
      log.info({ reason, timeout_ms: config.shutdownTimeoutMs }, 'shutting down: refusing new connections, finishing requests in flight, releasing jobs');
      const started = Date.now();
      const [inTime] = await Promise.all([
        app ? closeGracefully(app, config.shutdownTimeoutMs) : Promise.resolve(true),
        worker.stop(),
        metricsServer ? new Promise<void>((resolve) => metricsServer?.close(() => resolve())) : Promise.resolve(),
      ]);
      if (!inTime) log.warn('requests still running when the shutdown timeout ran out were cut off');
      await tracing?.shutdown().catch((error: unknown) => log.warn({ err: error }, 'could not send the last traces'));
      // Waits for the last SQLite WAL sync (group commit) before the file is closed.
      await handle.close();
      log.info({ duration_ms: Date.now() - started }, 'stopped');
      return 0;
    },
  });
}

/**
 * Listens without Fastify's "Server listening at …" lines (the banner names the addresses, in one
 * block), and answers the addresses.
 */
async function listenQuietly(app: Awaited<ReturnType<typeof buildApp>>, config: Config): Promise<string[]> {
  const addresses: string[] = [];
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (address) => {
        addresses.push(address);
        return `Server listening at ${address}`;
      },
    });
  } finally {
    app.log.level = level;
  }
  return addresses;
}

/** `npm start` warns once, at start, about every project that lets any web page use its client keys. */
async function warnAboutOpenOrigins(handle: DbHandle, log: Logger): Promise<void> {
  for (const project of await listProjects(handle.db)) {
    const origins = toProjectObject(project).client_trusted_domains;
    if (!origins.includes('*')) continue;
    log.warn(
      { project_id: project.id, project: project.name },
      `project "${project.name}" (${project.id}) trusts every origin (*): any web page can call its client-side API with its client keys; list your shop origins in client_trusted_domains (PUNCHCARD_CLIENT_ORIGINS for the default project)`,
    );
  }
}

/** A separate worker's /metrics (jobs, deliveries, queues) for Prometheus; it serves nothing else. */
async function serveWorkerMetrics(deps: { db: DbHandle['db']; clock: typeof systemClock }, host: string, port: number): Promise<Server> {
  collectProcessMetrics();
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here\n');
      return;
    }
    refreshQueueMetrics(deps.db, deps.clock)
      .then(() => registry.metrics())
      .then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => response.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export async function migrate(config: Config): Promise<void> {
  const handle = openConfigured(config);
  try {
    const { applied } = await migrateToLatestExclusively(handle.db, config.databaseUrl).catch((error: unknown) => {
      throw explained(config, error);
    });
    process.stdout.write(applied.length === 0 ? 'Schema is up to date\n' : `Applied: ${applied.join(', ')}\n`);
  } finally {
    await handle.close();
  }
}

export async function keys(config: Config, rotate: boolean): Promise<void> {
  const handle = await openAndMigrate(config);
  try {
    const pepper = await loadPepper(handle.db);
    const deps = { db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper };
    if (rotate) {
      const issued = await rotateGeneratedKeys(deps);
      process.stdout.write(describeSecrets('New keys (the old ones no longer work):', issued));
      if (!issued.management && !issued.server && !issued.client) {
        process.stdout.write('All keys are fixed by the environment; nothing to rotate.\n');
      }
      return;
    }
    const project = await findDefaultProject(handle.db);
    if (!project) throw new Error('no default project yet; run `punchcard start` once');
    const [server] = await listLiveApiKeys(handle.db, project.id, 'server');
    const [client] = await listLiveApiKeys(handle.db, project.id, 'client');
    const [management] = await listLiveManagementKeys(handle.db);
    const hidden = '(hidden: stored hashed, shown once when created; `punchcard keys --rotate` issues new ones)';
    const fixed = config.defaultProject;
    const origins = toProjectObject(project).client_trusted_domains.join(', ') || '(none)';
    process.stdout.write(
      [
        `Default project            ${project.id} (${project.name})`,
        `X-App-Id                   ${server?.app_id ?? '(none)'}`,
        `X-App-Token                ${fixed.serverKey && fixed.serverKey.id === server?.app_id ? fixed.serverKey.secret : hidden}`,
        `X-Client-Application-Id    ${client?.app_id ?? '(none)'}`,
        `X-Client-Token             ${fixed.clientKey && fixed.clientKey.id === client?.app_id ? fixed.clientKey.secret : hidden}`,
        `Client origins             ${origins}`,
        `X-Management-Id            ${management?.key_id ?? '(none)'}`,
        `X-Management-Token         ${config.managementKey && config.managementKey.id === management?.key_id ? config.managementKey.secret : hidden}`,
        `API                        ${config.publicUrl}`,
        '',
      ].join('\n'),
    );
  } finally {
    await handle.close();
  }
}

/** A column as wide as its widest cell. */
function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line), ''].join('\n');
}

/**
 * `punchcard users list` and `punchcard users reset-password EMAIL`: for the operator when no ADMIN can
 * sign in. The list shows no secret; the link printed is the only way to set the password with it.
 */
export async function users(config: Config, action: { kind: 'list' } | { kind: 'reset-password'; email: string }): Promise<void> {
  const handle = await openAndMigrate(config);
  try {
    const pepper = await loadPepper(handle.db);
    const deps = { db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper };
    if (action.kind === 'list') {
      const accounts = await listAccounts(deps);
      if (accounts.length === 0) {
        process.stdout.write('No console user yet: `punchcard start` prints the link that creates the first admin.\n');
        return;
      }
      const rows = accounts.map((a) => [
        a.email,
        a.name === '' ? '-' : a.name,
        a.is_owner ? `${a.status} (owner)` : a.status,
        a.projects.map((p) => `${p.name} (${p.id}): ${p.role}`).join('; ') || '(no project)',
      ]);
      process.stdout.write(table(['E-MAIL', 'NAME', 'STATUS', 'PROJECTS AND ROLES'], rows));
      return;
    }
    const link = await operatorLink(deps, action.email);
    switch (link.kind) {
      case 'unknown-account':
        throw new Error(`no console user has the e-mail ${action.email} (\`punchcard users list\` lists them)`);
      case 'no-project':
        throw new Error(`${link.email} is in no project; add it to one with the management API first`);
      case 'invitation':
        process.stdout.write(
          `${link.email} has not set a password yet. This one-time invitation link sets it and signs in to ${link.project} (it works once, until ${link.expires_at}; earlier invitation links no longer work):\n  ${link.url}\n`,
        );
        return;
      case 'password-reset':
        process.stdout.write(
          `One-time password reset link for ${link.email} (${link.project}); it works once, until ${link.expires_at}, and signs out every session of the account. Earlier reset links no longer work:\n  ${link.url}\n`,
        );
        return;
    }
  } finally {
    await handle.close();
  }
}
