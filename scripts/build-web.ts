import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

// Builds the console and the customer cockpit (web/) into web/dist, so `npm install && npm start` serve
// them with no extra command: it runs as the root package's `postinstall`, and `punchcard start` runs it
// when the pages are missing (an install made with --ignore-scripts; bin/punchcard.js). web/ has its own
// package.json and lock: its dependencies are installed with `npm ci` there when its lock changed. A
// build is skipped when nothing it reads changed since the last one (a fingerprint of the inputs is kept
// in web/dist), so a repeated install or test run costs ~nothing. Each built asset gets a brotli (.br) and
// a gzip (.gz) copy at the best compression, which the server sends to clients that accept them
// (src/http/routes/console/assets.ts), so no asset is compressed per request.
//
//   tsx scripts/build-web.ts   build when an input changed

const root = join(import.meta.dirname, '..');
const web = join(root, 'web');
const dist = join(web, 'dist');
const FINGERPRINT = join(dist, '.build-fingerprint');
const LOCK_STAMP = join(web, 'node_modules', '.punchcard-lock-hash');

/** Files the build reads: the web project, and the role table it shares with the server. */
function inputs(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk(join(web, 'src'));
  for (const name of ['index.html', 'cockpit.html', 'vite.config.ts', 'tsconfig.json', 'package-lock.json']) out.push(join(web, name));
  out.push(join(root, 'src', 'domain', 'auth', 'roles.ts'));
  // This script: a change in what the build writes (e.g. the compressed copies) builds again.
  out.push(import.meta.filename);
  return out;
}

function hashOf(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim() : null);

/** The parent npm's settings that would change what a nested install does (e.g. --omit=dev). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_config_(omit|only|production|dev|global|prefix|workspaces?|include_workspace_root|ignore_scripts|dry_run)$/i.test(key)) delete env[key];
  }
  return env;
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: cleanEnv() });
  if (result.status !== 0) {
    process.stderr.write(`build-web: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(1);
  }
}

/** Kinds of asset worth compressing (images and fonts Vite emits are compressed already). */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map)$/;

/**
 * Writes `<asset>.br` and `<asset>.gz` next to each compressible asset: brotli at quality 11 and gzip at
 * level 9, the smallest each makes; it costs a few seconds once per build instead of CPU on every request.
 */
function compressAssets(folder: string): void {
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder)) {
    if (!COMPRESSIBLE.test(name)) continue;
    const path = join(folder, name);
    const plain = readFileSync(path);
    writeFileSync(`${path}.br`, brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length } }));
    writeFileSync(`${path}.gz`, gzipSync(plain, { level: 9 }));
  }
}

export function buildWeb(): 'built' | 'fresh' {
  const lockHash = hashOf([join(web, 'package-lock.json')]);
  if (read(LOCK_STAMP) !== lockHash) {
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], web);
    writeFileSync(LOCK_STAMP, `${lockHash}\n`);
  }
  const fingerprint = hashOf(inputs());
  if (read(FINGERPRINT) === fingerprint && existsSync(join(dist, 'index.html')) && existsSync(join(dist, 'cockpit.html'))) return 'fresh';
  run(process.execPath, [join(web, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], web);
  compressAssets(join(dist, 'assets'));
  writeFileSync(FINGERPRINT, `${fingerprint}\n`);
  return 'built';
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const started = Date.now();
  const result = buildWeb();
  process.stdout.write(result === 'built' ? `Console built into web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s\n` : 'Console is up to date (web/dist)\n');
}
