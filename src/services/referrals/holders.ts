import type { AddHoldersInput, HolderOut, ListHoldersInput } from '../../api/referrals.ts';
import { businessError, DomainError, errors } from '../../domain/errors.ts';
import { FilterError, parseFilter } from '../../domain/filters/filter.ts';
import { findLiveCampaign } from '../../store/campaigns.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { deleteHolder, findHolder, holderFilterFields, insertHolderIfAbsent, listHolders, type HolderRow } from '../../store/referrals.ts';
import { findLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, listing, type Actor, type Deps } from '../context.ts';
import { resolveCustomer } from '../customers/customers.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Holders of referral codes (vendor /v1/referrals/{campaignId}/members/{memberId}/holders and the form
// without a campaign): the REFERRER is the customer the code was published to; REFEREEs are added here
// (or when a referral converts). A customer holds one code once, whatever the role (unique index → 409).

export function toHolderObject(row: HolderRow, voucher: Pick<VoucherRow, 'type'>): HolderOut {
  return {
    id: row.id,
    created_at: row.created_at,
    redeemable_id: row.voucher_id,
    redeemable_object: 'voucher',
    campaign_id: row.campaign_id,
    campaign_type: 'REFERRAL_PROGRAM',
    voucher_type: voucher.type,
    customer_id: row.customer_id,
    holder_role: row.holder_role,
    metadata: fromJson<Record<string, unknown>>(row.metadata, {}),
    object: 'redeemable_holder',
  };
}

/**
 * A publication of a referral code makes its holder the code's referrer: recorded on the voucher
 * (`referrer_id`, set once) and as its REFERRER holder. Runs inside the publication's transaction.
 */
export async function recordReferrer(tx: Tx, deps: Deps, actor: Actor, voucher: VoucherRow, customerId: string): Promise<void> {
  await tx
    .updateTable('vouchers')
    .set({ referrer_id: customerId })
    .where('project_id', '=', actor.projectId)
    .where('id', '=', voucher.id)
    .where('referrer_id', 'is', null)
    .execute();
  await insertHolderIfAbsent(tx, {
    id: deps.ids.next('rh'),
    project_id: actor.projectId,
    voucher_id: voucher.id,
    campaign_id: voucher.campaign_id,
    customer_id: customerId,
    holder_role: 'REFERRER',
    metadata: toJson({}),
    created_at: deps.clock.now().toISOString(),
  });
}

/** The referral code a path names (code or voucher id), in the named program when there is one. */
export async function referralCode(db: Executor, actor: Actor, campaignRef: string | null, memberId: string): Promise<VoucherRow> {
  const voucher = await findLiveVoucher(db, actor.projectId, memberId);
  if (!voucher) throw errors.notFound('voucher', memberId);
  if (campaignRef !== null) {
    const campaign = await findLiveCampaign(db, actor.projectId, campaignRef);
    if (!campaign || campaign.campaign_type !== 'REFERRAL_PROGRAM') throw errors.notFound('campaign', campaignRef);
    if (voucher.campaign_id !== campaign.id) throw errors.notFound('voucher', memberId);
  }
  if (!voucher.is_referral_code) {
    throw businessError('invalid_voucher', 'Invalid voucher', {
      details: `Voucher ${voucher.code} is not a referral code`,
      resourceId: voucher.code,
      resourceType: 'voucher',
    });
  }
  return voucher;
}

const duplicateHolder = (customerId: string) =>
  new DomainError('holder_assignement_duplication', 409, {
    message: 'Customer is already assigned to given redeemable',
    details: `Customer ${customerId} already holds this referral code`,
    resourceId: customerId,
    resourceType: 'customer',
  });

/** Adds referees to a code; all or nothing (one customer that cannot be added refuses the whole request). */
export async function addHolders(deps: Deps, actor: Actor, campaignRef: string | null, memberId: string, input: AddHoldersInput): Promise<{ holders: HolderOut[] }> {
  return inTransaction(deps, async (tx) => {
    const voucher = await referralCode(tx, actor, campaignRef, memberId);
    const now = deps.clock.now().toISOString();
    const added: HolderOut[] = [];
    const seen = new Set<string>();
    for (const ref of input.holders) {
      const { customer } = await resolveCustomer(tx, deps, actor, ref, { createIfMissing: true });
      if (seen.has(customer.id)) throw errors.invalidPayload(`Property .holders names customer ${customer.id} twice`);
      seen.add(customer.id);
      const row: HolderRow = {
        id: deps.ids.next('rh'),
        project_id: actor.projectId,
        voucher_id: voucher.id,
        campaign_id: voucher.campaign_id,
        customer_id: customer.id,
        holder_role: 'REFEREE',
        metadata: toJson(input.metadata ?? {}),
        created_at: now,
      };
      if (!(await insertHolderIfAbsent(tx, row))) throw duplicateHolder(customer.id);
      added.push(toHolderObject(row, voucher));
    }
    return { holders: added };
  });
}

export interface HolderList {
  object: 'list';
  data_ref: 'data';
  data: HolderOut[];
  total: number;
  has_more: boolean;
  more_starting_after?: string;
}

export async function listCodeHolders(deps: Deps, actor: Actor, campaignRef: string | null, memberId: string, query: ListHoldersInput): Promise<HolderList> {
  const voucher = await referralCode(deps.db, actor, campaignRef, memberId);
  let filter;
  try {
    filter = query.filters ? parseFilter(query.filters, holderFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  const { rows, hasMore, total } = await listHolders(deps.db, {
    projectId: actor.projectId,
    voucherId: voucher.id,
    limit: query.limit ?? 10,
    descending: (query.order ?? '-id') === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
    ...(filter ? { filter } : {}),
    dialect: deps.dialect,
    now: deps.clock.now(),
  });
  const data = await readableRows(listing(deps, actor, 'redeemable_holder'), rows, (some) => some.map((row) => toHolderObject(row, voucher)));
  // The next page continues after the last row read, shown or left out.
  const last = rows[rows.length - 1];
  return { object: 'list', data_ref: 'data', data, total, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}

/** Removes a referee from a code. The referrer holds the code by publication and cannot be removed here. */
export async function removeHolder(deps: Deps, actor: Actor, campaignRef: string | null, memberId: string, holderId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const voucher = await referralCode(tx, actor, campaignRef, memberId);
    const holder = await findHolder(tx, actor.projectId, voucher.id, holderId);
    if (!holder) throw errors.notFound('redeemable_holder', holderId);
    if (holder.holder_role !== 'REFEREE') {
      throw errors.invalidPayload(`Holder ${holderId} is the code's ${holder.holder_role.toLowerCase()}; only referees can be removed`);
    }
    if (!(await deleteHolder(tx, actor.projectId, holder.id))) throw errors.notFound('redeemable_holder', holderId);
  });
}

/** Adds a referee holder when a referral converts, unless the customer already holds the code. */
export async function recordReferee(tx: Tx, deps: Deps, actor: Actor, voucher: VoucherRow, customerId: string): Promise<void> {
  await insertHolderIfAbsent(tx, {
    id: deps.ids.next('rh'),
    project_id: actor.projectId,
    voucher_id: voucher.id,
    campaign_id: voucher.campaign_id,
    customer_id: customerId,
    holder_role: 'REFEREE',
    metadata: toJson({}),
    created_at: deps.clock.now().toISOString(),
  });
}

/** A referral code's referrer: recorded at publication; the holder for codes published before that. */
export const referrerOf = (voucher: VoucherRow): string | null => voucher.referrer_id ?? voucher.holder_id ?? null;
