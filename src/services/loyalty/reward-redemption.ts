import { businessError, DomainError, errors } from '../../domain/errors.ts';
import { payWithPoints } from '../../domain/loyalty/pay-with-points.ts';
import { pointsExpiryDate } from '../../domain/loyalty/points-expiry.ts';
import { evaluateRule, factsNeeded, FAILURE_MESSAGES, type RuleContext } from '../../domain/rules/evaluate.ts';
import type { MemberRewardsInput, RedeemRewardInput } from '../../api/rewards.ts';
import { findLiveCampaignById, type CampaignRow } from '../../store/campaigns.ts';
import { findLiveCustomerById, toCustomerObject, type CustomerObject } from '../../store/customers.ts';
import type { Tx } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { lockCustomer } from '../../store/loyalty.ts';
import type { TierRow } from '../../store/loyalty-tiers.ts';
import { findLiveProductById, findLiveSkuById, toProductObject, toSkuObject } from '../../store/products.ts';
import { findHeldVoucher } from '../../store/publications.ts';
import { addOrderRedemption } from '../../store/redemption-records.ts';
import * as store from '../../store/rewards.ts';
import type { AssignmentRow, RewardRow } from '../../store/rewards.ts';
import { segmentIdsOfCustomer } from '../../store/segments.ts';
import { findLiveVoucherById, type VoucherRow } from '../../store/vouchers.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { creditCredits, creditPoints, debitPoints } from '../ledger/ledger.ts';
import { assertMetadata } from '../metadata-schemas/metadata-schemas.ts';
import { upsertOrderIn } from '../orders/orders.ts';
import type { OrderObject } from '../orders/order-object.ts';
import { publishVoucher } from '../publications/publish.ts';
import { channelOf, recordSuccessfulRedemption, simpleCustomer, type RedemptionRecord, type RewardRedemptionEffects } from '../redemptions/records.ts';
import { rulesFor } from '../validation-rules/validation-rules.ts';
import { renderVouchers, type VoucherObject } from '../vouchers/render.ts';
import { campaignRef, lockedCard, loyaltyCard, loyaltyProgram, programExpirationRules, programOf, projectDay, renderCard, unusableCard, type ProjectDay } from './cards.ts';
import { parametersOf, toAssignmentObject, toRewardObject, type RewardAssignmentObject, type RewardObject } from './rewards.ts';
import { refreshTier } from './earning.ts';
import { heldTier, rewardMappings, tierPrice } from './tiers.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Member rewards and redeeming a reward with a loyalty card (loyalty reference 5.4, 5.5): the card pays
// the assignment's price (as the holder's tier maps it) — or, for pay-with-points, the points that become
// an order discount — and gets the reward: a coupon, gift credits or points of another program, or a
// unit of a material reward taken from its stock. One transaction: the card's use, the points, the
// stock, what is handed out, the redemption record, the customer counters and the events. Any failure
// changes nothing.

const missingReward = (details: string) => businessError('missing_reward', 'Missing reward', { details });

interface Resolved {
  reward: RewardRow;
  assignment: AssignmentRow;
}

/** The reward the body names (a reward id, or an assignment id), assigned to the card's program. */
async function resolveReward(tx: Tx, actor: Actor, program: CampaignRow, sent: NonNullable<RedeemRewardInput['reward']>): Promise<Resolved> {
  const reference = sent.id ?? sent.assignment_id;
  if (!reference) throw missingReward('Property .reward.id is required');
  const reward = await store.findReward(tx, actor.projectId, reference);
  if (reward) {
    const assignment = await store.findAssignmentFor(tx, actor.projectId, reward.id, program.id);
    if (!assignment) throw missingReward(`Reward ${reward.id} is not assigned to campaign ${program.id}`);
    if (sent.assignment_id && sent.assignment_id !== assignment.id) throw errors.invalidPayload(`Property .reward.assignment_id ${sent.assignment_id} is not the assignment of reward ${reward.id} to campaign ${program.id}`);
    return { reward, assignment };
  }
  // The SDK's examples put an assignment id in `reward.id`; it names the reward in the card's program just as well.
  const assignment = await store.findAssignment(tx, actor.projectId, reference);
  if (!assignment) throw errors.notFound('reward', reference);
  if (assignment.campaign_id !== program.id) throw missingReward(`Reward assignment ${assignment.id} belongs to another campaign than ${program.id}`);
  const assigned = await store.findReward(tx, actor.projectId, assignment.reward_id);
  if (!assigned) throw errors.notFound('reward', assignment.reward_id);
  return { reward: assigned, assignment };
}

/** The assignment's validation rules (the `validation_rules` of pay-with-points assignments and any assigned later). */
async function checkAssignmentRules(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  assignment: AssignmentRow,
  customer: CustomerObject | null,
  order: OrderObject | null,
  metadata: Record<string, unknown>,
): Promise<void> {
  for (const rule of await rulesFor(tx, actor.projectId, [{ type: 'reward_assignment', id: assignment.id }])) {
    const needed = factsNeeded(rule.definition);
    const context: RuleContext = {
      now: deps.clock.now(),
      customer: customer ? { id: customer.id, metadata: customer.metadata } : null,
      segmentIds: customer && needed.segments ? await segmentIdsOfCustomer(tx, actor.projectId, customer.id) : [],
      order: order
        ? {
            amount: order.total_amount,
            initialAmount: order.initial_amount,
            metadata: order.metadata,
            items: order.items.map((i) => ({
              productId: i.product_id,
              productSourceId: i.product?.source_id ?? null,
              skuId: i.sku_id,
              skuSourceId: i.sku?.source_id ?? null,
              quantity: i.quantity,
              price: i.price,
              amount: i.amount,
              collectionIds: [],
              metadata: i.metadata,
            })),
          }
        : null,
      redemptionMetadata: metadata,
      customEventMetadata: null,
      counters: {},
      holderId: customer?.id ?? null,
    };
    const result = evaluateRule(rule.definition, context);
    if (!result.passed) {
      throw businessError(result.failure.key, FAILURE_MESSAGES[result.failure.key], {
        details: result.failure.error ?? `Rule ${rule.ruleId} (${rule.name}) failed at ${result.failure.path}: ${result.failure.name}`,
        resourceId: assignment.id,
        resourceType: 'reward_assignment',
      });
    }
  }
}

interface Issued {
  voucher: VoucherObject | null;
  effects: RewardRedemptionEffects['issued'];
}

async function renderVoucher(tx: Tx, actor: Actor, row: VoucherRow, day: ProjectDay): Promise<VoucherObject> {
  const [voucher] = await renderVouchers(tx, actor.projectId, [row], { timeZone: day.timeZone, now: day.now });
  if (!voucher) throw new Error('rendering one voucher gave none');
  return voucher;
}

/** CAMPAIGN rewards: a coupon published, credits added to a gift card, or points added to another program's card. */
async function handOutCampaignReward(tx: Tx, deps: Deps, actor: Actor, reward: RewardRow, customer: CustomerObject, redemptionId: string, day: ProjectDay): Promise<Issued> {
  const parameters = parametersOf(reward);
  if (!('campaign' in parameters)) throw new Error(`reward ${reward.id} of type CAMPAIGN without campaign parameters`);
  const source = await findLiveCampaignById(tx, actor.projectId, parameters.campaign.id);
  if (!source) throw errors.notFound('campaign', parameters.campaign.id);
  const details = { reward: { id: reward.id, name: reward.name }, redemption: { id: redemptionId } };
  if (parameters.campaign.type === 'DISCOUNT_COUPONS') {
    const published = await publishVoucher(tx, deps, actor, { customer, campaign: source, channel: 'API', joinOnce: Boolean(source.join_once) });
    return {
      voucher: published.publication.voucher,
      effects: { type: 'coupon', voucher_id: published.voucher.id, publication_id: published.publication.id },
    };
  }
  const amount = parameters.campaign.balance ?? 0;
  let card = (await findHeldVoucher(tx, actor.projectId, source.id, customer.id)) ?? null;
  let publicationId: string | null = null;
  if (!card) {
    // A holder without a card of the source campaign gets one first (loyalty reference 5.5).
    const published = await publishVoucher(tx, deps, actor, { customer, campaign: source, channel: 'API', joinOnce: true });
    card = published.voucher;
    publicationId = published.publication.id;
  }
  if (parameters.campaign.type === 'GIFT_VOUCHERS') {
    const result = await creditCredits(tx, deps, actor, card, 'CREDITS_ADDITION', { points: amount, source: 'API', operationType: 'AUTOMATIC', details });
    return {
      voucher: await renderVoucher(tx, actor, result.card, day),
      effects: { type: 'gift_credits', voucher_id: card.id, amount, transaction_id: result.transaction.id, publication_id: publicationId },
    };
  }
  const result = await creditPoints(tx, deps, actor, card, 'POINTS_ADDITION', {
    points: amount,
    source: 'API',
    operationType: 'AUTOMATIC',
    details,
    expiresAt: pointsExpiryDate(programExpirationRules(source), day.today),
    today: day.today,
  });
  await refreshTier(tx, deps, actor, result.card);
  return {
    voucher: await renderCard(tx, deps, actor, result.card, day),
    effects: { type: 'loyalty_points', voucher_id: card.id, points: amount, transaction_id: result.transaction.id, publication_id: publicationId },
  };
}

function tierIdOf(row: TierRow | null): string | null {
  return row ? row.id : null;
}

export interface RedeemOptions {
  /** Set by auto-redeem: the channel is AUTO_REDEEM and the balance operation AUTOMATIC. */
  autoRedeem?: boolean;
}

/**
 * Redeems a reward with a card inside the caller's transaction (also used by auto-redeem): answers the
 * redemption record. `card` must be locked by the caller; the holder's row is locked before it.
 */
export async function redeemRewardIn(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  program: CampaignRow,
  lockedCardRow: VoucherRow,
  input: RedeemRewardInput,
  options: RedeemOptions = {},
): Promise<RedemptionRecord> {
  let card = lockedCardRow;
  const sent = input.reward;
  if (!sent) throw missingReward('Property .reward is required');
  const metadata = input.metadata ?? {};
  // Automatic redemptions carry no metadata of the caller's; a schema's required properties cannot apply to them.
  if (!options.autoRedeem) await assertMetadata(tx, actor.projectId, 'redemption', input.metadata);
  const day = await projectDay(tx, deps, actor.projectId);
  const unusable = unusableCard(card, program, day);
  if (unusable) throw unusable;
  const { reward, assignment } = await resolveReward(tx, actor, program, sent);
  const customerRow = card.holder_id ? await findLiveCustomerById(tx, actor.projectId, card.holder_id) : undefined;
  const customer = customerRow ? toCustomerObject(customerRow) : null;
  if (reward.type === 'CAMPAIGN' && !customer) {
    throw businessError('invalid_customer', 'Customer must be a holder of a loyalty card.', {
      details: `Loyalty card ${card.code} has no holder to hand the reward to`,
      resourceId: card.code,
      resourceType: 'voucher',
    });
  }
  if (reward.type !== 'COIN' && sent.points !== undefined && sent.points !== null) {
    throw errors.invalidPayload('Property .reward.points applies to pay-with-points (COIN) rewards only; other rewards cost their assignment price');
  }
  const now = deps.clock.now().toISOString();
  const redemptionId = deps.ids.next('r');
  const tier = await heldTier(tx, actor.projectId, card, day.today);

  // The card's use first: a card whose redemption quantity is used up redeems nothing.
  if (!(await store.useCardOnce(tx, actor.projectId, card.id, now))) {
    throw businessError('quantity_exceeded', 'Quantity exceeded', { details: `Loyalty card ${card.code} has reached its redemption limit`, resourceId: card.code, resourceType: 'voucher' });
  }

  let points: number;
  let order: OrderObject | null = null;
  let discount = 0;
  let debitTransaction: string | null = null;
  const debitDetails: Record<string, unknown> = { reward: { id: reward.id, name: reward.name }, redemption: { id: redemptionId } };
  if (reward.type === 'COIN') {
    if (!input.order) throw businessError('missing_order', 'Missing order', { details: 'Pay-with-points rewards need an order to pay for' });
    const parameters = parametersOf(reward);
    if (!('coin' in parameters)) throw new Error(`reward ${reward.id} of type COIN without coin parameters`);
    const { status: requestedStatus, ...orderFields } = input.order;
    // Stored first without being marked paid, so order-paid earning (DECISIONS 13) sees the discount.
    const draft = await upsertOrderIn(tx, deps, actor, orderFields);
    if (customer && draft.customer_id !== null && draft.customer_id !== customer.id) {
      throw businessError('invalid_order', 'Invalid order', { details: `Order ${draft.id} belongs to another customer than the holder of card ${card.code}` });
    }
    await checkAssignmentRules(tx, deps, actor, assignment, customer, draft, metadata);
    const pay = payWithPoints({ remaining: draft.total_amount, balance: Number(card.loyalty_balance), requested: sent.points ?? null, coin: parameters.coin });
    if (!pay.ok) {
      if (pay.reason === 'points_exceeded') {
        throw businessError('loyalty_card_points_exceeded', 'loyalty card points exceeded', {
          details: `Loyalty card ${card.code} has ${Number(card.loyalty_balance)} points${sent.points ? `; ${sent.points} were asked for` : ''}`,
          resourceId: card.code,
          resourceType: 'voucher',
        });
      }
      if (pay.reason === 'nothing_to_pay') throw businessError('invalid_order', 'Invalid order', { details: `Order ${draft.id} has nothing left to pay` });
      throw businessError('invalid_amount', 'Invalid Amount', { details: 'The points asked for are worth less than one minor unit' });
    }
    points = pay.points;
    discount = pay.discount;
    const debit = await debitPoints(tx, deps, actor, card, 'POINTS_REDEMPTION', {
      points,
      operationType: options.autoRedeem ? 'AUTOMATIC' : 'MANUAL',
      details: { ...debitDetails, order: { id: draft.id, source_id: draft.source_id } },
      today: day.today,
    });
    card = debit.card;
    debitTransaction = debit.transaction.id;
    // The order is the holder's purchase when it names nobody; it is paid unless the request said otherwise.
    const paid = await upsertOrderIn(tx, deps, actor, {
      id: draft.id,
      discount_amount: draft.discount_amount + discount,
      status: requestedStatus ?? 'PAID',
      ...(draft.customer_id === null && customer ? { customer_id: customer.id } : {}),
    });
    const entry = { date: now, related_object_type: 'voucher', related_object_id: card.id, related_object_parent_id: program.id };
    await addOrderRedemption(tx, actor.projectId, paid.id, redemptionId, entry);
    order = {
      ...paid,
      redemptions: { ...paid.redemptions, [redemptionId]: entry },
      applied_discount_amount: discount,
      total_applied_discount_amount: discount + paid.items_applied_discount_amount,
    };
  } else {
    await checkAssignmentRules(tx, deps, actor, assignment, customer, null, metadata);
    points = tierPrice(Number(assignment.points ?? 0), tier ? rewardMappings(tier)[assignment.id] : undefined);
    // A tier may price a reward at 0 points: nothing is taken then.
    if (points > 0) {
      const debit = await debitPoints(tx, deps, actor, card, 'POINTS_REDEMPTION', {
        points,
        operationType: options.autoRedeem ? 'AUTOMATIC' : 'MANUAL',
        details: debitDetails,
        today: day.today,
      });
      card = debit.card;
      debitTransaction = debit.transaction.id;
    }
  }

  // The reward's unit: stock (when limited) and the redeemed count, in one conditional statement.
  if (!(await store.takeReward(tx, actor.projectId, reward.id, now))) {
    throw businessError('reward_out_of_stock', 'Reward out of stock', { details: `Reward ${reward.id} has no stock left`, resourceId: reward.id, resourceType: 'reward' });
  }
  const rewardAfter = await store.findReward(tx, actor.projectId, reward.id);
  if (!rewardAfter) throw errors.notFound('reward', reward.id);

  let issued: Issued = { voucher: null, effects: null };
  let product: Record<string, unknown> | null = null;
  let sku: Record<string, unknown> | null = null;
  if (reward.type === 'CAMPAIGN' && customer) issued = await handOutCampaignReward(tx, deps, actor, reward, customer, redemptionId, day);
  if (reward.type === 'MATERIAL') {
    const parameters = parametersOf(reward);
    if ('product' in parameters) {
      const productRow = await findLiveProductById(tx, actor.projectId, parameters.product.id);
      const skuRow = parameters.product.sku_id ? await findLiveSkuById(tx, actor.projectId, parameters.product.sku_id) : undefined;
      product = productRow ? { ...toProductObject(productRow) } : null;
      sku = skuRow ? { ...toSkuObject(skuRow) } : null;
      issued = { voucher: null, effects: { type: 'product', product_id: parameters.product.id, sku_id: parameters.product.sku_id } };
    }
  }
  await refreshTier(tx, deps, actor, card);

  const cardObject = await renderCard(tx, deps, actor, card, day);
  const holder = customer ? simpleCustomer(customer) : null;
  const rewardObject: RewardObject = toRewardObject(rewardAfter);
  const assignmentObject: RewardAssignmentObject = toAssignmentObject(assignment);
  const rewardSnapshot = {
    customer: holder,
    assignment_id: assignment.id,
    voucher: issued.voucher,
    product,
    sku,
    loyalty_tier_id: tierIdOf(tier),
    ...rewardObject,
  };
  const effects: RewardRedemptionEffects = {
    kind: 'loyalty_reward',
    card: { voucher_id: card.id, redeemed_quantity: 1 },
    points: { voucher_id: card.id, points, transaction_id: debitTransaction },
    reward: { reward_id: reward.id, assignment_id: assignment.id, stock_taken: reward.stock !== null, redeemed: 1 },
    order: order ? { order_id: order.id, discount_amount: discount } : null,
    issued: issued.effects,
    customer_counters: customer ? { customer_id: customer.id, total_redeemed: 1, total_succeeded: 1 } : null,
  };
  const record = await recordSuccessfulRedemption(tx, {
    id: redemptionId,
    actor,
    channel: channelOf(actor, options.autoRedeem ? assignment.id : undefined),
    customer: holder,
    trackingId: customer?.source_id ?? null,
    metadata,
    amount: points,
    relatedObject: { type: 'voucher', id: card.id, parentId: program.id },
    voucher: { id: card.id, code: card.code, snapshot: { ...cardObject, holder } },
    campaign: { id: program.id, name: program.name },
    order,
    reward: rewardSnapshot,
    gift: null,
    loyaltyCard: { points },
    effects,
    at: now,
  });
  const campaign = { id: program.id, name: program.name, campaign_type: program.campaign_type, object: 'campaign' };
  await appendEvents(tx, [
    makeEvent(deps, actor, {
      type: 'redemption.succeeded',
      activityType: customer ? 'customer.redemption.succeeded' : null,
      activityCategory: customer ? 'ACTION' : null,
      customerId: customer?.id ?? null,
      campaign: campaignRef(program),
      voucherCode: card.code,
      entityId: redemptionId,
      data: { customer: holder, order, campaign, voucher: cardObject, holder, redemption: record, reward: rewardSnapshot, reward_assignment: assignmentObject },
    }),
    makeEvent(deps, actor, {
      type: 'customer.rewarded',
      activityType: customer ? 'customer.rewarded' : null,
      activityCategory: customer ? 'EFFECT' : null,
      customerId: customer?.id ?? null,
      campaign: campaignRef(program),
      voucherCode: card.code,
      entityId: redemptionId,
      data: { customer: holder, holder, voucher: issued.voucher ?? cardObject, campaign, redemption: record, reward: rewardSnapshot, balance: { points: -points, balance: Number(card.loyalty_balance), type: 'loyalty_card', object: 'balance' } },
    }),
  ]);
  return record;
}

/**
 * `POST /v1/loyalties/{campaignId}/members/{memberId}/redemption` and `POST /v1/loyalties/members/{memberId}/redemption`.
 * Errors are HTTP errors, not failure records (loyalty reference 5.5).
 */
export async function redeemReward(deps: Deps, actor: Actor, campaignId: string | null, memberId: string, input: RedeemRewardInput): Promise<RedemptionRecord> {
  if (!input.reward || !(input.reward.id ?? input.reward.assignment_id)) throw missingReward('Property .reward.id is required');
  return inTransaction(deps, async (tx) => {
    const named = campaignId === null ? undefined : await loyaltyProgram(tx, actor, campaignId);
    const found = await loyaltyCard(tx, actor, memberId, named);
    const program = named ?? (await programOf(tx, actor, found));
    // The holder before the card, the order in which earning takes the same two locks.
    if (found.holder_id) await lockCustomer(tx, actor.projectId, found.holder_id);
    const card = await lockedCard(tx, actor, found);
    return redeemRewardIn(tx, deps, actor, program, card, input);
  });
}

// ---- member rewards ----

export interface MemberRewardList {
  object: 'list';
  data_ref: 'data';
  data: Array<{ reward: RewardObject; assignment: RewardAssignmentObject; object: 'loyalty_reward' }>;
  total: number;
}

/**
 * `GET /v1/loyalties/members/{memberId}/rewards`: the rewards of the card's program at the member's
 * prices (the holder's tier mapping applied to `assignment.parameters.loyalty.points`). With
 * `affordable_only`, only those the balance pays for (pay-with-points ones when the balance is not 0).
 */
export async function listMemberRewards(deps: Deps, actor: Actor, memberId: string, query: MemberRewardsInput): Promise<MemberRewardList> {
  const card = await loyaltyCard(deps.db, actor, memberId);
  const program = await programOf(deps.db, actor, card);
  const day = await projectDay(deps.db, deps, actor.projectId);
  const tier = await heldTier(deps.db, actor.projectId, card, day.today);
  const mappings = tier ? rewardMappings(tier) : {};
  const balance = Number(card.loyalty_balance);
  const limit = query.limit ?? 10;
  const offset = ((query.page ?? 1) - 1) * limit;
  const price = (a: AssignmentRow) => (a.points === null ? null : tierPrice(Number(a.points), mappings[a.id]));
  let page: AssignmentRow[];
  let total: number;
  if (query.affordable_only && Object.keys(mappings).length > 0) {
    // Tier prices differ per assignment, so affordability is decided here, over the program's catalogue.
    const affordable = (await store.assignmentsOfCampaign(deps.db, actor.projectId, program.id)).filter((a) => {
      const p = price(a);
      return p === null ? balance > 0 : p <= balance;
    });
    total = affordable.length;
    page = affordable.slice(offset, offset + limit);
  } else {
    const result = await store.listAssignments(deps.db, {
      projectId: actor.projectId,
      campaignId: program.id,
      ...(query.affordable_only ? { maxPoints: balance, pricedOnly: balance === 0 } : {}),
      limit,
      offset,
    });
    page = result.rows;
    total = result.total;
  }
  const rewards = await store.findRewardsByIds(deps.db, actor.projectId, page.map((a) => a.reward_id));
  const data = await readableRows(listing(deps, actor, 'reward_assignment'), page, (some) =>
    some.flatMap((a) => {
      const reward = rewards.get(a.reward_id);
      const p = price(a);
      return reward ? [{ reward: toRewardObject(reward), assignment: toAssignmentObject(a, p ?? undefined), object: 'loyalty_reward' as const }] : [];
    }),
  );
  return { object: 'list', data_ref: 'data', data, total };
}

// ---- auto-redeem ----

/** Most rewards one auto-redeem run hands out to a card (the vendor's per-run cap). */
const AUTO_REDEEM_PER_RUN = 25;

/**
 * Redeems the program's auto-redeem reward with the card while its balance pays the (tier) price, up to
 * AUTO_REDEEM_PER_RUN times; stops at the first refusal (stock used up, card inactive, …). Answers how
 * many rewards were redeemed.
 */
export async function runAutoRedeem(deps: Deps, actor: Actor, voucherId: string): Promise<number> {
  let done = 0;
  while (done < AUTO_REDEEM_PER_RUN) {
    let redeemed: boolean;
    try {
      redeemed = await inTransaction(deps, async (tx) => {
        const found = await findLiveVoucherById(tx, actor.projectId, voucherId);
        const program = found?.campaign_id ? await findLiveCampaignById(tx, actor.projectId, found.campaign_id) : undefined;
        if (!found || !program) return false;
        const assignment = await store.autoRedeemAssignment(tx, actor.projectId, program.id);
        if (!assignment || assignment.points === null) return false;
        if (found.holder_id) await lockCustomer(tx, actor.projectId, found.holder_id);
        const card = await lockedCard(tx, actor, found);
        const day = await projectDay(tx, deps, actor.projectId);
        const tier = await heldTier(tx, actor.projectId, card, day.today);
        const price = tierPrice(Number(assignment.points), tier ? rewardMappings(tier)[assignment.id] : undefined);
        if (Number(card.loyalty_balance) < price) return false;
        await redeemRewardIn(tx, deps, actor, program, card, { reward: { id: assignment.reward_id } }, { autoRedeem: true });
        return true;
      });
    } catch (error) {
      // A refused redemption rolled back in full; the points stay on the card.
      if (error instanceof DomainError) return done;
      throw error;
    }
    if (!redeemed) return done;
    done++;
  }
  return done;
}
