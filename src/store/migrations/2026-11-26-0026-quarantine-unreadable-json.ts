import { sql, type Kysely } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

// Before free-form JSON was held to limits at write time (src/http/schemas/free-form.ts), the API
// stored whatever a client sent, and one such document could break reads for the whole project:
// SQLite's JSON functions refuse nesting deeper than 1000 levels, PostgreSQL's jsonb refuses `\u0000`
// and lone surrogate escapes, so every list or export whose filter touched the column failed. This
// migration finds the documents that break a reader of this database, and the free-form ones larger
// than the new 64 KiB limit, keeps each original in `quarantined_json` (project, table, row id, column,
// reason) and stores a readable version in its place:
// - a free-form column (metadata, SKU attributes, address) becomes empty (`{}`, NULL for the address):
//   its whole content was the client's and stays available, unchanged, in the quarantine;
// - a snapshot, log or definition column (events, order items, redemption snapshots, campaign members,
//   rule and filter definitions) keeps its shape: strings lose NUL characters, lone surrogates become
//   U+FFFD, and anything nested deeper than 64 levels becomes an empty object or array.
// Readers guard their JSON access too (src/store/json.ts), so a row this misses is skipped, not fatal.
// Going down puts the originals back and drops the quarantine.

/** The new limit on one free-form value (FREE_FORM_LIMITS.bytes at the time of writing). */
const FREE_FORM_BYTES = 64 * 1024;
/** SQLite's JSON functions read at most this many levels. */
const SQLITE_JSON_DEPTH = 1000;
/** Snapshots keep this many levels when repaired (the JSON body limit at the time of writing). */
const KEPT_DEPTH = 64;
const BATCH = 500;

interface Target {
  table: string;
  /** The row's id column (unique with project_id). */
  id: string;
  column: string;
  /** Free-form: replaced by `empty` when it breaks a rule. Otherwise repaired in place (see above). */
  empty?: '{}' | null;
}

const freeForm = (table: string, column: string, empty: '{}' | null = '{}'): Target => ({ table, id: 'id', column, empty });
const kept = (table: string, column: string, id = 'id'): Target => ({ table, id, column });

const TARGETS: Target[] = [
  freeForm('customers', 'metadata'),
  freeForm('customers', 'address', null),
  freeForm('products', 'metadata'),
  freeForm('skus', 'metadata'),
  freeForm('skus', 'attributes'),
  freeForm('campaigns', 'metadata'),
  freeForm('vouchers', 'metadata'),
  freeForm('publications', 'metadata'),
  freeForm('redemptions', 'metadata'),
  freeForm('orders', 'metadata'),
  freeForm('redeemable_holders', 'metadata'),
  freeForm('earning_rules', 'metadata'),
  freeForm('loyalty_tiers', 'metadata'),
  freeForm('rewards', 'metadata'),
  freeForm('promotion_tiers', 'metadata'),
  freeForm('referral_tiers', 'metadata'),
  kept('orders', 'items'),
  kept('events', 'data'),
  kept('campaigns', 'voucher_template'),
  kept('campaigns', 'referral_program'),
  kept('campaigns', 'loyalty_tiers_expiration'),
  kept('validation_rules', 'rules'),
  kept('validation_rules', 'applicable_to'),
  kept('segments', 'filter'),
  kept('product_collections', 'filter'),
  kept('exports', 'parameters'),
  ...['order_snapshot', 'customer_snapshot', 'voucher_snapshot', 'promotion_tier_snapshot', 'reward_snapshot'].map((c) => kept('redemption_snapshots', c, 'redemption_id')),
];

const LONE_SURROGATE = /\p{Cs}/gu;

interface Findings {
  depth: number;
  nul: boolean;
  loneSurrogate: boolean;
}

/** Nesting depth and unreadable text of a parsed document, without recursion. */
function inspect(value: unknown): Findings {
  const found: Findings = { depth: 0, nul: false, loneSurrogate: false };
  const text = (s: string) => {
    if (s.includes('\u0000')) found.nul = true;
    if (s.match(LONE_SURROGATE)) found.loneSurrogate = true;
  };
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, level] = stack.pop() as [unknown, number];
    if (typeof current === 'string') text(current);
    if (current === null || typeof current !== 'object') continue;
    found.depth = Math.max(found.depth, level);
    if (Array.isArray(current)) for (const v of current) stack.push([v, level + 1]);
    else
      for (const [k, v] of Object.entries(current)) {
        text(k);
        stack.push([v, level + 1]);
      }
  }
  return found;
}

/** Why this stored document breaks a rule, or null when it does not. */
function reasonsFor(text: string, target: Target): { reasons: string[]; value: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reasons: ['not valid JSON'], value: undefined };
  }
  const found = inspect(value);
  const reasons: string[] = [];
  if (found.depth > SQLITE_JSON_DEPTH) reasons.push(`nested ${found.depth} levels deep (SQLite's JSON functions read ${SQLITE_JSON_DEPTH})`);
  if (found.nul) reasons.push('contains a NUL character (PostgreSQL jsonb cannot hold it)');
  if (found.loneSurrogate) reasons.push('contains a lone UTF-16 surrogate (PostgreSQL jsonb cannot hold it)');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (target.empty !== undefined && bytes > FREE_FORM_BYTES) reasons.push(`${bytes} bytes, more than the ${FREE_FORM_BYTES} allowed`);
  return reasons.length === 0 ? null : { reasons, value };
}

function cleanText(s: string): string {
  return s.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\ufffd');
}

/** The document with its text cleaned and its nesting cut at KEPT_DEPTH. */
function repaired(value: unknown, level = 1): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return level > KEPT_DEPTH ? [] : value.map((v) => repaired(v, level + 1));
  if (level > KEPT_DEPTH) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), repaired(v, level + 1)]));
}

/** Rows that may break a rule, found cheaply by the database; reasonsFor decides. */
function candidates(db: Kysely<MigrationDb>, target: Target) {
  const column = sql.ref(target.column);
  const escapes = isPostgres(db) ? sql`strpos(${column}, ${'\\u'}) > 0` : sql`(json_valid(${column}) = 0 or instr(${column}, ${'\\u'}) > 0)`;
  const oversized = target.empty !== undefined ? sql` or octet_length(${column}) > ${FREE_FORM_BYTES}` : sql``;
  return sql`(${column} is not null and (${escapes}${oversized}))`;
}

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('quarantined_json')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('row_id', 'text', (c) => c.notNull())
    .addColumn('column_name', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('original', 'text', (c) => c.notNull())
    .addColumn('quarantined_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('quarantined_json_pkey', ['project_id', 'table_name', 'row_id', 'column_name'])
    .execute();
  const at = new Date().toISOString();
  for (const target of TARGETS) {
    const id = sql.ref(target.id);
    let after: { id: string; project_id: string } | null = null;
    for (;;) {
      const position = after === null ? sql`` : sql` and (${id} > ${after.id} or (${id} = ${after.id} and project_id > ${after.project_id}))`;
      const { rows } = await sql<{ id: string; project_id: string; value: string }>`
        select ${id} as id, project_id, ${sql.ref(target.column)} as value from ${sql.table(target.table)}
        where ${candidates(db, target)}${position} order by ${id}, project_id limit ${BATCH}`.execute(db);
      for (const row of rows) {
        const broken = reasonsFor(row.value, target);
        if (!broken) continue;
        const replacement = target.empty !== undefined ? target.empty : broken.value === undefined ? '{}' : JSON.stringify(repaired(broken.value));
        await db
          .insertInto('quarantined_json')
          .values({ project_id: row.project_id, table_name: target.table, row_id: row.id, column_name: target.column, reason: broken.reasons.join('; '), original: row.value, quarantined_at: at })
          .execute();
        await sql`update ${sql.table(target.table)} set ${sql.ref(target.column)} = ${replacement} where project_id = ${row.project_id} and ${id} = ${row.id}`.execute(db);
      }
      if (rows.length < BATCH) break;
      const last = rows[rows.length - 1] as { id: string; project_id: string };
      after = { id: last.id, project_id: last.project_id };
    }
  }
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  const quarantined = await db.selectFrom('quarantined_json').selectAll().execute();
  for (const row of quarantined) {
    const target = TARGETS.find((t) => t.table === row.table_name && t.column === row.column_name) as Target;
    await sql`update ${sql.table(target.table)} set ${sql.ref(target.column)} = ${row.original} where project_id = ${row.project_id} and ${sql.ref(target.id)} = ${row.row_id}`.execute(db);
  }
  await db.schema.dropTable('quarantined_json').ifExists().execute();
}
