import { businessError } from '../../domain/errors.ts';
import { addIsoDuration, parseIsoDuration } from '../../domain/time/iso-duration.ts';
import { addToVouchersCount, findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import { insertHolderIfAbsent } from '../../store/referrals.ts';
import { claimUnpublishedVoucher, claimVoucher, findHeldVoucher, findPublicationBySourceId, insertPublication } from '../../store/publications.ts';
import { findLiveVoucherById, updateLiveVoucher, type VoucherRow } from '../../store/vouchers.ts';
import type { CustomerObject } from '../../store/customers.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { templateOf } from '../campaigns/campaign-input.ts';
import { generateVouchers } from '../campaigns/voucher-generation.ts';
import { renderVouchers, type VoucherObject } from '../vouchers/render.ts';

// Publishing: handing a voucher to a customer, who becomes its holder (promotions reference 2.5; loyalty
// reference 2.2 — adding a loyalty member is publishing a card). Used by the publications API and by the
// loyalty members endpoint.

export interface PublishRequest {
  customer: CustomerObject;
  /** A specific voucher to publish; otherwise one of `campaign`'s is chosen (or made, for AUTO_UPDATE). */
  voucher?: VoucherRow;
  campaign?: CampaignRow;
  channel?: string | null;
  sourceId?: string | null;
  /** The publication's metadata; when given (client requests), checked against the `publication` schema. */
  metadata?: Record<string, unknown>;
  /** Refuse a second voucher of a campaign to one customer (always so for loyalty programs). */
  joinOnce?: boolean;
}

export interface PublicationObject {
  id: string;
  object: 'publication';
  created_at: string;
  customer_id: string;
  tracking_id: string | null;
  metadata: Record<string, unknown>;
  channel: string | null;
  source_id: string | null;
  result: 'SUCCESS';
  customer: { id: string; source_id: string | null; name: string | null; email: string | null; metadata: Record<string, unknown>; object: 'customer' };
  vouchers_id: string[];
  voucher: VoucherObject;
}

export interface Published {
  publication: PublicationObject;
  voucher: VoucherRow;
  /** False when a publication with the same source_id already existed and was answered again. */
  created: boolean;
}

function simpleCustomer(customer: CustomerObject): PublicationObject['customer'] {
  return { id: customer.id, source_id: customer.source_id, name: customer.name, email: customer.email, metadata: customer.metadata, object: 'customer' };
}

async function voucherObject(tx: Tx, deps: Deps, actor: Actor, row: VoucherRow): Promise<VoucherObject> {
  const timeZone = (await findProject(tx, actor.projectId))?.timezone ?? 'UTC';
  const [object] = await renderVouchers(tx, actor.projectId, [row], { timeZone, now: deps.clock.now() });
  if (!object) throw new Error('rendering one voucher gave none');
  return object;
}

export async function publishVoucher(tx: Tx, deps: Deps, actor: Actor, request: PublishRequest): Promise<Published> {
  const { customer } = request;
  const now = deps.clock.now().toISOString();

  if (request.sourceId) {
    // Retrying a publication with its source_id answers the first result instead of a second voucher.
    const earlier = await findPublicationBySourceId(tx, actor.projectId, request.sourceId);
    if (earlier) {
      if (earlier.customer_id !== customer.id) {
        throw businessError('duplicate_source_id', 'Duplicate source_id', {
          details: `Publication with source_id ${request.sourceId} was made for another customer`,
        });
      }
      const voucher = await findLiveVoucherById(tx, actor.projectId, earlier.voucher_id);
      if (voucher) {
        return {
          publication: {
            id: earlier.id,
            object: 'publication',
            created_at: earlier.created_at,
            customer_id: earlier.customer_id,
            tracking_id: earlier.tracking_id,
            metadata: fromJson<Record<string, unknown>>(earlier.metadata, {}),
            channel: earlier.channel,
            source_id: earlier.source_id,
            result: 'SUCCESS',
            customer: simpleCustomer(customer),
            vouchers_id: [voucher.id],
            voucher: await voucherObject(tx, deps, actor, voucher),
          },
          voucher,
          created: false,
        };
      }
    }
  }

  const campaignId = request.voucher?.campaign_id ?? request.campaign?.id ?? null;
  if (request.joinOnce && campaignId) {
    const held = await findHeldVoucher(tx, actor.projectId, campaignId, customer.id);
    if (held) {
      throw businessError('voucher_cannot_be_published', 'Voucher cannot be published', {
        details: 'Voucher cannot be published. Customer already joined program.',
        resourceId: held.code,
        resourceType: 'voucher',
      });
    }
  }

  if (request.metadata !== undefined) await assertMetadata(tx, actor.projectId, 'publication', request.metadata);
  let voucher: VoucherRow | undefined;
  if (request.voucher) {
    if (!request.voucher.active) {
      throw businessError('voucher_cannot_be_published', 'Voucher cannot be published', { details: `Voucher '${request.voucher.code}' is disabled` });
    }
    voucher = await claimVoucher(tx, actor.projectId, request.voucher.id, customer.id, now);
    if (!voucher) {
      throw businessError('voucher_already_published', 'Voucher already published', {
        details: `Voucher '${request.voucher.code}' has already been published`,
        resourceId: request.voucher.code,
        resourceType: 'voucher',
      });
    }
  } else if (request.campaign) {
    const campaign: CampaignRow = request.campaign;
    voucher = await claimUnpublishedVoucher(tx, actor.projectId, campaign.id, customer.id, now);
    const template = templateOf(campaign);
    if (!voucher && campaign.type === 'AUTO_UPDATE' && template) {
      const [made] = await generateVouchers(tx, deps, { projectId: actor.projectId, campaignId: campaign.id, campaignCategoryId: campaign.category_id, template, overrides: {} }, 1);
      if (made) {
        await addToVouchersCount(tx, actor.projectId, campaign.id, 1);
        voucher = await claimVoucher(tx, actor.projectId, made.id, customer.id, now);
      }
    }
    if (!voucher) {
      throw businessError('no_voucher_suitable_for_publication', "Couldn't find any voucher suitable for publication", {
        details: "Couldn't create new vouchers for publication",
      });
    }
  } else {
    throw new Error('publishVoucher needs a voucher or a campaign');
  }

  // A campaign voucher published by code or picked from the pool is valid for the campaign's
  // `activity_duration_after_publishing` from now, whatever the campaign's own expiry says.
  const campaignRow = request.campaign ?? (voucher.campaign_id ? await findLiveCampaignById(tx, actor.projectId, voucher.campaign_id) : undefined);
  const duration = campaignRow?.activity_duration_after_publishing ? parseIsoDuration(campaignRow.activity_duration_after_publishing) : null;
  if (duration) {
    await updateLiveVoucher(tx, actor.projectId, voucher.id, { expiration_date: addIsoDuration(new Date(now), duration).toISOString() });
    voucher = (await findLiveVoucherById(tx, actor.projectId, voucher.id)) ?? voucher;
  }

  // The customer now holds it (GET /v1/customers/{id}/redeemables): as its referrer for a referral code.
  await insertHolderIfAbsent(tx, {
    id: deps.ids.next('rh'),
    project_id: actor.projectId,
    voucher_id: voucher.id,
    campaign_id: voucher.campaign_id,
    customer_id: customer.id,
    holder_role: voucher.is_referral_code ? 'REFERRER' : 'OWNER',
    metadata: toJson({}),
    created_at: now,
  });

  const publicationId = deps.ids.next('pub');
  await insertPublication(tx, {
    id: publicationId,
    project_id: actor.projectId,
    voucher_id: voucher.id,
    campaign_id: voucher.campaign_id,
    customer_id: customer.id,
    channel: request.channel ?? 'API',
    source_id: request.sourceId ?? null,
    tracking_id: customer.source_id,
    metadata: toJson(request.metadata ?? {}),
    result: 'SUCCESS',
    created_at: now,
  });
  const object = await voucherObject(tx, deps, actor, voucher);
  const publication: PublicationObject = {
    id: publicationId,
    object: 'publication',
    created_at: now,
    customer_id: customer.id,
    tracking_id: customer.source_id,
    metadata: request.metadata ?? {},
    channel: request.channel ?? 'API',
    source_id: request.sourceId ?? null,
    result: 'SUCCESS',
    customer: simpleCustomer(customer),
    vouchers_id: [voucher.id],
    voucher: object,
  };
  const campaignRef = campaignRow ?? null;
  const eventCampaign = campaignRef ? { id: campaignRef.id, type: campaignRef.campaign_type, name: campaignRef.name } : null;
  const payload = { customer: simpleCustomer(customer), campaign: eventCampaign, publication, voucher: object };
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'publication.succeeded',
      activityType: 'customer.publication.succeeded',
      activityCategory: 'ACTION',
      customerId: customer.id,
      campaign: eventCampaign,
      voucherCode: voucher.code,
      entityId: publicationId,
      data: payload,
    }),
    makeEvent(deps, actor, {
      type: 'voucher.published',
      customerId: customer.id,
      campaign: eventCampaign,
      voucherCode: voucher.code,
      entityId: voucher.id,
      data: { ...payload, created_at: now },
    }),
  ]);
  return { publication, voucher, created: true };
}
