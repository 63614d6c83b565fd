import { counter } from './metrics.ts';

// Every JSON column is written by JSON.stringify (src/store/json.ts toJson), so a stored value that does
// not parse means the database itself was damaged: a torn page, a hand edit, a partial restore. The SQL
// readers already look past such a value (src/store/json.ts readableJson: a filter does not match it, an
// export leaves it blank). The rows shown in JavaScript do the same here: a list leaves the damaged row
// out and reports it, instead of answering a 500 for the rows around it; an answer about that one object
// is a 500 that says why (src/http/plugins/errors.ts), never the object with its damage papered over.

/** A stored JSON value that does not parse. The text is kept private: it may hold a customer's data, and logs show the error. */
export class UnreadableStoredJson extends Error {
  readonly #text: string;

  constructor(text: string) {
    super(`A stored JSON value of ${text.length} characters does not parse: the database holds damaged data`);
    this.name = 'UnreadableStoredJson';
    this.#text = text;
  }

  /** Whether `value` is the stored text that did not parse. */
  isText(value: unknown): boolean {
    return value === this.#text;
  }
}

/** A row left out of a list because one of its stored JSON values does not parse. */
export interface UnreadableRow {
  projectId: string;
  /** The kind of object the row is shown as (`voucher`, `customer`, …). */
  object: string;
  id: string;
  /** The row's column holding the damaged value; null when it is in another row the object is shown with. */
  column: string | null;
}

/** Where a skipped row is reported (a pino logger fits); the request's id comes along when known. */
export interface UnreadableRowLog {
  warn(details: Record<string, unknown>, message: string): void;
}

const skippedRows = counter('punchcard_unreadable_rows_skipped_total', 'Rows left out of a list or an export because a stored JSON value of theirs does not parse (a damaged database), by object', ['object']);

export const SKIPPED_ROW_MESSAGE = 'left out a stored row whose JSON does not parse (damaged database)';

/** Counts the row and writes one warning naming it (never the damaged text). */
export function reportUnreadableRow(log: UnreadableRowLog | undefined, row: UnreadableRow, requestId?: string): void {
  skippedRows.inc({ object: row.object });
  log?.warn({ ...(requestId !== undefined ? { reqId: requestId } : {}), unreadable_row: { project_id: row.projectId, object: row.object, id: row.id, column: row.column } }, SKIPPED_ROW_MESSAGE);
}

/** The column of `row` holding the text that did not parse, if the row holds it. */
function damagedColumn(row: object, error: UnreadableStoredJson): string | null {
  for (const [column, value] of Object.entries(row)) if (error.isText(value)) return column;
  return null;
}

export interface RowReader {
  projectId: string;
  object: string;
  log?: UnreadableRowLog | undefined;
  requestId?: string | undefined;
}

/**
 * `render(rows)` for the rows a list shows, leaving out (and reporting) each row whose stored JSON does
 * not parse. `render` answers the items of the rows it is given, in order; it is called once for the
 * whole page, and only when that fails on damaged JSON, once per row to find the damaged ones (a page
 * holding one is the only one that pays for it). Any other error passes.
 */
export async function readableRows<R extends object, O>(
  reader: RowReader,
  rows: readonly R[],
  render: (rows: readonly R[]) => Promise<readonly O[]> | readonly O[],
  idOf: (row: R) => string = (row) => String((row as { id?: unknown }).id),
): Promise<O[]> {
  try {
    return [...(await render(rows))];
  } catch (error) {
    if (!(error instanceof UnreadableStoredJson) || rows.length === 0) throw error;
  }
  const shown: O[] = [];
  for (const row of rows) {
    try {
      shown.push(...(await render([row])));
    } catch (error) {
      if (!(error instanceof UnreadableStoredJson)) throw error;
      reportUnreadableRow(reader.log, { projectId: reader.projectId, object: reader.object, id: idOf(row), column: damagedColumn(row, error) }, reader.requestId);
    }
  }
  return shown;
}
