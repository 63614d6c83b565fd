import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse, type Info } from 'csv-parse';
import { domainError, errors } from '../../domain/errors.ts';
import type { Insertable } from 'kysely';
import { beginUpload, endUpload, stageRows } from '../../store/csv-imports.ts';
import { enqueueJob } from '../../store/jobs.ts';
import type { CsvImportRowsTable } from '../../store/schema.ts';
import { inTransaction, type Actor, type Deps } from '../context.ts';
import { codeBearingCampaign } from '../vouchers/vouchers.ts';
import { importerFor, planColumns } from './importers.ts';
import { CAMPAIGN_VOUCHERS_IMPORT_CSV, type CsvImportKind, type CsvImportPayload } from './kinds.ts';
import { discardUpload, stagingTurns } from './staged-rows.ts';

// Receiving a CSV import. The file is parsed (csv-parse) while it arrives and its records are written to
// the staging table in batches, so the request holds one batch at a time, never the file; the parser's
// backpressure slows the upload down to the pace of the database. Only when the whole file has arrived
// and parsed is the import job enqueued, in one transaction with the end of the upload: a file that is
// refused (not CSV, too large, a bad header) or broken off leaves nothing behind, and nothing of it is
// imported. The rows are checked one by one later, by the job (run-import.ts).
//
// Staging goes in slices, as background jobs do (src/lib/slices.ts): each insert is bounded, and between
// two inserts, of this upload or any other (stagingTurns), the event loop runs the requests that arrived.
// A socket that delivers faster than the database takes the rows otherwise feeds parse and insert back
// to back without a pass of the loop in between: on SQLite, beside five parallel 20 MB uploads,
// redemptions waited 0.5 to 1.3 s at p99. A refused upload's rows are deleted the same way
// (./staged-rows.ts).

/** Records per insert while staging, or fewer when they add up to stageBatchChars. */
export const STAGE_BATCH_ROWS = 500;

/**
 * Characters per insert while staging. On SQLite an insert holds the event loop and the writer while it
 * runs, about 2 ms per 100 KB of records measured, so a slice's worth (src/lib/slices.ts SLICE_MS); on
 * PostgreSQL the loop serves requests while it is on the network. A single record may be longer (up to
 * MAX_RECORD_CHARS): it goes alone.
 */
export function stageBatchChars(dialect: Deps['dialect']): number {
  return dialect === 'sqlite' ? 256 * 1024 : 1024 * 1024;
}
/** Longest record (characters); a longer one refuses the file rather than filling the memory. */
export const MAX_RECORD_CHARS = 1024 * 1024;

/** The error a stream is destroyed with when a pipeline stops it because another stage failed. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

interface ParsedRecord {
  record: string[];
  info: Info;
}

/** One upload: open it (the target is checked), stage the file, then enqueue it or discard it. */
export class CsvUpload {
  readonly #deps: Deps;
  readonly #actor: Actor;
  readonly #kind: CsvImportKind;
  readonly #campaignId: string | null;
  readonly #id: string;
  #begun = false;
  #enqueued = false;
  #header: string[] | null = null;
  #rows = 0;

  private constructor(deps: Deps, actor: Actor, kind: CsvImportKind, campaignId: string | null) {
    this.#deps = deps;
    this.#actor = actor;
    this.#kind = kind;
    this.#campaignId = campaignId;
    this.#id = deps.ids.next('aa');
  }

  /** An upload for `kind`; a campaign import names its campaign (id or name), which must take vouchers. */
  static async open(deps: Deps, actor: Actor, kind: CsvImportKind, campaignRef?: string): Promise<CsvUpload> {
    let campaignId: string | null = null;
    if (kind === CAMPAIGN_VOUCHERS_IMPORT_CSV) {
      if (campaignRef === undefined) throw new Error('a campaign voucher import needs its campaign');
      campaignId = (await codeBearingCampaign(deps.db, actor.projectId, campaignRef)).id;
    }
    return new CsvUpload(deps, actor, kind, campaignId);
  }

  get staged(): boolean {
    return this.#header !== null;
  }

  /** Parses `file` and stages its records; the file's header is checked as soon as it is read. */
  async stage(file: Readable): Promise<void> {
    if (this.#begun) throw errors.invalidPayload('Send one file: the request holds more than one file part');
    const { db } = this.#deps;
    const { projectId } = this.#actor;
    await beginUpload(db, { id: this.#id, projectId, kind: this.#kind, at: this.#deps.clock.now().toISOString() });
    this.#begun = true;

    const importer = importerFor(this.#kind);
    const maxChars = stageBatchChars(this.#deps.dialect);
    let batch: Array<Insertable<CsvImportRowsTable>> = [];
    let batchChars = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await stageRows(db, batch);
      batch = [];
      batchChars = 0;
      // The requests that arrived meanwhile, and the other uploads' batches, run before this one's next.
      await stagingTurns.next();
    };
    // csv-parse counts the line a record ends on and the blank lines it skipped; a record starts on the
    // line after the previous one ended, past the blank lines in between.
    let endedOn = 0;
    let blankLines = 0;
    const parser = parse({
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      max_record_size: MAX_RECORD_CHARS,
    });
    const consume = async (records: AsyncIterable<ParsedRecord>) => {
      for await (const { record, info } of records) {
        const line = endedOn + 1 + (info.empty_lines - blankLines);
        endedOn = info.lines;
        blankLines = info.empty_lines;
        if (record.every((cell) => cell.trim() === '')) continue;
        if (this.#header === null) {
          planColumns(importer, record);
          this.#header = record;
          continue;
        }
        this.#rows += 1;
        const cells = JSON.stringify(record);
        // A record that would take the batch past its characters goes into the next one.
        if (batch.length > 0 && batchChars + cells.length > maxChars) await flush();
        batch.push({ project_id: projectId, import_id: this.#id, row_no: this.#rows, line, cells });
        batchChars += cells.length;
        if (batch.length >= STAGE_BATCH_ROWS || batchChars >= maxChars) await flush();
      }
      await flush();
    };
    let consuming: Promise<void> | undefined;
    try {
      await pipeline(file, parser, (records: AsyncIterable<ParsedRecord>) => (consuming = consume(records)));
    } catch (error) {
      // When the file fails (the client went away), pipeline rejects at once, while the consumer may still
      // be inserting a batch. Wait for that insert: a batch landing after discard() would stay forever.
      const refusal = await consuming?.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      // When the consumer fails first (a refused header, while the rest of the file is still on its way),
      // leaving its loop destroys the parser, and pipeline may report that AbortError rather than the
      // consumer's own error, a tick later: the refusal is the cause, and the answer a 400.
      const cause = refusal !== undefined && !isAbort(refusal) ? refusal : error;
      if (cause instanceof CsvError) throw errors.invalidPayload(`The file is not valid CSV: ${cause.message}`);
      throw cause;
    }
    if (this.#header === null) throw errors.invalidPayload('The file is empty: its first line must name the columns');
  }

  /** Hands the staged file to the worker; answers the async action that reports on it. */
  async enqueue(): Promise<{ async_action_id: string }> {
    if (this.#header === null) {
      throw domainError('invalid_payload', { details: 'Send the CSV file as multipart/form-data, in a file part named file' });
    }
    const payload: CsvImportPayload = { header: this.#header, rows: this.#rows, source: this.#actor.source, campaign_id: this.#campaignId };
    await inTransaction(this.#deps, async (tx) => {
      await enqueueJob(tx, {
        id: this.#id,
        projectId: this.#actor.projectId,
        kind: this.#kind,
        payload,
        requestId: this.#actor.requestId,
        now: this.#deps.clock.now().toISOString(),
      });
      await endUpload(tx, this.#actor.projectId, this.#id);
    });
    this.#enqueued = true;
    return { async_action_id: this.#id };
  }

  /** Deletes whatever was staged of an upload that is not enqueued, a slice at a time. */
  async discard(): Promise<void> {
    if (!this.#begun || this.#enqueued) return;
    await discardUpload(this.#deps, this.#actor.projectId, this.#id);
  }
}
