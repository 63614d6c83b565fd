import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FIXED_KEYS, keyEnvironment } from '../../scripts/lib/keys.ts';
import { launch, ROOT, waitReady } from '../helpers/launch.ts';

/** Real processes start, migrate and stop here, several at once on a busy machine: more than npm test's default per-test limit. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

// README "Command line": every command has --help, the program has --version, and a mistake on the
// command line exits non-zero with one line, before anything opens a database or a port.

function run(...args: string[]) {
  const result = spawnSync(process.execPath, ['bin/punchcard.js', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    // A database that must never be touched by help or mistakes.
    env: { ...process.env, DATABASE_URL: `sqlite:${join(tmpdir(), `never-${randomBytes(4).toString('hex')}.db`)}`, PORT: '1' },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('command line', { timeout: 900_000 }, () => {
  test('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const out = run(flag);
      assert.equal(out.code, 0);
      assert.equal(out.stdout, `punchcard ${version}\n`);
    }
  });

  test('--help lists the commands; every command has its own --help and starts nothing', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
    const top = run('--help');
    assert.equal(top.code, 0);
    for (const command of ['start', 'migrate', 'worker', 'keys']) assert.match(top.stdout, new RegExp(`^  ${command} `, 'm'));
    for (const command of ['start', 'migrate', 'worker', 'keys']) {
      for (const flag of ['--help', '-h']) {
        const out = run(command, flag);
        assert.equal(out.code, 0, `${command} ${flag}: ${out.stderr}`);
        assert.match(out.stdout, new RegExp(`^usage: punchcard ${command}`), `${command} ${flag}`);
        assert.doesNotMatch(out.stdout, /serving|worker is running|Applied|Default project/);
      }
    }
    assert.match(run('keys', '--help').stdout, /--rotate/);
  });

  test('unknown commands, options and arguments exit 2 with a one-line reason', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
    const cases: Array<[string[], RegExp]> = [
      [['frobnicate'], /^punchcard: unknown command "frobnicate"; commands: start, migrate, worker, keys \(see punchcard --help\)\n$/],
      [['--frob'], /^punchcard: unknown option --frob \(see punchcard --help\)\n$/],
      [['start', '--port=9000'], /^punchcard: start: unknown option --port \(see punchcard start --help\)\n$/],
      [['migrate', '--rotate'], /^punchcard: migrate: unknown option --rotate \(see punchcard migrate --help\)\n$/],
      [['keys', 'now'], /^punchcard: keys: unexpected argument now \(see punchcard keys --help\)\n$/],
    ];
    for (const [args, reason] of cases) {
      const out = run(...args);
      assert.equal(out.code, 2, args.join(' '));
      assert.match(out.stderr, reason, args.join(' '));
      assert.equal(out.stdout, '');
    }
  });

  test('a PostgreSQL database that does not exist is named, with how to create it', { skip: !process.env.PUNCHCARD_TEST_PG_URL && 'needs PUNCHCARD_TEST_PG_URL', timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
    const url = new URL(process.env.PUNCHCARD_TEST_PG_URL ?? '');
    const name = `pc_missing_${randomBytes(4).toString('hex')}`;
    url.pathname = `/${name}`;
    const result = spawnSync(process.execPath, ['bin/punchcard.js', 'migrate'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, DATABASE_URL: url.toString() }, timeout: 60_000 });
    assert.equal(result.status, 1);
    assert.match(result.stderr, new RegExp(`^punchcard: PostgreSQL database "${name}" does not exist on ${url.hostname}:${url.port || 5432}\\. Create it once, e\\.g\\. \`createdb .*${name}\``));
    assert.doesNotMatch(result.stderr, /migration \(unknown\)/);
    assert.equal(result.stderr.split('\n').filter(Boolean).length, 1, 'one line');
  });

  test('start warns once about a project that trusts every origin; without origins the client-side API is closed', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    for (const origins of ['*', '']) {
      const file = join(tmpdir(), `origins-${randomBytes(4).toString('hex')}.db`);
      const launched = await launch(process.execPath, ['bin/punchcard.js', 'start'], { ...keyEnvironment(), PUNCHCARD_CLIENT_ORIGINS: origins, DATABASE_URL: `sqlite:${file}` });
      try {
        await waitReady(launched);
        const warnings = launched.output().split('\n').filter((l) => l.includes('trusts every origin (*)'));
        const client = await fetch(`${launched.url}/client/v1/promotions/tiers`, {
          headers: { 'x-client-application-id': FIXED_KEYS.client.id, 'x-client-token': FIXED_KEYS.client.secret, origin: 'https://anyone.example.net' },
        });
        if (origins === '*') {
          assert.equal(warnings.length, 1, launched.output());
          assert.match(warnings[0] ?? '', /"level":40/);
          assert.equal(client.status, 200);
        } else {
          assert.equal(warnings.length, 0);
          assert.equal(client.status, 403, 'a new project trusts no origin');
        }
      } finally {
        launched.child.kill('SIGTERM');
        await launched.exited;
        for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
      }
    }
  });
});
