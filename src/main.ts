import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import type { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config, type KeyPair } from './config.ts';
import { closeGracefully } from './http/graceful-close.ts';
import { refreshQueueMetrics } from './jobs/queue-metrics.ts';
import { createWorker } from './jobs/registry.ts';
import { stopOnSignals } from './lifecycle.ts';
import { loggerOptions } from './lib/logging.ts';
import { collectProcessMetrics, registry } from './lib/metrics.ts';
import { startTracing } from './lib/tracing.ts';
import { systemClock } from './lib/clock.ts';
import { sortableIds } from './lib/ids.ts';
import { bootstrap, loadPepper, rotateGeneratedKeys } from './services/projects/bootstrap.ts';
import { describeFirstAdmin, prepareFirstAdmin } from './services/users/first-admin.ts';
import { durable, openDatabase, type DbHandle } from './store/db.ts';
import { describeConnectionError } from './store/connection-errors.ts';
import { findDefaultProject, listProjects, toProjectObject } from './store/projects.ts';
import { listLiveApiKeys, listLiveManagementKeys } from './store/keys.ts';
import { migrateToLatestExclusively } from './store/migrate.ts';

// `punchcard <command>`: start (HTTP server and worker), migrate, worker (jobs only), keys. Arguments are
// read before anything else, so `--help` and mistakes never open the database or start a server.

interface Command {
  summary: string;
  usage: string;
  options: Record<string, { type: 'boolean'; help: string }>;
}

const COMMANDS: Record<string, Command> = {
  start: {
    summary: 'migrate, then serve the API (and run the worker unless PUNCHCARD_WORKER=false)',
    usage: 'punchcard start',
    options: {},
  },
  migrate: { summary: 'bring the database schema up to date, then exit', usage: 'punchcard migrate', options: {} },
  worker: {
    summary: 'run background jobs only (a separate worker process; /metrics on PUNCHCARD_WORKER_METRICS_PORT if set)',
    usage: 'punchcard worker',
    options: {},
  },
  keys: {
    summary: 'print the default project\'s key ids and where the secrets are',
    usage: 'punchcard keys [--rotate]',
    options: { rotate: { type: 'boolean', help: 'replace the generated keys with new ones and print their secrets once' } },
  },
};

const USAGE = [
  'usage: punchcard <command> [options]',
  '',
  ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(9)}${command.summary}`),
  '',
  '  punchcard <command> --help   options of one command',
  '  punchcard --version          the version',
  '',
  'Settings come from the environment (DATABASE_URL, PORT, …): see the README, "Configuration".',
].join('\n');

function commandHelp(name: string, command: Command): string {
  const options = Object.entries(command.options).map(([option, spec]) => `  --${option.padEnd(10)}${spec.help}`);
  return [`usage: ${command.usage}`, '', `${command.summary}.`, '', ...options, `  --${'help'.padEnd(10)}show this help`].join('\n');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** A mistake on the command line: one line on stderr, exit code 2, nothing started. */
function usageError(message: string, help = 'punchcard --help'): never {
  process.stderr.write(`punchcard: ${message} (see ${help})\n`);
  process.exit(2);
}

function fail(message: string): never {
  process.stderr.write(`punchcard: ${message}\n`);
  process.exit(1);
}

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

function printSecrets(title: string, pairs: { management?: KeyPair; server?: KeyPair; client?: KeyPair }): void {
  const lines: string[] = [];
  if (pairs.management) lines.push(`  Management   X-Management-Id: ${pairs.management.id}   X-Management-Token: ${pairs.management.secret}`);
  if (pairs.server) lines.push(`  Server-side  X-App-Id: ${pairs.server.id}   X-App-Token: ${pairs.server.secret}`);
  if (pairs.client) lines.push(`  Client-side  X-Client-Application-Id: ${pairs.client.id}   X-Client-Token: ${pairs.client.secret}`);
  if (lines.length === 0) return;
  process.stdout.write(`\n${title}\n${lines.join('\n')}\n\n`);
}

async function start(config: Config, serveHttp: boolean): Promise<void> {
  const command = serveHttp ? 'start' : 'worker';
  // Written synchronously, so the last lines before the process exits are not lost.
  const log = pino(loggerOptions(config.logLevel), pino.destination({ dest: 1, sync: true }));
  // Tracing first, so it is in place before anything it observes; absent unless configured.
  const tracing = config.tracing ? await startTracing(config.tracing) : null;
  const handle = await openAndMigrate(config, { longRunning: true });
  const boot = await bootstrap({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, process: processName(command) });
  // Keys are shown once: they must be on disk before anyone sees them.
  await durable(handle.db);
  printSecrets('Punchcard created these keys; the secrets are shown only now, store them safely:', boot.generated);
  if (Object.keys(boot.generated).length > 0) {
    process.stdout.write('Later, `punchcard keys` prints the key ids; `punchcard keys --rotate` replaces lost secrets.\n');
  } else if (boot.keysShownBy) {
    const shown = boot.keysShownBy;
    process.stdout.write(
      `The generated keys were shown once by ${shown.by} at ${shown.at}, in its output. ` +
        '`punchcard keys` prints the key ids; `punchcard keys --rotate` replaces lost secrets.\n',
    );
  }
  const deps = { db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper: boot.pepper };

  const worker = createWorker(deps, log);
  if (!serveHttp || config.runWorker) worker.start();

  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  let metricsServer: Server | null = null;
  if (serveHttp) {
    await warnAboutOpenOrigins(handle, log);
    // Loaded only here: a jobs-only process needs none of the HTTP layer (routes, schemas, validators),
    // which costs about 30 MB of resident memory (an idle worker: 177 MB with it, 147 MB without).
    const { buildApp } = await import('./app.ts');
    app = await buildApp({ ...deps, logger: { level: config.logLevel }, processMetrics: true, tracing });
    await app.listen({ port: config.port, host: config.host });
    process.stdout.write(`Punchcard is serving ${config.publicUrl} (API docs at ${config.publicUrl}/docs)\n`);
    process.stdout.write(describeFirstAdmin(await prepareFirstAdmin(deps), config.publicUrl));
  } else {
    if (config.workerMetricsPort !== null) metricsServer = await serveWorkerMetrics(deps, config.host, config.workerMetricsPort);
    process.stdout.write('Punchcard worker is running\n');
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

async function migrate(config: Config): Promise<void> {
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

async function keys(config: Config, rotate: boolean): Promise<void> {
  const handle = await openAndMigrate(config);
  try {
    const pepper = await loadPepper(handle.db);
    const deps = { db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper };
    if (rotate) {
      const issued = await rotateGeneratedKeys(deps);
      printSecrets('New keys (the old ones no longer work):', issued);
      if (!issued.management && !issued.server && !issued.client) {
        process.stdout.write('All keys are fixed by the environment; nothing to rotate.\n');
      }
      return;
    }
    const project = await findDefaultProject(handle.db);
    if (!project) fail('no default project yet; run `punchcard start` once');
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

async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`punchcard ${version()}\n`);
    return;
  }
  if (first.startsWith('-')) usageError(`unknown option ${first}`);
  const command = COMMANDS[first];
  if (!command) usageError(`unknown command "${first}"; commands: ${Object.keys(COMMANDS).join(', ')}`);

  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    usageError(`${first}: ${describeArgumentError(error)}`, `punchcard ${first} --help`);
  }
  if (values.help === true) {
    process.stdout.write(`${commandHelp(first, command)}\n`);
    return;
  }

  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
    throw error;
  }
  switch (first) {
    case 'start':
      return start(config, true);
    case 'worker':
      return start(config, false);
    case 'migrate':
      return migrate(config);
    case 'keys':
      return keys(config, values.rotate === true);
  }
}

/** node:util's parseArgs messages, in one short line. */
function describeArgumentError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option ?? message}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${option ?? /'([^']*)'/.exec(message)?.[1] ?? ''}`.trim();
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `option ${option ?? ''} takes no value`;
  return message.split('\n')[0] ?? message;
}

// Holds the event loop open until the command settles: closing a SQLite handle waits on a thread that
// does not, and without this a command failing at start (a bad migration) exited 0 without a word.
const keepAlive = setInterval(() => undefined, 60_000);
main(process.argv.slice(2))
  .catch((error: unknown) => {
    fail(error instanceof Error ? error.message : String(error));
  })
  .finally(() => clearInterval(keepAlive));
