import { sql, type RawBuilder } from 'kysely';
import { UnreadableStoredJson } from '../lib/unreadable-rows.ts';
import type { Dialect } from './db.ts';

// JSON members live in text columns on both databases.

/**
 * A JSON escape PostgreSQL's jsonb refuses: `\u0000` (NUL) or a surrogate half. JSON.stringify writes
 * a surrogate as an escape only when it is alone, so every match is a document jsonb cannot read. The
 * escape must not itself be escaped (`\\u0000` is a backslash followed by text).
 */
const UNREADABLE_ESCAPE = String.raw`(^|[^\\])(\\\\)*\\u(0000|d[89a-f])`;

/**
 * The column's JSON where the database's JSON functions can read it, else NULL (as jsonb on PostgreSQL,
 * as text on SQLite). Rows written before the write-time limits (src/api/free-form.ts; migration
 * 0026 repairs them) may hold JSON that SQLite refuses (nested deeper than 1000 levels) or PostgreSQL
 * refuses (NUL or lone surrogate escapes). A filter or export reading such a row through this sees no
 * value and skips it, instead of failing the whole statement for everyone.
 */
export function readableJson(dialect: Dialect, column: string): RawBuilder<unknown> {
  const ref = sql.ref(column);
  if (dialect === 'postgres') {
    // Most documents hold no escape at all; only those that do are matched against the pattern.
    return sql`(case when strpos(${ref}, ${'\\u'}) = 0 or ${ref} !~* ${UNREADABLE_ESCAPE} then cast(${ref} as jsonb) end)`;
  }
  return sql`(case when json_valid(${ref}) then ${ref} end)`;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/**
 * The stored JSON's value (`fallback` when the column is empty). A text that does not parse, which only a
 * damaged database holds, throws UnreadableStoredJson: a list leaves that row out (src/lib/unreadable-rows.ts).
 */
export function fromJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UnreadableStoredJson(text);
  }
}

/** The text value of a top-level member of a JSON text column, for filters (`metadata.tier`, `address.city`). */
export function jsonMemberText(dialect: Dialect, column: string, member: string): RawBuilder<string | null> {
  if (dialect === 'postgres') return sql<string | null>`(${readableJson(dialect, column)} ->> ${member})`;
  return sql<string | null>`json_extract(${readableJson(dialect, column)}, ${'$.' + JSON.stringify(member)})`;
}
