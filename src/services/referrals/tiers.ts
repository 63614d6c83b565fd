import type { Updateable } from 'kysely';
import { businessError, errors } from '../../domain/errors.ts';
import { parseReward, rewardCampaignType, TIER_REWARD_TYPES } from '../../domain/referrals/referral-program.ts';
import type {
  CreateReferralTierInput,
  ListReferralTiersInput,
  ReferralTierListOut,
  ReferralTierOut,
  UpdateReferralTierInput,
} from '../../api/referral-tiers.ts';
import { findCampaignsByIds, findLiveCampaign, findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import type { CustomerObject } from '../../store/customers.ts';
import type { Executor, Tx } from '../../store/db.ts';
import { appendEvents, type NewEvent } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import {
  claimTierReward,
  countReferrerConversion,
  deleteReferralTier,
  findReferralTier,
  findTierAtConversions,
  insertReferralTier,
  listReferralTiers,
  lockReferralTier,
  recordTierRewardGiven,
  updateReferralTier,
  type ReferralTierRow,
} from '../../store/referral-tiers.ts';
import type { ReferralTiersTable, StoredReferralTierReward } from '../../store/schema.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { checkRewardCampaign } from './referral-program.ts';
import { grantReward, simpleCustomer, type GrantedReward } from './rewards.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Referral tiers (a Punchcard extension: the vendor's v2018-08-01 API has no endpoints for them; its
// dashboard configures them): the referrer rewards of a REFERRAL_PROGRAM campaign. A tier is earned when
// a referrer's converted referees in the program reach exactly its `conversions`; `rewardReferrer` pays it
// inside the conversion's transaction, once per referrer and tier. Definitions change with their
// `campaign.referral_tier.*` events in one transaction.

type TierEventKind = 'created' | 'updated' | 'deleted';

/** A referral program named by id or name; any other campaign is not found on these paths. */
export async function referralProgram(db: Executor, projectId: string, idOrName: string): Promise<CampaignRow> {
  const campaign = await findLiveCampaign(db, projectId, idOrName);
  if (!campaign || campaign.campaign_type !== 'REFERRAL_PROGRAM') throw errors.notFound('campaign', idOrName);
  return campaign;
}

function storedReward(row: ReferralTierRow): StoredReferralTierReward {
  const reward = fromJson<StoredReferralTierReward | null>(row.reward, null);
  if (!reward) throw new Error(`referral tier ${row.id} stores no reward`);
  return reward;
}

function toTierObject(row: ReferralTierRow, campaigns: ReadonlyMap<string, CampaignRow>): ReferralTierOut {
  const reward = storedReward(row);
  return {
    id: row.id,
    campaign_id: row.campaign_id,
    banner: row.banner,
    conversions: Number(row.conversions),
    parameters: {
      reward: {
        related_object_parent: { id: reward.campaign_id, name: campaigns.get(reward.campaign_id)?.name ?? null, object: 'CAMPAIGN' },
        type: reward.type,
        amount: reward.amount,
      },
    },
    metadata: fromJson<Record<string, unknown>>(row.metadata, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'referral_tier',
  };
}

/** Tiers as the API answers them; the reward campaigns' names are read in one query. */
async function renderTiers(db: Executor, projectId: string, rows: readonly ReferralTierRow[]): Promise<ReferralTierOut[]> {
  const campaigns = await findCampaignsByIds(
    db,
    projectId,
    rows.map((r) => storedReward(r).campaign_id),
  );
  return rows.map((r) => toTierObject(r, campaigns));
}

async function renderTier(db: Executor, projectId: string, row: ReferralTierRow): Promise<ReferralTierOut> {
  const [tier] = await renderTiers(db, projectId, [row]);
  if (!tier) throw new Error('rendering one referral tier gave none');
  return tier;
}

/** The vendor's SimpleReferralTier, as `customer.rewarded` carries it. */
function simpleReferralTier(tier: ReferralTierOut): { id: string; campaign_id: string; banner: string | null; parameters: ReferralTierOut['parameters'] } {
  return { id: tier.id, campaign_id: tier.campaign_id, banner: tier.banner, parameters: tier.parameters };
}

const simpleCampaign = (campaign: CampaignRow) => ({ id: campaign.id, name: campaign.name, campaign_type: campaign.campaign_type, object: 'campaign' as const });
const eventCampaign = (campaign: CampaignRow) => ({ id: campaign.id, type: campaign.campaign_type, name: campaign.name });

function tierEvent(deps: Deps, actor: Actor, kind: TierEventKind, program: CampaignRow, tier: ReferralTierOut): NewEvent {
  return makeEvent(deps, actor, {
    type: `campaign.referral_tier.${kind}`,
    entityId: tier.id,
    campaign: eventCampaign(program),
    data: { campaign: simpleCampaign(program), referral_tier: tier },
  });
}

/** Checks a tier's reward (shape, then the campaign it names) and answers it as stored. */
async function checkedReward(db: Executor, projectId: string, input: unknown): Promise<StoredReferralTierReward> {
  const parsed = parseReward(input, '.parameters.reward', TIER_REWARD_TYPES);
  if (!parsed.ok) throw errors.invalidPayload(parsed.problem);
  const campaign = await checkRewardCampaign(db, projectId, parsed.reward, 'parameters.reward');
  const { reward } = parsed;
  return reward.type === 'DISCOUNT_VOUCHER'
    ? { type: reward.type, campaign_id: campaign.id, amount: null }
    : { type: reward.type, campaign_id: campaign.id, amount: reward.amount };
}

/** The unique index on (program, conversions) decides duplicates, also between racing requests: 409. */
async function guardConversions<T>(conversions: number | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('referral_tier', 'conversions', String(conversions ?? ''));
    throw error;
  }
}

/** `POST /v1/referrals/{campaignId}/tiers`. */
export async function createReferralTier(deps: Deps, actor: Actor, programRef: string, input: CreateReferralTierInput): Promise<ReferralTierOut> {
  return guardConversions(input.conversions, () =>
    inTransaction(deps, async (tx) => {
      const program = await referralProgram(tx, actor.projectId, programRef);
      const reward = await checkedReward(tx, actor.projectId, input.parameters.reward);
      await assertMetadata(tx, actor.projectId, 'referral_tier', input.metadata);
      const row: ReferralTierRow = {
        id: deps.ids.next('rt'),
        project_id: actor.projectId,
        campaign_id: program.id,
        banner: input.banner ?? null,
        conversions: input.conversions,
        reward: toJson(reward),
        metadata: toJson(input.metadata ?? {}),
        created_at: deps.clock.now().toISOString(),
        updated_at: null,
      };
      await insertReferralTier(tx, row);
      const tier = await renderTier(tx, actor.projectId, row);
      await appendEvents(tx, [tierEvent(deps, actor, 'created', program, tier)]);
      return tier;
    }),
  );
}

/** `GET /v1/referrals/{campaignId}/tiers/{tierId}`. */
export async function getReferralTier(deps: Deps, actor: Actor, programRef: string, tierId: string): Promise<ReferralTierOut> {
  const program = await referralProgram(deps.db, actor.projectId, programRef);
  const row = await findReferralTier(deps.db, actor.projectId, program.id, tierId);
  if (!row) throw errors.notFound('referral_tier', tierId);
  return renderTier(deps.db, actor.projectId, row);
}

/** `GET /v1/referrals/{campaignId}/tiers`: by `conversions`, the first tier a referrer reaches first. */
export async function listTiersOfProgram(deps: Deps, actor: Actor, programRef: string, query: ListReferralTiersInput): Promise<ReferralTierListOut> {
  const program = await referralProgram(deps.db, actor.projectId, programRef);
  const limit = query.limit ?? 10;
  const offset = ((query.page ?? 1) - 1) * limit;
  const { rows, total } = await listReferralTiers(deps.db, { projectId: actor.projectId, campaignId: program.id, limit, offset, order: query.order ?? 'conversions' });
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'referral_tier'), rows, (some) => renderTiers(deps.db, actor.projectId, some)), total, has_more: offset + rows.length < total };
}

/**
 * `PUT /v1/referrals/{campaignId}/tiers/{tierId}`: only the members sent change. Moving `conversions`
 * never pays a referrer who already passed the new number, nor pays twice one the tier already paid.
 */
export async function updateReferralTierById(deps: Deps, actor: Actor, programRef: string, tierId: string, input: UpdateReferralTierInput): Promise<ReferralTierOut> {
  return guardConversions(input.conversions, () =>
    inTransaction(deps, async (tx) => {
      const program = await referralProgram(tx, actor.projectId, programRef);
      const row = await lockReferralTier(tx, actor.projectId, program.id, tierId);
      if (!row) throw errors.notFound('referral_tier', tierId);
      const patch: Updateable<ReferralTiersTable> = { updated_at: deps.clock.now().toISOString() };
      if (input.banner !== undefined) patch.banner = input.banner;
      if (input.conversions !== undefined) patch.conversions = input.conversions;
      if (input.parameters !== undefined) patch.reward = toJson(await checkedReward(tx, actor.projectId, input.parameters.reward));
      if (input.metadata !== undefined) {
        await assertMetadata(tx, actor.projectId, 'referral_tier', input.metadata);
        patch.metadata = toJson(input.metadata ?? {});
      }
      if (!(await updateReferralTier(tx, actor.projectId, row.id, patch))) throw errors.notFound('referral_tier', tierId);
      const updated = await findReferralTier(tx, actor.projectId, program.id, row.id);
      if (!updated) throw new Error(`referral tier ${row.id} vanished inside its own transaction`);
      const tier = await renderTier(tx, actor.projectId, updated);
      await appendEvents(tx, [tierEvent(deps, actor, 'updated', program, tier)]);
      return tier;
    }),
  );
}

/** `DELETE /v1/referrals/{campaignId}/tiers/{tierId}`: rewards it already paid stay paid (and recorded). */
export async function deleteReferralTierById(deps: Deps, actor: Actor, programRef: string, tierId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const program = await referralProgram(tx, actor.projectId, programRef);
    const row = await lockReferralTier(tx, actor.projectId, program.id, tierId);
    if (!row) throw errors.notFound('referral_tier', tierId);
    const tier = await renderTier(tx, actor.projectId, row);
    if (!(await deleteReferralTier(tx, actor.projectId, row.id))) throw errors.notFound('referral_tier', tierId);
    await appendEvents(tx, [tierEvent(deps, actor, 'deleted', program, tier)]);
  });
}

// ---- paying tiers ----

export type ReferrerRewardGranted = GrantedReward & {
  tier_id: string;
  /** The referrer's converted referees in the program, this conversion included. */
  conversions: number;
};

export interface RewardReferrerInput {
  program: CampaignRow;
  /** The conversion just recorded (referrals.id). */
  referralId: string;
  referrerId: string;
  /** The referrer; null when the customer no longer exists (the conversion still counts). */
  referrer: CustomerObject | null;
  /** What caused the conversion, as `customer.rewarded` carries it (`redemption` / `custom_event`). */
  cause: Record<string, unknown>;
}

/**
 * Called by convertReferral inside its transaction, once per recorded conversion: counts the conversion
 * for the referrer and pays the program's tier whose `conversions` equals the count reached, unless this
 * referrer was paid that tier before. Appends `customer.rewarded` (an activity of the referrer).
 */
export async function rewardReferrer(tx: Tx, deps: Deps, actor: Actor, input: RewardReferrerInput): Promise<ReferrerRewardGranted | null> {
  const { program, referrer } = input;
  const now = deps.clock.now().toISOString();
  const conversions = await countReferrerConversion(tx, { projectId: actor.projectId, campaignId: program.id, referrerId: input.referrerId, at: now });
  if (referrer === null) return null;
  const row = await findTierAtConversions(tx, actor.projectId, program.id, conversions);
  if (!row) return null;
  const reward = storedReward(row);
  const claimId = deps.ids.next('rtr');
  const claimed = await claimTierReward(tx, {
    id: claimId,
    project_id: actor.projectId,
    campaign_id: program.id,
    tier_id: row.id,
    referrer_id: referrer.id,
    referral_id: input.referralId,
    conversions,
    reward_type: reward.type,
    voucher_id: null,
    transaction_id: null,
    created_at: now,
  });
  // Paid before: the tier's `conversions` was moved onto a number this referrer reached again (the
  // counter row already queues concurrent conversions of one referrer; the unique index decides anyway).
  if (!claimed) return null;

  const campaign = await findLiveCampaignById(tx, actor.projectId, reward.campaign_id);
  const expected = rewardCampaignType(reward);
  if (!campaign || campaign.campaign_type !== expected) {
    // Refusing rolls the conversion back with it: a reward owed is never silently dropped.
    throw businessError('invalid_campaign', 'Invalid campaign', {
      details: `The reward campaign ${reward.campaign_id} of referral tier ${row.id} is gone or no longer a ${expected} campaign`,
    });
  }
  const granted = await grantReward(tx, deps, actor, campaign, reward, referrer, `Referral tier reward: ${program.name}, ${conversions} referred`);
  await recordTierRewardGiven(tx, actor.projectId, claimId, { voucherId: granted.voucher.id, transactionId: granted.transaction?.id ?? null });
  const tier = await renderTier(tx, actor.projectId, row);
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'customer.rewarded',
      activityType: 'customer.rewarded',
      activityCategory: 'EFFECT',
      customerId: referrer.id,
      campaign: eventCampaign(program),
      voucherCode: granted.voucher.code,
      entityId: granted.transaction?.id ?? claimId,
      data: {
        customer: simpleCustomer(referrer),
        holder: simpleCustomer(referrer),
        voucher: granted.voucher,
        campaign: simpleCampaign(program),
        referral_tier: simpleReferralTier(tier),
        balance: granted.balance,
        ...input.cause,
      },
    }),
  ]);
  return { ...granted, tier_id: row.id, conversions };
}
