import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The loyalty screen in a real browser: an earning rule, two tiers, a reward with stock (then its stock
// changed) and a member added, each read back through the API; a paid order then shows as the member's
// balance on the members tab.

describe('console: loyalty screen', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let programId = '';
  let couponsId = '';

  before(async () => {
    ({ t, browser } = await startSignedIn());
    const program = await t.request('POST', '/v1/loyalties', {
      json: { name: 'Club', campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } },
    });
    assert.equal(program.status, 200, program.text);
    programId = program.body.id;
    const coupons = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Five off', campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } },
    });
    assert.equal(coupons.status, 200, coupons.text);
    couponsId = coupons.body.id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('an earning rule: 1 point for every 1.00 of a paid order', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Loyalty' }).click();
    await page.getByRole('link', { name: 'Club' }).click();
    await page.getByRole('textbox', { name: 'Rule name' }).fill('Spend and earn');
    await page.getByRole('textbox', { name: 'Points', exact: true }).fill('1');
    await page.getByRole('textbox', { name: 'For every (order amount)' }).fill('1');
    await page.getByRole('button', { name: 'Add earning rule' }).click();
    await page.getByText('1 point per 1.00 of the order amount').waitFor();
    await cleanScreenshot(page, 'loyalty-earning-rules');
    const rules = await t.request('GET', `/v1/loyalties/${programId}/earning-rules`);
    assert.equal(rules.body.data.length, 1);
    const [rule] = rules.body.data;
    assert.equal(rule.event, 'order.paid');
    assert.equal(rule.source.banner, 'Spend and earn');
    assert.deepEqual(
      { type: rule.loyalty.type, calculation_type: rule.loyalty.calculation_type, every: rule.loyalty.order.amount.every, points: rule.loyalty.order.amount.points },
      { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', every: 100, points: 1 },
    );
  });

  test('two tiers; an overlapping third is refused with the API’s message', async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Tiers' }).click();
    for (const [name, from, to] of [
      ['Silver', '0', '999'],
      ['Gold', '1000', ''],
    ] as const) {
      await page.getByRole('textbox', { name: 'Tier name' }).fill(name);
      await page.getByRole('textbox', { name: 'Points from' }).fill(from);
      if (to !== '') await page.getByRole('textbox', { name: 'Points to' }).fill(to);
      await page.getByRole('button', { name: 'Add tier' }).click();
      await page.getByRole('cell', { name, exact: true }).waitFor();
    }
    const tiers = await t.request('GET', `/v1/loyalties/${programId}/tiers`);
    assert.deepEqual(
      (tiers.body.data as Array<{ name: string; points: { from: number; to: number | null } }>).map((tier) => [tier.name, tier.points.from, tier.points.to ?? null]).sort(),
      [
        ['Gold', 1000, null],
        ['Silver', 0, 999],
      ],
    );
    await page.getByRole('textbox', { name: 'Tier name' }).fill('Bronze');
    await page.getByRole('textbox', { name: 'Points from' }).fill('500');
    await page.getByRole('button', { name: 'Add tier' }).click();
    await page.getByTestId('error-alert').or(page.getByText(/overlap/i)).first().waitFor();
    assert.equal((await t.request('GET', `/v1/loyalties/${programId}/tiers`)).body.data.length, 2, 'the refused tier was not stored');
    await cleanScreenshot(page, 'loyalty-tiers');
  });

  test('a reward with a stock of 5 for 100 points, then its stock changed to 3', async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Rewards' }).click();
    await page.getByRole('textbox', { name: 'Reward name' }).fill('Five off coupon');
    await page.getByRole('combobox', { name: 'From campaign' }).click();
    await page.getByRole('option', { name: 'Five off (DISCOUNT_COUPONS)' }).click();
    await page.getByRole('textbox', { name: 'Price in points' }).fill('100');
    await page.getByRole('textbox', { name: 'Stock' }).fill('5');
    await page.getByRole('button', { name: 'Add reward' }).click();
    const stock = page.getByTestId('reward-stock');
    await stock.filter({ hasText: '5 left' }).waitFor();
    const assignments = await t.request('GET', `/v1/loyalties/${programId}/rewards`);
    assert.equal(assignments.body.data.length, 1);
    assert.equal(assignments.body.data[0].parameters.loyalty.points, 100);
    const rewardId = assignments.body.data[0].reward_id;
    const reward = await t.request('GET', `/v1/rewards/${rewardId}`);
    assert.equal(reward.body.stock, 5);
    assert.equal(reward.body.parameters.campaign.id, couponsId);

    await page.getByRole('button', { name: 'Change stock of Five off coupon' }).click();
    await page.getByRole('textbox', { name: 'Units left' }).fill('3');
    await page.getByRole('button', { name: 'Save stock' }).click();
    await stock.filter({ hasText: '3 left' }).waitFor();
    assert.equal((await t.request('GET', `/v1/rewards/${rewardId}`)).body.stock, 3);
    await cleanScreenshot(page, 'loyalty-rewards');
  });

  test('a member added from the console; a paid order of 42.00 shows as 42 points', async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Members' }).click();
    await page.getByRole('textbox', { name: 'Add a member' }).fill('alice');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText(/^alice joined with card /).waitFor();
    const members = await t.request('GET', `/v1/loyalties/${programId}/members`);
    assert.equal(members.body.vouchers.length, 1);
    const card = members.body.vouchers[0];
    const customer = await t.request('GET', `/v1/customers/${card.holder_id}`);
    assert.equal(customer.body.source_id, 'alice');

    const order = await t.request('POST', '/v1/orders', { json: { status: 'PAID', amount: 4200, customer: { source_id: 'alice' } } });
    assert.equal(order.status, 200, order.text);
    assert.equal((await t.request('GET', `/v1/loyalties/${programId}/members/${card.code}`)).body.loyalty_card.balance, 42);
    await page.reload();
    await page.getByTestId(`member-${card.code}`).getByTestId('member-balance').filter({ hasText: '42' }).waitFor();
    await cleanScreenshot(page, 'loyalty-members');
  });
});
