import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FIXED_KEYS, keyEnvironment } from '../../scripts/lib/keys.ts';
import { launch, ROOT, startBanner, waitReady } from '../helpers/launch.ts';

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
    for (const command of ['start', 'migrate', 'worker', 'keys', 'users']) assert.match(top.stdout, new RegExp(`^  ${command} `, 'm'));
    for (const command of ['start', 'migrate', 'worker', 'keys', 'users']) {
      for (const flag of ['--help', '-h']) {
        const out = run(command, flag);
        assert.equal(out.code, 0, `${command} ${flag}: ${out.stderr}`);
        assert.match(out.stdout, new RegExp(`^usage: punchcard ${command}`), `${command} ${flag}`);
        assert.doesNotMatch(out.stdout, /serving|worker is running|Applied|Default project/);
      }
    }
    assert.match(run('keys', '--help').stdout, /--rotate/);
    assert.match(run('users', '--help').stdout, /^  reset-password EMAIL +print a one-time link/m);
  });

  test('unknown commands, options and arguments exit 2 with a one-line reason', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
    const cases: Array<[string[], RegExp]> = [
      [['frobnicate'], /^punchcard: unknown command "frobnicate"; commands: start, migrate, worker, keys, users \(see punchcard --help\)\n$/],
      [['--frob'], /^punchcard: unknown option --frob \(see punchcard --help\)\n$/],
      [['start', '--port=9000'], /^punchcard: start: unknown option --port \(see punchcard start --help\)\n$/],
      [['migrate', '--rotate'], /^punchcard: migrate: unknown option --rotate \(see punchcard migrate --help\)\n$/],
      [['keys', 'now'], /^punchcard: keys: unexpected argument now \(see punchcard keys --help\)\n$/],
      [['users'], /^punchcard: users: which one\? list, reset-password \(see punchcard users --help\)\n$/],
      [['users', 'delete'], /^punchcard: users: unknown action "delete"; actions: list, reset-password \(see punchcard users --help\)\n$/],
      [['users', 'list', '--all'], /^punchcard: users: unknown option --all \(see punchcard users --help\)\n$/],
      [['users', 'list', 'now'], /^punchcard: users list: unexpected argument now \(see punchcard users --help\)\n$/],
      [['users', 'reset-password'], /^punchcard: users reset-password: missing EMAIL \(see punchcard users --help\)\n$/],
      [['users', 'reset-password', 'a@b.example', 'c@d.example'], /^punchcard: users reset-password: unexpected argument c@d.example \(see punchcard users --help\)\n$/],
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

  test('users list and users reset-password: the operator lets someone in when no ADMIN can sign in', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const file = join(tmpdir(), `users-${randomBytes(4).toString('hex')}.db`);
    const env = { ...keyEnvironment(), DATABASE_URL: `sqlite:${file}`, PUNCHCARD_ADMIN_EMAIL: 'Owner@Shop.example.com', PUNCHCARD_ADMIN_PASSWORD: 'forgotten-password-1' };
    const launched = await launch(process.execPath, ['bin/punchcard.js', 'start'], env);
    const cli = (...args: string[]) => {
      const result = spawnSync(process.execPath, ['bin/punchcard.js', 'users', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env, PUBLIC_URL: launched.url }, timeout: 60_000 });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    try {
      await waitReady(launched);
      const management = { 'content-type': 'application/json', 'x-management-id': FIXED_KEYS.management.id, 'x-management-token': FIXED_KEYS.management.secret };
      const projects = (await (await fetch(`${launched.url}/management/v1/projects`, { headers: management })).json()) as { data: Array<{ id: string }> };
      const invited = await fetch(`${launched.url}/management/v1/projects/users/invite`, {
        method: 'POST',
        headers: management,
        body: JSON.stringify({ email: 'newcomer@shop.example.com', first_name: 'Nina', last_name: 'New', projects: { [projects.data[0]?.id ?? '']: 'VIEWER' } }),
      });
      assert.equal(invited.status, 204, await invited.text());

      const list = cli('list');
      assert.equal(list.code, 0, list.stderr);
      const lines = list.stdout.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^E-MAIL +NAME +STATUS +PROJECTS AND ROLES$/);
      assert.match(list.stdout, /^newcomer@shop\.example\.com +Nina New +invited +.+ \(proj_[^)]+\): VIEWER$/m);
      assert.match(list.stdout, /^Owner@Shop\.example\.com +- +active \(owner\) +.+ \(proj_[^)]+\): ADMIN$/m);
      assert.doesNotMatch(list.stdout, /scrypt|password|token/i, 'no secrets');

      const unknown = cli('reset-password', 'nobody@shop.example.com');
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stdout, '');
      assert.match(unknown.stderr, /^punchcard: no console user has the e-mail nobody@shop\.example\.com \(`punchcard users list` lists them\)\n$/);

      const reset = cli('reset-password', 'owner@shop.example.com');
      assert.equal(reset.code, 0, reset.stderr);
      const url = /^  (\S+)$/m.exec(reset.stdout)?.[1] ?? '';
      assert.ok(url.startsWith(`${launched.url}/dashboard/password-reset#token=`), reset.stdout);
      assert.match(reset.stdout, /^One-time password reset link for Owner@Shop\.example\.com /);
      const used = await fetch(`${launched.url}/console/v1/password-reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: new URL(url).hash.replace('#token=', ''), password: 'remembered-password-2' }),
      });
      assert.equal(used.status, 200, await used.text());
      const signIn = (password: string) =>
        fetch(`${launched.url}/console/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@shop.example.com', password }) });
      assert.equal((await signIn('forgotten-password-1')).status, 401);
      assert.equal((await signIn('remembered-password-2')).status, 200);

      const invitation = cli('reset-password', 'newcomer@shop.example.com');
      assert.equal(invitation.code, 0, invitation.stderr);
      assert.match(invitation.stdout, /has not set a password yet/);
      assert.match(invitation.stdout, /^  http:\/\/127\.0\.0\.1:\d+\/dashboard\/invitation#token=\S+$/m);
    } finally {
      launched.child.kill('SIGTERM');
      await launched.exited;
      for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
    }
  });

  test('LOG_FORMAT=json: one JSON line per request (method, redacted URL, status, duration, id, client); the start banner is one block', { timeout: PROCESS_TEST_TIMEOUT_MS }, async () => {
    const file = join(tmpdir(), `log-format-${randomBytes(4).toString('hex')}.db`);
    // No fixed keys: the first start shows the keys it made, at the top of the banner.
    const launched = await launch(process.execPath, ['bin/punchcard.js', 'start'], { DATABASE_URL: `sqlite:${file}`, LOG_FORMAT: 'json' });
    try {
      await waitReady(launched);
      const banner = startBanner(launched.output());
      assert.match(banner[0] ?? '', /^Punchcard created these keys/);
      assert.ok(banner.some((line) => line === `Listening on ${launched.url}`), banner.join('\n'));
      assert.doesNotMatch(launched.output(), /Server listening/);

      // The line of waitReady's last request is written once its answer has gone.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = launched.output().length;
      const asked = [
        await fetch(`${launched.url}/health`),
        await fetch(`${launched.url}/v1/exports/exp_1?token=secret-download-token`),
        await fetch(`${launched.url}/no/such/path`, { headers: { 'x-forwarded-for': '192.0.2.1' } }),
      ];
      for (const answer of asked) await answer.text();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const lines = launched.output().slice(before).split('\n').filter((line) => line !== '');
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.equal(entries.length, asked.length, lines.join('\n'));
      for (const [i, entry] of entries.entries()) {
        const answer = asked[i] as Response;
        assert.equal(entry.reqId, answer.headers.get('x-request-id'));
        assert.equal(entry.status, answer.status);
        assert.equal(entry.method, 'GET');
        assert.equal(typeof entry.duration_ms, 'number');
        // No proxy is trusted here: the socket's address, whatever the header says.
        assert.equal(entry.client, '127.0.0.1');
        assert.equal(entry.level, 30);
      }
      assert.deepEqual(entries.map((entry) => entry.url), ['/health', '/v1/exports/exp_1?token=[Redacted]', '/no/such/path']);
      assert.doesNotMatch(launched.output(), /secret-download-token|incoming request|request completed/);
    } finally {
      launched.child.kill('SIGTERM');
      await launched.exited;
      for (const ext of ['', '-wal', '-shm']) rmSync(`${file}${ext}`, { force: true });
    }
  });

  test('a LOG_FORMAT other than pretty or json stops the start with one line', () => {
    const out = spawnSync(process.execPath, ['bin/punchcard.js', 'start'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: `sqlite:${join(tmpdir(), `never-${randomBytes(4).toString('hex')}.db`)}`, PORT: '1', LOG_FORMAT: 'yaml' },
      timeout: 60_000,
    });
    assert.equal(out.status, 1);
    assert.equal(out.stderr, 'punchcard: configuration error: LOG_FORMAT must be one of pretty, json, got "yaml"\n');
  });
});
