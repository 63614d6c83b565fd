import { transform } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// `npm test` runs compiled JavaScript, not TypeScript through the tsx loader. On Node 20 the loader's
// hooks run in a thread of their own and every import of every module (the app's ~400 and its packages'
// hundreds) waits on a round trip to it. One API test file cost 4.4–5.0 s of CPU through the loader and
// 3.0–3.8 s compiled, and a run starts about 250 test files.
//
// Each test file and every TypeScript module it reaches through relative imports is transpiled on its own
// by esbuild (the compiler tsx itself uses; no bundling, no type check: `tsc --noEmit` does that) into
// a mirror of the repository under .build/, with `.ts` imports pointing at the `.js` files beside them.
// `import.meta.dirname`, `.filename` and `.url` keep naming the source file, so paths built from them
// (migrations, web/dist, fixtures, package.json) reach the same files as before, and the inline source
// maps make stack traces name the .ts lines (node --enable-source-maps). Child processes the tests start
// (`punchcard start`, scripts) still run from the sources.

const BUILD_ROOT = '.build';
// esbuild prints every import specifier in double quotes; a template literal that happens to hold
// `from './x.ts'` (a test writing a file) keeps its text, and so does a name no source file has.
const RELATIVE_TS_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\.{1,2}\/[^"\n]+?)\.ts"/g;

/**
 * Compiles `entries` (paths relative to `root`) and what they import into a new directory under
 * .build/; answers the compiled path of each entry, in order, and a function that removes the directory.
 */
export async function compileTests(root: string, entries: readonly string[]): Promise<{ files: string[]; remove: () => void }> {
  removeStaleBuilds(join(root, BUILD_ROOT));
  const out = join(root, BUILD_ROOT, `tests-${process.pid}-${Date.now().toString(36)}`);
  const compiled = new Map<string, Promise<void>>();
  const compile = (source: string): Promise<void> => {
    let done = compiled.get(source);
    if (!done) {
      done = compileOne(root, out, source, compile);
      // Handled here so a failure nobody awaits yet is not reported as unhandled; the waits below see it.
      done.catch(() => undefined);
      compiled.set(source, done);
    }
    return done;
  };
  // A module graph is walked breadth-first as imports are found; wait until no compilation is pending.
  await Promise.all(entries.map((entry) => compile(resolve(root, entry))));
  for (let settled = 0; settled < compiled.size; ) {
    settled = compiled.size;
    await Promise.all(compiled.values());
  }
  return {
    files: entries.map((entry) => outputPath(root, out, resolve(root, entry))),
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}

function outputPath(root: string, out: string, source: string): string {
  return join(out, relative(root, source)).replace(/\.ts$/, '.js');
}

async function compileOne(root: string, out: string, source: string, compile: (source: string) => Promise<void>): Promise<void> {
  const url = pathToFileURL(source).href;
  const result = await transform(readFileSync(source, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: source,
    sourcemap: 'inline',
    sourcesContent: false,
    // As tsconfig.json compiles (target ES2022: class fields are defined, not assigned).
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
    define: {
      'import.meta.url': JSON.stringify(url),
      'import.meta.filename': JSON.stringify(source),
      'import.meta.dirname': JSON.stringify(dirname(source)),
    },
  });
  const imports: string[] = [];
  const code = result.code.replace(RELATIVE_TS_IMPORT, (match, lead: string, path: string) => {
    const imported = resolve(dirname(source), `${path}.ts`);
    if (!existsSync(imported)) return match;
    imports.push(imported);
    return `${lead}"${path}.js"`;
  });
  const target = outputPath(root, out, source);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, code);
  for (const imported of imports) void compile(imported);
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
