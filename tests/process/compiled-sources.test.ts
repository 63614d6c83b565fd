import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { copyProject } from '../helpers/launch.ts';

// bin/punchcard.js runs src/ compiled into .build/server-<stamp>/ (README "Command line"), compiles again
// when a source changes, and runs the sources through tsx where .build/ cannot be written. Each test works
// on a copy of what the command needs, so the project's own .build/ is left alone.

const copies: string[] = [];
after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

function projectCopy(): string {
  const dir = copyProject(['bin', 'src', 'scripts/build-server.ts', 'scripts/lib/transpile.ts', 'package.json']);
  copies.push(dir);
  return dir;
}

function help(dir: string) {
  const result = spawnSync(process.execPath, ['bin/punchcard.js', '--help'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const builds = (dir: string) => (existsSync(join(dir, '.build')) ? readdirSync(join(dir, '.build')).filter((name) => name.startsWith('server-')) : []);

describe('compiled sources', { timeout: 600_000 }, () => {
  test('the first run compiles src/, later runs reuse the build, a changed source is compiled again', () => {
    const dir = projectCopy();
    const first = help(dir);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^usage: punchcard <command>/);
    assert.equal(first.stderr, '');
    const [build] = builds(dir);
    assert.ok(build, 'a build directory');
    assert.ok(existsSync(join(dir, '.build', build, 'COMPLETE')));
    assert.ok(existsSync(join(dir, '.build', build, 'src', 'commands.js')), 'modules imported on demand are compiled too');

    assert.equal(help(dir).code, 0);
    assert.deepEqual(builds(dir), [build], 'unchanged sources: the same build');

    const main = join(dir, 'src', 'main.ts');
    writeFileSync(main, readFileSync(main, 'utf8').replace("'usage: punchcard <command> [options]'", "'usage: punchcard <command> [options] (changed)'"));
    const changed = help(dir);
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /^usage: punchcard <command> \[options\] \(changed\)/, 'the changed source runs');
    assert.equal(builds(dir).length, 2);
  });

  test('where .build/ cannot be written, the sources run through tsx', () => {
    const dir = projectCopy();
    writeFileSync(join(dir, '.build'), 'a file where the build directory would go\n');
    const out = help(dir);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^usage: punchcard <command>/);
    assert.match(out.stderr, /could not compile src\/ into .*; running the sources through tsx instead/);
  });
});
