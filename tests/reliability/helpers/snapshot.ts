import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../../src/store/db.ts';

// A fingerprint of everything stored: per table, the row count and a hash of all rows (order-free). Two
// equal snapshots mean not one byte of data changed in between — the malformed-input sweep's proof.

export interface TableState {
  rows: number;
  hash: string;
  /** The rows themselves, normalised, for showing what changed. */
  lines: string[];
}

/** Tables the migration tool owns; they are not data. */
const IGNORED = new Set(['kysely_migration', 'kysely_migration_lock']);

function normalise(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `hex:${value.toString('hex')}`;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, normalise((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** Every table, or with `projectId` only that project's rows (and its own `projects` row). */
export async function snapshot(db: Db, projectId?: string): Promise<Map<string, TableState>> {
  const out = new Map<string, TableState>();
  const tables = (await db.introspection.getTables()).filter((t) => !IGNORED.has(t.name)).sort((x, y) => x.name.localeCompare(y.name));
  for (const table of tables) {
    const name = table.name;
    const column = name === 'projects' ? 'id' : 'project_id';
    if (projectId !== undefined && !table.columns.some((c) => c.name === column)) continue;
    const result =
      projectId === undefined
        ? await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)
        : await sql<Record<string, unknown>>`select * from ${sql.table(name)} where ${sql.ref(column)} = ${projectId}`.execute(db);
    const lines = result.rows.map((row) => JSON.stringify(normalise(row))).sort();
    const hash = createHash('sha256').update(lines.join('\n')).digest('hex');
    out.set(name, { rows: lines.length, hash, lines });
  }
  return out;
}

/** Human-readable differences between two snapshots (empty when equal). */
export function compareSnapshots(before: Map<string, TableState>, after: Map<string, TableState>): string[] {
  const problems: string[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(name);
    const b = after.get(name);
    if (a?.hash === b?.hash) continue;
    const beforeLines = new Set(a?.lines ?? []);
    const afterLines = new Set(b?.lines ?? []);
    const added = [...afterLines].filter((l) => !beforeLines.has(l)).slice(0, 3);
    const removed = [...beforeLines].filter((l) => !afterLines.has(l)).slice(0, 3);
    problems.push(
      `${name}: ${a?.rows ?? 0} → ${b?.rows ?? 0} rows; now: ${added.map((l) => l.slice(0, 400)).join(' | ')}; was: ${removed.map((l) => l.slice(0, 400)).join(' | ')}`,
    );
  }
  return problems;
}
