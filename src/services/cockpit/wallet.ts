import { errors } from '../../domain/errors.ts';
import type { CustomerConsentsInput } from '../../api/consents.ts';
import type { CustomerRedeemableOut } from '../../api/customer-redeemables.ts';
import { findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomerById } from '../../store/customers.ts';
import { findProject } from '../../store/projects.ts';
import { findReward } from '../../store/rewards.ts';
import { findLiveVoucher } from '../../store/vouchers.ts';
import { projectBranding, type BrandingObject } from '../branding/branding.ts';
import { customerConsents, listConsents, updateCustomerConsents } from '../consents/consents.ts';
import type { Actor, Deps } from '../context.ts';
import { listCustomerRedeemables } from '../customers/redeemables.ts';
import { listMemberRewards, redeemReward } from '../loyalty/reward-redemption.ts';
import { projectDay } from '../loyalty/cards.ts';
import { listMemberTiers, listTiers, metricOf } from '../loyalty/tiers.ts';
import { cardHistory } from './history.ts';
import type { CockpitHolder } from './links.ts';
import { couponTerms } from './coupon-terms.ts';

// What the customer cockpit shows and does, for the one customer its link opens. Every read and change
// goes through the services the public API uses (customer redeemables, member rewards and redemption,
// tiers, transactions, consents); this module only picks what a customer may see of their own data and
// shapes it for the page. A card or voucher is only reachable when the customer holds it: anything else
// is the same "not found" as an id that does not exist.

export function cockpitActor(holder: CockpitHolder, requestId: string): Actor {
  return { projectId: holder.projectId, requestId, source: { channel: 'CUSTOMER_COCKPIT' } };
}

/** The look and contact details the page shows: the project's branding, or its name and neutral colours. */
export interface CockpitBrand {
  name: string;
  logo_url: string | null;
  primary_color: string;
  accent_color: string;
  website_url: string | null;
  privacy_policy_url: string | null;
  terms_of_use_url: string | null;
  permission_reminder: string | null;
  contact: { email: string | null; phone: string | null };
  address: string | null;
}

const DEFAULT_PRIMARY = '#1c7ed6';
const DEFAULT_ACCENT = '#f08c00';

/** A link the page may put in an href: http(s) only; a bare host (the vendor's example) is read as https. */
function href(value: string | null): string | null {
  if (!value) return null;
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  try {
    const url = new URL(candidate);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

function brandOf(projectName: string, branding: BrandingObject | null): CockpitBrand {
  const address = branding
    ? [branding.address.street, [branding.address.postal, branding.address.city].filter(Boolean).join(' '), branding.address.state, branding.address.country]
        .filter((part) => part)
        .join(', ')
    : '';
  return {
    name: branding?.brand.name ?? projectName,
    logo_url: href(branding?.cockpit.logo_url ?? null),
    primary_color: branding?.cockpit.primary_color ?? DEFAULT_PRIMARY,
    accent_color: branding?.cockpit.accent_color ?? DEFAULT_ACCENT,
    website_url: href(branding?.brand.website_url ?? null),
    privacy_policy_url: href(branding?.brand.privacy_policy_url ?? null),
    terms_of_use_url: href(branding?.brand.terms_of_use_url ?? null),
    permission_reminder: branding?.brand.permission_reminder ?? null,
    contact: { email: branding?.contact.email ?? null, phone: branding?.contact.phone ?? null },
    address: address === '' ? null : address,
  };
}

async function brand(deps: Deps, projectId: string): Promise<CockpitBrand & { currency: string }> {
  const [project, branding] = await Promise.all([findProject(deps.db, projectId), projectBranding(deps.db, projectId)]);
  return { ...brandOf(project?.name ?? '', branding), currency: project?.currency ?? '' };
}

type Voucher = CustomerRedeemableOut['redeemable']['voucher'];

type Window = Pick<CampaignRow, 'start_date' | 'expiration_date' | 'validity_timeframe' | 'validity_day_of_week' | 'validity_hours'>;

/** A code as the page shows it; a voucher without dates of its own is valid as long as its campaign. */
const pick = (voucher: Voucher, campaign: Window | undefined) => ({
  code: voucher.code,
  campaign: voucher.campaign ?? null,
  start_date: voucher.start_date ?? campaign?.start_date ?? null,
  expiration_date: voucher.expiration_date ?? campaign?.expiration_date ?? null,
  qr_url: voucher.assets?.qr.url ?? null,
  barcode_url: voucher.assets?.barcode.url ?? null,
});

async function campaignsOf(deps: Deps, projectId: string, items: readonly CustomerRedeemableOut[]): Promise<Map<string, Window>> {
  const ids = [...new Set(items.flatMap((i) => (i.campaign_id ? [i.campaign_id] : [])))];
  const rows = await Promise.all(ids.map((id) => findLiveCampaignById(deps.db, projectId, id)));
  return new Map(rows.flatMap((row) => (row ? [[row.id, row] as const] : [])));
}

/** Everything the customer holds (the customer redeemables service, page by page up to a sane bound). */
async function holdings(deps: Deps, actor: Actor, customerId: string): Promise<CustomerRedeemableOut[]> {
  const out: CustomerRedeemableOut[] = [];
  let after: string | undefined;
  for (let page = 0; page < 5; page++) {
    const list = await listCustomerRedeemables(deps, actor, customerId, { limit: 100, order: '-id', ...(after ? { starting_after_id: after } : {}) });
    out.push(...list.data);
    if (!list.has_more || !list.more_starting_after) break;
    after = list.more_starting_after;
  }
  return out;
}

async function loyaltyCardOf(deps: Deps, actor: Actor, item: CustomerRedeemableOut, campaign: Window | undefined) {
  const voucher = item.redeemable.voucher;
  const card = (voucher.loyalty_card ?? {}) as Record<string, unknown>;
  const num = (key: string) => (typeof card[key] === 'number' ? (card[key] as number) : 0);
  const balance = num('balance');
  const row = await findLiveVoucher(deps.db, actor.projectId, voucher.code);
  if (!row) throw errors.notFound('loyalty_card', voucher.code);
  const [tiers, held, rewards, history] = await Promise.all([
    item.campaign_id ? listTiers(deps, actor, item.campaign_id, { limit: 100, order: 'created_at' }) : null,
    listMemberTiers(deps, actor, voucher.code),
    listMemberRewards(deps, actor, voucher.code, { limit: 100 }),
    cardHistory(deps, actor, row, undefined),
  ]);
  const tier = held.data[0] ?? null;
  // The points the program's tier policy counts (the balance, or the points collected this period), and
  // the next tier up: the lowest one above both those points and the tier held.
  const program = item.campaign_id ? await findLiveCampaignById(deps.db, actor.projectId, item.campaign_id) : undefined;
  const metric = program ? await metricOf(deps.db, actor, row, program, await projectDay(deps.db, deps, actor.projectId)) : balance;
  const next = (tiers?.data ?? [])
    .filter((t) => t.points.from > metric && (!tier || t.points.from > tier.points.from))
    .sort((a, b) => a.points.from - b.points.from)[0];
  return {
    ...pick(voucher, campaign),
    balance,
    points: num('points'),
    pending_points: num('pending_points'),
    next_expiration:
      typeof card.next_expiration_date === 'string' ? { date: card.next_expiration_date, points: num('next_expiration_points') } : null,
    tier: tier ? { name: tier.name, from: tier.points.from, to: tier.points.to } : null,
    tier_points: metric,
    next_tier: next ? { name: next.name, from: next.points.from, points_needed: next.points.from - metric } : null,
    rewards: rewards.data.map((r) => {
      const price = r.assignment.parameters?.loyalty?.points ?? null;
      return {
        id: r.reward.id,
        name: r.reward.name,
        type: r.reward.type,
        points: price,
        affordable: price === null ? balance > 0 : price <= balance,
        // Pay-with-points (COIN) rewards pay part of an order, so they are used at the shop's checkout;
        // the cockpit has no order to pay for.
        redeemable: r.reward.type !== 'COIN',
        // The reward's stock is what is left (each redemption takes one).
        stock_left: r.reward.stock,
      };
    }),
    history,
  };
}

/** `GET /cockpit/v1/wallet`: the customer's cards, rewards, vouchers, gift cards and referral codes. */
export async function wallet(deps: Deps, actor: Actor, customerId: string) {
  const customer = await findLiveCustomerById(deps.db, actor.projectId, customerId);
  if (!customer) throw errors.notFound('customer', customerId);
  const [look, held] = await Promise.all([brand(deps, actor.projectId), holdings(deps, actor, customer.id)]);
  const friends = Number(customer.loyalty_referred_customers);
  const owned = held.filter((h) => h.holder_role === 'OWNER');
  const campaigns = await campaignsOf(deps, actor.projectId, held);
  const campaignOf = (h: CustomerRedeemableOut) => (h.campaign_id ? campaigns.get(h.campaign_id) : undefined);
  const loyalty = await Promise.all(owned.filter((h) => h.voucher_type === 'LOYALTY_CARD').map((h) => loyaltyCardOf(deps, actor, h, campaignOf(h))));
  const vouchers = await Promise.all(
    owned
      .filter((h) => h.voucher_type === 'DISCOUNT_VOUCHER')
      .map(async (h) => {
        const shown = pick(h.redeemable.voucher, campaignOf(h));
        const terms = await couponTerms(deps, actor, h, campaignOf(h));
        return { ...shown, ...terms, discount: h.redeemable.voucher.discount ?? null, status: h.redeemable.status };
      }),
  );
  const giftCards = owned
    .filter((h) => h.voucher_type === 'GIFT_VOUCHER')
    .map((h) => {
      const gift = h.redeemable.voucher.gift;
      return { ...pick(h.redeemable.voucher, campaignOf(h)), amount: gift?.amount ?? 0, balance: gift?.balance ?? 0, status: h.redeemable.status };
    });
  const shareBase = look.website_url;
  const referrals = held
    .filter((h) => h.holder_role === 'REFERRER' || (h.holder_role === 'OWNER' && h.redeemable.voucher.is_referral_code))
    .map((h) => {
      const code = h.redeemable.voucher.code;
      let share: string | null = null;
      if (shareBase) {
        const url = new URL(shareBase);
        url.searchParams.set('referral_code', code);
        share = url.toString();
      }
      return { code, campaign: h.redeemable.voucher.campaign ?? null, share_url: share, status: h.redeemable.status };
    });
  // A code may be both published to and held as referrer by the customer: show it once.
  const seen = new Set<string>();
  return {
    brand: look,
    customer: { name: customer.name, email: customer.email },
    loyalty_cards: loyalty,
    vouchers,
    gift_cards: giftCards,
    referrals: { codes: referrals.filter((r) => (seen.has(r.code) ? false : (seen.add(r.code), true))), friends_joined: friends },
  };
}

/** The customer's own loyalty card by code: a card of anyone else is "not found", like no card at all. */
async function ownCard(deps: Deps, actor: Actor, customerId: string, code: string) {
  const card = await findLiveVoucher(deps.db, actor.projectId, code);
  if (!card || card.type !== 'LOYALTY_CARD' || card.holder_id !== customerId) throw errors.notFound('loyalty_card', code);
  return card;
}

/** `POST /cockpit/v1/cards/{code}/redemption`: the reward redemption of the public API, for one's own card. */
export async function redeemOwnReward(deps: Deps, actor: Actor, customerId: string, code: string, rewardId: string) {
  const card = await ownCard(deps, actor, customerId, code);
  if ((await findReward(deps.db, actor.projectId, rewardId))?.type === 'COIN') {
    throw errors.invalidPayload('A pay-with-points reward pays part of an order: it is used at checkout, not in the cockpit');
  }
  const record = await redeemReward(deps, actor, null, card.code, { reward: { id: rewardId } });
  return { id: record.id, result: record.result, reward: record.reward ?? null, date: record.date };
}

/** `GET /cockpit/v1/cards/{code}/transactions`: the next page of the card's history (src/services/cockpit/history.ts). */
export async function ownCardTransactions(deps: Deps, actor: Actor, customerId: string, code: string, startingAfterId: string | undefined) {
  return cardHistory(deps, actor, await ownCard(deps, actor, customerId, code), startingAfterId);
}

/** `GET /cockpit/v1/preferences`: the project's consents and groups, and the customer's answers. */
export async function preferences(deps: Deps, actor: Actor, customerId: string) {
  const [look, definitions, answers] = await Promise.all([brand(deps, actor.projectId), listConsents(deps, actor), customerConsents(deps, actor, customerId)]);
  const granted = new Map(answers.data.map((a) => [a.consent_id, a]));
  return {
    brand: look,
    groups: definitions.groups.data.map((g) => ({ id: g.id, name: g.name, description: g.description, consents: g.consents })),
    consents: definitions.consents.data.map((c) => ({
      id: c.id,
      name: c.name,
      description: c.description,
      category: c.category,
      granted: granted.get(c.id)?.granted ?? false,
      updated_at: granted.get(c.id)?.updated_at ?? null,
    })),
  };
}

/** `PUT /cockpit/v1/preferences`: the consents service of `PUT /v1/customers/{id}/consents` (event and webhook). */
export async function changePreferences(deps: Deps, actor: Actor, customerId: string, input: CustomerConsentsInput) {
  await updateCustomerConsents(deps, actor, customerId, input);
  return preferences(deps, actor, customerId);
}
