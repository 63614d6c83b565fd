import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ElementType, Predicate, SetRef, ValueRef } from '../domain/exports/filters.ts';
import type { Dialect } from './db.ts';
import { readableJson } from './json.ts';

// Compiles an export filter's condition tree (src/domain/exports/filters.ts) to one SQL condition, the
// same on SQLite and PostgreSQL. The domain has already decided every semantic (days, windows, negation);
// this module only maps each comparison onto the expression an exported object gives a field.
//
// Every leaf is made two-valued (NULL counts as false) before it is combined, so NOT and OR behave as the
// domain describes: a missing value fails positive tests and passes negated ones.

type Condition = RawBuilder<SqlBool>;
type Expr = RawBuilder<unknown>;

/** How an exported object reads a set-valued field. */
export type SetSql =
  /** A few columns of the row, each one value when not null (e.g. id and code of the same voucher). */
  | { kind: 'columns'; exprs: Expr[] }
  /** Related rows: `from` (with its alias) correlated to the exported row by `where`; `element` per row. */
  | { kind: 'rows'; from: Expr; where: Condition; element: Expr }
  /** A JSON array stored in a text column. */
  | { kind: 'json_array'; column: string };

export interface FieldSql {
  /** Single-valued fields: the expression, by filter field name. */
  scalar(name: string): Expr | null;
  /** Set-valued fields. */
  set(name: string): SetSql | null;
  /** The JSON text column a prefix (`metadata`, `system_metadata`) reads members of. */
  jsonColumn(prefix: string): string | null;
}

const TRUE = sql<SqlBool>`(1 = 1)`;
const FALSE = sql<SqlBool>`(1 = 0)`;

function known(condition: Condition): Condition {
  return sql<SqlBool>`(case when ${condition} then 1 else 0 end = 1)`;
}

function and(items: Condition[]): Condition {
  return items.length === 0 ? TRUE : sql<SqlBool>`(${sql.join(items, sql` and `)})`;
}

function or(items: Condition[]): Condition {
  return items.length === 0 ? FALSE : sql<SqlBool>`(${sql.join(items, sql` or `)})`;
}

const CMP = { '=': sql.raw('='), '<': sql.raw('<'), '<=': sql.raw('<='), '>': sql.raw('>'), '>=': sql.raw('>=') } as const;

function numberParam(value: number): Expr {
  // Explicitly numeric: PostgreSQL would otherwise type the parameter after an integer column and refuse
  // a fractional operand.
  return sql`cast(${value} as numeric)`;
}

/**
 * The text of a JSON member: strings as they are, numbers in JSON form, booleans `true`/`false`. A
 * document the database cannot read has no members (src/store/json.ts readableJson), so an export skips
 * or leaves blank that row rather than failing.
 */
export function jsonMemberAsText(dialect: Dialect, column: string, member: string): Expr {
  const json = readableJson(dialect, column);
  if (dialect === 'postgres') return sql`(${json} ->> cast(${member} as text))`;
  const path = `$.${JSON.stringify(member)}`;
  return sql`(case json_type(${json}, ${path}) when 'true' then 'true' when 'false' then 'false' when 'null' then null when 'object' then json_extract(${json}, ${path}) when 'array' then json_extract(${json}, ${path}) else cast(json_extract(${json}, ${path}) as text) end)`;
}

/** The member's value when it is a JSON number, else NULL. */
function jsonMemberAsNumber(dialect: Dialect, column: string, member: string): Expr {
  const json = readableJson(dialect, column);
  if (dialect === 'postgres') {
    return sql`(case when jsonb_typeof(${json} -> cast(${member} as text)) = 'number' then (${json} ->> cast(${member} as text))::numeric end)`;
  }
  const path = `$.${JSON.stringify(member)}`;
  return sql`(case when json_type(${json}, ${path}) in ('integer', 'real') then json_extract(${json}, ${path}) end)`;
}

/** Length of the member when it is a JSON array, else NULL. */
function jsonMemberArrayLength(dialect: Dialect, column: string, member: string): Expr {
  const json = readableJson(dialect, column);
  if (dialect === 'postgres') {
    return sql`(case when jsonb_typeof(${json} -> cast(${member} as text)) = 'array' then jsonb_array_length(${json} -> cast(${member} as text)) end)`;
  }
  const path = `$.${JSON.stringify(member)}`;
  return sql`(case when json_type(${json}, ${path}) = 'array' then json_array_length(${json}, ${path}) end)`;
}

function textMatch(dialect: Dialect, text: Expr, match: 'contains' | 'starts_with' | 'ends_with', needle: string): Condition {
  switch (match) {
    case 'contains':
      return dialect === 'postgres' ? sql<SqlBool>`(strpos(${text}, ${needle}) > 0)` : sql<SqlBool>`(instr(${text}, ${needle}) > 0)`;
    case 'starts_with':
      return sql<SqlBool>`(substr(${text}, 1, length(cast(${needle} as text))) = ${needle})`;
    case 'ends_with': {
      const n = sql`length(cast(${needle} as text))`;
      return sql<SqlBool>`(length(${text}) >= ${n} and substr(${text}, length(${text}) - ${n} + 1) = ${needle})`;
    }
  }
}

/** A value of a set being looked at: its text, and its number for integer sets. */
interface ElementSql {
  text: Expr;
  number: Expr;
}

interface CompileContext {
  dialect: Dialect;
  fields: FieldSql;
  element: ElementSql | null;
}

function requireScalar(ctx: CompileContext, name: string): Expr {
  const expr = ctx.fields.scalar(name);
  if (!expr) throw new Error(`export filter field ${name} has no SQL expression`);
  return expr;
}

function requireJsonColumn(ctx: CompileContext, prefix: string): string {
  const column = ctx.fields.jsonColumn(prefix);
  if (!column) throw new Error(`export filter prefix ${prefix} has no JSON column`);
  return column;
}

function compareLeaf(ctx: CompileContext, target: ValueRef, cmp: keyof typeof CMP, value: string | number | boolean): Condition {
  const op = CMP[cmp];
  if (target.kind === 'member') {
    const column = requireJsonColumn(ctx, target.prefix);
    const text = jsonMemberAsText(ctx.dialect, column, target.member);
    const number = jsonMemberAsNumber(ctx.dialect, column, target.member);
    if (typeof value === 'number') {
      const numeric = known(sql<SqlBool>`(${number} ${op} ${numberParam(value)})`);
      // A number also equals a string member holding its text (`"5"` = 5); ranges only compare numbers.
      return cmp === '=' ? or([numeric, known(sql<SqlBool>`(${text} = ${String(value)})`)]) : numeric;
    }
    return known(sql<SqlBool>`(${text} ${op} ${String(value)})`);
  }
  if (target.kind === 'element') {
    const element = ctx.element;
    if (!element) throw new Error('a set value compared outside its set');
    if (target.type === 'integer') return known(sql<SqlBool>`(${element.number} ${op} ${numberParam(Number(value))})`);
    return known(sql<SqlBool>`(${element.text} ${op} ${String(value)})`);
  }
  const expr = requireScalar(ctx, target.name);
  if (target.type === 'number') return known(sql<SqlBool>`(${expr} ${op} ${numberParam(Number(value))})`);
  if (target.type === 'boolean') return known(sql<SqlBool>`(${expr} ${op} ${value === true || value === 'true'})`);
  return known(sql<SqlBool>`(${expr} ${op} ${String(value)})`);
}

function textOf(ctx: CompileContext, target: ValueRef): Expr {
  if (target.kind === 'member') return jsonMemberAsText(ctx.dialect, requireJsonColumn(ctx, target.prefix), target.member);
  if (target.kind === 'element') {
    if (!ctx.element) throw new Error('a set value read outside its set');
    return ctx.element.text;
  }
  return requireScalar(ctx, target.name);
}

function presentLeaf(ctx: CompileContext, target: ValueRef): Condition {
  const expr = textOf(ctx, target);
  if (target.kind === 'field' && target.type === 'object') {
    // JSON objects are stored as text; an absent one may have been written as JSON null.
    return known(sql<SqlBool>`(${expr} is not null and ${expr} not in ('null', ''))`);
  }
  const textual = target.kind !== 'field' || target.type === 'string';
  return known(textual ? sql<SqlBool>`(${expr} is not null and ${expr} <> '')` : sql<SqlBool>`(${expr} is not null)`);
}

function jsonElements(dialect: Dialect, column: string): { from: Expr; element: ElementSql } {
  if (dialect === 'postgres') {
    const json = readableJson(dialect, column);
    const safe = sql`(case when jsonb_typeof(${json}) = 'array' then ${json} else '[]'::jsonb end)`;
    return {
      from: sql`jsonb_array_elements_text(${safe}) as e(value)`,
      element: { text: sql`e.value`, number: sql`(case when e.value ~ '^-?[0-9]+(\\.[0-9]+)?$' then e.value::numeric end)` },
    };
  }
  return {
    from: sql`json_each(${readableJson(dialect, column)}) as e`,
    element: { text: sql`cast(e.value as text)`, number: sql`(case when e.type in ('integer', 'real') then e.value end)` },
  };
}

function setSql(ctx: CompileContext, set: SetRef): SetSql {
  if (set.kind === 'member') throw new Error('JSON members are counted, not searched');
  const found = ctx.fields.set(set.name);
  if (!found) throw new Error(`export filter set ${set.name} has no SQL`);
  return found;
}

function someLeaf(ctx: CompileContext, set: SetRef & { kind: 'field' }, where: Predicate | null, element: ElementType): Condition {
  const source = setSql(ctx, set);
  const inner = (el: ElementSql) => (where === null ? sql<SqlBool>`(${el.text} is not null)` : compile(where, { ...ctx, element: el }));
  switch (source.kind) {
    case 'columns':
      return or(source.exprs.map((expr) => known(inner({ text: element === 'integer' ? sql`cast(${expr} as text)` : expr, number: expr }))));
    case 'rows':
      return sql<SqlBool>`exists (select 1 from ${source.from} where ${source.where} and ${inner({ text: source.element, number: source.element })})`;
    case 'json_array': {
      const { from, element: el } = jsonElements(ctx.dialect, source.column);
      return sql<SqlBool>`exists (select 1 from ${from} where ${inner(el)})`;
    }
  }
}

function countOf(ctx: CompileContext, set: SetRef): Expr {
  if (set.kind === 'member') return jsonMemberArrayLength(ctx.dialect, requireJsonColumn(ctx, set.prefix), set.member);
  const source = setSql(ctx, set);
  switch (source.kind) {
    case 'columns':
      return sql`(${sql.join(
        source.exprs.map((e) => sql`(case when ${e} is not null then 1 else 0 end)`),
        sql` + `,
      )})`;
    case 'rows':
      return sql`(select count(*) from ${source.from} where ${source.where})`;
    case 'json_array':
      return ctx.dialect === 'postgres'
        ? sql`(case when jsonb_typeof(${readableJson('postgres', source.column)}) = 'array' then jsonb_array_length(${readableJson('postgres', source.column)}) else 0 end)`
        : sql`coalesce(json_array_length(${readableJson('sqlite', source.column)}), 0)`;
  }
}

function compile(pred: Predicate, ctx: CompileContext): Condition {
  switch (pred.kind) {
    case 'all':
      return and(pred.items.map((p) => compile(p, ctx)));
    case 'any':
      return or(pred.items.map((p) => compile(p, ctx)));
    case 'not':
      return sql<SqlBool>`(not ${compile(pred.item, ctx)})`;
    case 'compare':
      return compareLeaf(ctx, pred.target, pred.cmp, pred.value);
    case 'present':
      return presentLeaf(ctx, pred.target);
    case 'text':
      return known(textMatch(ctx.dialect, textOf(ctx, pred.target), pred.match, pred.value));
    case 'some':
      if (pred.set.kind !== 'field') throw new Error('JSON members are counted, not searched');
      return known(someLeaf(ctx, pred.set, pred.where, pred.set.element));
    case 'count':
      return known(sql<SqlBool>`(${countOf(ctx, pred.set)} ${CMP[pred.cmp]} ${pred.value})`);
  }
}

/** One SQL condition for the whole tree; an empty filter matches every row. */
export function compileExportFilter(pred: Predicate, dialect: Dialect, fields: FieldSql): Condition {
  return compile(pred, { dialect, fields, element: null });
}
