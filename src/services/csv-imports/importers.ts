import type { TSchema } from 'typebox';
import { errors } from '../../domain/errors.ts';
import { compilePayloadCheck, textProblem } from '../../api/checks.ts';
import { CustomerBody, type CustomerInput } from '../../api/customers.ts';
import { CreateProductBody, CreateSkuBody, type CreateProductInput, type CreateSkuInput } from '../../api/products.ts';
import { CreateVoucherBody, type CreateVoucherInput } from '../../api/vouchers.ts';
import type { Tx } from '../../store/db.ts';
import { findLiveProductBySourceId, findLiveSkuBySourceId } from '../../store/products.ts';
import { upsertProductIn, upsertSkuIn } from '../catalog/products.ts';
import type { Actor, Deps } from '../context.ts';
import { upsertCustomerIn } from '../customers/customers.ts';
import { holdSegmentDefinitions } from '../segments/membership.ts';
import { createVoucherIn } from '../vouchers/vouchers.ts';
import { booleanCell, dateTimeCell, jsonCell, listCell, numberCell, RowProblem } from './cells.ts';
import { CAMPAIGN_VOUCHERS_IMPORT_CSV, CUSTOMERS_IMPORT_CSV, PRODUCTS_IMPORT_CSV, SKUS_IMPORT_CSV, VOUCHERS_IMPORT_CSV, type CsvImportKind, type CsvImportPayload } from './kinds.ts';

// What each importCSV operation makes of a file: the vendor's column names, the columns a file must have,
// and how one row becomes the JSON body of the operation that creates the same object through the API
// (`POST /v1/customers`, `POST /v1/products`, `POST /v1/products/{id}/skus`, `POST /v1/vouchers`). The
// body is held to that operation's schema and goes through the same service, so a row is accepted or
// refused exactly as the JSON request would be. Columns that are not standard ones become metadata, as
// the vendor maps them.

/** A row's non-empty cells: standard columns by their normalized name, metadata columns by key. */
export interface RowCells {
  standard: Map<string, string>;
  metadata: Array<[key: string, text: string]>;
}

export interface Importer {
  kind: CsvImportKind;
  /** Names the objects in the result message ("3 customer(s) imported successfully, 1 failed."). */
  noun: string;
  /** Standard columns, by normalized name. */
  columns: readonly string[];
  /** Columns the header must name. */
  required: readonly string[];
  /** The metadata schema (related object) that types the metadata columns. */
  metadataObject: 'customer' | 'product' | 'sku' | 'voucher';
  /** What names the row's object in the list of rejected rows (source_id or code). */
  reference(cells: RowCells): string | null;
  /** Prepares a slice's transaction, before the savepoints of its rows. */
  beginSlice?(tx: Tx, projectId: string): Promise<void>;
  /** Holds the row to the JSON operation's schema and applies it in `tx`; throws RowProblem or DomainError. */
  apply(tx: Tx, deps: Deps, actor: Actor, cells: RowCells, metadata: Record<string, unknown> | undefined, payload: CsvImportPayload): Promise<void>;
}

/** `Address_Postal_Code`, `Voucher Type`, ` source_id ` → `address_postal_code`, `voucher_type`, `source_id`. */
export function normalizeColumn(header: string): string {
  return header.trim().toLowerCase().replace(/[\s_]+/g, '_');
}

/** The check of one operation's body schema, answering the typed body or throwing the first violation. */
function bodyCheck<T>(schema: TSchema): (value: Record<string, unknown>) => T {
  const check = compilePayloadCheck(schema);
  return (value) => {
    const text = textProblem(value);
    if (text) throw new RowProblem(`${text.path.length === 0 ? 'Row' : `Property .${text.path.join('.')}`} ${text.message}`);
    const problem = check(value);
    if (problem !== null) throw new RowProblem(problem);
    return value as T;
  };
}

function cell(cells: RowCells, column: string): string | undefined {
  return cells.standard.get(column);
}

/** Members for the cells present: `{name: cells.get('name')}` without the absent ones. */
function present(entries: Array<[member: string, value: unknown]>): Record<string, unknown> {
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

function required(cells: RowCells, column: string): string {
  const value = cell(cells, column);
  if (value === undefined) throw new RowProblem(`Column ${column} is required`);
  return value;
}

const convert = <T>(text: string | undefined, fn: (text: string) => T): T | undefined => (text === undefined ? undefined : fn(text));

/** Redemption history cannot be imported: it would be counts no redemption record stands behind. */
function refuseHistory(cells: RowCells, columns: readonly string[]): void {
  for (const column of columns) {
    const text = cell(cells, column);
    if (text !== undefined && numberCell(text) !== 0) {
      throw new RowProblem(`Column ${column}: importing redemption history is not supported; leave it empty or 0`);
    }
  }
}

// ---- customers ----

const ADDRESS_COLUMNS = {
  address_line_1: 'line_1',
  address_line_2: 'line_2',
  address_postal_code: 'postal_code',
  address_city: 'city',
  address_state: 'state',
  address_country: 'country',
} as const;

const customerBody = bodyCheck<CustomerInput>(CustomerBody);

const customers: Importer = {
  kind: CUSTOMERS_IMPORT_CSV,
  noun: 'customer',
  columns: ['id', 'source_id', 'name', 'email', 'phone', 'birthdate', 'birthday', 'description', ...Object.keys(ADDRESS_COLUMNS)],
  required: [],
  metadataObject: 'customer',
  reference: (cells) => cell(cells, 'source_id') ?? cell(cells, 'id') ?? null,
  // Each customer written is evaluated against the auto-update segments: locked and read once a slice.
  beginSlice: holdSegmentDefinitions,
  async apply(tx, deps, actor, cells, metadata) {
    const address = present(Object.entries(ADDRESS_COLUMNS).map(([column, member]) => [member, cell(cells, column)]));
    const input = customerBody(
      present([
        ['id', cell(cells, 'id')],
        ['source_id', cell(cells, 'source_id')],
        ['name', cell(cells, 'name')],
        ['email', cell(cells, 'email')],
        ['phone', cell(cells, 'phone')],
        ['birthdate', convert(cell(cells, 'birthdate'), (t) => t.trim())],
        ['birthday', convert(cell(cells, 'birthday'), (t) => t.trim())],
        ['description', cell(cells, 'description')],
        ['address', Object.keys(address).length > 0 ? address : undefined],
        ['metadata', metadata],
      ]),
    );
    await upsertCustomerIn(tx, deps, actor, input);
  },
};

// ---- products and SKUs ----

const productBody = bodyCheck<CreateProductInput>(CreateProductBody);

const products: Importer = {
  kind: PRODUCTS_IMPORT_CSV,
  noun: 'product',
  columns: ['name', 'source_id', 'price', 'attributes', 'image_url'],
  required: ['name'],
  metadataObject: 'product',
  reference: (cells) => cell(cells, 'source_id') ?? null,
  async apply(tx, deps, actor, cells, metadata) {
    const name = required(cells, 'name');
    const sourceId = cell(cells, 'source_id');
    // The vendor's rule: a row naming an existing product by source_id updates its name and nothing else.
    if (sourceId !== undefined && (await findLiveProductBySourceId(tx, actor.projectId, sourceId))) {
      await upsertProductIn(tx, deps, actor, productBody({ source_id: sourceId, name }));
      return;
    }
    const input = productBody(
      present([
        ['source_id', sourceId],
        ['name', name],
        ['price', convert(cell(cells, 'price'), numberCell)],
        ['attributes', convert(cell(cells, 'attributes'), listCell)],
        ['image_url', cell(cells, 'image_url')],
        ['metadata', metadata],
      ]),
    );
    await upsertProductIn(tx, deps, actor, input);
  },
};

const skuBody = bodyCheck<CreateSkuInput>(CreateSkuBody);

const skus: Importer = {
  kind: SKUS_IMPORT_CSV,
  noun: 'sku',
  columns: ['product_id', 'sku', 'source_id', 'price', 'currency', 'image_url', 'attributes'],
  required: ['product_id', 'source_id'],
  metadataObject: 'sku',
  reference: (cells) => cell(cells, 'source_id') ?? null,
  async apply(tx, deps, actor, cells, metadata) {
    const product = required(cells, 'product_id');
    const sourceId = required(cells, 'source_id');
    const price = convert(cell(cells, 'price'), numberCell);
    // The vendor's rule: a row naming an existing SKU updates its name (`sku`) and price only.
    if (await findLiveSkuBySourceId(tx, actor.projectId, sourceId)) {
      await upsertSkuIn(tx, deps, actor, product, skuBody(present([['source_id', sourceId], ['sku', cell(cells, 'sku')], ['price', price]])));
      return;
    }
    const input = skuBody(
      present([
        ['source_id', sourceId],
        ['sku', cell(cells, 'sku')],
        ['price', price],
        ['currency', cell(cells, 'currency')],
        ['image_url', cell(cells, 'image_url')],
        ['attributes', convert(cell(cells, 'attributes'), (t) => jsonCell(t, 'attributes'))],
        ['metadata', metadata],
      ]),
    );
    await upsertSkuIn(tx, deps, actor, product, input);
  },
};

// ---- vouchers ----

const voucherBody = bodyCheck<CreateVoucherInput>(CreateVoucherBody);

/** The discount member that `Value` fills, by `Discount Type`. */
const DISCOUNT_VALUE_MEMBER: Record<string, string> = { AMOUNT: 'amount_off', PERCENT: 'percent_off', FIXED: 'fixed_amount', UNIT: 'unit_off' };

/** `Value` read by the voucher type: the discount (with `Discount Type`), gift credits or loyalty points. */
function voucherValue(cells: RowCells, type: string | undefined): Record<string, unknown> {
  const value = convert(cell(cells, 'value'), numberCell);
  const discountType = convert(cell(cells, 'discount_type'), (t) => t.trim().toUpperCase());
  const giftAmount = convert(cell(cells, 'gift_amount'), numberCell) ?? (type === 'GIFT_VOUCHER' ? value : undefined);
  const points = convert(cell(cells, 'loyalty_points'), numberCell) ?? (type === 'LOYALTY_CARD' ? value : undefined);
  const out: Record<string, unknown> = {};
  if (discountType !== undefined || ((type === undefined || type === 'DISCOUNT_VOUCHER') && value !== undefined)) {
    if (discountType === undefined) throw new RowProblem('Column discount_type is required with a discount value (AMOUNT, PERCENT, FIXED or UNIT)');
    // An unknown discount type is left for the schema to refuse, naming the types it accepts.
    const member = DISCOUNT_VALUE_MEMBER[discountType];
    out.discount = present([
      ['type', discountType],
      ...(member !== undefined ? [[member, value] as [string, unknown]] : []),
      ['effect', convert(cell(cells, 'discount_effect'), (t) => t.trim().toUpperCase())],
    ]);
  }
  if (giftAmount !== undefined) out.gift = { amount: giftAmount };
  if (points !== undefined) out.loyalty_card = { points };
  return out;
}

const REDEMPTION_HISTORY = ['redeemed_quantity', 'redeemed_amount'] as const;

const vouchers: Importer = {
  kind: VOUCHERS_IMPORT_CSV,
  noun: 'voucher',
  columns: [
    'code',
    'voucher_type',
    'value',
    'discount_type',
    'discount_effect',
    'gift_amount',
    'loyalty_points',
    'category',
    'start_date',
    'expiration_date',
    'redemption_limit',
    ...REDEMPTION_HISTORY,
    'active',
    'additional_info',
  ],
  required: ['code'],
  metadataObject: 'voucher',
  reference: (cells) => cell(cells, 'code') ?? null,
  async apply(tx, deps, actor, cells, metadata) {
    const code = required(cells, 'code');
    refuseHistory(cells, REDEMPTION_HISTORY);
    const type = convert(cell(cells, 'voucher_type'), (t) => t.trim().toUpperCase());
    const limit = convert(cell(cells, 'redemption_limit'), numberCell);
    const input = voucherBody(
      present([
        ['code', code],
        ['type', type],
        ...Object.entries(voucherValue(cells, type)),
        ['category', cell(cells, 'category')],
        ['start_date', convert(cell(cells, 'start_date'), dateTimeCell)],
        ['expiration_date', convert(cell(cells, 'expiration_date'), dateTimeCell)],
        ['redemption', limit === undefined ? undefined : { quantity: limit }],
        ['active', convert(cell(cells, 'active'), (t) => booleanCell(t, 'active'))],
        ['additional_info', cell(cells, 'additional_info')],
        ['metadata', metadata],
      ]),
    );
    await createVoucherIn(tx, deps, actor, undefined, input);
  },
};

/** Codes added to an existing campaign: everything else comes from the campaign's voucher template. */
const campaignVouchers: Importer = {
  kind: CAMPAIGN_VOUCHERS_IMPORT_CSV,
  noun: 'voucher',
  columns: ['code', 'category', 'active', 'gift_amount', 'loyalty_points', ...REDEMPTION_HISTORY],
  required: ['code'],
  metadataObject: 'voucher',
  reference: (cells) => cell(cells, 'code') ?? null,
  async apply(tx, deps, actor, cells, metadata, payload) {
    const code = required(cells, 'code');
    refuseHistory(cells, REDEMPTION_HISTORY);
    if (payload.campaign_id === null) throw new Error('a campaign voucher import without a campaign');
    const giftAmount = convert(cell(cells, 'gift_amount'), numberCell);
    const points = convert(cell(cells, 'loyalty_points'), numberCell);
    const input = voucherBody(
      present([
        ['code', code],
        ['campaign_id', payload.campaign_id],
        ['category', cell(cells, 'category')],
        ['active', convert(cell(cells, 'active'), (t) => booleanCell(t, 'active'))],
        ['gift', giftAmount === undefined ? undefined : { amount: giftAmount }],
        ['loyalty_card', points === undefined ? undefined : { points }],
        ['metadata', metadata],
      ]),
    );
    await createVoucherIn(tx, deps, actor, undefined, input);
  },
};

const IMPORTERS: Record<CsvImportKind, Importer> = {
  [CUSTOMERS_IMPORT_CSV]: customers,
  [PRODUCTS_IMPORT_CSV]: products,
  [SKUS_IMPORT_CSV]: skus,
  [VOUCHERS_IMPORT_CSV]: vouchers,
  [CAMPAIGN_VOUCHERS_IMPORT_CSV]: campaignVouchers,
};

export function importerFor(kind: CsvImportKind): Importer {
  return IMPORTERS[kind];
}

// ---- the header ----

/** Where each column of a file goes: a standard member, or a metadata key. */
export interface ColumnPlan {
  standard: Array<[index: number, column: string]>;
  metadata: Array<[index: number, key: string]>;
  width: number;
}

const METADATA_KEY_LENGTH = 255;

/**
 * Reads the header of a file. Refused with 400 (nothing is imported): a column without a name, a name
 * given twice, a metadata column whose name has white space (the vendor's rule) or is too long, and a
 * missing required column.
 */
export function planColumns(importer: Importer, header: readonly string[]): ColumnPlan {
  const plan: ColumnPlan = { standard: [], metadata: [], width: header.length };
  const seen = new Map<string, number>();
  for (const [index, name] of header.entries()) {
    const at = `Column ${index + 1}`;
    const text = textProblem(name);
    if (text) throw errors.invalidPayload(`${at} of the header ${text.message}`);
    if (name.trim() === '') throw errors.invalidPayload(`${at} of the header has no name`);
    const normalized = normalizeColumn(name);
    const standard = importer.columns.includes(normalized);
    const key = standard ? normalized : name.trim();
    const earlier = seen.get(key);
    if (earlier !== undefined) throw errors.invalidPayload(`Columns ${earlier + 1} and ${index + 1} of the header both name ${key}`);
    seen.set(key, index);
    if (standard) {
      plan.standard.push([index, normalized]);
      continue;
    }
    if (/\s/.test(key)) {
      throw errors.invalidPayload(
        `${at} of the header, '${key}', is not a standard column (${importer.columns.join(', ')}), so it names a metadata property, and those names cannot contain white space`,
      );
    }
    if (key.length > METADATA_KEY_LENGTH) throw errors.invalidPayload(`${at} of the header names a metadata property longer than ${METADATA_KEY_LENGTH} characters`);
    plan.metadata.push([index, key]);
  }
  const missing = importer.required.filter((column) => !plan.standard.some(([, name]) => name === column));
  if (missing.length > 0) throw errors.invalidPayload(`The header must name the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  return plan;
}

/** Why a record does not fit the header: a non-empty cell past the header's columns. Missing cells are empty. */
export function surplusCells(plan: ColumnPlan, record: readonly string[]): string | null {
  for (let index = plan.width; index < record.length; index++) {
    if ((record[index] ?? '') !== '') return `The row has ${record.length} cells, but the header names ${plan.width} columns`;
  }
  return null;
}

/** The non-empty cells of one record, by column. */
export function rowCells(plan: ColumnPlan, record: readonly string[]): RowCells {
  const standard = new Map<string, string>();
  for (const [index, column] of plan.standard) {
    const text = record[index];
    if (text !== undefined && text.trim() !== '') standard.set(column, text);
  }
  const metadata: RowCells['metadata'] = [];
  for (const [index, key] of plan.metadata) {
    const text = record[index];
    if (text !== undefined && text.trim() !== '') metadata.push([key, text]);
  }
  return { standard, metadata };
}
