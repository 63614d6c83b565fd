import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import type { Database } from './schema.ts';

// Prefix search over a project's customers (GET /v1/customers?q=, a Punchcard extension): names from the
// start of any word, e-mail addresses, phone numbers and source_ids. Every branch is a range over an index
// (`key >= prefix AND key < successor(prefix)`), never a LIKE scan, so wildcard characters in what a
// person types are plain characters and a million customers cost an index probe per branch.
//
// Keys are made here, in one place, on write and on search alike: both databases then agree on what
// matches, whatever their own lower() does with non-ASCII letters. They compare in code point order
// (SQLite's BINARY; PostgreSQL columns and indexes declared COLLATE "C"), in which every string that
// starts with a prefix lies in one contiguous range.

/** Longest key kept (and longest search accepted): index entries stay far below PostgreSQL's btree limit. */
export const SEARCH_KEY_LENGTH = 255;

/** A name's parts are indexed from the start of at most this many words (a bound on the write cost). */
const MAX_NAME_PARTS = 6;

/** Lower case without accents, runs of white space as one space: what names and e-mails are compared as. */
export function searchText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim();
}

function clip(value: string): string {
  // Cut on code points, never inside a surrogate pair.
  return [...value].slice(0, SEARCH_KEY_LENGTH).join('');
}

/**
 * The name from the start of each of its words: "Alice Smith" gives "alice smith" and "smith", so "ali",
 * "alice sm" and "smi" all find her. One row each in customer_name_parts.
 */
export function nameParts(name: string | null | undefined): string[] {
  if (!name) return [];
  const text = searchText(name);
  const parts: string[] = [];
  for (const match of text.matchAll(/(?:^|[\s\-'.,/&(]+)(?=[\p{L}\p{N}])/gu)) {
    const part = clip(text.slice(match.index + match[0].length));
    if (part !== '' && !parts.includes(part)) parts.push(part);
    if (parts.length === MAX_NAME_PARTS) break;
  }
  return parts;
}

export function emailKey(email: string | null | undefined): string | null {
  if (!email) return null;
  return clip(searchText(email)) || null;
}

/** Digits and a leading plus only: "+44 7700-900 123" and "+447700900123" are the same number to a person. */
export function phoneKey(phone: string | null | undefined): string | null {
  if (!phone) return null;
  return clip(phone.replace(/[^\d+]/gu, '')) || null;
}

/**
 * The least string greater than every string starting with `prefix` (in code point order), or undefined
 * when there is none (a prefix of only U+10FFFF): the exclusive upper end of the prefix's range.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0) ?? 0);
  while (points.length > 0) {
    const last = (points.pop() ?? 0) + 1;
    if (last > 0x10ffff) continue;
    // No string holds a lone surrogate; the next code point after them is U+E000.
    points.push(last >= 0xd800 && last <= 0xdfff ? 0xe000 : last);
    return String.fromCodePoint(...points);
  }
  return undefined;
}

/** `key` within the range of strings starting with `prefix`. */
function startsWith(key: RawBuilder<string | null>, prefix: string): RawBuilder<SqlBool> {
  const end = prefixEnd(prefix);
  return end === undefined ? sql<SqlBool>`${key} >= ${prefix}` : sql<SqlBool>`${key} >= ${prefix} and ${key} < ${end}`;
}

/**
 * `customers.id IN (…)`: the customers of the project whose name, e-mail, phone or source_id starts with
 * `search`. Each branch reads one index: customer_name_parts' primary key, customers_email_key,
 * customers_phone_key, and the source_id index (customers_source_id; on PostgreSQL customers_source_prefix,
 * which orders by code point). Hidden customers' name parts stay until the erasure; the caller's
 * `deleted_at is null` leaves them out.
 */
export function customerSearchCondition(db: Executor, eb: ExpressionBuilder<Database, 'customers'>, projectId: string, search: string): Expression<SqlBool> {
  const text = clip(searchText(search));
  const phone = phoneKey(search);
  const sourceId = clip(search.trim());
  const liveWhere = (key: RawBuilder<string | null>, prefix: string) =>
    eb
      .selectFrom('customers as s')
      .select('s.id')
      .where('s.project_id', '=', projectId)
      .where('s.deleted_at', 'is', null)
      .where(startsWith(key, prefix));
  let ids = eb
    .selectFrom('customer_name_parts as p')
    .select('p.customer_id as id')
    .where('p.project_id', '=', projectId)
    .where(startsWith(sql.ref('p.name_part'), text))
    .union(liveWhere(sql.ref('s.email_key'), text));
  // A search without a digit cannot start a phone number; skipping the branch saves a probe.
  if (phone !== null && /\d/u.test(phone)) ids = ids.union(liveWhere(sql.ref('s.phone_key'), phone));
  if (sourceId !== '') {
    // The partial index customers_source_id covers rows with a source_id; SQLite infers that from the range.
    const key = isPostgres(db) ? sql<string>`(s.source_id collate "C")` : sql<string>`s.source_id`;
    ids = ids.union(liveWhere(key, sourceId));
  }
  return eb('customers.id', 'in', ids);
}

/** Replaces a customer's name parts: `before` is the name the rows were made from, `after` the new one. */
export async function writeNameParts(
  db: Executor,
  projectId: string,
  customerId: string,
  before: string | null | undefined,
  after: string | null | undefined,
): Promise<void> {
  const old = nameParts(before);
  const next = nameParts(after);
  const gone = old.filter((p) => !next.includes(p));
  const added = next.filter((p) => !old.includes(p));
  // The old parts are named exactly, so the delete walks the primary key instead of needing an index by customer.
  if (gone.length > 0) {
    await db.deleteFrom('customer_name_parts').where('project_id', '=', projectId).where('name_part', 'in', gone).where('customer_id', '=', customerId).execute();
  }
  if (added.length > 0) {
    await db
      .insertInto('customer_name_parts')
      .values(added.map((name_part) => ({ project_id: projectId, name_part, customer_id: customerId })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}
