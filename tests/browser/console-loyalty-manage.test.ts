import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// Managing what a loyalty program has, in a real browser: an earning rule edited (its points, name and
// validation rule) and duplicated (the copy switched off), a reward's fields and price edited, and a
// reward assigned to two programs deleted after a confirmation that names both; each read back through
// the API; a tier renamed and moved (an overlap refused with the API's message) and another deleted. The
// program's page at phone width.

describe('console: managing loyalty earning rules and rewards', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let programId = '';
  let ruleId = '';
  let rewardId = '';
  let validationRuleId = '';
  let silverId = '';
  let goldId = '';

  const json = async (method: string, path: string, body?: unknown) => {
    const res = await t.request(method, path, body === undefined ? {} : { json: body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };

  before(async () => {
    ({ t, browser } = await startSignedIn());
    const loyalty = { name: '', campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } };
    programId = (await json('POST', '/v1/loyalties', { ...loyalty, name: 'Club' })).id;
    const other = (await json('POST', '/v1/loyalties', { ...loyalty, name: 'Partner club' })).id;
    const coupons = await json('POST', '/v1/campaigns', {
      name: 'Five off',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
    });
    ruleId = (await json('POST', `/v1/loyalties/${programId}/earning-rules`, [{ event: 'order.paid', source: { banner: 'Spend and earn' }, loyalty: { type: 'FIXED', points: 10 } }]))[0].id;
    validationRuleId = (await json('POST', '/v1/validation-rules', { name: 'Big orders', rules: { 1: { name: 'order.amount', conditions: { $more_than: [5000] } }, logic: '1' } })).id;
    rewardId = (await json('POST', '/v1/rewards', { name: 'Coupon reward', type: 'CAMPAIGN', parameters: { campaign: { id: coupons.id } }, stock: 10 })).id;
    await json('POST', `/v1/loyalties/${programId}/rewards`, [{ reward: rewardId, parameters: { loyalty: { points: 100 } } }]);
    await json('POST', `/v1/loyalties/${other}/rewards`, [{ reward: rewardId, parameters: { loyalty: { points: 150 } } }]);
    const tiers = (await json('POST', `/v1/loyalties/${programId}/tiers`, [
      { name: 'Silver', points: { from: 0, to: 999 } },
      { name: 'Gold', points: { from: 1000 } },
    ])) as Array<{ id: string }>;
    silverId = tiers[0]?.id ?? '';
    goldId = tiers[1]?.id ?? '';
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test("edit an earning rule's points, name and validation rule; see it through the API", async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Loyalty' }).click();
    await page.getByRole('link', { name: 'Club', exact: true }).click();
    await page.getByRole('button', { name: 'Edit Spend and earn' }).click();
    await page.getByRole('textbox', { name: 'Rule name' }).fill('Spend more, earn more');
    await page.getByRole('textbox', { name: 'Points', exact: true }).fill('25');
    await page.getByRole('combobox', { name: 'Validation rule' }).click();
    await page.getByRole('option', { name: 'Big orders' }).click();
    await page.getByLabel('Ends').fill('2030-12-31');
    await cleanScreenshot(page, 'loyalty-manage-earning-rule-edit');
    await page.getByRole('button', { name: 'Save earning rule' }).click();
    await page.getByTestId(`earning-rule-${ruleId}`).getByTestId('earning-rule-points').filter({ hasText: '25 points' }).waitFor();
    const rule = await json('GET', `/v1/loyalties/${programId}/earning-rules/${ruleId}`);
    assert.deepEqual(
      [rule.source.banner, rule.loyalty.type, rule.loyalty.points, rule.validation_rule_id, rule.expiration_date?.slice(0, 10), rule.event],
      ['Spend more, earn more', 'FIXED', 25, validationRuleId, '2030-12-31', 'order.paid'],
    );
    assert.equal(await page.getByRole('button', { name: 'Add earning rule' }).count(), 1, 'the form is back to creating');
  });

  test('duplicate an earning rule: the copy is switched off', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Duplicate Spend more, earn more' }).click();
    await page.getByRole('cell', { name: 'Spend more, earn more (copy)', exact: true }).waitFor();
    const rules = (await json('GET', `/v1/loyalties/${programId}/earning-rules`)).data as Array<{ source: { banner: string }; active: boolean; loyalty: { points: number }; validation_rule_id: string }>;
    const copy = rules.find((r) => r.source.banner === 'Spend more, earn more (copy)');
    assert.deepEqual([copy?.active, copy?.loyalty.points, copy?.validation_rule_id], [false, 25, validationRuleId]);
  });

  test("edit a reward's name, stock, description and price", async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Rewards' }).click();
    await page.getByRole('button', { name: 'Edit Coupon reward' }).click();
    await page.getByRole('textbox', { name: 'Reward name' }).fill('Five off your next order');
    await page.getByRole('textbox', { name: 'Price in points' }).fill('120');
    await page.getByRole('textbox', { name: 'Stock' }).fill('7');
    await page.getByRole('textbox', { name: 'Description' }).fill('A coupon worth 5.00');
    await page.getByRole('button', { name: 'Save reward' }).click();
    const row = page.getByTestId(`reward-row-${rewardId}`);
    await row.filter({ hasText: 'Five off your next order' }).filter({ hasText: '120 points' }).getByTestId('reward-stock').filter({ hasText: '7 left' }).waitFor();
    const reward = await json('GET', `/v1/rewards/${rewardId}`);
    assert.deepEqual([reward.name, reward.stock, reward.attributes.description], ['Five off your next order', 7, 'A coupon worth 5.00']);
    const assignments = (await json('GET', `/v1/loyalties/${programId}/rewards`)).data as Array<{ reward_id: string; parameters: { loyalty: { points: number } } }>;
    assert.equal(assignments.find((a) => a.reward_id === rewardId)?.parameters.loyalty.points, 120);
  });

  test('a refused change shows the API’s message', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Edit Five off your next order' }).click();
    await page.getByRole('textbox', { name: 'Reward name' }).fill('x'.repeat(501));
    await page.getByRole('button', { name: 'Save reward' }).click();
    // The API's own words, next to the field they name.
    await page.getByText(/500/).first().waitFor();
    assert.equal((await json('GET', `/v1/rewards/${rewardId}`)).name, 'Five off your next order', 'nothing changed');
    await cleanScreenshot(page, 'loyalty-manage-reward-refused');
    await page.getByRole('button', { name: 'Cancel editing' }).click();
  });

  test('delete a reward assigned to two programs: the confirmation names both', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Delete Five off your next order' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete the reward “Five off your next order”?').waitFor();
    assert.deepEqual((await dialog.getByTestId('reward-programs').getByRole('listitem').allTextContents()).sort(), ['Club', 'Partner club']);
    await cleanScreenshot(page, 'loyalty-manage-reward-delete');
    await dialog.getByRole('button', { name: 'Delete reward' }).click();
    await page.getByText('Reward “Five off your next order” deleted').waitFor();
    assert.equal((await t.request('GET', `/v1/rewards/${rewardId}`)).status, 404);
    assert.equal(((await json('GET', `/v1/loyalties/${programId}/rewards`)).data as unknown[]).length, 0);
    await page.getByText('No reward yet: points buy nothing.').waitFor();
  });

  test('a tier renamed and its range moved; an overlap refused; another tier deleted', async () => {
    const { page } = browser;
    await page.getByRole('tab', { name: 'Tiers' }).click();
    await page.getByRole('button', { name: 'Edit Silver' }).click();
    await page.getByRole('textbox', { name: 'Tier name' }).fill('Bronze');
    await page.getByRole('textbox', { name: 'Points to' }).fill('1500');
    await page.getByRole('button', { name: 'Save tier' }).click();
    await page.getByText(/overlaps tier 'Gold'/).first().waitFor();
    assert.equal((await json('GET', `/v1/loyalties/${programId}/tiers/${silverId}`)).name, 'Silver', 'the refused change was not stored');
    await page.getByRole('textbox', { name: 'Points to' }).fill('499');
    await page.getByRole('button', { name: 'Save tier' }).click();
    await page.getByTestId(`loyalty-tier-${silverId}`).filter({ hasText: 'Bronze' }).filter({ hasText: '499' }).waitFor();
    const tier = await json('GET', `/v1/loyalties/${programId}/tiers/${silverId}`);
    assert.deepEqual([tier.name, tier.points], ['Bronze', { from: 0, to: 499 }]);

    await page.getByRole('button', { name: 'Delete Gold' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete the tier “Gold”?').waitFor();
    await cleanScreenshot(page, 'loyalty-manage-tier-delete');
    await dialog.getByRole('button', { name: 'Delete tier' }).click();
    await page.getByText('Tier “Gold” deleted').waitFor();
    await page.getByTestId(`loyalty-tier-${goldId}`).waitFor({ state: 'detached' });
    assert.equal((await t.request('GET', `/v1/loyalties/${programId}/tiers/${goldId}`)).status, 404);
  });

  test('the earning rules at phone width', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Earning rules' }).click();
    await page.getByRole('button', { name: 'Edit Spend more, earn more', exact: true }).click();
    await cleanScreenshot(page, 'loyalty-manage-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
