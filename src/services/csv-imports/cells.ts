import JSON5 from 'json5';
import type { MetadataPropertyDefinition } from '../../domain/metadata-schemas/metadata-problems.ts';

// Turning the text of one CSV cell into the value the JSON API would take. A cell that cannot be read as
// the type asked for is either reported here (standard columns, with the column's name) or passed on as
// text, so that the same schema and metadata checks as the JSON API refuse it in their own words.

/** A row refused before it reaches the services: a cell that cannot be read, a required cell left empty. */
export class RowProblem extends Error {}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A number written in the cell, or the text itself when it is not one (the schema then refuses it). */
export function numberCell(text: string): number | string {
  const trimmed = text.trim();
  return NUMBER.test(trimmed) ? Number(trimmed) : text;
}

/**
 * An amount of money: a whole number in the smallest currency unit, as everywhere in the API (`1050` for
 * 10.50). A number with a fractional part is refused rather than read either way: our exports write the
 * voucher value with two decimals, and `10.00` read as cents would be a discount a hundred times smaller.
 * Text that is no number is passed on for the schema to refuse.
 */
export function moneyCell(text: string, column: string): number | string {
  const value = numberCell(text);
  if (typeof value === 'number' && !Number.isInteger(value)) {
    throw new RowProblem(`Column ${column}: '${text.trim()}' is not a whole number: amounts are in the smallest currency unit (1050 for 10.50)`);
  }
  return value;
}

/** `true`/`false` in any case; anything else is a problem named after the column. */
export function booleanCell(text: string, column: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new RowProblem(`Column ${column}: '${text}' should be true or false`);
}

/** Comma-separated values (quoted in the file when there are several): `"premium,subscribed"`. */
export function listCell(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const SHORT_DATE_TIME = /^((\d{4})-(\d{2})-(\d{2}))(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Whether the fields name a real day and time: Date would roll `02-30` over to March, `24:00` to the next day. */
function realDateTime(year: number, month: number, day: number, hours: number, minutes: number, seconds: number): boolean {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hours < 24 && minutes < 60 && seconds < 60;
}

/**
 * The ISO 8601 forms the vendor accepts in import files (`2022-03-11`, `2022-03-11T09`,
 * `2022-03-11T09:00`, `2022-03-11T09:00:00`, `2022-03-11T09:00:00Z`, `2022-03-11T09:00:00.000Z`; a zone
 * offset too) as the full UTC timestamp they stand for (`2022-03-11T09:00:00.000Z`); a time without a
 * zone is UTC. Anything else, an impossible day included, is left as written for the schema or the
 * metadata check to refuse.
 */
export function dateTimeCell(text: string): string {
  const match = SHORT_DATE_TIME.exec(text.trim());
  if (!match) return text;
  const [, date, year, month, day, hours = '00', minutes = '00', seconds = '00', fraction = '', zone = 'Z'] = match;
  if (!realDateTime(Number(year), Number(month), Number(day), Number(hours), Number(minutes), Number(seconds))) return text;
  const written = `${date}T${hours}:${minutes}:${seconds}${fraction.slice(0, 4)}${zone}`;
  const instant = new Date(written);
  return Number.isNaN(instant.getTime()) ? text : instant.toISOString();
}

/**
 * A calendar date (`YYYY-MM-DD`), also when written in one of the date-time forms above: the date as
 * written, whatever the time and zone after it (a birthdate is a day, not an instant). Anything else is
 * left as written for the schema to refuse.
 */
export function dateCell(text: string): string {
  const match = SHORT_DATE_TIME.exec(text.trim());
  return match?.[1] ?? text.trim();
}

/**
 * A JSON object or array in a cell. JSON5 also reads the single-quoted form the vendor's own examples
 * use (`{'color':'blue'}`); numbers JSON cannot store (Infinity, NaN) are refused.
 */
export function jsonCell(text: string, column: string): unknown {
  try {
    return JSON5.parse(text, (_key, value: unknown) => {
      if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not a finite number');
      return value;
    });
  } catch {
    throw new RowProblem(`Column ${column}: '${text.length > 80 ? `${text.slice(0, 80)}…` : text}' is not valid JSON`);
  }
}

function metadataScalar(text: string, type: MetadataPropertyDefinition['type']): unknown {
  switch (type) {
    case 'number':
      return numberCell(text);
    case 'boolean': {
      const value = text.trim().toLowerCase();
      return value === 'true' ? true : value === 'false' ? false : text;
    }
    case 'object':
    case 'geopoint':
      try {
        return jsonCell(text, '');
      } catch {
        return text;
      }
    case 'datetime':
      return dateTimeCell(text);
    case 'date':
      return dateCell(text);
    default:
      return text;
  }
}

/**
 * A metadata cell typed by the project's metadata schema, as the vendor asks ("add all custom attributes
 * to the metadata schema before importing the file"): numbers, booleans, objects, and arrays written as
 * comma-separated values. A property the schema does not define is kept as text.
 */
export function metadataCell(text: string, definition: MetadataPropertyDefinition | undefined): unknown {
  if (!definition || definition.deleted) return text;
  if (definition.array) return listCell(text).map((item) => metadataScalar(item, definition.type));
  return metadataScalar(text, definition.type);
}
