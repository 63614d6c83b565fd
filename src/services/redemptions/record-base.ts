import type { Actor } from '../context.ts';
import type { Facts, Resolved } from './facts.ts';
import { channelOf, type RecordInput } from './records.ts';
import type { NormalisedRequest } from './request.ts';
import type { Snapshots } from './snapshots.ts';

// What every record of one redeemable shares, whether it succeeded, failed or is rolled back: who,
// which voucher or tier (with snapshots), which campaign, the request's tracking id, metadata and session.

export function campaignOf(r: Resolved): { id: string; name: string; type: string } | null {
  if (r.kind === 'voucher') return r.campaign ? { id: r.campaign.id, name: r.campaign.name, type: r.campaign.campaign_type } : null;
  if (r.kind === 'promotion_tier') return { id: r.tier.campaign.id, name: r.tier.campaign.name, type: r.tier.campaign.campaign_type };
  return null;
}

/** The record of one redeemable as redemption and failure records share it. */
export function recordBase(actor: Actor, facts: Facts, request: NormalisedRequest, r: Resolved, snapshots: Snapshots | null): Omit<RecordInput, 'id' | 'object' | 'result' | 'status' | 'failure' | 'parentId' | 'order' | 'orderId' | 'effects' | 'amount' | 'gift' | 'loyaltyCard' | 'reward' | 'at'> {
  const campaign = campaignOf(r);
  const voucherSnapshot = r.kind === 'voucher' ? snapshots?.vouchers.get(r.voucher.id) : undefined;
  const tierSnapshot = r.kind === 'promotion_tier' ? snapshots?.tiers.get(r.tier.tier.id) : undefined;
  return {
    actor,
    channel: channelOf(actor),
    customer: facts.customer.simple,
    trackingId: request.trackingId,
    metadata: request.metadata,
    relatedObject:
      r.kind === 'voucher'
        ? { type: 'voucher', id: r.voucher.id, parentId: r.voucher.campaign_id }
        : r.kind === 'promotion_tier'
          ? { type: 'promotion_tier', id: r.tier.tier.id, parentId: r.tier.campaign.id }
          : { type: r.candidate.object, id: r.candidate.id, parentId: null },
    voucher: r.kind === 'voucher' ? { id: r.voucher.id, code: r.voucher.code, snapshot: voucherSnapshot ?? { id: r.voucher.id, code: r.voucher.code, object: 'voucher' } } : null,
    promotionTier: r.kind === 'promotion_tier' ? { id: r.tier.tier.id, snapshot: tierSnapshot ?? { id: r.tier.tier.id, object: 'promotion_tier' } } : null,
    campaign: campaign ? { id: campaign.id, name: campaign.name } : null,
    reason: null,
    sessionKey: request.session?.key ?? null,
    rollbackOf: null,
  };
}

