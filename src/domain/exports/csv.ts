// CSV as exports write it (RFC 4180): comma-separated, records end with CRLF, a cell is quoted when it
// holds a comma, a double quote, CR or LF (quotes inside are doubled), UTF-8 without a byte-order mark.
// The header row holds the field names as requested (`code`, `metadata.tier`), not display labels, so a
// file can be read back by the names the API uses.
//
// Cell rendering (the vendor is silent on most of it):
// - null/undefined: an empty cell;
// - dates and instants: as stored, ISO 8601 in UTC (`2026-03-02T10:00:00.000Z`, `2026-06-30`);
// - booleans: `true` / `false`; numbers: their decimal form;
// - arrays of numbers or strings: their members joined by commas (`1,2,3`, as the vendor shows
//   validity_day_of_week), objects and other arrays: compact JSON.
// Money is exported in integer minor units, as the API's JSON carries it (the vendor documents order and
// customer amounts that way), with one exception the vendor shows in its example file: the voucher
// `value` column renders money with two decimals in major units (`2000.00`); see `moneyCell`.
//
// Formula cells (CSV injection): a spreadsheet that opens the file runs a cell beginning with `=`, `+`,
// `-` or `@` as a formula (some also skip a leading tab or carriage return before looking), so a
// customer named `=HYPERLINK("http://…"&A2,"Click me")` would become a live link carrying the row's
// data. Every cell is written through `csvCell`, which prefixes such a cell with a single quote and
// always quotes it (`"'=HYPERLINK(…)"`): spreadsheets show it as text. OWASP advises the prefix for
// every cell beginning with `-`; we make one deliberate exception: a number this program writes (a
// JavaScript number, metadata members stored as JSON numbers included, or money text made from one by
// `moneyCell`) is written as it is, so a points removal of 5 stays the number -5 in a spreadsheet. Its
// decimal form holds only digits, a sign, a point and an exponent, so it can never be a formula. Text
// (names, codes, phone numbers, metadata strings, lists) is always neutralised, even when it looks like
// a number: the string "-5" is written `"'-5"`. A cell that already starts with quotes before one of
// those characters (`'=x`) gets one more, so `restoreFormulaCell` (used by our CSV imports) can take
// exactly one off and a file exported here imports back to the same values.

/** A number this program computed, already written as text (money in major units): never neutralised. */
export class NumeralText {
  constructor(readonly text: string) {}
}

export type Cell = string | number | boolean | null | undefined | NumeralText | readonly unknown[] | Record<string, unknown>;

export const CSV_NEWLINE = '\r\n';

function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof NumeralText) return value.text;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(',');
  return JSON.stringify(value);
}

/** The characters that make a spreadsheet read a cell as a formula, after any quotes already in front. */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Whether the cell's text is ours to write as it is: a number we produced, never text from a user. */
const isProducedNumber = (value: Cell): boolean => typeof value === 'number' || value instanceof NumeralText;

/** The cell's text with a leading single quote when a spreadsheet would run it as a formula. */
export function neutraliseFormulaCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * The reverse, for a cell read back from a CSV import: one leading quote off a cell that `neutraliseFormulaCell`
 * would have written (a quote followed by quotes and one of the formula characters); any other text as it is.
 */
export function restoreFormulaCell(text: string): string {
  return text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text;
}

/** One cell as written in every CSV file: formula text neutralised, then quoted where RFC 4180 needs it. */
export function csvCell(value: Cell): string {
  const text = cellText(value);
  if (isProducedNumber(value)) return text;
  const safe = neutraliseFormulaCell(text);
  // A neutralised cell is always quoted (OWASP's advice), a plain one only when it must be.
  return safe !== text || NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One record, with its line ending. */
export function csvRecord(cells: readonly Cell[]): string {
  return cells.map(csvCell).join(',') + CSV_NEWLINE;
}

/**
 * Minor units as a decimal amount in major units with two digits (`12345` → `123.45`, `-5` → `-0.05`),
 * computed on integers so no float rounding can creep in.
 */
export function moneyValue(minorUnits: number): string {
  const negative = minorUnits < 0;
  const abs = Math.abs(Math.trunc(minorUnits));
  const text = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  return negative ? `-${text}` : text;
}

/** A money cell in major units (`moneyValue`): a number we produced, so a negative amount stays a number. */
export function moneyCell(minorUnits: number): NumeralText {
  return new NumeralText(moneyValue(minorUnits));
}

/** Parses CSV text back into records (tests and tools read exported files with it). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        cell += ch;
      }
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell !== '' || record.length > 0) {
    record.push(cell);
    records.push(record);
  }
  return records;
}
