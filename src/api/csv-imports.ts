import Type from 'typebox';

// CSV imports (the vendor's `*/importCSV` operations): the multipart body as the OpenAPI document shows
// it. The body is not parsed before the handler: the handler streams the file part (src/http/routes/
// csv-imports), so the validators let a body marked STREAMED_BODY through unchecked.

/** Schema keyword marking a body the handler reads as a stream; it is documented, not validated. */
export const STREAMED_BODY = 'x-streamed-body';

/** The most bytes one uploaded CSV file may have; the rest of the API keeps its 10 MiB body limit. */
export const CSV_IMPORT_MAX_BYTES = 100 * 1024 * 1024;

const FileField = Type.String({
  format: 'binary',
  description: `The CSV file (UTF-8, comma-separated, the first line names the columns; at most ${CSV_IMPORT_MAX_BYTES / 1024 / 1024} MiB)`,
});

export const CsvImportBody = Type.Object({ file: FileField }, { [STREAMED_BODY]: true });

export const VouchersCsvImportBody = Type.Object(
  {
    file: FileField,
    webhooks_enable: Type.Optional(
      Type.Boolean({ description: 'Accepted for compatibility: Punchcard always records voucher.created events, and webhooks follow them' }),
    ),
  },
  { [STREAMED_BODY]: true },
);

export const CampaignCsvImportParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'Campaign id or name' }),
});
