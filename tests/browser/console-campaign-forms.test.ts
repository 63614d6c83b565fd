import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The console's campaign forms besides coupons, in a real browser: a promotion with two tiers (one with a
// minimum-order rule built in the rule builder), gift cards, a loyalty program and a referral program whose
// friend gets points from that program. Each form's result is read back through the API; a refused
// referral reward shows the API's own details next to the input it concerns.

describe('console: promotion, gift card, loyalty and referral campaign forms', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let loyaltyId = '';

  before(async () => {
    ({ t, browser } = await startSignedIn());
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const openForm = async (label: string) => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('button', { name: 'Other types ▾' }).click();
    await page.getByRole('menuitem', { name: label }).click();
  };

  test('a promotion with two tiers, the first for orders of at least 100.00', async () => {
    const { page } = browser;
    await openForm('Promotion (with tiers)');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Summer sale');
    const first = page.getByTestId('tier-0');
    await first.getByRole('textbox', { name: 'Tier name' }).fill('Big baskets');
    await first.getByRole('textbox', { name: 'Tier 1 Percent off' }).fill('15');
    await first.getByRole('button', { name: 'Add condition' }).click();
    await first.getByLabel('Condition 1 value').fill('100.00');
    await page.getByRole('button', { name: 'Add tier' }).click();
    const second = page.getByTestId('tier-1');
    await second.getByRole('textbox', { name: 'Tier name' }).fill('Everyone');
    await second.getByText('Amount off').click();
    await second.getByRole('textbox', { name: 'Tier 2 Amount off' }).fill('5');
    await cleanScreenshot(page, 'campaign-new-promotion');
    await page.getByRole('button', { name: 'Create promotion' }).click();

    await page.getByText('Big baskets').waitFor();
    const id = new URL(page.url()).pathname.split('/').pop() ?? '';
    const stored = await t.request('GET', `/v1/campaigns/${id}`);
    assert.equal(stored.body.campaign_type, 'PROMOTION');
    const tiers = (await t.request('GET', `/v1/promotions/${id}/tiers`)).body.tiers as Array<Record<string, any>>;
    assert.deepEqual(
      tiers.map((tier) => [tier.name, tier.hierarchy, tier.action.discount.type, tier.action.discount.percent_off ?? tier.action.discount.amount_off]),
      [
        ['Big baskets', 1, 'PERCENT', 15],
        ['Everyone', 2, 'AMOUNT', 500],
      ],
    );
    const ruleId = tiers[0]?.validation_rule_assignments.data[0].rule_id;
    const rule = await t.request('GET', `/v1/validation-rules/${ruleId}`);
    assert.deepEqual(rule.body.rules['1'].conditions, { $more_than_or_equal: [10000] });
    assert.equal(tiers[1]?.validation_rule_assignments.total, 0);
    await page.getByTestId('campaign-rule').filter({ hasText: 'Order amount at least 100.00' }).waitFor();
    await cleanScreenshot(page, 'campaign-promotion');
  });

  test('gift cards of 25.00 each, two generated at once', async () => {
    const { page } = browser;
    await openForm('Gift cards');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Gift 25');
    await page.getByRole('textbox', { name: 'Credits on each card' }).fill('25');
    await page.getByRole('textbox', { name: 'Codes to generate now' }).fill('2');
    await page.getByRole('textbox', { name: 'Code prefix' }).fill('GIFT-');
    await page.getByRole('button', { name: 'Create gift card campaign' }).click();
    await page.getByText('25.00 credits per card').waitFor();
    const id = new URL(page.url()).pathname.split('/').pop() ?? '';
    const stored = await t.request('GET', `/v1/campaigns/${id}`);
    assert.equal(stored.body.campaign_type, 'GIFT_VOUCHERS');
    assert.equal(stored.body.voucher.gift.amount, 2500);
    assert.equal(stored.body.vouchers_count, 2);
    const codes = (await t.request('GET', `/v1/vouchers?campaign_id=${id}`)).body.vouchers as Array<{ code: string; gift: { balance: number } }>;
    assert.equal(codes.length, 2);
    for (const v of codes) {
      assert.match(v.code, /^GIFT-/);
      assert.equal(v.gift.balance, 2500);
    }
  });

  test('a loyalty program whose points expire after 12 months', async () => {
    const { page } = browser;
    await openForm('Loyalty program');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Club');
    await page.getByRole('textbox', { name: 'Points expire after (months)' }).fill('12');
    await page.getByRole('button', { name: 'Create loyalty program' }).click();
    await page.waitForURL(/\/dashboard\/loyalty\/camp_/);
    loyaltyId = new URL(page.url()).pathname.split('/').pop() ?? '';
    const stored = await t.request('GET', `/v1/loyalties/${loyaltyId}`);
    assert.equal(stored.body.campaign_type, 'LOYALTY_PROGRAM');
    assert.equal(stored.body.voucher.loyalty_card.points, 0);
    assert.equal(stored.body.voucher.loyalty_card.expiration_rules.period_type, 'MONTH');
    assert.equal(stored.body.voucher.loyalty_card.expiration_rules.period_value, 12);
  });

  test('a referral program: the API refuses a reward without a program (shown at the field), then the friend gets 50 points', async () => {
    const { page } = browser;
    await openForm('Referral program');
    await page.getByRole('button', { name: 'Create referral program' }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Bring a friend');
    await page.getByRole('textbox', { name: 'Percent off' }).fill('20');
    await page.getByRole('combobox', { name: 'Extra reward for the referred friend' }).click();
    await page.getByRole('option', { name: 'Loyalty points' }).click();
    await page.getByRole('textbox', { name: 'Points', exact: true }).fill('50');
    await page.getByRole('button', { name: 'Create referral program' }).click();
    const refused = page.getByText(/referral_program\.referee_reward\.related_object_parent/);
    await refused.waitFor();
    assert.equal(await page.getByTestId('error-alert').count(), 0, 'the message sits at the reward input, not above the form');
    await cleanScreenshot(page, 'campaign-new-referral-refused');

    await page.getByRole('combobox', { name: 'Loyalty program' }).click();
    await page.getByRole('option', { name: 'Club' }).click();
    await page.getByRole('button', { name: 'Create referral program' }).click();
    await page.getByTestId('referral-program').waitFor();
    const id = new URL(page.url()).pathname.split('/').pop() ?? '';
    const stored = await t.request('GET', `/v1/campaigns/${id}`);
    assert.equal(stored.body.campaign_type, 'REFERRAL_PROGRAM');
    assert.equal(stored.body.voucher.is_referral_code, true);
    assert.equal(stored.body.referral_program.conversion_event_type, 'redemption');
    assert.equal(stored.body.referral_program.referee_reward.type, 'LOYALTY_CARD');
    assert.equal(stored.body.referral_program.referee_reward.amount, 50);
    assert.equal(stored.body.referral_program.referee_reward.related_object_parent.id, loyaltyId);
    await cleanScreenshot(page, 'campaign-referral');
  });
});

