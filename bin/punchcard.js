#!/usr/bin/env node
// `punchcard`: runs src/ compiled to JavaScript (scripts/build-server.ts) in .build/server-<stamp>/, where
// the stamp names the sources it was compiled from; the first run after a change of the sources compiles
// them (about a second), so `npm install && npm start` needs no build step. Compiled, a process starts a
// second sooner and keeps ~50 MB less than through the tsx loader, whose hooks run in a thread of their
// own. Where .build/ cannot be written (a read-only installation), the sources run through tsx.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
/** What a build is made from besides src/: the compiler's settings live in these. */
const BUILDER = ['scripts/build-server.ts', 'scripts/lib/transpile.ts'];

/** A digest of the sources and of the project's place (compiled modules name their sources by path). */
function sourceStamp() {
  const hash = createHash('sha256').update(root);
  const sources = readdirSync(join(root, 'src'), { recursive: true })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join('src', name))
    .sort();
  for (const file of [...sources, ...BUILDER]) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  return hash.digest('hex').slice(0, 16);
}

/** The compiled entry point, built first if needed; null when it cannot be built here. */
function compiledMain() {
  const dir = join(root, '.build', `server-${sourceStamp()}`);
  if (existsSync(join(dir, 'COMPLETE'))) {
    try {
      // Marks the build as in use: builds unused for a day are removed (scripts/build-server.ts).
      utimesSync(dir, new Date(), new Date());
    } catch {
      // A read-only installation keeps its builds.
    }
  } else {
    const builder = [`--import=${import.meta.resolve('tsx')}`, join(root, 'scripts', 'build-server.ts'), dir];
    const built = spawnSync(process.execPath, builder, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (built.status !== 0) {
      const reason = (built.stderr || built.error?.message || `exit ${built.status}`).trim().split('\n').slice(-3).join(' ');
      process.stderr.write(`punchcard: could not compile src/ into ${dir} (${reason}); running the sources through tsx instead\n`);
      return null;
    }
  }
  return join(dir, 'src', 'main.js');
}

/**
 * `start` serves the console and the customer cockpit from web/dist, which `npm install` builds (the
 * postinstall, scripts/build-web.ts). After an install made with --ignore-scripts they are missing and
 * are built here first. Seeing that they exist costs two file lookups; the builder itself runs through
 * tsx, which took over a second on every start when npm ran it as `prestart`.
 */
function ensurePages() {
  const dist = join(root, 'web', 'dist');
  // Both entries: a build from before the cockpit existed has the console only.
  if (existsSync(join(dist, 'index.html')) && existsSync(join(dist, 'cockpit.html'))) return;
  const builder = [`--import=${import.meta.resolve('tsx')}`, join(root, 'scripts', 'build-web.ts')];
  // The builder's output goes to stderr: stdout carries the server's log lines.
  const built = spawnSync(process.execPath, builder, { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) process.stderr.write('punchcard: the console could not be built into web/dist (above); serving the API without it\n');
}

if (process.argv[2] === 'start') ensurePages();
const main = compiledMain();
if (main) {
  // Stack traces name the TypeScript lines (the compiled modules carry inline source maps).
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(main).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
