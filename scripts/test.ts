import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import pg from 'pg';
import { runDatabasePrefix } from '../tests/helpers/database.ts';
import { compileServer, compileTests } from './lib/compile-tests.ts';

// `npm test`: type check, OpenAPI drift check, then the whole suite on SQLite, and again on PostgreSQL
// when DATABASE_URL points at one. PUNCHCARD_REQUIRE_POSTGRES=1 (CI) turns a skipped PostgreSQL run into
// a failure. Extra arguments narrow the run to the given test files.

const root = join(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out.sort();
}

function run(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): boolean {
  process.stdout.write(`\n=== ${title}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

const requested = process.argv.slice(2).filter((a) => a.endsWith('.ts'));
const selected = requested.length > 0 ? requested : testFiles(join(root, 'tests')).filter((f) => !f.includes('/reliability/'));
// The container image test (tests/container) builds an image, minutes on a cold cache: a step of its own
// after the databases' suites, with a timeout to match; it runs the image on SQLite and PostgreSQL itself.
const isContainerTest = (file: string) => /^tests\/container\//.test(file);
const containerFiles = selected.filter(isContainerTest);
const files = selected.filter((file) => !isContainerTest(file));
// Three files at a time on this 2-core machine kind: with two, a file waiting on its database (commits,
// PostgreSQL round trips, job polling) leaves a core idle — measured 72 % CPU use, and 14 API files took
// 171 s with two against 124 s with three.
// The timeout also bounds each file as a whole: a browser file of three console walks took 86 s of tests
// plus Chromium's start on a loaded machine (load average 8) and crossed 120 s.
// The files run compiled to JavaScript (scripts/lib/compile-tests.ts), without the tsx loader.
const nodeTestArgs = (list: string[]) => ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=3', '--test-timeout=240000', ...list];
// Files that never open the database under test run once, in the SQLite pass: the pure domain and unit
// tests, the command-line and process tests that start `punchcard` on a SQLite file of their own, and the
// browser files where what is stored does not matter (the /docs page; the console's layout at phone
// width and with the keyboard; what each role is offered, which the role matrix checks over HTTP on both
// databases). The console's and the cockpit's walks run on both: a marketer's week goes through every
// list, search and change of the API. On PostgreSQL they added about five minutes to a run here.
const DATABASE_INDEPENDENT = [
  /^tests\/(domain|unit|web)\//,
  /^tests\/browser\/(docs|console-phone-keyboard|console-roles)\.test\.ts$/,
  /^tests\/process\/(cli|lifecycle|tracing)\.test\.ts$/,
  /^tests\/services\/voucher-generation\.test\.ts$/,
];
const postgresFiles = requested.length > 0 ? files : files.filter((file) => !DATABASE_INDEPENDENT.some((pattern) => pattern.test(file)));

async function dropRunDatabases(serverUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [prefix]);
    for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
    process.stdout.write(`Dropped the run's ${rows.length} test databases.\n`);
  } finally {
    await client.end();
  }
}

const failures: string[] = [];
const build = await compileTests(root, selected);
process.on('exit', build.remove);
const compiledOf = new Map(selected.map((file, i) => [file, build.files[i] as string]));
const compiledList = (list: string[]) => list.map((file) => compiledOf.get(file) as string);
compileServer(root);
if (requested.length === 0) {
  if (!run('type check (tsc --noEmit)', 'npx', ['tsc', '--noEmit'])) failures.push('type check');
  // The console and cockpit (web/) have a tsconfig of their own: the DOM, and no unused names.
  if (!run('console type check (tsc --noEmit -p web)', 'npx', ['tsc', '--noEmit', '-p', 'web'])) failures.push('console type check');
  // No import cycles in src/ and no import from a lower layer to a higher one (docs/architecture.md).
  if (!run('import cycles and layers (dependency-cruiser)', 'npx', ['depcruise', 'src', '--config', '.dependency-cruiser.cjs'])) failures.push('import rules');
  if (!run('OpenAPI document matches openapi.json', 'npx', ['tsx', 'scripts/write-openapi.ts', '--check'])) failures.push('openapi drift');
}

const databaseUrl = process.env.DATABASE_URL ?? '';
const postgres = databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://');
// The command-line test of a missing PostgreSQL database runs in this pass too (see DATABASE_INDEPENDENT).
const sqliteEnv = postgres ? { PUNCHCARD_TEST_DB: 'sqlite', PUNCHCARD_TEST_PG_URL: databaseUrl } : { PUNCHCARD_TEST_DB: 'sqlite' };
if (files.length > 0 && !run(`tests on SQLite (${files.length} files)`, process.execPath, nodeTestArgs(compiledList(files)), sqliteEnv)) {
  failures.push('SQLite suite');
}
// The CI-sized reliability suite (scripts/reliability.ts) runs after each database's suite, not beside it.
const reliability = (database: 'sqlite' | 'postgres') =>
  requested.length > 0 || run(`reliability suite (ci scale) on ${database}`, process.execPath, ['--import', 'tsx', 'scripts/reliability.ts', `--only=${database}`], { PUNCHCARD_RELIABILITY_SCALE: 'ci' });
if (!reliability('sqlite')) failures.push('SQLite reliability suite');

if (postgres) {
  // Test databases are not dropped one by one (each drop forces a checkpoint): the run drops its own at the end.
  const testRun = randomBytes(4).toString('hex');
  const passed = postgresFiles.length === 0 || run(`tests on PostgreSQL (${postgresFiles.length} files; ${files.length - postgresFiles.length} that use no database ran once)`, process.execPath, nodeTestArgs(compiledList(postgresFiles)), {
    PUNCHCARD_TEST_DB: 'postgres',
    PUNCHCARD_TEST_PG_URL: databaseUrl,
    PUNCHCARD_TEST_RUN: testRun,
  });
  await dropRunDatabases(databaseUrl, runDatabasePrefix(testRun));
  if (!passed) failures.push('PostgreSQL suite');
  if (!reliability('postgres')) failures.push('PostgreSQL reliability suite');
} else {
  const banner = '!'.repeat(78);
  process.stdout.write(
    `\n${banner}\n!!! PostgreSQL SKIPPED: DATABASE_URL is not a postgres:// URL, so only SQLite was tested.\n` +
      `!!! Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test\n${banner}\n`,
  );
  if (process.env.PUNCHCARD_REQUIRE_POSTGRES === '1') failures.push('PostgreSQL suite (required but DATABASE_URL is not set)');
}

if (containerFiles.length > 0) {
  const containerArgs = ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-timeout=3600000', ...compiledList(containerFiles)];
  if (!run('container image (build, then run on SQLite and PostgreSQL)', process.execPath, containerArgs, postgres ? { PUNCHCARD_TEST_PG_URL: databaseUrl } : {})) {
    failures.push('container image');
  }
}

if (failures.length > 0) {
  process.stdout.write(`\nFAILED: ${failures.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write('\nAll checks passed.\n');
