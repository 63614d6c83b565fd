import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './db.ts';

// JSON members live in text columns on both databases.

export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function fromJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}

/** The text value of a top-level member of a JSON text column, for filters (`metadata.tier`, `address.city`). */
export function jsonMemberText(dialect: Dialect, column: string, member: string): RawBuilder<string | null> {
  if (dialect === 'postgres') return sql<string | null>`(${sql.ref(column)}::jsonb ->> ${member})`;
  return sql<string | null>`json_extract(${sql.ref(column)}, ${'$.' + JSON.stringify(member)})`;
}
