import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, waitForCondition, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The console's vouchers and codes in a real browser: a coupon campaign whose codes follow a pattern with
// a prefix in the look-alike-free charset and may each be used twice; a code's page with its holder by
// name (linked), validating and redeeming by hand with the API's answer and refusal, and its redemption
// history with a rollback; publishing offered only for codes nobody holds; holders by name in the lists;
// the campaign's statistics; and the pages at phone width.

const READABLE = '[2-9A-HJ-NP-Z]';

describe('console: vouchers, codes and campaign statistics', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let campaignId = '';
  let customerId = '';
  let held = '';
  let free = '';

  before(async () => {
    ({ t, browser } = await startSignedIn());
    const customer = await t.request('POST', '/v1/customers', { json: { source_id: 'ann-lee', name: 'Ann Lee', email: 'ann@example.com' } });
    assert.equal(customer.status, 200, customer.text);
    customerId = customer.body.id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const open = async (path: string) => {
    await browser.page.goto(`${t.url}/dashboard${path}`);
  };

  test('a coupon campaign with a pattern, prefix and two uses per code generates codes of that shape', async () => {
    const { page } = browser;
    await open('/campaigns/new');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Readable coupons');
    await page.getByRole('textbox', { name: 'Codes to generate now' }).fill('3');
    await page.getByRole('textbox', { name: 'Uses per code' }).fill('2');
    await page.getByText('Pattern', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Pattern' }).fill('##-##');
    await page.getByRole('textbox', { name: 'Code prefix' }).fill('RD-');
    await page.getByTestId('code-example').filter({ hasText: /RD-..-../ }).waitFor();
    await cleanScreenshot(page, 'vouchers-new-campaign-codes');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByTestId('campaign-stats').waitFor();
    campaignId = new URL(page.url()).pathname.split('/').pop() ?? '';

    const stored = await t.request('GET', `/v1/campaigns/${campaignId}`);
    assert.equal(stored.body.voucher.code_config.charset, '23456789ABCDEFGHJKLMNPQRSTUVWXYZ');
    assert.equal(stored.body.voucher.code_config.prefix, 'RD-');
    const codes = (await t.request('GET', `/v1/vouchers?campaign_id=${campaignId}`)).body.vouchers as Array<{ code: string; redemption: { quantity: number } }>;
    assert.equal(codes.length, 3);
    for (const v of codes) {
      assert.match(v.code, new RegExp(`^RD-${READABLE}{2}-${READABLE}{2}$`));
      assert.equal(v.redemption.quantity, 2);
    }
    [held, free] = codes.map((v) => v.code).sort() as [string, string];
    const published = await t.request('POST', '/v1/publications', { json: { customer: { id: customerId }, voucher: held } });
    assert.equal(published.status, 200, published.text);
  });

  test("a held code's page names its holder with a link and offers no publishing; a free code's does", async () => {
    const { page } = browser;
    await open(`/vouchers/${held}`);
    const holder = page.getByTestId('voucher-holder');
    await holder.getByRole('link', { name: 'Ann Lee' }).waitFor();
    assert.equal(await holder.getByRole('link', { name: 'Ann Lee' }).getAttribute('href'), `/dashboard/customers/${customerId}`);
    await holder.getByText('ann@example.com').waitFor();
    await page.getByRole('button', { name: 'Validate' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Publish…' }).count(), 0);

    await open(`/vouchers/${free}`);
    await page.getByRole('button', { name: 'Publish…' }).waitFor();
    await page.getByTestId('voucher-holder').getByText('nobody yet').waitFor();

    await open(`/campaigns/${campaignId}`);
    const codes = page.getByRole('table').filter({ hasText: held });
    await codes.getByRole('link', { name: 'Ann Lee' }).waitFor();
    await page.getByRole('button', { name: `Publish ${free}` }).waitFor();
    assert.equal(await page.getByRole('button', { name: `Publish ${held}` }).count(), 0);
    await cleanScreenshot(page, 'vouchers-campaign-codes');
  });

  test('validating and redeeming by hand shows the discount, then the refusal once both uses are spent', async () => {
    const { page } = browser;
    await open(`/vouchers/${held}`);
    const card = page.getByTestId('try-code');
    await card.getByRole('textbox', { name: 'Order amount' }).fill('40');
    assert.equal(await card.getByRole('checkbox', { name: "As the code's holder" }).isChecked(), true, 'the holder is the customer');
    assert.equal(await card.getByRole('textbox', { name: 'Customer (id or source_id)' }).count(), 0, 'no internal id to read');
    await card.getByRole('button', { name: 'Validate' }).click();
    await card.getByTestId('try-outcome').filter({ hasText: 'Valid: 4.00 off' }).waitFor();
    await card.getByText('Order 40.00 − 4.00 = 36.00 to pay').waitFor();
    assert.equal((await t.request('GET', `/v1/vouchers/${held}`)).body.redemption.redeemed_quantity, 0, 'validating consumes nothing');

    await card.getByRole('button', { name: 'Redeem' }).click();
    await card.getByTestId('try-outcome').filter({ hasText: 'Redeemed: 4.00 off' }).waitFor();
    const history = page.getByTestId('voucher-history');
    await history.getByText('redeemed', { exact: true }).waitFor();
    await history.getByRole('link', { name: 'Ann Lee' }).first().waitFor();

    const second = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: held }], order: { amount: 2000 }, customer: { id: customerId } } });
    assert.equal(second.status, 200, second.text);
    await card.getByRole('button', { name: 'Validate' }).click();
    await card.getByTestId('try-outcome').filter({ hasText: 'Not valid for this order' }).waitFor();
    await card.getByText('quantity_exceeded').waitFor();
    await card.getByRole('button', { name: 'Redeem' }).click();
    await card.getByTestId('try-outcome').filter({ hasText: 'Redemption refused' }).waitFor();
    await card.getByText('quantity_exceeded').waitFor();
    await page.getByText('2 of 2', { exact: true }).waitFor();
    await cleanScreenshot(page, 'vouchers-refused');

    const rollback = await t.request('POST', `/v1/redemptions/${second.body.redemptions[0].id}/rollback`, { json: { reason: 'returned' } });
    assert.equal(rollback.status, 200, rollback.text);
    await page.reload();
    await history.getByText('rollback', { exact: true }).waitFor();
    await history.getByText('redeemed, rolled back').waitFor();
    await history.getByText('refused: quantity_exceeded').waitFor();
    const rows = await history.locator('tbody tr').count();
    assert.equal(rows, 4, 'redemption, second redemption, refusal and rollback');
    await cleanScreenshot(page, 'vouchers-history');
  });

  test('the vouchers and redemptions lists name the customer and link to them', async () => {
    const { page } = browser;
    await open('/vouchers');
    const row = page.getByRole('row').filter({ hasText: held });
    await row.getByRole('link', { name: 'Ann Lee' }).waitFor();
    await open('/redemptions');
    const link = page.getByRole('table').getByRole('link', { name: 'Ann Lee' }).first();
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/dashboard/customers/${customerId}`);
    assert.equal(await page.getByRole('table').getByText(customerId).count(), 0, 'no internal id is shown');
  });

  test("the campaign's statistics count its redemptions, rollbacks, published and redeemed codes and top code", async () => {
    const { page } = browser;
    await open(`/campaigns/${campaignId}`);
    const stats = page.getByTestId('campaign-stats');
    await stats.getByTestId('stats-redemptions').filter({ hasText: /^2$/ }).waitFor();
    assert.equal(await stats.getByTestId('stats-rollbacks').textContent(), '1');
    assert.equal(await stats.getByTestId('stats-failed').textContent(), '1');
    assert.equal(await stats.getByTestId('stats-discount').textContent(), '4.00', 'the rolled back discount is not granted');
    assert.equal(await stats.getByTestId('stats-published').textContent(), '1');
    await stats.getByText('of 3 codes published').waitFor();
    assert.equal(await stats.getByTestId('stats-redeemed').textContent(), '1');
    await stats.getByTestId(`top-code-${held}`).getByRole('cell', { name: '2', exact: true }).waitFor();
    // The charts' days are written as the rest of the console writes them (the browser's language here), not as YYYY-MM-DD.
    const ticks = stats.getByTestId('stats-redemptions-chart').locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
    await ticks.first().waitFor();
    const days = await ticks.allTextContents();
    assert.ok(days.length > 0 && days.every((tick) => /^[A-Z][a-z]{2} \d{1,2}$/.test(tick)), `days on the axis: ${days.join(', ')}`);
    await cleanScreenshot(page, 'vouchers-campaign-stats');
  });

  test('the voucher and campaign pages fit a phone held upright', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await open(`/vouchers/${held}`);
      await page.getByTestId('voucher-history').getByText('rollback', { exact: true }).waitFor();
      await waitForCondition(page, 'document.documentElement.scrollWidth <= window.innerWidth + 1');
      await cleanScreenshot(page, 'vouchers-voucher-phone');
      await open(`/campaigns/${campaignId}`);
      await page.getByTestId('stats-redemptions').waitFor();
      await waitForCondition(page, 'document.documentElement.scrollWidth <= window.innerWidth + 1');
      await cleanScreenshot(page, 'vouchers-campaign-phone');
      await open('/campaigns/new');
      await page.getByTestId('code-config').waitFor();
      await waitForCondition(page, 'document.documentElement.scrollWidth <= window.innerWidth + 1');
      await cleanScreenshot(page, 'vouchers-new-campaign-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });
});
