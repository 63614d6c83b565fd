import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { sortableIds } from '../src/lib/ids.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { loadVendorOpenApi, routerTemplate, vendorOpenApiPath, vendorOperations } from './lib/vendor-openapi.ts';

// Counts the vendor OpenAPI operations the app has a route for: same method, same path template.
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

process.stdout.write(`${operations.length - missing.length} of ${operations.length} vendor operations are served\n`);
if (listMissing) for (const op of missing) process.stdout.write(`  missing: ${op.method} ${op.path} (${op.operationId})\n`);
