import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { sortableIds } from '../src/lib/ids.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';

// Writes openapi.json from the route schemas; with --check, fails when the committed file differs.

const target = join(import.meta.dirname, '..', 'openapi.json');
const check = process.argv.includes('--check');

const config = loadConfig({ DATABASE_URL: 'sqlite::memory:' });
const handle = openDatabase(config.databaseUrl);
await migrateToLatest(handle.db);
const boot = await bootstrap({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config });
const app = await buildApp({ db: handle.db, dialect: handle.dialect, clock: systemClock, ids: sortableIds, config, pepper: boot.pepper });
// One line: the document is for tools (and the served /openapi.json is the same bytes); its
// named schemas and examples make it readable in any JSON viewer or at /docs.
const text = `${JSON.stringify(app.swagger())}\n`;
await app.close();
await handle.close();

if (check) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = '';
  }
  if (committed !== text) {
    process.stderr.write('openapi.json is out of date with the route schemas: run `npm run openapi` and commit the result\n');
    process.exit(1);
  }
  process.stdout.write('openapi.json is up to date\n');
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
