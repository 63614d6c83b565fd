import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { transpileModules } from './lib/transpile.ts';

// `tsx scripts/build-server.ts <dir>`: compiles src/ (src/main.ts and every module it reaches) into <dir>,
// for bin/punchcard.js, which names <dir> after the sources it compiles and runs this when <dir> is not
// there yet. The build is written beside <dir> and renamed into place, so a process never sees half of
// it, and two processes starting at once both end up running one complete build.

const COMPLETE = 'COMPLETE';
/** Builds of other sources are removed once unused for this long (a server loads its modules at start). */
const UNUSED_BUILD_MS = 24 * 3600_000;

const root = join(import.meta.dirname, '..');
const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: tsx scripts/build-server.ts <dir>\n');
  process.exit(2);
}

if (!existsSync(join(dir, COMPLETE))) {
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await transpileModules(root, building, ['src/main.ts']);
  writeFileSync(join(building, COMPLETE), `${new Date().toISOString()}\n`);
  // What is left of an interrupted removal is not a build; a complete one from another process is kept.
  if (existsSync(dir) && !existsSync(join(dir, COMPLETE))) rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(dir, COMPLETE))) throw error;
  }
}
removeUnusedBuilds();

/** Other builds (older sources, interrupted builds) that no process has started from for a day. */
function removeUnusedBuilds(): void {
  const parent = dirname(dir as string);
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    if (name === basename(dir as string) || !name.startsWith('server-')) continue;
    if (Date.now() - statSync(path).mtimeMs > UNUSED_BUILD_MS) rmSync(path, { recursive: true, force: true });
  }
}
