import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { transpileModules } from './transpile.ts';

// `npm test` runs compiled JavaScript, not TypeScript through the tsx loader (./transpile.ts says why).
// One API test file cost 4.4–5.0 s of CPU through the loader and 3.0–3.8 s compiled, and a run starts
// about 250 test files. Each run compiles its files into a directory of its own under .build/ and removes
// it at the end.

const BUILD_ROOT = '.build';

/**
 * Compiles `entries` (paths relative to `root`) and what they import into a new directory under
 * .build/; answers the compiled path of each entry, in order, and a function that removes the directory.
 */
export async function compileTests(root: string, entries: readonly string[]): Promise<{ files: string[]; remove: () => void }> {
  removeStaleBuilds(join(root, BUILD_ROOT));
  const out = join(root, BUILD_ROOT, `tests-${process.pid}-${Date.now().toString(36)}`);
  const files = await transpileModules(root, out, entries);
  return { files, remove: () => rmSync(out, { recursive: true, force: true }) };
}

/**
 * Compiles the server before test files start `punchcard` processes, several at once (bin/punchcard.js
 * compiles src/ on the first run after a change; `--help` starts nothing else).
 */
export function compileServer(root: string): void {
  spawnSync(process.execPath, [join(root, 'bin', 'punchcard.js'), '--help'], { cwd: root, stdio: 'ignore' });
}

/** Builds left by runs that were killed (a finished run removes its own) once they are an hour old. */
function removeStaleBuilds(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.startsWith('tests-') && Date.now() - statSync(path).mtimeMs > 3600_000) rmSync(path, { recursive: true, force: true });
  }
}
