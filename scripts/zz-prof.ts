import { performance } from 'node:perf_hooks';
import { startTestApp } from '../tests/helpers/app.ts';
import { internalActor } from '../src/services/context.ts';
import { runExport } from '../src/services/exports/run-export.ts';
const t = await startTestApp({ clockStart: '2026-03-10T12:00:00.000Z' });
const filler = 'x'.repeat(1500);
for (let i = 0; i < 20000; i += 500) {
  const rows = [];
  for (let j = i; j < i + 500; j++) rows.push({ id: `cust_m${String(j).padStart(6, '0')}`, project_id: t.projectId, source_id: `m${j}`, metadata: JSON.stringify({ filler }), system_metadata: '{}', created_at: '2026-03-10T12:00:00.000Z' });
  await t.deps.db.insertInto('customers').values(rows).execute();
}
for (const fields of [['source_id'], ['source_id', 'metadata']]) {
  const created = await t.request('POST', '/v1/exports', { json: { exported_object: 'customer', parameters: { fields } } });
  const t0 = performance.now();
  await runExport(t.deps, internalActor(t.projectId, 'x'), t.projectId, created.body.id, { progress: async () => {} });
  console.log(process.env.PUNCHCARD_TEST_DB, fields.join('+'), Math.round(performance.now() - t0), 'ms', 'read', Math.round((globalThis as any).READ), 'write', Math.round((globalThis as any).WRITE)); (globalThis as any).READ = 0; (globalThis as any).WRITE = 0;
}
await t.close();
