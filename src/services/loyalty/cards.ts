import type { Static } from 'typebox';
import type { LoyaltyCardObject } from '../../api/loyalty.ts';
import { businessError, errors, type DomainError } from '../../domain/errors.ts';
import { readExpirationRules, type ExpirationRules } from '../../domain/loyalty/points-expiry.ts';
import { inactiveReason, localDate, type ValidityWindow } from '../../domain/validity/validity.ts';
import { findLiveCampaign, findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomerById } from '../../store/customers.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { fromJson } from '../../store/json.ts';
import { nextExpirations } from '../../store/ledger.ts';
import { lockCards } from '../../store/loyalty.ts';
import { findProject } from '../../store/projects.ts';
import { findLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import { templateOf } from '../campaigns/campaign-input.ts';
import type { Actor, Deps } from '../context.ts';
import { renderVouchers, type VoucherObject } from '../vouchers/render.ts';
import { assetLinker } from './card-assets.ts';

// What every member use case shares: finding a program and a card the way paths name them, the
// project's calendar day, the card object (seed 2.5), validity checks and the campaign's expiry rules.

/** A loyalty program by id or name; any other campaign type is "not found" on these paths. */
export async function loyaltyProgram(db: Executor, actor: Actor, idOrName: string): Promise<CampaignRow> {
  const row = await findLiveCampaign(db, actor.projectId, idOrName);
  if (!row || row.campaign_type !== 'LOYALTY_PROGRAM') throw errors.notFound('campaign', idOrName);
  return row;
}

/**
 * A loyalty card named by its code (or id). With a program, the card must belong to it: a card of
 * another program is not found there (the vendor does not say; a 404 never leaks the other program).
 */
export async function loyaltyCard(db: Executor, actor: Actor, code: string, program?: CampaignRow): Promise<VoucherRow> {
  const row = await findLiveVoucher(db, actor.projectId, code);
  if (!row || row.type !== 'LOYALTY_CARD' || (program && row.campaign_id !== program.id)) throw errors.notFound('voucher', code);
  return row;
}

/** The card's program (cards always belong to one; a missing one means it was deleted). */
export async function programOf(db: Executor, actor: Actor, card: VoucherRow): Promise<CampaignRow> {
  const row = card.campaign_id ? await findLiveCampaignById(db, actor.projectId, card.campaign_id) : undefined;
  if (!row) throw errors.notFound('campaign', card.campaign_id ?? card.code);
  return row;
}

export interface ProjectDay {
  timeZone: string;
  now: Date;
  /** The calendar date in the project's time zone: the day points are earned, spent and expire by. */
  today: string;
}

export async function projectDay(db: Executor, deps: Pick<Deps, 'clock'>, projectId: string): Promise<ProjectDay> {
  const timeZone = (await findProject(db, projectId))?.timezone ?? 'UTC';
  const now = deps.clock.now();
  return { timeZone, now, today: localDate(now, timeZone) };
}

export type LoyaltyCard = Static<typeof LoyaltyCardObject>;

/**
 * The voucher renderer answers a loosely typed object for every voucher kind; a loyalty card's is
 * checked here for the members that make it a card (and fail loudly if the renderer ever stops
 * producing them) before it is treated as the card form of seed 2.5.
 */
function isLoyaltyCard(object: VoucherObject): object is VoucherObject & LoyaltyCard {
  const card: unknown = object.loyalty_card;
  // The shared voucher schema does not (yet) declare `assets`; renderVouchers adds it when asked.
  const assets: unknown = 'assets' in object ? object.assets : undefined;
  return (
    object.type === 'LOYALTY_CARD' &&
    typeof card === 'object' &&
    card !== null &&
    'balance' in card &&
    typeof card.balance === 'number' &&
    typeof assets === 'object' &&
    assets !== null &&
    'qr' in assets &&
    'barcode' in assets
  );
}

/** Card objects with every member of seed 2.5, including the signed asset links. */
export async function renderCards(db: Executor, deps: Deps, actor: Actor, rows: readonly VoucherRow[], day?: ProjectDay): Promise<LoyaltyCard[]> {
  const at = day ?? (await projectDay(db, deps, actor.projectId));
  const objects = await renderVouchers(db, actor.projectId, rows, { timeZone: at.timeZone, now: at.now, assets: assetLinker(deps) });
  return objects.map((object) => {
    if (!isLoyaltyCard(object)) throw new Error(`voucher ${object.id} did not render as a loyalty card`);
    return object;
  });
}

export async function renderCard(db: Executor, deps: Deps, actor: Actor, row: VoucherRow, day?: ProjectDay): Promise<LoyaltyCard> {
  const [card] = await renderCards(db, deps, actor, [row], day);
  if (!card) throw new Error('rendering one card gave none');
  return card;
}

function windowOf(row: VoucherRow | CampaignRow): ValidityWindow {
  return {
    active: Boolean(row.active),
    start_date: row.start_date,
    expiration_date: row.expiration_date,
    validity_timeframe: fromJson(row.validity_timeframe, null),
    validity_day_of_week: fromJson(row.validity_day_of_week, null),
    validity_hours: fromJson(row.validity_hours, null),
  };
}

const CARD_KEYS = {
  disabled: ['voucher_disabled', 'is disabled'],
  not_started: ['voucher_not_active', 'is not active yet (before its start_date)'],
  expired: ['voucher_expired', 'has expired'],
  outside_timeframe: ['voucher_not_active_now', 'is outside its validity_timeframe now'],
  outside_day_of_week: ['voucher_not_active_now', 'is not valid on this day of the week'],
  outside_hours: ['voucher_not_active_now', 'is outside its validity_hours now'],
} as const;

/**
 * Why a card cannot be used now (loyalty reference 1.8: its own and its program's window, in the
 * project's time zone), as the 400 to answer, or null when it can.
 */
export function unusableCard(card: VoucherRow, program: CampaignRow, day: ProjectDay): DomainError | null {
  const own = inactiveReason(windowOf(card), day.now, day.timeZone);
  if (own) {
    const [key, text] = CARD_KEYS[own];
    return businessError(key, 'Loyalty card not active', { details: `Loyalty card ${card.code} ${text}`, resourceId: card.code, resourceType: 'voucher' });
  }
  const programReason = inactiveReason(windowOf(program), day.now, day.timeZone);
  if (programReason) {
    const text = CARD_KEYS[programReason][1];
    return businessError('campaign_not_active', `Loyalty campaign '${program.name}' is not active`, {
      details: `Loyalty campaign ${program.name} of card ${card.code} ${text}`,
      resourceId: program.id,
      resourceType: 'campaign',
    });
  }
  return null;
}

/** The program's points expiry (`voucher.loyalty_card.expiration_rules`), or null: points never expire. */
export function programExpirationRules(program: CampaignRow): ExpirationRules | null {
  return readExpirationRules(templateOf(program)?.loyalty_card?.expiration_rules);
}

/** A card as transaction details and event payloads show a related card (loyalty reference 2.7.2). */
export interface SimpleCard {
  id: string;
  code: string;
  type: 'LOYALTY_CARD';
  campaign: string | null;
  campaign_id: string | null;
  loyalty_card: { points: number; balance: number; next_expiration_date?: string; next_expiration_points?: number };
  is_referral_code: boolean;
  holder_id: string | null;
  object: 'voucher';
}

export async function simpleCards(db: Executor, actor: Actor, cards: readonly { row: VoucherRow; program: CampaignRow }[], today: string): Promise<Map<string, SimpleCard>> {
  const next = await nextExpirations(db, actor.projectId, cards.map((c) => c.row.id), today);
  const out = new Map<string, SimpleCard>();
  for (const { row, program } of cards) {
    const expiry = next.get(row.id);
    out.set(row.id, {
      id: row.id,
      code: row.code,
      type: 'LOYALTY_CARD',
      campaign: program.name,
      campaign_id: row.campaign_id,
      loyalty_card: {
        points: Number(row.loyalty_points),
        balance: Number(row.loyalty_balance),
        ...(expiry ? { next_expiration_date: expiry.date, next_expiration_points: expiry.points } : {}),
      },
      is_referral_code: Boolean(row.is_referral_code),
      holder_id: row.holder_id,
      object: 'voucher',
    });
  }
  return out;
}

export function campaignRef(program: CampaignRow): { id: string; type: string; name: string } {
  return { id: program.id, type: program.campaign_type, name: program.name };
}

export interface CustomerSummary {
  id: string;
  source_id: string | null;
  name: string | null;
  email: string | null;
  metadata: Record<string, unknown>;
  object: 'customer';
}

export async function customerSummary(db: Executor, projectId: string, customerId: string | null): Promise<CustomerSummary | null> {
  if (customerId === null) return null;
  const row = await findLiveCustomerById(db, projectId, customerId);
  if (!row) return null;
  return { id: row.id, source_id: row.source_id, name: row.name, email: row.email, metadata: fromJson(row.metadata, {}), object: 'customer' };
}

/** Locks the card and answers it as it is now (the caller's earlier read may be stale). */
export async function lockedCard(tx: Tx, actor: Actor, card: VoucherRow): Promise<VoucherRow> {
  const locked = (await lockCards(tx, actor.projectId, [card.id])).get(card.id);
  if (!locked) throw errors.notFound('voucher', card.code);
  return locked;
}
