import type { TSchema } from 'typebox';
import { errors } from '../../domain/errors.ts';
import { compilePayloadCheck, textProblem } from '../../api/checks.ts';
import { restoreFormulaCell } from '../../domain/exports/csv.ts';
import { CustomerBody, type CustomerInput } from '../../api/customers.ts';
import { CreateProductBody, CreateSkuBody, type CreateProductInput, type CreateSkuInput } from '../../api/products.ts';
import { CreateVoucherBody, type CreateVoucherInput } from '../../api/vouchers.ts';
import type { Tx } from '../../store/db.ts';
import { findLiveProductBySourceId, findLiveSkuBySourceId } from '../../store/products.ts';
import { upsertProductIn, upsertSkuIn } from '../catalog/products.ts';
import type { Actor, Deps } from '../context.ts';
import { upsertCustomerIn } from '../customers/customers.ts';
import { holdSegmentDefinitions } from '../segments/membership.ts';
import { templateOf, type VoucherTemplate } from '../campaigns/campaign-input.ts';
import { codeBearingCampaign, createVoucherIn } from '../vouchers/vouchers.ts';
import { booleanCell, dateCell, dateTimeCell, jsonCell, listCell, moneyCell, numberCell, RowProblem } from './cells.ts';
import { CAMPAIGN_VOUCHERS_IMPORT_CSV, CUSTOMERS_IMPORT_CSV, PRODUCTS_IMPORT_CSV, SKUS_IMPORT_CSV, VOUCHERS_IMPORT_CSV, type CsvImportKind, type CsvImportPayload } from './kinds.ts';

// What each importCSV operation makes of a file: the vendor's column names, the columns a file must have,
// and how one row becomes the JSON body of the operation that creates the same object through the API
// (`POST /v1/customers`, `POST /v1/products`, `POST /v1/products/{id}/skus`, `POST /v1/vouchers`). The
// body is held to that operation's schema and goes through the same service, so a row is accepted or
// refused exactly as the JSON request would be. Columns that are not standard ones become metadata, as
// the vendor maps them. docs/csv-imports.md describes every column.

/** A row's non-empty cells: standard columns by their normalized name, metadata columns by key. */
export interface RowCells {
  standard: Map<string, string>;
  metadata: Array<[key: string, text: string]>;
  /** Standard columns' names as the file's header writes them (`Voucher Type`), for the reasons of rejected rows. */
  labels: ReadonlyMap<string, string>;
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

/**
 * What a header is matched by: its text in lower case, without white space and underscores.
 * The vendor writes one column several ways across its pages and sample files (`Voucher Type`,
 * `Source_id`, `source_id`, `Address_Postal_Code`, `Image URL`); all of them, and `VoucherType`, name
 * the same column.
 */
export function columnKey(header: string): string {
  return header.toLowerCase().replace(/[\s_]+/g, '');
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

/** The vendor's names of the voucher columns (its other templates use the member names). */
const VENDOR_LABELS: Readonly<Record<string, string>> = {
  code: 'Code',
  voucher_type: 'Voucher Type',
  value: 'Value',
  discount_type: 'Discount Type',
  discount_effect: 'Discount Effect',
  discount_unit_type: 'Discount Unit Type',
  gift_amount: 'Gift Amount',
  loyalty_points: 'Loyalty Points',
  redeemed_quantity: 'Redeemed Quantity',
  redeemed_amount: 'Redeemed Amount',
  active: 'Active',
};

/**
 * The column as the file names it, for a reason: `Voucher Type` rather than `voucher_type`; a column the
 * file does not have, as the vendor names it.
 */
function label(cells: RowCells, column: string): string {
  return cells.labels.get(column) ?? VENDOR_LABELS[column] ?? column;
}

/** Members for the cells present: `{name: cells.get('name')}` without the absent ones. */
function present(entries: Array<[member: string, value: unknown]>): Record<string, unknown> {
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

function required(cells: RowCells, column: string): string {
  const value = cell(cells, column);
  if (value === undefined) throw new RowProblem(`Column ${label(cells, column)} is required`);
  return value;
}

const convert = <T>(text: string | undefined, fn: (text: string) => T): T | undefined => (text === undefined ? undefined : fn(text));

/** A money column's cell (whole minor units), refused with the column's name when it has a fraction. */
function money(cells: RowCells, column: string): number | string | undefined {
  return convert(cell(cells, column), (text) => moneyCell(text, label(cells, column)));
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
        ['birthdate', convert(cell(cells, 'birthdate'), dateCell)],
        ['birthday', convert(cell(cells, 'birthday'), dateCell)],
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
        ['price', money(cells, 'price')],
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
    const price = money(cells, 'price');
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
        ['attributes', convert(cell(cells, 'attributes'), (t) => jsonCell(t, label(cells, 'attributes')))],
        ['metadata', metadata],
      ]),
    );
    await upsertSkuIn(tx, deps, actor, product, input);
  },
};

// ---- vouchers ----

const voucherBody = bodyCheck<CreateVoucherInput>(CreateVoucherBody);

const VOUCHER_TYPES = ['DISCOUNT_VOUCHER', 'GIFT_VOUCHER', 'LOYALTY_CARD'] as const;
type ImportedVoucherType = (typeof VOUCHER_TYPES)[number];

/** What `Value` fills for each `Discount Type`, and whether it is money (whole minor units). */
const DISCOUNT_VALUES: Readonly<Record<string, { member: string; money: boolean }>> = {
  AMOUNT: { member: 'amount_off', money: true },
  PERCENT: { member: 'percent_off', money: false },
  FIXED: { member: 'fixed_amount', money: true },
  UNIT: { member: 'unit_off', money: false },
};

/** The columns only one type of voucher takes (`Value` is read by the type). */
const TYPE_COLUMNS: Readonly<Record<ImportedVoucherType, readonly string[]>> = {
  DISCOUNT_VOUCHER: ['discount_type', 'discount_effect', 'discount_unit_type'],
  GIFT_VOUCHER: ['gift_amount'],
  LOYALTY_CARD: ['loyalty_points'],
};

const upper = (text: string) => text.trim().toUpperCase();

/** `Voucher Type`, in any case; undefined when empty. */
function writtenVoucherType(cells: RowCells): ImportedVoucherType | undefined {
  const text = cell(cells, 'voucher_type');
  if (text === undefined) return undefined;
  const type = VOUCHER_TYPES.find((candidate) => candidate === upper(text));
  if (type === undefined) throw new RowProblem(`Column ${label(cells, 'voucher_type')}: '${text.trim()}' should be ${VOUCHER_TYPES.join(', ')}`);
  return type;
}

/** The type a row without `Voucher Type` describes by the columns only that type takes. */
function typeByColumns(cells: RowCells): ImportedVoucherType | undefined {
  return VOUCHER_TYPES.find((type) => TYPE_COLUMNS[type].some((column) => cell(cells, column) !== undefined));
}

/** A cell of a column that belongs to another type of voucher is a mistake, not something to ignore. */
function refuseOtherTypes(cells: RowCells, type: ImportedVoucherType): void {
  for (const other of VOUCHER_TYPES) {
    if (other === type) continue;
    for (const column of TYPE_COLUMNS[other]) {
      if (cell(cells, column) !== undefined) throw new RowProblem(`Column ${label(cells, column)} does not apply to ${type} vouchers`);
    }
  }
}

/** A number cell named by its column; money is whole minor units. */
function voucherNumber(cells: RowCells, column: string, isMoney: boolean): number | string | undefined {
  return isMoney ? money(cells, column) : convert(cell(cells, column), numberCell);
}

/**
 * A gift card's amount or a loyalty card's points: `Value`, or the type's own column (`Gift Amount`,
 * `Loyalty Points`, the vendor's names in campaign imports). Both may be filled when they agree.
 */
function valueOrOwnColumn(cells: RowCells, column: string, isMoney: boolean): number | string | undefined {
  const value = voucherNumber(cells, 'value', isMoney);
  const own = voucherNumber(cells, column, isMoney);
  if (value !== undefined && own !== undefined && value !== own) {
    throw new RowProblem(`Columns ${label(cells, 'value')} (${value}) and ${label(cells, column)} (${own}) disagree: fill one of them`);
  }
  return own ?? value;
}

/** A standalone discount: `Discount Type`, `Value` as the member that type takes, effect and unit type. */
function discountOf(cells: RowCells): Record<string, unknown> {
  const text = cell(cells, 'discount_type');
  if (text === undefined) {
    throw new RowProblem(`Column ${label(cells, 'discount_type')} is required for DISCOUNT_VOUCHER vouchers: AMOUNT, PERCENT, FIXED or UNIT`);
  }
  const type = upper(text);
  const spec = DISCOUNT_VALUES[type];
  if (spec === undefined) throw new RowProblem(`Column ${label(cells, 'discount_type')}: '${text.trim()}' should be AMOUNT, PERCENT, FIXED or UNIT`);
  const value = voucherNumber(cells, 'value', spec.money);
  if (value === undefined) throw new RowProblem(`Column ${label(cells, 'value')} is required: the ${spec.member} of the ${type} discount`);
  const unitType = convert(cell(cells, 'discount_unit_type'), (t) => t.trim());
  if (unitType !== undefined && type !== 'UNIT') throw new RowProblem(`Column ${label(cells, 'discount_unit_type')} applies to UNIT discounts only`);
  return present([
    ['type', type],
    [spec.member, value],
    ['unit_type', unitType],
    ['effect', convert(cell(cells, 'discount_effect'), upper)],
  ]);
}

/**
 * In a campaign import the campaign's discount applies to every voucher it holds (the vendor's rule):
 * `Discount Type`, `Value`, `Discount Effect` and `Discount Unit Type` may be given when they say what
 * the campaign's discount says (a file exported from another system often carries them), never to
 * change it.
 */
function checkCampaignDiscount(cells: RowCells, discount: Record<string, unknown>): void {
  const type = String(discount.type);
  const spec = DISCOUNT_VALUES[type];
  const same = (column: string, written: unknown, campaign: unknown, shown: string) => {
    if (written !== undefined && written !== campaign) {
      throw new RowProblem(
        `Column ${label(cells, column)}: ${shown}, but the campaign's vouchers take its discount (${describeDiscount(discount)}); leave the column empty or write the campaign's value`,
      );
    }
  };
  const typeText = cell(cells, 'discount_type');
  same('discount_type', convert(typeText, upper), type, `'${typeText?.trim()}'`);
  if (spec !== undefined) {
    const value = voucherNumber(cells, 'value', spec.money);
    same('value', value, discount[spec.member], String(value));
  } else if (cell(cells, 'value') !== undefined) {
    same('value', cell(cells, 'value'), undefined, `'${cell(cells, 'value')?.trim()}'`);
  }
  const effect = convert(cell(cells, 'discount_effect'), upper);
  same('discount_effect', effect, discount.effect, `'${effect}'`);
  const unitType = convert(cell(cells, 'discount_unit_type'), (t) => t.trim());
  same('discount_unit_type', unitType, discount.unit_type, `'${unitType}'`);
}

function describeDiscount(discount: Record<string, unknown>): string {
  const spec = DISCOUNT_VALUES[String(discount.type)];
  const value = spec ? discount[spec.member] : undefined;
  return `${String(discount.type)}${value !== undefined ? ` ${String(value)}` : ''}`;
}

const REDEMPTION_HISTORY = ['redeemed_quantity', 'redeemed_amount'] as const;

/**
 * Redemption history cannot be imported: it would be counts no redemption record stands behind. The
 * vendor's templates carry the columns; empty or 0 is accepted.
 */
function refuseHistory(cells: RowCells): void {
  for (const column of REDEMPTION_HISTORY) {
    const text = cell(cells, column);
    if (text !== undefined && numberCell(text) !== 0) {
      const balance = column === 'redeemed_amount' ? ' (import a gift card with the balance left to spend as its amount)' : '';
      throw new RowProblem(`Column ${label(cells, column)}: importing redemption history is not supported; leave it empty or 0${balance}`);
    }
  }
}

/** The members every voucher row may set, standalone or in a campaign. */
function voucherMembers(cells: RowCells, metadata: Record<string, unknown> | undefined): Array<[string, unknown]> {
  const limit = voucherNumber(cells, 'redemption_limit', false);
  return [
    ['category', cell(cells, 'category')],
    ['start_date', convert(cell(cells, 'start_date'), dateTimeCell)],
    ['expiration_date', convert(cell(cells, 'expiration_date'), dateTimeCell)],
    ['redemption', limit === undefined ? undefined : { quantity: limit }],
    ['active', convert(cell(cells, 'active'), (t) => booleanCell(t, label(cells, 'active')))],
    ['additional_info', cell(cells, 'additional_info')],
    ['metadata', metadata],
  ];
}

/** The vendor's voucher template (vouchers/importCSV), and ours: `Discount Effect`, `Discount Unit Type`, `Gift Amount`, `Loyalty Points`. */
const VOUCHER_COLUMNS = [
  'code',
  'voucher_type',
  'value',
  'discount_type',
  'discount_effect',
  'discount_unit_type',
  'gift_amount',
  'loyalty_points',
  'category',
  'start_date',
  'expiration_date',
  'redemption_limit',
  ...REDEMPTION_HISTORY,
  'active',
  'additional_info',
] as const;

/** The columns whose meaning depends on the voucher type (in a campaign import, the campaign's). */
const TEMPLATE_COLUMNS = ['voucher_type', 'value', ...Object.values(TYPE_COLUMNS).flat()];

const vouchers: Importer = {
  kind: VOUCHERS_IMPORT_CSV,
  noun: 'voucher',
  columns: VOUCHER_COLUMNS,
  required: ['code'],
  metadataObject: 'voucher',
  reference: (cells) => cell(cells, 'code') ?? null,
  async apply(tx, deps, actor, cells, metadata) {
    const code = required(cells, 'code');
    refuseHistory(cells);
    const type = writtenVoucherType(cells) ?? typeByColumns(cells);
    if (type === undefined) throw new RowProblem(`Column ${label(cells, 'voucher_type')} is required: ${VOUCHER_TYPES.join(', ')}`);
    refuseOtherTypes(cells, type);
    let value: [string, unknown];
    if (type === 'DISCOUNT_VOUCHER') {
      value = ['discount', discountOf(cells)];
    } else if (type === 'GIFT_VOUCHER') {
      const amount = valueOrOwnColumn(cells, 'gift_amount', true);
      if (amount === undefined) throw new RowProblem(`Column ${label(cells, 'value')} is required: the gift card's amount`);
      value = ['gift', { amount }];
    } else {
      const points = valueOrOwnColumn(cells, 'loyalty_points', false);
      value = ['loyalty_card', points === undefined ? undefined : { points }];
    }
    const input = voucherBody(present([['code', code], ['type', type], value, ...voucherMembers(cells, metadata)]));
    await createVoucherIn(tx, deps, actor, undefined, input);
  },
};

/**
 * The cells of a campaign import row that the voucher type reads, checked against the campaign's
 * template: the type and the discount are the campaign's; a gift card's amount or a loyalty card's
 * points may be the voucher's own (undefined: the campaign's).
 */
function campaignTypedValue(cells: RowCells, template: VoucherTemplate): [string, unknown] | undefined {
  const type = template.type;
  const written = writtenVoucherType(cells);
  if (written !== undefined && written !== type) throw new RowProblem(`Column ${label(cells, 'voucher_type')}: ${written}, but the campaign holds ${type} vouchers`);
  refuseOtherTypes(cells, type);
  if (type === 'DISCOUNT_VOUCHER') {
    if (template.discount) checkCampaignDiscount(cells, template.discount);
    return undefined;
  }
  if (type === 'GIFT_VOUCHER') {
    const amount = valueOrOwnColumn(cells, 'gift_amount', true);
    return amount === undefined ? undefined : ['gift', { amount }];
  }
  const points = valueOrOwnColumn(cells, 'loyalty_points', false);
  return points === undefined ? undefined : ['loyalty_card', { points }];
}

/**
 * Codes added to an existing campaign, in the same template as standalone vouchers. The campaign decides
 * the type and the discount (a `Voucher Type` or discount cell must agree with it); a gift card's amount
 * and a loyalty card's points (`Value`, or `Gift Amount` / `Loyalty Points`), the dates, the redemption
 * limit and the additional info are the voucher's own, as `POST /v1/campaigns/{id}/vouchers/{code}`
 * allows; empty cells take the campaign's.
 */
const campaignVouchers: Importer = {
  kind: CAMPAIGN_VOUCHERS_IMPORT_CSV,
  noun: 'voucher',
  columns: VOUCHER_COLUMNS,
  required: ['code'],
  metadataObject: 'voucher',
  reference: (cells) => cell(cells, 'code') ?? null,
  async apply(tx, deps, actor, cells, metadata, payload) {
    const code = required(cells, 'code');
    refuseHistory(cells);
    if (payload.campaign_id === null) throw new Error('a campaign voucher import without a campaign');
    // Only a row that fills a column read by the voucher type needs the campaign's template here; the
    // others get all the type decides from it in createVoucherIn.
    let value: [string, unknown] | undefined;
    if (TEMPLATE_COLUMNS.some((column) => cell(cells, column) !== undefined)) {
      const template = templateOf(await codeBearingCampaign(tx, actor.projectId, payload.campaign_id));
      if (template === null) throw new Error('a code-bearing campaign without a voucher template');
      value = campaignTypedValue(cells, template);
    }
    const input = voucherBody(
      present([['code', code], ['campaign_id', payload.campaign_id], ...(value ? [value] : []), ...voucherMembers(cells, metadata)]),
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
  /** Standard columns' names as the header writes them. */
  labels: Map<string, string>;
  width: number;
}

/** An importer's standard columns by the key headers are matched with (columnKey). */
const columnsByKey = new WeakMap<Importer, ReadonlyMap<string, string>>();

function standardColumn(importer: Importer, header: string): string | undefined {
  let byKey = columnsByKey.get(importer);
  if (!byKey) {
    byKey = new Map(importer.columns.map((column) => [columnKey(column), column]));
    columnsByKey.set(importer, byKey);
  }
  return byKey.get(columnKey(header));
}

const METADATA_KEY_LENGTH = 255;

/**
 * Reads the header of a file. Refused with 400 (nothing is imported): a column without a name, a name
 * given twice, a metadata column whose name has white space (the vendor's rule) or is too long, and a
 * missing required column.
 */
export function planColumns(importer: Importer, header: readonly string[]): ColumnPlan {
  const plan: ColumnPlan = { standard: [], metadata: [], labels: new Map(), width: header.length };
  const seen = new Map<string, number>();
  for (const [index, name] of header.entries()) {
    const at = `Column ${index + 1}`;
    const text = textProblem(name);
    if (text) throw errors.invalidPayload(`${at} of the header ${text.message}`);
    if (name.trim() === '') throw errors.invalidPayload(`${at} of the header has no name`);
    const standard = standardColumn(importer, name);
    const key = standard ?? name.trim();
    const earlier = seen.get(key);
    if (earlier !== undefined) throw errors.invalidPayload(`Columns ${earlier + 1} and ${index + 1} of the header both name ${key}`);
    seen.set(key, index);
    if (standard !== undefined) {
      plan.standard.push([index, standard]);
      plan.labels.set(standard, name.trim());
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

/**
 * The non-empty cells of one record, by column. A cell our exports neutralised against spreadsheet
 * formulas (`'=…`, `'+…`, `'-…`: src/domain/exports/csv.ts) loses that one quote, so an exported file
 * imports back to the values it was made from.
 */
export function rowCells(plan: ColumnPlan, record: readonly string[]): RowCells {
  const standard = new Map<string, string>();
  for (const [index, column] of plan.standard) {
    const text = record[index];
    if (text !== undefined && text.trim() !== '') standard.set(column, restoreFormulaCell(text));
  }
  const metadata: RowCells['metadata'] = [];
  for (const [index, key] of plan.metadata) {
    const text = record[index];
    if (text !== undefined && text.trim() !== '') metadata.push([key, restoreFormulaCell(text)]);
  }
  return { standard, metadata, labels: plan.labels };
}
