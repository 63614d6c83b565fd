import type { CreatePublicationInput, ListPublicationsInput, PublicationListItemOut, PublicationOut } from '../../api/publications.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { FilterError, parseFilter } from '../../domain/filters/filter.ts';
import { findCampaignsByIds, findLiveCampaign, findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomer } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { fromJson } from '../../store/json.ts';
import { findCustomersByIds, listPublications as listPublicationRows, publicationFilterFields, type PublicationOrder } from '../../store/publication-list.ts';
import type { PublicationRow } from '../../store/publications.ts';
import type { VoucherType } from '../../store/schema.ts';
import { findVouchersByIds } from '../../store/voucher-list.ts';
import { findLiveVoucherByCode, findLiveVoucherById, type VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, listing, type Actor, type Deps } from '../context.ts';
import { resolveCustomer } from '../customers/customers.ts';
import { templateOf } from '../campaigns/campaign-input.ts';
import { recordReferrer } from '../referrals/holders.ts';
import { renderVoucherRow } from '../vouchers/vouchers.ts';
import { publishVoucher, type Published } from './publish.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// `POST /v1/publications`, its query-string twin `GET /v1/publications/create`, and the publication list
// (promotions reference 2.5). A publication names the customer (created by source_id when unknown) and
// either one voucher by code or a campaign to pick `count` vouchers from; publishVoucher does the
// hand-over, and a referral code handed over this way makes its holder the code's referrer.

export interface PublicationRequest {
  customer: CreatePublicationInput['customer'];
  voucher?: string | null | undefined;
  /** The JSON body sends an object; the query-string variant may also name the campaign as a plain string. */
  campaign?: CreatePublicationInput['campaign'] | string;
  channel?: string | null | undefined;
  source_id?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  join_once?: boolean | undefined;
}

function campaignReference(campaign: PublicationRequest['campaign']): { reference: string; count: number } | null {
  if (campaign === undefined || campaign === null) return null;
  if (typeof campaign === 'string') return { reference: campaign, count: 1 };
  const reference = campaign.id ?? campaign.name;
  if (!reference) throw errors.invalidPayload("Property .campaign should have required property 'name' or 'id'");
  return { reference, count: campaign.count ?? 1 };
}

async function publishingCampaign(tx: Tx, actor: Actor, reference: string): Promise<CampaignRow> {
  const campaign = await findLiveCampaign(tx, actor.projectId, reference);
  if (!campaign) throw errors.notFound('campaign', reference);
  if (!templateOf(campaign)) {
    throw businessError('voucher_cannot_be_published', 'Voucher cannot be published', { details: `${campaign.campaign_type} campaigns have no vouchers to publish` });
  }
  return campaign;
}

/**
 * Publishes what the request names. A `voucher` wins over a `campaign` sent with it: the vendor ignores
 * the campaign then in the query-string variant, and its JSON examples ("Specific Voucher") send both.
 */
export async function createPublication(deps: Deps, actor: Actor, input: PublicationRequest): Promise<PublicationOut> {
  const voucherCode = input.voucher ?? null;
  const campaignRef = voucherCode === null ? campaignReference(input.campaign) : null;
  if (voucherCode === null && campaignRef === null) throw errors.invalidPayload("Payload should have required property 'voucher' or 'campaign'");
  const count = campaignRef?.count ?? 1;
  if (count > 1 && input.source_id) throw errors.invalidPayload('Property .source_id allows one voucher per publication: send campaign.count 1 or leave out source_id');

  return inTransaction(deps, async (tx) => {
    const { customer } = await resolveCustomer(tx, deps, actor, input.customer, { createIfMissing: true });
    let voucher: VoucherRow | undefined;
    let campaign: CampaignRow | undefined;
    if (voucherCode !== null) {
      voucher = await findLiveVoucherByCode(tx, actor.projectId, voucherCode);
      if (!voucher) throw errors.notFound('voucher', voucherCode);
      campaign = voucher.campaign_id ? await findLiveCampaignById(tx, actor.projectId, voucher.campaign_id) : undefined;
    } else if (campaignRef !== null) {
      campaign = await publishingCampaign(tx, actor, campaignRef.reference);
    }
    const joinOnce = input.join_once === true || Boolean(campaign?.join_once);
    if (joinOnce && count > 1) throw errors.invalidPayload('A join-once publication gives a customer one voucher: campaign.count must be 1');

    const published: Published[] = [];
    for (let i = 0; i < count; i++) {
      published.push(
        await publishVoucher(tx, deps, actor, {
          customer,
          ...(voucher ? { voucher } : {}),
          ...(campaign ? { campaign } : {}),
          channel: input.channel ?? 'API',
          sourceId: input.source_id ?? null,
          metadata: input.metadata ?? {},
          joinOnce,
        }),
      );
    }
    for (const item of published) {
      if (item.created && item.voucher.is_referral_code) await recordReferrer(tx, deps, actor, item.voucher, customer.id);
    }
    const [first] = published;
    if (!first) throw new Error('publishing gave no publication');
    if (count === 1) {
      const current = (await findLiveVoucherById(tx, actor.projectId, first.voucher.id)) ?? first.voucher;
      return { ...first.publication, voucher: await renderVoucherRow(tx, deps, actor.projectId, current) };
    }
    const { voucher: _one, ...base } = first.publication;
    return { ...base, vouchers_id: published.map((p) => p.voucher.id), vouchers: published.map((p) => p.voucher.code) };
  });
}

export interface PublicationList {
  object: 'list';
  data_ref: 'publications';
  publications: PublicationListItemOut[];
  total: number;
}

const EMPTY: PublicationList = { object: 'list', data_ref: 'publications', publications: [], total: 0 };

const VOUCHER_TYPES: Record<string, VoucherType | null> = {
  discount: 'DISCOUNT_VOUCHER',
  discount_voucher: 'DISCOUNT_VOUCHER',
  gift: 'GIFT_VOUCHER',
  gift_voucher: 'GIFT_VOUCHER',
  loyalty: 'LOYALTY_CARD',
  loyalty_card: 'LOYALTY_CARD',
  // The SDK offers lucky draws, a voucher kind this service does not have: nothing matches.
  lucky_draw: null,
};

/** The voucher as the vendor's publication list shows it: code, campaign and value only. */
function shortVoucher(row: VoucherRow, campaignName: string | null): Record<string, unknown> {
  return {
    code: row.code,
    object: 'voucher',
    campaign: campaignName,
    ...(row.type === 'DISCOUNT_VOUCHER' ? { discount: fromJson<Record<string, unknown> | null>(row.discount, null) } : {}),
    ...(row.type === 'GIFT_VOUCHER' ? { gift: { amount: Number(row.gift_amount ?? 0), balance: Number(row.gift_balance) } } : {}),
    ...(row.type === 'LOYALTY_CARD' ? { loyalty_card: { points: Number(row.loyalty_points), balance: Number(row.loyalty_balance) } } : {}),
    is_referral_code: Boolean(row.is_referral_code),
  };
}

export async function listPublications(deps: Deps, actor: Actor, query: ListPublicationsInput): Promise<PublicationList> {
  const { projectId } = actor;
  const db = deps.db;
  const page = query.page ?? 1;
  if (page > 1000) throw businessError('page_over_limit', 'Listing resource above 1000 page is not supported', { details: 'Use the exports API to read past page 1000' });
  let voucherType: VoucherType | undefined;
  if (query.voucher_type !== undefined) {
    const mapped = VOUCHER_TYPES[query.voucher_type.toLowerCase()];
    if (mapped === undefined) {
      throw errors.invalidQuery(`Property .voucher_type should be equal to one of the allowed values [ discount, gift, loyalty ]`);
    }
    if (mapped === null) return EMPTY;
    voucherType = mapped;
  }
  let filter;
  try {
    filter = query.filters ? parseFilter(query.filters, publicationFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  let campaignId: string | undefined;
  if (query.campaign !== undefined) {
    const campaign = await findLiveCampaign(db, projectId, query.campaign);
    if (!campaign) return EMPTY;
    campaignId = campaign.id;
  }
  let customerId: string | undefined;
  if (query.customer !== undefined) {
    const customer = await findLiveCustomer(db, projectId, query.customer);
    if (!customer) return EMPTY;
    customerId = customer.id;
  }
  let voucherId: string | undefined;
  if (query.voucher !== undefined) {
    const voucher = await findLiveVoucherByCode(db, projectId, query.voucher);
    if (!voucher) return EMPTY;
    voucherId = voucher.id;
  }
  const order = query.order ?? '-created_at';
  const limit = query.limit ?? 10;
  const { rows, total } = await listPublicationRows(db, {
    projectId,
    limit,
    offset: (page - 1) * limit,
    order: order.replace('-', '') as PublicationOrder,
    descending: order.startsWith('-'),
    ...(campaignId !== undefined ? { campaignId } : {}),
    ...(customerId !== undefined ? { customerId } : {}),
    ...(voucherId !== undefined ? { voucherId } : {}),
    ...(query.result !== undefined ? { result: query.result } : {}),
    ...(query.source_id !== undefined ? { sourceId: query.source_id } : {}),
    ...(voucherType !== undefined ? { voucherType } : {}),
    ...(query.is_referral_code === true ? { referralCodesOnly: true } : {}),
    ...(filter ? { filter } : {}),
    dialect: deps.dialect,
    now: deps.clock.now(),
  });
  return { object: 'list', data_ref: 'publications', publications: await readableRows(listing(deps, actor, 'publication'), rows, (some) => renderListItems(deps, projectId, some)), total };
}

async function renderListItems(deps: Deps, projectId: string, rows: readonly PublicationRow[]): Promise<PublicationListItemOut[]> {
  const vouchers = await findVouchersByIds(deps.db, projectId, rows.map((r) => r.voucher_id));
  const customers = await findCustomersByIds(deps.db, projectId, rows.map((r) => r.customer_id));
  const campaigns = await findCampaignsByIds(
    deps.db,
    projectId,
    [...vouchers.values()].map((v) => v.campaign_id).filter((id): id is string => id !== null),
  );
  return rows.map((row) => {
    const voucher = vouchers.get(row.voucher_id);
    const customer = customers.get(row.customer_id);
    const campaignName = voucher?.campaign_id ? (campaigns.get(voucher.campaign_id)?.name ?? null) : null;
    return {
      id: row.id,
      object: 'publication',
      created_at: row.created_at,
      customer_id: row.customer_id,
      tracking_id: row.tracking_id,
      metadata: fromJson<Record<string, unknown>>(row.metadata, {}),
      channel: row.channel,
      source_id: row.source_id,
      result: row.result,
      customer: customer
        ? { id: customer.id, source_id: customer.source_id, name: customer.name, email: customer.email, metadata: fromJson<Record<string, unknown>>(customer.metadata, {}), object: 'customer' }
        : null,
      voucher: voucher ? shortVoucher(voucher, campaignName) : null,
      vouchers_id: [row.voucher_id],
    };
  });
}
