import { PostgresAdapter, sql, type Expression, type ExpressionBuilder, type Insertable, type Selectable, type SqlBool } from 'kysely';
import type { Executor } from './db.ts';
import type { BinEntriesTable, Database } from './schema.ts';

// Bin entries: one row per resource moved to the bin. The binned resource keeps its own row (marked
// `binned_at`) until the entry is deleted, which deletes the resource for good.

export type BinEntryRow = Selectable<BinEntriesTable>;
export type BinResourceType = BinEntriesTable['resource_type'];

/** The bin entry object (platform reference 4.4); `object` repeats the resource type. */
export interface BinEntryObject {
  id: string;
  created_at: string;
  deleted_by_user_id: string | null;
  resource_id: string;
  resource_type: BinResourceType;
  resource_name: string | null;
  resource_parent_id: string | null;
  object: BinResourceType;
}

export function toBinEntryObject(row: BinEntryRow): BinEntryObject {
  return {
    id: row.id,
    created_at: row.created_at,
    deleted_by_user_id: row.deleted_by_user_id,
    resource_id: row.resource_id,
    resource_type: row.resource_type,
    resource_name: row.resource_name,
    resource_parent_id: row.resource_parent_id,
    object: row.resource_type,
  };
}

export async function insertBinEntry(db: Executor, row: Insertable<BinEntriesTable>): Promise<void> {
  await db.insertInto('bin_entries').values(row).execute();
}

export async function findBinEntry(db: Executor, projectId: string, id: string): Promise<BinEntryRow | undefined> {
  return db.selectFrom('bin_entries').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export async function deleteBinEntry(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('bin_entries').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Removes the entries of the given resources and of their children (a product's separately binned SKUs). */
export async function deleteBinEntriesOf(db: Executor, projectId: string, resourceId: string): Promise<void> {
  // Two statements, each served by its index: SQLite answered `resource_id = ? or resource_parent_id = ?`
  // by walking every bin entry of the project.
  await db.deleteFrom('bin_entries').where('project_id', '=', projectId).where('resource_id', '=', resourceId).execute();
  await db.deleteFrom('bin_entries').where('project_id', '=', projectId).where('resource_parent_id', '=', resourceId).execute();
}

export type BinField = 'id' | 'resource_id' | 'resource_name' | 'resource_type';

export type BinCondition =
  | { field: BinField; op: '$in' | '$not_in'; values: readonly string[] }
  | { field: BinField; op: '$is' | '$is_not' | '$starts_with' | '$ends_with' | '$contains' | '$not_contain'; value: string }
  | { field: BinField; op: '$has_value' | '$is_unknown' };

export interface BinQuery {
  projectId: string;
  limit: number;
  descending: boolean;
  /** Keyset cursor: entries strictly after this id in list order (the id need not exist). */
  startingAfterId?: string;
  junction: 'and' | 'or';
  conditions: readonly BinCondition[];
}

type Eb = ExpressionBuilder<Database, 'bin_entries'>;

// Characters as both databases count them (code points), for substr arithmetic.
const charLength = (text: string) => [...text].length;

function conditionExpr(eb: Eb, c: BinCondition, postgres: boolean): Expression<SqlBool> {
  const col = sql.ref<string | null>(c.field);
  const missing = eb.or([eb(col, 'is', null), eb(col, '=', '')]);
  // Text tests are exact and case-sensitive on both databases, so they avoid LIKE (case-insensitive on
  // SQLite, and wildcard characters in the needle would need escaping).
  const contains = (needle: string) =>
    postgres ? sql<SqlBool>`strpos(${col}, ${needle}) > 0` : sql<SqlBool>`instr(${col}, ${needle}) > 0`;
  switch (c.op) {
    case '$in':
      return c.values.length === 0 ? sql<SqlBool>`1 = 0` : eb(col, 'in', c.values);
    case '$not_in':
      return c.values.length === 0 ? sql<SqlBool>`1 = 1` : eb.or([eb(col, 'is', null), eb(col, 'not in', c.values)]);
    case '$is':
      return eb(col, '=', c.value);
    case '$is_not':
      return eb.or([eb(col, 'is', null), eb(col, '<>', c.value)]);
    case '$has_value':
      return eb.not(missing);
    case '$is_unknown':
      return missing;
    case '$starts_with':
      return sql<SqlBool>`substr(${col}, 1, ${charLength(c.value)}) = ${c.value}`;
    case '$ends_with': {
      const n = charLength(c.value);
      return sql<SqlBool>`(length(${col}) >= ${n} and substr(${col}, length(${col}) - ${n} + 1) = ${c.value})`;
    }
    case '$contains':
      return eb.and([eb(col, 'is not', null), contains(c.value)]);
    case '$not_contain':
      return eb.or([eb(col, 'is', null), eb.not(contains(c.value))]);
  }
}

export async function listBinEntries(db: Executor, q: BinQuery): Promise<{ rows: BinEntryRow[]; hasMore: boolean }> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  let query = db.selectFrom('bin_entries').selectAll().where('project_id', '=', q.projectId);
  if (q.startingAfterId !== undefined) query = query.where('id', q.descending ? '<' : '>', q.startingAfterId);
  if (q.conditions.length > 0) {
    query = query.where((eb) => {
      const parts = q.conditions.map((c) => conditionExpr(eb, c, postgres));
      return q.junction === 'or' ? eb.or(parts) : eb.and(parts);
    });
  }
  const rows = await query
    .orderBy('id', q.descending ? 'desc' : 'asc')
    .limit(q.limit + 1)
    .execute();
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}
