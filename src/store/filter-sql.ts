import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { FieldSpec, FilterCondition, FilterValue, ParsedFilter } from '../domain/filters/filter.ts';
import { queryInstant } from '../domain/time/query-instant.ts';
import type { Dialect } from './db.ts';
import { readableJson } from './json.ts';

// Turns a parsed list filter (src/domain/filters/filter.ts) into one SQL condition over the filtered
// table's columns, identically on SQLite and PostgreSQL. Membership of segments and collections is
// decided only here, so a count, a page and a single-row check can never disagree.
//
// Semantics that hold on both dialects:
// - text compares exactly (case-sensitive); `$contains`/`$starts_with`/`$ends_with` never treat `%` or
//   `_` as wildcards;
// - a JSON member compares by its text (`"5"`, `5` and `5.0` are not all equal, but `5` equals the
//   operand 5 and the string "5"); `$more_than` etc. only match JSON numbers;
// - a missing value fails every positive test and passes every negated one (`$is_not`, `$not_in`,
//   `$not_contain`, `$is_unknown`);
// - instants compare as normalised UTC ISO text; a date operand means midnight UTC; day windows are UTC.

type Condition = RawBuilder<SqlBool>;

const DAY_MS = 86_400_000;
const FALSE = sql<SqlBool>`(1 = 0)`;
const TRUE = sql<SqlBool>`(1 = 1)`;

/** NULL (unknown) counts as false, so negation and combination behave like two-valued logic. */
function known(condition: Condition): Condition {
  return sql<SqlBool>`(case when ${condition} then 1 else 0 end = 1)`;
}

function negate(condition: Condition): Condition {
  return sql<SqlBool>`(case when ${condition} then 0 else 1 end = 1)`;
}

function any(conditions: Condition[]): Condition {
  return conditions.length === 0 ? FALSE : sql<SqlBool>`(${sql.join(conditions, sql` or `)})`;
}

function all(conditions: Condition[]): Condition {
  return conditions.length === 0 ? TRUE : sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

function jsonPath(member: string): string {
  return `$.${JSON.stringify(member)}`;
}

/**
 * The member's value as text: strings as they are, numbers in their JSON form, booleans `true`/`false`.
 * A document the database cannot read has no members (src/store/json.ts readableJson).
 */
function jsonText(dialect: Dialect, column: string, member: string): RawBuilder<string | null> {
  const json = readableJson(dialect, column);
  if (dialect === 'postgres') return sql<string | null>`(${json} ->> cast(${member} as text))`;
  const path = jsonPath(member);
  return sql<string | null>`(case json_type(${json}, ${path}) when 'true' then 'true' when 'false' then 'false' when 'null' then null else cast(json_extract(${json}, ${path}) as text) end)`;
}

/** The member's value when it is a JSON number, else NULL. */
function jsonNumber(dialect: Dialect, column: string, member: string): RawBuilder<number | null> {
  const json = readableJson(dialect, column);
  if (dialect === 'postgres') {
    return sql<number | null>`(case when jsonb_typeof(${json} -> cast(${member} as text)) = 'number' then (${json} ->> cast(${member} as text))::numeric end)`;
  }
  const path = jsonPath(member);
  return sql<number | null>`(case when json_type(${json}, ${path}) in ('integer', 'real') then json_extract(${json}, ${path}) end)`;
}

function contains(dialect: Dialect, text: RawBuilder<unknown>, needle: string): Condition {
  return dialect === 'postgres' ? sql<SqlBool>`(strpos(${text}, ${needle}) > 0)` : sql<SqlBool>`(instr(${text}, ${needle}) > 0)`;
}

function startsWith(text: RawBuilder<unknown>, prefix: string): Condition {
  return sql<SqlBool>`(substr(${text}, 1, length(cast(${prefix} as text))) = ${prefix})`;
}

function endsWith(text: RawBuilder<unknown>, suffix: string): Condition {
  const n = sql`length(cast(${suffix} as text))`;
  return sql<SqlBool>`(length(${text}) >= ${n} and substr(${text}, length(${text}) - ${n} + 1) = ${suffix})`;
}

const COMPARATORS = { $more_than: '>', $less_than: '<', $more_than_equal: '>=', $less_than_equal: '<=' } as const;

function numberParam(value: FilterValue): RawBuilder<number> {
  // An explicit numeric type: PostgreSQL would otherwise read the parameter as the column's integer type
  // and refuse a fractional operand.
  return sql<number>`cast(${value} as numeric)`;
}

function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The instant a filter value names (a date means midnight UTC). */
function instantOf(value: FilterValue): string {
  return queryInstant(String(value));
}

function dateOf(value: FilterValue): string {
  return instantOf(value).slice(0, 10);
}

/** Whether the JSON array in `column` has `day` among its members (NULL when the column is unreadable or unset). */
function listHas(dialect: Dialect, column: string, day: FilterValue): Condition {
  const json = readableJson(dialect, column);
  if (dialect === 'postgres') return sql<SqlBool>`(${json} @> cast(${JSON.stringify([Number(day)])} as jsonb))`;
  return sql<SqlBool>`(exists (select 1 from json_each(${json}) where json_each.value = ${Number(day)}))`;
}

function condition(dialect: Dialect, spec: FieldSpec, c: FilterCondition, now: Date): Condition {
  const ref: RawBuilder<unknown> = spec.onlyWith ? sql`(case when ${sql.ref(spec.onlyWith)} is not null then ${sql.ref(spec.column)} end)` : sql`${sql.ref(spec.column)}`;
  const column: RawBuilder<unknown> =
    spec.kind === 'absent'
      ? sql`cast(null as text)`
      : spec.kind === 'flag'
        ? sql`(case when ${ref} is null then null when ${ref} then 'true' else 'false' end)`
        : ref;
  const text: RawBuilder<unknown> = spec.kind === 'json' ? jsonText(dialect, spec.column, spec.member as string) : column;
  const nowMs = now.getTime();
  const [first] = c.values;

  const equals = (value: FilterValue): Condition => {
    switch (spec.kind) {
      case 'day_list':
        return listHas(dialect, spec.column, value);
      case 'text':
      case 'flag':
      case 'absent':
        return sql<SqlBool>`(${column} = ${String(value)})`;
      case 'number':
        return sql<SqlBool>`(${column} = ${numberParam(value)})`;
      case 'date':
        return sql<SqlBool>`(${column} = ${dateOf(value)})`;
      case 'instant': {
        const start = utcDayStart(Date.parse(instantOf(value)));
        return sql<SqlBool>`(${column} >= ${new Date(start).toISOString()} and ${column} < ${new Date(start + DAY_MS).toISOString()})`;
      }
      case 'json':
        if (typeof value === 'number') {
          return any([known(sql<SqlBool>`(${jsonNumber(dialect, spec.column, spec.member as string)} = ${numberParam(value)})`), known(sql<SqlBool>`(${text} = ${String(value)})`)]);
        }
        return sql<SqlBool>`(${text} = ${String(value)})`;
    }
  };
  const hasValue = (): Condition =>
    spec.kind === 'day_list'
      ? sql<SqlBool>`(${column} is not null and ${column} <> '[]')`
      : spec.kind === 'text' || spec.kind === 'json' || spec.kind === 'flag' || spec.kind === 'absent'
        ? sql<SqlBool>`(${text} is not null and ${text} <> '')`
        : sql<SqlBool>`(${column} is not null)`;
  const between = (from: string, to: string, toExclusive: boolean): Condition =>
    toExclusive ? sql<SqlBool>`(${column} >= ${from} and ${column} < ${to})` : sql<SqlBool>`(${column} >= ${from} and ${column} <= ${to})`;
  /** A window relative to now: `days` ago (negative) or ahead (positive). */
  const relative = (days: number) => nowMs + days * DAY_MS;
  const point = (ms: number) => (spec.kind === 'date' ? isoDate(ms) : new Date(ms).toISOString());
  const dayWindow = (ms: number): Condition =>
    spec.kind === 'date'
      ? sql<SqlBool>`(${column} = ${isoDate(ms)})`
      : between(new Date(utcDayStart(ms)).toISOString(), new Date(utcDayStart(ms) + DAY_MS).toISOString(), true);

  switch (c.operator) {
    case '$is':
      // A list of weekdays is the one kind whose `$is` takes several values: it must have them all.
      if (spec.kind === 'day_list') return all(c.values.map((v) => known(equals(v))));
      return known(equals(first as FilterValue));
    case '$is_not':
      return negate(known(equals(first as FilterValue)));
    case '$in':
      return any(c.values.map((v) => known(equals(v))));
    case '$not_in':
      return negate(any(c.values.map((v) => known(equals(v)))));
    case '$has_value':
      return known(hasValue());
    case '$is_unknown':
      return negate(known(hasValue()));
    case '$contains':
      return any(c.values.map((v) => known(contains(dialect, text, String(v)))));
    case '$not_contain':
      return negate(any(c.values.map((v) => known(contains(dialect, text, String(v))))));
    case '$starts_with':
      return any(c.values.map((v) => known(startsWith(text, String(v)))));
    case '$ends_with':
      return any(c.values.map((v) => known(endsWith(text, String(v)))));
    case '$more_than':
    case '$less_than':
    case '$more_than_equal':
    case '$less_than_equal': {
      const operand = spec.kind === 'json' ? jsonNumber(dialect, spec.column, spec.member as string) : column;
      return known(sql<SqlBool>`(${operand} ${sql.raw(COMPARATORS[c.operator])} ${numberParam(first as FilterValue)})`);
    }
    case '$after':
      return known(sql<SqlBool>`(${column} > ${spec.kind === 'date' ? dateOf(first as FilterValue) : instantOf(first as FilterValue)})`);
    case '$before':
      return known(sql<SqlBool>`(${column} < ${spec.kind === 'date' ? dateOf(first as FilterValue) : instantOf(first as FilterValue)})`);
    case '$more_than_ago':
      return known(sql<SqlBool>`(${column} < ${point(relative(-Number(first)))})`);
    case '$less_than_ago':
      return known(between(point(relative(-Number(first))), point(nowMs), false));
    case '$is_days_ago':
      return known(dayWindow(relative(-Number(first))));
    case '$more_than_future':
      return known(sql<SqlBool>`(${column} > ${point(relative(Number(first)))})`);
    case '$less_than_future':
      return known(between(point(nowMs), point(relative(Number(first))), false));
    case '$is_days_in_future':
      return known(dayWindow(relative(Number(first))));
    case '$count':
    case '$count_less':
    case '$count_more':
      // Refused by the parser for every field kind; reaching here is a programming error.
      throw new Error(`filter operator ${c.operator} has no SQL form`);
  }
}

/** One SQL condition for the whole filter; an empty filter matches every row. */
export function filterCondition(filter: ParsedFilter, dialect: Dialect, now: Date): Condition {
  const fields = filter.fields.map((field) => all(field.conditions.map((c) => condition(dialect, field.spec, c, now))));
  if (fields.length === 0) return TRUE;
  return filter.junction === 'or' ? any(fields) : all(fields);
}
