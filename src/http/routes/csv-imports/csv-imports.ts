import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import { DomainError, domainError } from '../../../domain/errors.ts';
import { CsvUpload } from '../../../services/csv-imports/upload.ts';
import {
  CAMPAIGN_VOUCHERS_IMPORT_CSV,
  CUSTOMERS_IMPORT_CSV,
  PRODUCTS_IMPORT_CSV,
  SKUS_IMPORT_CSV,
  VOUCHERS_IMPORT_CSV,
  type CsvImportKind,
} from '../../../services/csv-imports/kinds.ts';
import { actorOf } from '../../plugins/auth.ts';
import { AsyncActionCreated } from '../../../api/bulk.ts';
import { errorResponses } from '../../../api/common.ts';
import { CampaignCsvImportParams, CSV_IMPORT_MAX_BYTES, CsvImportBody, VouchersCsvImportBody } from '../../../api/csv-imports.ts';

// `POST …/importCSV` (the vendor's CSV imports): the only routes that take multipart/form-data. They live
// in their own Fastify scope, where the multipart parser is registered and every other content type is a
// 400; everywhere else multipart stays refused with 415 (src/http/plugins/body-parsers.ts). The file part
// is streamed into the database as it arrives (src/services/csv-imports/upload.ts) and the answer is the
// async action whose result lists the rows the import rejects. Status codes follow the vendor's
// OpenAPI: 202 for customers and vouchers, 200 for products, SKUs and campaign vouchers.

const MULTIPART_LIMITS = {
  fileSize: CSV_IMPORT_MAX_BYTES,
  files: 1,
  fields: 20,
  fieldSize: 64 * 1024,
  fieldNameSize: 200,
  parts: 21,
  headerPairs: 50,
};

const SEND_A_FILE = 'Send the CSV file as multipart/form-data, in a file part named file';

const tooLarge = () =>
  domainError('payload_too_large', { details: `The CSV file is larger than the ${CSV_IMPORT_MAX_BYTES} bytes an import may have` });

const BROKEN_FORM = /^(Multipart: Boundary not found|Boundary required|Unsupported Content-Type\.|The needle cannot .*)$|unexpected end of multipart data/i;

/** The multipart parser's own errors, in the standard error body. */
function multipartError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge();
    case 'FST_FILES_LIMIT':
      return domainError('invalid_payload', { details: 'Send one file: the request holds more than one file part' });
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return domainError('invalid_payload', { details: `The form has too many parts; send the file and at most ${MULTIPART_LIMITS.fields} fields` });
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return domainError('invalid_payload', { details: `A form field is not accepted: ${error.message}` });
    case 'FST_MP_PREMATURE_CLOSE':
      return domainError('invalid_payload', { details: 'The request ended before the whole form arrived' });
    case 'ECONNRESET':
      // Node's error on a request whose client went away mid-body: not the server's failure (nobody reads
      // the answer, but it would be logged as an unhandled error).
      if (error.message === 'aborted') return domainError('invalid_payload', { details: 'The request ended before the whole form arrived' });
      break;
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return domainError('invalid_payload', { details: SEND_A_FILE });
    default:
      break;
  }
  // busboy's complaints about the form itself: no boundary or one too long, a form cut short.
  if (BROKEN_FORM.test(error.message)) {
    return domainError('invalid_payload', { details: `The multipart/form-data body is malformed: ${error.message}` });
  }
  return null;
}

// What each route's file may hold, for the API reference (docs/csv-imports.md says what each column does).
const MATCHING = 'Columns are matched without regard to case, white space and underscores';
const REST = 'Every other column is a metadata property (its name without white space), typed by the metadata schema; dates in ISO 8601, 2026-03-11 up to 2026-03-11T09:00:00.000Z; money in whole minor units.';
const VOUCHER_COLUMNS =
  'Code (required), Voucher Type, Value, Discount Type, Category, Start Date, Expiration Date, Redemption Limit, Redeemed Quantity and Redeemed Amount (empty or 0), Active, Additional Info; also Discount Effect, Discount Unit Type, Gift Amount, Loyalty Points';
const COLUMNS = {
  customers: `${MATCHING}: Id, Source_id, Name, Email, Phone, Birthdate (or Birthday), Description, Address_line_1, Address_line_2, Address_Postal_Code, Address_City, Address_State, Address_Country. ${REST}`,
  products: `${MATCHING}: name (required), source_id, price, attributes (comma-separated), image_url. ${REST}`,
  skus: `${MATCHING}: product_id and source_id (required), sku, price, currency, image_url, attributes (a JSON object). ${REST}`,
  vouchers: `${MATCHING}: ${VOUCHER_COLUMNS}. ${REST}`,
  campaignVouchers: `${MATCHING}: ${VOUCHER_COLUMNS}. The campaign decides the type and the discount (those cells may only repeat the campaign's); Value sets a gift card's amount or a loyalty card's points; empty cells take the campaign's template. ${REST}`,
};

/** Room for the form's own bytes (boundaries, part headers, fields) around the file. */
const FORM_OVERHEAD_BYTES = MULTIPART_LIMITS.fields * MULTIPART_LIMITS.fieldSize + 64 * 1024;

async function receive(ctx: RouteContext, request: FastifyRequest, kind: CsvImportKind, campaignRef?: string) {
  // The path is checked first (an unknown campaign is 404 whatever the body), then the body.
  const upload = await CsvUpload.open(ctx.deps, actorOf(request), kind, campaignRef);
  if (!request.isMultipart()) throw domainError('invalid_payload', { details: SEND_A_FILE });
  // A body announced larger than any acceptable form is refused before a byte of it is parsed.
  const announced = Number(request.headers['content-length']);
  if (Number.isFinite(announced) && announced > CSV_IMPORT_MAX_BYTES + FORM_OVERHEAD_BYTES) throw tooLarge();
  try {
    for await (const part of request.parts()) {
      // Form fields (the vendor's `webhooks_enable`) change nothing here; the first file part is the CSV.
      if (part.type !== 'file') continue;
      // Past the size limit the parser cuts the file short; stop reading it there rather than import a part.
      part.file.once('limit', () => part.file.destroy(tooLarge()));
      await upload.stage(part.file);
      if (part.file.truncated) throw tooLarge();
    }
    if (!upload.staged) throw domainError('invalid_payload', { details: SEND_A_FILE });
    return await upload.enqueue();
  } catch (error) {
    await upload.discard();
    // The rest of the body may still be on its way: read it into nothing, so the client, still sending,
    // gets the answer (rather than a reset connection). PUNCHCARD_REQUEST_TIMEOUT_MS bounds how long.
    request.raw.unpipe();
    request.raw.resume();
    throw multipartError(error) ?? error;
  }
}

export function registerCsvImportRoutes(app: TypedApp, ctx: RouteContext): void {
  app.register(async (instance) => {
    const scope = instance.withTypeProvider<TypeBoxTypeProvider>();
    // Only multipart/form-data is parsed here. Any other body is left unread (Node discards it once the
    // answer is sent) for the handler to refuse in the standard error body, after it checked the path.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    await scope.register(multipart, { limits: MULTIPART_LIMITS });

    const config = { bulk: true, streamedBody: true };
    const route = <P extends object>(operationId: string, tags: string[], summary: string, description: string, status: 200 | 202, extra: P) => ({
      config,
      schema: {
        tags,
        operationId,
        summary,
        description,
        consumes: ['multipart/form-data'],
        body: CsvImportBody,
        ...extra,
        response: { [status]: AsyncActionCreated, ...errorResponses(...('params' in extra ? [404] : []), 413, 429) },
      },
    });

    scope.post(
      '/v1/customers/importCSV',
      route('importCustomersUsingCsv', ['Customers'], 'Create or update customers from a CSV file in the background (async action CUSTOMERS.IMPORT_CSV)', COLUMNS.customers, 202, {}),
      async (request, reply) => reply.code(202).send(await receive(ctx, request, CUSTOMERS_IMPORT_CSV)),
    );

    scope.post(
      '/v1/products/importCSV',
      route('importProductsUsingCsv', ['Products'], 'Create or rename products from a CSV file in the background (async action PRODUCTS.IMPORT_CSV)', COLUMNS.products, 200, {}),
      async (request, reply) => reply.code(200).send(await receive(ctx, request, PRODUCTS_IMPORT_CSV)),
    );

    scope.post(
      '/v1/skus/importCSV',
      route('importSkusUsingCsv', ['Products'], 'Create SKUs, or update their name and price, from a CSV file in the background (async action SKUS.IMPORT_CSV)', COLUMNS.skus, 200, {}),
      async (request, reply) => reply.code(200).send(await receive(ctx, request, SKUS_IMPORT_CSV)),
    );

    scope.post(
      '/v1/vouchers/importCSV',
      route('importVouchersUsingCsv', ['Vouchers'], 'Create standalone vouchers from a CSV file in the background (async action VOUCHERS.IMPORT_CSV)', COLUMNS.vouchers, 202, {
        body: VouchersCsvImportBody,
      }),
      async (request, reply) => reply.code(202).send(await receive(ctx, request, VOUCHERS_IMPORT_CSV)),
    );

    scope.post(
      '/v1/campaigns/:campaignId/importCSV',
      route(
        'importVouchersToCampaignUsingCsv',
        ['Campaigns'],
        'Add vouchers to a campaign from a CSV file of codes, in the background (async action CAMPAIGN.VOUCHERS_IMPORT_CSV)',
        COLUMNS.campaignVouchers,
        200,
        { params: CampaignCsvImportParams },
      ),
      async (request, reply) => reply.code(200).send(await receive(ctx, request, CAMPAIGN_VOUCHERS_IMPORT_CSV, request.params.campaignId)),
    );
  });
}
