import { transform } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// TypeScript to JavaScript, module by module, for the server (bin/punchcard.js, scripts/build-server.ts)
// and the test files (./compile-tests.ts): on Node 20, the tsx loader runs its hooks in a thread of its
// own, and every import of every module waits on a round trip to it; that thread also keeps ~50 MB.
//
// Each entry and every TypeScript module it reaches through relative imports is transpiled on its own by
// esbuild (the compiler tsx itself uses; no bundling, no type check: `tsc --noEmit` does that) into a
// mirror of the repository under `out`, with `.ts` imports pointing at the `.js` files beside them.
// `import.meta.dirname`, `.filename` and `.url` keep naming the source file, so paths built from them
// (migrations, web/dist, fixtures, package.json) reach the same files as from source, and the inline
// source maps make stack traces name the .ts lines (with source maps enabled).

// esbuild prints every import specifier in double quotes; a template literal that happens to hold
// `from './x.ts'` (a test writing a file) keeps its text, and so does a name no source file has.
const RELATIVE_TS_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\.{1,2}\/[^"\n]+?)\.ts"/g;

/**
 * Transpiles `entries` (paths relative to `root`) and what they import into `out`; answers the compiled
 * path of each entry, in order.
 */
export async function transpileModules(root: string, out: string, entries: readonly string[]): Promise<string[]> {
  const compiled = new Map<string, Promise<void>>();
  const compile = (source: string): Promise<void> => {
    let done = compiled.get(source);
    if (!done) {
      done = transpileOne(root, out, source, compile);
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
  return entries.map((entry) => outputPath(root, out, resolve(root, entry)));
}

function outputPath(root: string, out: string, source: string): string {
  return join(out, relative(root, source)).replace(/\.ts$/, '.js');
}

async function transpileOne(root: string, out: string, source: string, compile: (source: string) => Promise<void>): Promise<void> {
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
