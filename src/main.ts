import pino from 'pino';
import type { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config, type KeyPair } from './config.ts';
import { createWorker } from './jobs/registry.ts';
import { systemClock } from './lib/clock.ts';
import { sortableIds } from './lib/ids.ts';
import { bootstrap, loadPepper, rotateGeneratedKeys } from './services/projects/bootstrap.ts';
import { describeFirstAdmin, prepareFirstAdmin } from './services/users/first-admin.ts';
import { durable, openDatabase, type DbHandle } from './store/db.ts';
import { findDefaultProject, toProjectObject } from './store/projects.ts';
import { listLiveApiKeys, listLiveManagementKeys } from './store/keys.ts';
import { migrateToLatest } from './store/migrate.ts';

// `punchcard <command>`: start (HTTP server and worker), migrate, worker (jobs only), keys.

const USAGE = `usage: punchcard <command>
  start          migrate, then serve the API (and run the worker unless PUNCHCARD_WORKER=false)
  migrate        bring the database schema up to date
  worker         run background jobs only
  keys [--rotate] print the key ids (--rotate replaces the generated keys with new ones)`;

function fail(message: string): never {
  process.stderr.write(`punchcard: ${message}\n`);
  process.exit(1);
}

async function openAndMigrate(config: Config, options: { longRunning?: boolean } = {}): Promise<DbHandle> {
  // A serving process checkpoints SQLite's WAL in a thread of its own (src/store/sqlite-durability.ts).
  const handle = openDatabase(config.databaseUrl, { checkpointer: options.longRunning === true });
  try {
    await migrateToLatest(handle.db);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return handle;
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
  const log = pino({ level: config.logLevel });
  const handle = await openAndMigrate(config, { longRunning: true });
  const boot = await bootstrap({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config });
  // Keys are shown once: they must be on disk before anyone sees them.
  await durable(handle.db);
  printSecrets('Punchcard created these keys; the secrets are shown only now, store them safely:', boot.generated);
  const deps = { db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper: boot.pepper };

  const worker = createWorker(deps, log);
  if (!serveHttp || config.runWorker) worker.start();

  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  if (serveHttp) {
    // Loaded only here: a jobs-only process needs none of the HTTP layer (routes, schemas, validators),
    // which costs about 30 MB of resident memory (an idle worker: 177 MB with it, 147 MB without).
    const { buildApp } = await import('./app.ts');
    app = await buildApp({ ...deps, logger: { level: config.logLevel }, processMetrics: true });
    await app.listen({ port: config.port, host: config.host });
    process.stdout.write(`Punchcard is serving ${config.publicUrl} (API docs at ${config.publicUrl}/docs)\n`);
    process.stdout.write(describeFirstAdmin(await prepareFirstAdmin(deps), config.publicUrl));
  } else {
    process.stdout.write('Punchcard worker is running\n');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app?.close();
    await worker.stop();
    await handle.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

async function migrate(config: Config): Promise<void> {
  const handle = openDatabase(config.databaseUrl);
  try {
    const { applied } = await migrateToLatest(handle.db);
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
  const [command, ...rest] = argv;
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
    throw error;
  }
  switch (command) {
    case 'start':
      return start(config, true);
    case 'worker':
      return start(config, false);
    case 'migrate':
      return migrate(config);
    case 'keys':
      return keys(config, rest.includes('--rotate'));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      fail(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(error instanceof Error ? error.message : String(error));
});
