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
// `value` column renders money with two decimals in major units (`2000.00`); see `moneyValue`.

export type Cell = string | number | boolean | null | undefined | readonly unknown[] | Record<string, unknown>;

export const CSV_NEWLINE = '\r\n';

function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(',');
  return JSON.stringify(value);
}

const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: Cell): string {
  const text = cellText(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
