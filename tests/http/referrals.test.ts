import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '../../src/domain/errors.ts';
import { inTransaction, internalActor } from '../../src/services/context.ts';
import { convertReferral, type ConvertReferralInput } from '../../src/services/referrals/convert.ts';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Referral programs (promotions reference 1.3; vendor /v1/referrals holders; platform reference 3.2
// customer `referrals`): program validation, referral codes published to referrers, code holders, and
// the conversion service the redemption engine and custom events call (tested here directly).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('referral programs', () => {
  let t: TestApp;
  let other: KeyPairOut;
  let gifts: Json;
  let friends: Json;
  let referrer: Json;
  let code: string;

  const referralBody = (name: string, program: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name,
    campaign_type: 'REFERRAL_PROGRAM',
    vouchers_count: 3,
    voucher: { type: 'DISCOUNT_VOUCHER', is_referral_code: true, discount: { type: 'AMOUNT', amount_off: 1000 } },
    referral_program: program,
    ...extra,
  });

  const convert = (input: ConvertReferralInput) => inTransaction(t.deps, (tx) => convertReferral(tx, t.deps, internalActor(t.projectId, 'v-test'), input));

  before(async () => {
    t = await startTestApp();
    other = (
      await t.request('POST', '/management/v1/projects', {
        headers: t.managementHeaders(),
        json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
      })
    ).body.server_side_key;
    gifts = await t.sdk().campaigns.create({ name: 'Referee gifts', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 0, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } as never);
    friends = await t.sdk().campaigns.create(
      referralBody('Friends', { conversion_event_type: 'redemption', referee_reward: { related_object_parent: { id: gifts.id, object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 } }) as never,
    );
    const pub: Json = await t.sdk().distributions.publications.create({ campaign: { name: 'Friends' }, customer: { source_id: 'referrer-1', name: 'Rita' } } as never);
    referrer = pub.customer;
    code = pub.voucher.code;
  });
  after(async () => t.close());

  async function events(type: string, customerId: string): Promise<Json[]> {
    const rows = await t.deps.db.selectFrom('events').selectAll().where('type', '=', type).where('customer_id', '=', customerId).orderBy('seq').execute();
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
  }

  test('the referral program is validated when the campaign is created or updated', async () => {
    assert.equal(friends.campaign_type, 'REFERRAL_PROGRAM');
    assert.equal(friends.referral_program.referee_reward.amount, 500);
    const discounts: Json = await t.sdk().campaigns.create({ name: 'Plain discounts', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } } as never);
    const reward = (extra: Record<string, unknown>) => ({ related_object_parent: { id: gifts.id }, type: 'GIFT_VOUCHER', amount: 100, ...extra });
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ conversion_event_type: 'purchase' }, 400, 'invalid_payload', /conversion_event_type/],
      [{ conversion_event_type: 'custom_event' }, 400, 'invalid_payload', /custom_event is required/],
      [{ conversion_event_type: 'redemption', custom_event: { name: 'x' } }, 400, 'invalid_payload', /custom_event applies only/],
      [{ referee_reward: reward({ amount: 0 }) }, 400, 'invalid_payload', /amount/],
      [{ referee_reward: reward({ type: 'POINTS' }) }, 400, 'invalid_payload', /type/],
      [{ referee_reward: reward({ related_object_parent: {} }) }, 400, 'invalid_payload', /related_object_parent/],
      [{ referee_reward: reward({ related_object_parent: { id: 'camp_missing' } }) }, 404, 'not_found', /camp_missing/],
      [{ referee_reward: reward({ related_object_parent: { id: discounts.id } }) }, 400, 'invalid_campaign', /GIFT_VOUCHERS/],
      [{ referee_reward: reward({ type: 'LOYALTY_CARD' }) }, 400, 'invalid_campaign', /LOYALTY_PROGRAM/],
    ];
    for (const [program, status, key, details] of cases) {
      const res = await t.request('POST', '/v1/campaigns', { json: referralBody('Bad program', program) });
      assert.equal(res.status, status, `${JSON.stringify(program)} → ${res.text}`);
      assert.equal(res.body.key, key, res.text);
      assert.match(res.body.details, details, res.text);
      assert.equal((await t.request('GET', '/v1/campaigns/Bad%20program')).status, 404);
    }
    const badUpdate = await t.request('PUT', `/v1/campaigns/${friends.id}`, { json: { referral_program: { referee_reward: reward({ amount: -5 }) } } });
    assert.equal(badUpdate.status, 400);
    assert.equal(((await t.sdk().campaigns.get(friends.id)) as Json).referral_program.referee_reward.amount, 500);
  });

  test('publishing a referral code makes its holder the referrer', async () => {
    const voucher: Json = await t.sdk().vouchers.get(code);
    assert.equal(voucher.is_referral_code, true);
    assert.equal(voucher.holder_id, referrer.id);
    assert.equal(voucher.referrer_id, referrer.id);
    const holders = await t.request('GET', `/v1/referrals/${friends.id}/members/${code}/holders`);
    assert.equal(holders.status, 200, holders.text);
    assert.equal(holders.body.total, 1);
    const [holder] = holders.body.data;
    assert.equal(holder.holder_role, 'REFERRER');
    assert.equal(holder.customer_id, referrer.id);
    assert.equal(holder.redeemable_id, voucher.id);
    assert.equal(holder.campaign_id, friends.id);
    assert.equal(holder.campaign_type, 'REFERRAL_PROGRAM');
    assert.equal(holder.voucher_type, 'DISCOUNT_VOUCHER');
    assert.equal(holder.object, 'redeemable_holder');
    assert.match(holder.id, /^rh_/);
  });

  test('referees are added to a code all or nothing, listed with a cursor, and removed', async () => {
    const added = await t.request('POST', `/v1/referrals/${friends.id}/members/${code}/holders`, {
      json: { holders: [{ source_id: 'referee-a' }, { source_id: 'referee-b', name: 'Bea' }], metadata: { influencer: true } },
    });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.holders.length, 2);
    assert.ok(added.body.holders.every((h: Json) => h.holder_role === 'REFEREE' && h.metadata.influencer === true));
    assert.equal(((await t.sdk().customers.get('referee-b')) as Json).name, 'Bea');

    const duplicate = await t.request('POST', `/v1/referrals/members/${code}/holders`, { json: { holders: [{ source_id: 'referee-c' }, { source_id: 'referee-a' }] } });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.key, 'holder_assignement_duplication');
    assert.equal((await t.request('GET', '/v1/customers/referee-c')).status, 404, 'nothing of the refused request stayed');
    const self = await t.request('POST', `/v1/referrals/members/${code}/holders`, { json: { holders: [{ id: referrer.id }] } });
    assert.equal(self.status, 409);

    const first = await t.request('GET', `/v1/referrals/members/${code}/holders?limit=2`);
    assert.equal(first.body.total, 3);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.data.length, 2);
    const rest = await t.request('GET', `/v1/referrals/members/${code}/holders?limit=2&starting_after_id=${first.body.more_starting_after}`);
    assert.equal(rest.body.has_more, false);
    assert.equal(rest.body.data[0].holder_role, 'REFERRER', 'newest first: the referrer came first');
    const referrers = await t.request('GET', `/v1/referrals/members/${code}/holders?filters[holder_role][conditions][$is]=REFERRER`);
    assert.equal(referrers.body.total, 1);

    const refereeA = added.body.holders[0];
    assert.equal((await t.request('DELETE', `/v1/referrals/${friends.id}/members/${code}/holders/${refereeA.id}`)).status, 204);
    assert.equal((await t.request('GET', `/v1/referrals/members/${code}/holders`)).body.total, 2);
    const referrerHolder = referrers.body.data[0];
    const keepReferrer = await t.request('DELETE', `/v1/referrals/members/${code}/holders/${referrerHolder.id}`);
    assert.equal(keepReferrer.status, 400);
    assert.equal((await t.request('DELETE', `/v1/referrals/members/${code}/holders/rh_missing`)).status, 404);
  });

  test('holder paths name a referral code of the program; anything else is refused', async () => {
    const otherProgram: Json = await t.sdk().campaigns.create(referralBody('Other program', {}) as never);
    assert.equal((await t.request('GET', `/v1/referrals/${otherProgram.id}/members/${code}/holders`)).status, 404);
    assert.equal((await t.request('GET', `/v1/referrals/${gifts.id}/members/${code}/holders`)).status, 404);
    await t.sdk().vouchers.create({ code: 'NOT-REFERRAL', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } as never);
    const plain = await t.request('GET', '/v1/referrals/members/NOT-REFERRAL/holders');
    assert.equal(plain.status, 400);
    assert.equal(plain.body.key, 'invalid_voucher');
    assert.equal((await t.request('GET', '/v1/referrals/members/NO-SUCH/holders')).status, 404);
    const empty = await t.request('POST', `/v1/referrals/members/${code}/holders`, { json: { holders: [] } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.key, 'invalid_payload');
  });

  test('a conversion records the referee, counts them for the referrer and grants the referee reward', async () => {
    const result = await convert({ code, customer: { source_id: 'newbie' }, trigger: { type: 'redemption', redemptionId: 'r_test_1' } });
    assert.equal(result.status, 'converted');
    if (result.status !== 'converted') return;
    assert.equal(result.referrerId, referrer.id);
    assert.equal(result.reward?.type, 'GIFT_VOUCHER');
    assert.equal(result.reward?.amount, 500);

    const newbie: Json = await t.sdk().customers.get('newbie');
    assert.equal(newbie.referrals.total, 1);
    assert.deepEqual(newbie.referrals.campaigns, [
      { campaign_id: friends.id, referrer_id: referrer.id, related_object_id: 'r_test_1', related_object_type: 'redemption', date: newbie.referrals.campaigns[0].date },
    ]);
    const rita: Json = await t.sdk().customers.get('referrer-1');
    assert.equal(rita.loyalty.referred_customers, 1);
    assert.equal(rita.referrals.total, 0);

    // The reward: a gift card of the reward campaign, published to the referee, topped up by the ledger.
    const cards = await t.request('GET', `/v1/vouchers?customer=newbie&campaign_id=${gifts.id}`);
    assert.equal(cards.body.total, 1);
    assert.equal(cards.body.vouchers[0].gift.balance, 1500);
    const txs: Json = await t.sdk().vouchers.listTransactions(cards.body.vouchers[0].code, {} as never);
    assert.equal(txs.data[0].type, 'CREDITS_ADDITION');
    assert.equal(txs.data[0].source, 'Automation');
    assert.equal(newbie.summary.redemptions.gift.amount_to_go, 1500);

    const [referred] = await events('customer.referred', newbie.id);
    assert.equal(referred.activity_type, 'customer.referred');
    assert.equal(referred.data.referrer.id, referrer.id);
    assert.equal(referred.data.redemption.id, 'r_test_1');
    const [rewarded] = await events('customer.rewarded', newbie.id);
    assert.equal(rewarded.data.balance.balance, 1500);

    const holders = await t.request('GET', `/v1/referrals/members/${code}/holders?filters[customer_id][conditions][$is]=${newbie.id}`);
    assert.equal(holders.body.data[0].holder_role, 'REFEREE');
    const summary = await t.request('GET', `/v1/campaigns/${friends.id}/summary`);
    assert.equal(summary.body.referred_customers, 1);
    assert.equal(summary.body.publications, 1);
  });

  test('a customer is referred once per program; a referrer cannot refer themselves', async () => {
    const again = await convert({ code, customer: { source_id: 'newbie' }, trigger: { type: 'redemption', redemptionId: 'r_test_2' } });
    assert.deepEqual(again.status === 'skipped' ? again.reason : again.status, 'already_referred');
    assert.equal(((await t.sdk().customers.get('referrer-1')) as Json).loyalty.referred_customers, 1);
    const cards = await t.request('GET', `/v1/vouchers?customer=newbie&campaign_id=${gifts.id}`);
    assert.equal(cards.body.vouchers[0].gift.balance, 1500, 'no second reward');
    await assert.rejects(
      convert({ code, customer: { id: referrer.id }, trigger: { type: 'redemption', redemptionId: 'r_self' } }),
      (error: unknown) => error instanceof DomainError && error.key === 'referrer_not_permitted_to_redeem',
    );
    await assert.rejects(
      convert({ code: 'NOT-REFERRAL', customer: { source_id: 'x' }, trigger: { type: 'redemption', redemptionId: 'r_x' } }),
      (error: unknown) => error instanceof DomainError && error.key === 'invalid_voucher',
    );
    await assert.rejects(
      convert({ code: 'NO-SUCH', customer: { source_id: 'x' }, trigger: { type: 'redemption', redemptionId: 'r_x' } }),
      (error: unknown) => error instanceof DomainError && error.key === 'not_found',
    );
    const unpublished = (await t.request('GET', `/v1/vouchers?campaign_id=${friends.id}&limit=100`)).body.vouchers.find((v: Json) => v.holder_id === null);
    const noReferrer = await convert({ code: unpublished.code, customer: { source_id: 'lonely' }, trigger: { type: 'redemption', redemptionId: 'r_y' } });
    assert.equal(noReferrer.status === 'skipped' ? noReferrer.reason : noReferrer.status, 'no_referrer');
  });

  test('a custom-event program converts only on its event; loyalty rewards follow the program expiry rules', async () => {
    const points: Json = await t.sdk().loyalties.create({
      name: 'Referee points',
      vouchers_count: 0,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 6 } } },
    } as never);
    const signup: Json = await t.sdk().campaigns.create(
      referralBody('Signup referrals', {
        conversion_event_type: 'custom_event',
        custom_event: { name: 'signed_up' },
        referee_reward: { related_object_parent: { name: 'Referee points' }, type: 'LOYALTY_CARD', amount: 250 },
      }) as never,
    );
    const pub: Json = await t.sdk().distributions.publications.create({ campaign: { name: 'Signup referrals' }, customer: { source_id: 'referrer-2' } } as never);
    const mismatch = await convert({ code: pub.voucher.code, customer: { source_id: 'joiner' }, trigger: { type: 'redemption', redemptionId: 'r_z' } });
    assert.equal(mismatch.status === 'skipped' ? mismatch.reason : mismatch.status, 'conversion_event_mismatch');
    const otherEvent = await convert({ code: pub.voucher.code, customer: { source_id: 'joiner' }, trigger: { type: 'custom_event', eventId: 'evcus_1', eventName: 'viewed_page' } });
    assert.equal(otherEvent.status === 'skipped' ? otherEvent.reason : otherEvent.status, 'conversion_event_mismatch');
    const converted = await convert({ code: pub.voucher.code, customer: { source_id: 'joiner' }, trigger: { type: 'custom_event', eventId: 'evcus_2', eventName: 'signed_up' } });
    assert.equal(converted.status, 'converted');
    const joiner: Json = await t.sdk().customers.get('joiner');
    assert.deepEqual(joiner.referrals.campaigns.map((c: Json) => [c.campaign_id, c.related_object_type, c.related_object_id]), [[signup.id, 'custom_event', 'evcus_2']]);
    const cards = await t.request('GET', `/v1/vouchers?customer=joiner&campaign_id=${points.id}`);
    assert.equal(cards.body.vouchers[0].loyalty_card.balance, 250);
    // 2026-03-02 + 6 months: usable through 2026-09-02.
    assert.equal(cards.body.vouchers[0].loyalty_card.next_expiration_date, '2026-09-02');
  });

  test("another project's keys cannot read or change a code's holders", async () => {
    const keys = t.serverHeaders(other);
    assert.equal((await t.request('GET', `/v1/referrals/members/${code}/holders`, { headers: keys })).status, 404);
    assert.equal((await t.request('GET', `/v1/referrals/${friends.id}/members/${code}/holders`, { headers: keys })).status, 404);
    assert.equal((await t.request('POST', `/v1/referrals/members/${code}/holders`, { headers: keys, json: { holders: [{ source_id: 'spy' }] } })).status, 404);
    const mine = (await t.request('GET', `/v1/referrals/members/${code}/holders?filters[holder_role][conditions][$is]=REFEREE`)).body;
    const referee = mine.data[0];
    assert.equal((await t.request('DELETE', `/v1/referrals/members/${code}/holders/${referee.id}`, { headers: keys })).status, 404);
    const after = (await t.request('GET', `/v1/referrals/members/${code}/holders?filters[holder_role][conditions][$is]=REFEREE`)).body;
    assert.equal(after.total, mine.total);
    assert.equal((await t.request('GET', '/v1/customers/spy')).status, 404);
  });
});
