import { sql, type RawBuilder } from 'kysely';

// Reads of rows by their ids (`id in (…)`) name their project like every query, but the project must not
// decide how the rows are found. SQLite plans without statistics and expects an equality on the first
// column of an index to match about ten rows, so once three or more ids were asked for it chose an index
// that starts with project_id (vouchers_last_change, events_project_seq, products_modified) and walked
// every row of the project: 28 ms for three vouchers among 150k, against 0.14 ms by their primary key.
// Written as an expression, the project condition is served by no index: the ids are looked up, and the
// condition then checks each row found. PostgreSQL plans from statistics and finds the ids by key either way.

/** `project_id` as a check on rows found by their ids, never as an index key: `.where(projectCheck(), '=', projectId)`. */
export function projectCheck(column = 'project_id'): RawBuilder<string> {
  return sql<string>`(${sql.ref(column)} || '')`;
}

/**
 * The rows of a lookup by id and by source id at once, each once. Such a lookup is two indexed reads in
 * one statement (`… where id in (…) union all … where source_id in (…)`): written as `id in (…) or
 * source_id in (…)`, SQLite served neither from an index and walked the project. A row both find comes twice.
 */
export function distinctById<T extends { id: string }>(rows: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const row of rows) if (!byId.has(row.id)) byId.set(row.id, row);
  return [...byId.values()];
}
