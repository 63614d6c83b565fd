import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileServer, compileTests } from './lib/compile-tests.ts';

// `npm run test:reliability`: the reliability suite (tests/reliability — concurrency attacks, kill -9
// crash rounds, the malformed-input and tenancy sweeps) on SQLite, then on PostgreSQL when DATABASE_URL
// points at one (each run gets throwaway databases of its own). PUNCHCARD_RELIABILITY_SCALE=full (the
// default here) or ci (what `npm test` runs). PUNCHCARD_REQUIRE_POSTGRES=1 turns a skipped PostgreSQL run
// into a failure. `--only=sqlite|postgres` runs one database; extra `.ts` arguments narrow the files.

const root = join(import.meta.dirname, '..');
const scale = process.env.PUNCHCARD_RELIABILITY_SCALE === 'ci' ? 'ci' : 'full';
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const requested = process.argv.slice(2).filter((a) => a.endsWith('.ts'));
const files =
  requested.length > 0
    ? requested
    : readdirSync(join(root, 'tests', 'reliability'))
        .filter((name) => name.endsWith('.test.ts'))
        .sort()
        .map((name) => join('tests', 'reliability', name));

// The files run compiled, as in `npm test` (scripts/lib/compile-tests.ts), and so do the `punchcard`
// processes they start (bin/punchcard.js).
const build = await compileTests(root, files);
process.on('exit', build.remove);
compileServer(root);

// One file at a time: each starts real server processes, and the attacks need the machine to themselves
// to make requests overlap rather than queue. The per-test limit turns a hang into a failure.
const nodeTestArgs = ['--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=1', `--test-timeout=${scale === 'full' ? 3_600_000 : 600_000}`, ...build.files];

function run(title: string, env: NodeJS.ProcessEnv): boolean {
  process.stdout.write(`\n=== ${title}\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, nodeTestArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, PUNCHCARD_RELIABILITY_SCALE: scale, ...env } });
  process.stdout.write(`=== ${title}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result.status === 0;
}

const failures: string[] = [];
if (only !== 'postgres') {
  if (!run(`reliability suite (${scale}) on SQLite (${files.length} files)`, { PUNCHCARD_TEST_DB: 'sqlite' })) failures.push('SQLite');
}
if (only !== 'sqlite') {
  const databaseUrl = process.env.DATABASE_URL ?? '';
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    if (!run(`reliability suite (${scale}) on PostgreSQL (${files.length} files)`, { PUNCHCARD_TEST_DB: 'postgres', PUNCHCARD_TEST_PG_URL: databaseUrl })) failures.push('PostgreSQL');
  } else {
    const banner = '!'.repeat(78);
    process.stdout.write(
      `\n${banner}\n!!! Reliability on PostgreSQL SKIPPED: DATABASE_URL is not a postgres:// URL, so the two-process\n` +
        `!!! attacks did not run either. Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run test:reliability\n${banner}\n`,
    );
    if (process.env.PUNCHCARD_REQUIRE_POSTGRES === '1') failures.push('PostgreSQL (required but DATABASE_URL is not set)');
  }
}

if (failures.length > 0) {
  process.stdout.write(`\nRELIABILITY FAILED: ${failures.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`\nReliability suite (${scale}) passed.\n`);
