import { errors } from '../../domain/errors.ts';
import type { BinFiltersInput, BinListInput } from '../../api/bin.ts';
import { findCampaignInAnyState } from '../../store/campaigns.ts';
import { purgeBinnedCampaign } from '../campaigns/campaigns.ts';
import * as binStore from '../../store/bin.ts';
import type { BinCondition, BinEntryObject, BinField } from '../../store/bin.ts';
import { appendEvents } from '../../store/events.ts';
import * as productStore from '../../store/products.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { purgeProduct, purgeSku } from './products.ts';
import { findVoucherInAnyState } from '../../store/voucher-list.ts';
import { purgeBinnedVoucher } from '../vouchers/vouchers.ts';

const FIELDS: readonly BinField[] = ['id', 'resource_id', 'resource_name', 'resource_type'];

/** Flattens `filters[field][conditions][$op]` into conditions; the schema already refused unknown ones. */
export function binConditions(filters: BinFiltersInput | undefined): BinCondition[] {
  const out: BinCondition[] = [];
  if (!filters) return out;
  for (const field of FIELDS) {
    const conditions: Record<string, string | readonly string[] | undefined> | undefined = filters[field]?.conditions;
    if (!conditions) continue;
    for (const [op, value] of Object.entries(conditions)) {
      if (value === undefined) continue;
      switch (op) {
        case '$in':
        case '$not_in':
          out.push({ field, op, values: typeof value === 'string' ? [value] : value });
          break;
        case '$is':
        case '$is_not':
        case '$starts_with':
        case '$ends_with':
        case '$contains':
        case '$not_contain':
          if (typeof value !== 'string') throw errors.invalidQuery(`Property .filters.${field}.conditions.${op} should be string`);
          out.push({ field, op, value });
          break;
        case '$has_value':
        case '$is_unknown':
          out.push({ field, op });
          break;
        default:
          throw errors.invalidQuery(`Property .filters.${field}.conditions has the unknown operator '${op}'`);
      }
    }
  }
  return out;
}

export interface BinPage {
  data: BinEntryObject[];
  hasMore: boolean;
}

export async function listBinEntries(deps: Deps, projectId: string, input: BinListInput): Promise<BinPage> {
  const { rows, hasMore } = await binStore.listBinEntries(deps.db, {
    projectId,
    limit: input.limit ?? 10,
    descending: input.order === '-id',
    ...(input.starting_after_id !== undefined ? { startingAfterId: input.starting_after_id } : {}),
    junction: input.filters?.junction ?? 'and',
    conditions: binConditions(input.filters),
  });
  return { data: rows.map(binStore.toBinEntryObject), hasMore };
}

/** DELETE /v1/trash-bin/{id}: deletes the binned resource for good (a product with all its SKUs) and the entry. */
export async function deleteBinEntry(deps: Deps, actor: Actor, entryId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const entry = await binStore.findBinEntry(tx, actor.projectId, entryId);
    if (!entry) throw errors.notFound('bin_entry', entryId);
    const origin = { permanent: true, bin_entry_id: entry.id };
    switch (entry.resource_type) {
      case 'product': {
        const row = await productStore.findProductInAnyState(tx, actor.projectId, entry.resource_id);
        const { skusDeleted } = await purgeProduct(tx, actor.projectId, entry.resource_id, false);
        if (row) {
          const product = productStore.toProductObject(row);
          await appendEvents(tx, [
            makeEvent(deps, actor, { type: 'product.deleted', entityId: row.id, data: { product, ...origin, skus_deleted: skusDeleted } }),
          ]);
        }
        break;
      }
      case 'sku': {
        const row = await productStore.findSkuInAnyState(tx, actor.projectId, entry.resource_id);
        await purgeSku(tx, actor.projectId, entry.resource_id, false);
        if (row) {
          const sku = productStore.toSkuObject(row);
          await appendEvents(tx, [makeEvent(deps, actor, { type: 'sku.deleted', entityId: row.id, data: { sku, ...origin } })]);
        }
        break;
      }
      case 'campaign': {
        const row = await findCampaignInAnyState(tx, actor.projectId, entry.resource_id);
        await binStore.deleteBinEntry(tx, actor.projectId, entry.id);
        if (row) {
          const asyncActionId = await purgeBinnedCampaign(tx, deps, actor, row.id);
          await appendEvents(tx, [
            makeEvent(deps, actor, {
              type: 'campaign.deleted',
              entityId: row.id,
              campaign: { id: row.id, type: row.campaign_type, name: row.name },
              data: { campaign: { id: row.id, name: row.name, object: 'campaign' }, ...origin, async_action_id: asyncActionId },
            }),
          ]);
        }
        break;
      }
      case 'voucher': {
        const row = await findVoucherInAnyState(tx, actor.projectId, entry.resource_id);
        await binStore.deleteBinEntry(tx, actor.projectId, entry.id);
        if (row) {
          await purgeBinnedVoucher(tx, actor.projectId, row.id);
          await appendEvents(tx, [
            makeEvent(deps, actor, {
              type: 'voucher.deleted',
              entityId: row.id,
              voucherCode: row.code,
              data: { voucher: { id: row.id, code: row.code, campaign_id: row.campaign_id, object: 'voucher' }, campaign: null, ...origin },
            }),
          ]);
        }
        break;
      }
    }
  });
}
