import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { sortableIds } from '../src/lib/ids.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { loadVendorOpenApi, routerTemplate, vendorOpenApiPath, vendorOperations } from './lib/vendor-openapi.ts';

// Counts the vendor OpenAPI operations the app has a route for (same method, same path template) and
// those the committed openapi.json documents; --missing lists the operations short of either.
// Usage: npx tsx scripts/count-vendor-operations.ts [--missing] [path/to/vendor-openapi.json]

const args = process.argv.slice(2);
const listMissing = args.includes('--missing');
const operations = vendorOperations(loadVendorOpenApi(args.find((a) => !a.startsWith('--')) ?? vendorOpenApiPath()));

const config = loadConfig({ DATABASE_URL: 'sqlite::memory:' });
const handle = openDatabase(config.databaseUrl);
await migrateToLatest(handle.db);
const boot = await bootstrap({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config });
const app = await buildApp({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper: boot.pepper });
await app.ready();
const missing = operations.filter((op) => !app.hasRoute({ method: op.method as 'GET', url: routerTemplate(op.path) }));
await app.close();
await handle.close();

// Parameter names differ between the documents (`{campaignId}` / `{id}`); the shape of the path does not.
const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
const ours = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
const documented = new Set(Object.entries(ours.paths).flatMap(([path, item]) => Object.keys(item).map((method) => shape(method, path))));
const undocumented = operations.filter((op) => !documented.has(shape(op.method, op.path)));

process.stdout.write(`${operations.length - missing.length} of ${operations.length} vendor operations are served\n`);
process.stdout.write(`${operations.length - undocumented.length} of ${operations.length} are documented in openapi.json\n`);
if (listMissing) {
  for (const op of missing) process.stdout.write(`  not served: ${op.method} ${op.path} (${op.operationId})\n`);
  for (const op of undocumented) process.stdout.write(`  not documented: ${op.method} ${op.path} (${op.operationId})\n`);
}
