import type { EventSource } from '../../store/events.ts';

// The kinds of CSV import and what their job carries, apart from how rows are read (./importers.ts): the
// worker registers its jobs with these alone and loads the importers, with the API's body schemas and
// their compiled checks (about 28 MB), only when an import runs.

export const PRODUCTS_IMPORT_CSV = 'PRODUCTS.IMPORT_CSV';
export const SKUS_IMPORT_CSV = 'SKUS.IMPORT_CSV';
export const CUSTOMERS_IMPORT_CSV = 'CUSTOMERS.IMPORT_CSV';
export const VOUCHERS_IMPORT_CSV = 'VOUCHERS.IMPORT_CSV';
export const CAMPAIGN_VOUCHERS_IMPORT_CSV = 'CAMPAIGN.VOUCHERS_IMPORT_CSV';

export const CSV_IMPORT_KINDS = [PRODUCTS_IMPORT_CSV, SKUS_IMPORT_CSV, CUSTOMERS_IMPORT_CSV, VOUCHERS_IMPORT_CSV, CAMPAIGN_VOUCHERS_IMPORT_CSV] as const;
export type CsvImportKind = (typeof CSV_IMPORT_KINDS)[number];

export function isCsvImportKind(kind: string): kind is CsvImportKind {
  return (CSV_IMPORT_KINDS as readonly string[]).includes(kind);
}

/** What the import job needs besides the staged rows. */
export interface CsvImportPayload {
  /** The file's first line, as written. */
  header: string[];
  /** Data rows staged by the upload. */
  rows: number;
  source: EventSource;
  /** The campaign a CAMPAIGN.VOUCHERS_IMPORT_CSV adds to. */
  campaign_id: string | null;
}
