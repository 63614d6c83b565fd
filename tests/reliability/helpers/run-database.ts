import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../scripts/lib/throwaway-database.ts';
import type { Dialect } from '../../../src/store/db.ts';

// One fresh database per test file. The dialect follows scripts/test.ts and scripts/reliability.ts
// (PUNCHCARD_TEST_DB, PUNCHCARD_TEST_PG_URL); a random suffix keeps two runs on one PostgreSQL server
// apart.

export function reliabilityDialect(): Dialect {
  return process.env.PUNCHCARD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

export function createRunDatabase(label: string): Promise<ThrowawayDatabase> {
  const suffix = `${label}_${randomBytes(5).toString('hex')}`;
  if (reliabilityDialect() === 'sqlite') return createThrowawayDatabase({ dialect: 'sqlite', name: suffix, dir: join(tmpdir(), 'punchcard-reliability') });
  const adminUrl = process.env.PUNCHCARD_TEST_PG_URL;
  if (!adminUrl) throw new Error('PUNCHCARD_TEST_PG_URL must be set when PUNCHCARD_TEST_DB=postgres');
  return createThrowawayDatabase({ dialect: 'postgres', name: `pc_rel_${suffix}`, adminUrl });
}
