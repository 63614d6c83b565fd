import { setImmediate } from 'node:timers/promises';
import type { Insertable } from 'kysely';
import { codeSpace, generateCodes, type CodeConfig } from '../../domain/codes/code-config.ts';
import { businessError } from '../../domain/errors.ts';
import type { Tx } from '../../store/db.ts';
import { toJson } from '../../store/json.ts';
import { projectCodesAreCaseSensitive } from '../../store/projects.ts';
import type { VouchersTable } from '../../store/schema.ts';
import { codeKeyOf, insertVouchersSkippingTakenCodes } from '../../store/vouchers.ts';
import type { Deps } from '../context.ts';
import type { VoucherTemplate } from './campaign-input.ts';

// Making vouchers from a campaign's template: unique codes (the unique index settles collisions, also
// against concurrent generators), rows written in batches. Up to SYNC_GENERATION_LIMIT codes are made
// inside the request (DECISIONS 21); more run as a job in chunks of GENERATION_CHUNK per transaction,
// taken in order from sorted draws of up to GENERATION_DRAW codes (see drawCodes).

export const SYNC_GENERATION_LIMIT = 1000;
export const GENERATION_CHUNK = 5000;
/** Codes a job draws and sorts at once: about 30 MB of strings at most. */
export const GENERATION_DRAW = 250_000;
const ROWS_PER_STATEMENT = 500;

/** Per-voucher values that override the campaign template (add-vouchers body). */
export interface VoucherOverrides {
  category_id?: string | null;
  metadata?: Record<string, unknown>;
  additional_info?: string | null;
  redemption_quantity?: number | null;
  start_date?: string | null;
  expiration_date?: string | null;
}

export interface VoucherSource {
  projectId: string;
  campaignId: string;
  campaignCategoryId: string | null;
  template: VoucherTemplate;
  overrides: VoucherOverrides;
}

/** The row of one new voucher made from a template (balances start at the template's credits or points). */
export function voucherRow(deps: Pick<Deps, 'ids'>, source: VoucherSource, code: string, codeKey: string, now: string): Insertable<VouchersTable> {
  return voucherRowMaker(deps, source, now)(code, codeKey);
}

/**
 * Makes the rows of new vouchers from one template. Everything but the id and the code is the same for
 * every row, so it is built (and its JSON written) once, not once per voucher of a million-code job.
 */
export function voucherRowMaker(deps: Pick<Deps, 'ids'>, source: VoucherSource, now: string): (code: string, codeKey: string) => Insertable<VouchersTable> {
  const { template, overrides } = source;
  const shared: Omit<Insertable<VouchersTable>, 'id' | 'code' | 'code_key'> = {
    project_id: source.projectId,
    campaign_id: source.campaignId,
    category_id: overrides.category_id !== undefined ? overrides.category_id : source.campaignCategoryId,
    type: template.type,
    discount: template.discount ? toJson(template.discount) : null,
    gift_amount: template.gift ? template.gift.amount : null,
    gift_effect: template.gift ? template.gift.effect : null,
    start_date: overrides.start_date !== undefined ? overrides.start_date : (template.start_date ?? null),
    expiration_date: overrides.expiration_date !== undefined ? overrides.expiration_date : (template.expiration_date ?? null),
    validity_timeframe: template.validity_timeframe ? toJson(template.validity_timeframe) : null,
    validity_day_of_week: template.validity_day_of_week ? toJson(template.validity_day_of_week) : null,
    validity_hours: template.validity_hours ? toJson(template.validity_hours) : null,
    active: true,
    additional_info: overrides.additional_info ?? null,
    metadata: toJson(overrides.metadata ?? {}),
    is_referral_code: template.is_referral_code,
    holder_id: null,
    referrer_id: null,
    redemption_quantity: overrides.redemption_quantity !== undefined ? overrides.redemption_quantity : template.redemption.quantity,
    published_at: null,
    created_at: now,
    updated_at: null,
    binned_at: null,
  };
  if (template.gift) shared.gift_balance = template.gift.amount;
  if (template.loyalty_card && template.loyalty_card.points > 0) {
    // Starting points are a card's own: they hold no bucket and never expire (the ledger spends them last).
    shared.loyalty_points = template.loyalty_card.points;
    shared.loyalty_balance = template.loyalty_card.points;
  }
  return (code, codeKey) => ({ id: deps.ids.next('v'), code, code_key: codeKey, ...shared });
}

function assertRoom(config: CodeConfig, wanted: number): void {
  // Past half the code space random draws collide so often that generation would crawl; refuse early.
  if (codeSpace(config) < wanted * 2) {
    throw businessError('invalid_code_config', 'Invalid code config', {
      details: `code_config allows ${codeSpace(config)} codes, too few for ${wanted} more: lengthen the pattern or widen the charset`,
    });
  }
}

/** A candidate code and its key (how the project compares codes: as written, or lower-cased). */
export interface DrawnCode {
  code: string;
  key: string;
}

/**
 * `count` random candidates, distinct by key and sorted by key. Sorted because the unique code index
 * is what inserting many codes costs: random keys land on a different index page each, sorted keys
 * land on neighbouring pages, so a chunk written from a large sorted draw changes a few hundred pages
 * instead of one page per voucher (measured on SQLite, 200k codes into a project holding 2M vouchers:
 * 24 s drawn at random, 7.7 s sorted).
 */
export function drawCodes(config: CodeConfig, caseSensitive: boolean, count: number): DrawnCode[] {
  if (count <= 0) return [];
  assertRoom(config, count);
  const drawn = new Map<string, string>();
  while (drawn.size < count) {
    for (const code of generateCodes(config, Math.ceil((count - drawn.size) * 1.05) + 8)) {
      const key = codeKeyOf(code, caseSensitive);
      if (!drawn.has(key)) drawn.set(key, code);
      if (drawn.size === count) break;
    }
  }
  // The default sort compares strings as `<` does, without calling back into JavaScript per comparison.
  return [...drawn.keys()].sort().map((key) => ({ code: drawn.get(key) as string, key }));
}

/**
 * Writes a voucher for each drawn code that is still free in the project, inside the caller's
 * transaction, and answers the ids and codes made; codes taken meanwhile are skipped (the unique index
 * decides, also against concurrent generators).
 */
export async function insertDrawnVouchers(tx: Tx, deps: Deps, source: VoucherSource, drawn: readonly DrawnCode[]): Promise<Array<{ id: string; code: string }>> {
  const rowOf = voucherRowMaker(deps, source, deps.clock.now().toISOString());
  const made: Array<{ id: string; code: string }> = [];
  // Each batch's rows are built while the previous statement runs: on PostgreSQL the server writes on
  // one core while this process builds on the other. (On SQLite a statement runs synchronously, so the
  // order of the work is all that changes.)
  let writing: { rows: Insertable<VouchersTable>[]; taken: Promise<Set<string>> } | null = null;
  for (let i = 0; i < drawn.length; i += ROWS_PER_STATEMENT) {
    const rows = drawn.slice(i, i + ROWS_PER_STATEMENT).map(({ code, key }) => rowOf(code, key));
    if (writing) collectMade(writing.rows, await writing.taken, made);
    writing = { rows, taken: insertVouchersSkippingTakenCodes(tx, rows) };
    // Its failure is awaited on the next pass; meanwhile it must not count as unhandled.
    writing.taken.catch(() => {});
    // Let the statement go out before building the next batch.
    await setImmediate();
  }
  if (writing) collectMade(writing.rows, await writing.taken, made);
  return made;
}

function collectMade(rows: readonly Insertable<VouchersTable>[], taken: ReadonlySet<string>, made: Array<{ id: string; code: string }>): void {
  for (const row of rows) if (!taken.has(row.code_key)) made.push({ id: row.id, code: row.code });
}

/**
 * Writes `count` vouchers with fresh codes inside the caller's transaction and answers their ids and
 * codes. Codes already taken in the project (by any campaign) are drawn again.
 */
export async function generateVouchers(tx: Tx, deps: Deps, source: VoucherSource, count: number): Promise<Array<{ id: string; code: string }>> {
  if (count <= 0) return [];
  const caseSensitive = await projectCodesAreCaseSensitive(tx, source.projectId);
  const made: Array<{ id: string; code: string }> = [];
  for (let round = 0; made.length < count; round++) {
    if (round > 50) throw new Error(`could not find ${count - made.length} free codes after 50 rounds`);
    made.push(...(await insertDrawnVouchers(tx, deps, source, drawCodes(source.template.code_config, caseSensitive, count - made.length))));
  }
  return made;
}
