import { withMembers } from '../../lib/objects.ts';
import { toCustomerObject } from '../../store/customers.ts';
import type { Executor } from '../../store/db.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import { findTiersWithCampaign, type TierSummary } from '../../store/promotion-tiers.ts';
import { findVouchersForRedemption } from '../../store/redemption-facts.ts';
import { findRewardsByIds } from '../../store/rewards.ts';
import type { Actor, Deps } from '../context.ts';
import { toRewardObject, type RewardObject } from '../loyalty/rewards.ts';
import { renderTiers } from '../promotions/tier-object.ts';
import { renderVoucherRows } from '../vouchers/vouchers.ts';
import type { Resolved } from './facts.ts';
import { simpleCustomer } from './records.ts';

// The full objects redemption and rollback records embed (promotions reference 9.1 *Rec.*: always the
// full objects): the voucher as it is after the operation with its holder, categories and rule
// assignments; the tier with its campaign and summary; the reward. One query per kind for a request.

export interface Snapshots {
  vouchers: Map<string, Record<string, unknown>>;
  tiers: Map<string, Record<string, unknown>>;
  rewards: Map<string, RewardObject>;
}

/** Vouchers as they are now, with their holders (simple customers); one query per kind. */
export async function voucherSnapshots(
  db: Executor,
  deps: Deps,
  actor: Actor,
  voucherIds: readonly string[],
  defs?: DefinitionsView,
  known: ReadonlyMap<string, VoucherRow> = new Map(),
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (voucherIds.length === 0) return out;
  const unknown = [...new Set(voucherIds)].filter((id) => !known.has(id));
  const read = unknown.length === 0 ? [] : await findVouchersForRedemption(db, actor.projectId, unknown.map((id) => ({ codeKey: null, id })), false);
  const rows = [...[...new Set(voucherIds)].flatMap((id) => known.get(id) ?? []), ...read];
  const objects = await renderVoucherRows(db, deps, actor.projectId, rows, defs);
  const holderIds = [...new Set(rows.flatMap((r) => (r.holder_id ? [r.holder_id] : [])))];
  const holders =
    holderIds.length === 0 ? [] : await db.selectFrom('customers').selectAll().where('project_id', '=', actor.projectId).where('id', 'in', holderIds).execute();
  const holderOf = new Map(holders.map((h) => [h.id, simpleCustomer(toCustomerObject(h))]));
  for (const object of objects) {
    // A voucher nobody holds has no `holder` (the vendor's schema allows no null there).
    const holder = object.holder_id ? holderOf.get(object.holder_id) : undefined;
    out.set(object.id, holder ? withMembers(object, { holder }) : object);
  }
  return out;
}

/** Tiers as they are now, with their campaigns; `summaries` as renderTiers takes them. */
export async function tierSnapshots(
  db: Executor,
  projectId: string,
  tierIds: readonly string[],
  defs?: DefinitionsView,
  summaries?: ReadonlyMap<string, TierSummary>,
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (tierIds.length === 0) return out;
  const tiers = await findTiersWithCampaign(db, projectId, [...new Set(tierIds)], undefined, defs);
  for (const tier of await renderTiers(db, projectId, tiers, defs, summaries)) out.set(tier.id, tier);
  return out;
}

/**
 * `defs`: the definitions the request read (its tiers, campaigns and categories come from there);
 * `known`: vouchers whose current row the caller holds already (the use it just made is all that changed);
 * `tierSummaries`: the summaries of every tier in `items`, when the caller read them already (Facts).
 */
export async function renderSnapshots(
  db: Executor,
  deps: Deps,
  actor: Actor,
  items: readonly Resolved[],
  defs?: DefinitionsView,
  known?: ReadonlyMap<string, VoucherRow>,
  tierSummaries?: ReadonlyMap<string, TierSummary> | null,
): Promise<Snapshots> {
  const voucherItems = items.flatMap((r) => (r.kind === 'voucher' ? [r] : []));
  const tierItems = items.flatMap((r) => (r.kind === 'promotion_tier' ? [r] : []));
  const tiers = await tierSnapshots(db, actor.projectId, tierItems.map((r) => r.tier.tier.id), defs, tierSummaries ?? undefined);
  const out: Snapshots = { vouchers: new Map(), tiers, rewards: new Map() };
  const vouchers = await voucherSnapshots(db, deps, actor, voucherItems.map((r) => r.voucher.id), defs, known);
  for (const item of voucherItems) {
    const object = vouchers.get(item.voucher.id);
    if (!object) continue;
    // Stacked responses add the categories (with their stacking type) and the rules checked (reference 6.4).
    out.vouchers.set(
      item.voucher.id,
      withMembers(object, {
        categories: item.categories,
        validation_rules_assignments: { object: 'list', data_ref: 'data', data: item.assignments, total: item.assignments.length },
      }),
    );
  }
  const rewards = await findRewardsByIds(db, actor.projectId, voucherItems.flatMap((r) => (r.reward ? [r.reward.row.id] : [])));
  for (const row of rewards.values()) out.rewards.set(row.id, toRewardObject(row));
  return out;
}
