import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, openBrowser, screenshot, type Browser } from '../helpers/browser.ts';
import { addUser } from '../helpers/console.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// Managing campaigns in the console, in a real browser: editing a coupon campaign (discount, dates,
// weekdays, metadata, rule) with the API's refusal at the field it names, disable/enable, duplicate,
// a promotion's tiers (add, edit, reorder, disable, remove), delete (and the refusal when the campaign is
// already gone), Enter in the list's search box, and the edit form at a phone's width. Every change is
// read back through the API.

const PHONE = { width: 390, height: 844 };
const pageWidth = (page: Page) => page.evaluate('document.documentElement.scrollWidth').then(Number);

/** What the browser sends for a `datetime-local` text: the same local time, in UTC. */
const isoOfLocal = (text: string) => new Date(text).toISOString();

describe('console: managing campaigns', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let couponId = '';
  let ruleId = '';

  before(async () => {
    ({ t, browser } = await startSignedIn());
    const rule = await t.request('POST', '/v1/validation-rules', {
      json: { name: 'Big orders', rules: { '1': { name: 'order.amount', property: null, conditions: { $more_than_or_equal: [10000] }, rules: {} }, logic: '1' } },
    });
    assert.equal(rule.status, 200, JSON.stringify(rule.body));
    ruleId = rule.body.id;
    const coupon = await t.request('POST', '/v1/campaigns', {
      json: {
        name: 'Spring 10',
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        vouchers_count: 3,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 }, redemption: { quantity: 2 } },
        metadata: { channel: 'email', wave: 2 },
      },
    });
    assert.equal(coupon.status, 200, JSON.stringify(coupon.body));
    couponId = coupon.body.id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const open = async (path: string) => {
    await browser.page.goto(`${t.url}/dashboard${path}`);
  };

  test('edit: the API refuses 150% at the discount; then discount, dates, weekdays, metadata and rule change', async () => {
    const { page } = browser;
    await open(`/campaigns/${couponId}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit Spring 10' }).waitFor();
    assert.match(await page.getByTestId('limits').innerText(), /redeemed 2 time\(s\)/);

    await page.getByRole('textbox', { name: 'Percent off' }).fill('150');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The API's 'Property .discount.percent_off must be <= 100', beside the field in words.
    await page.getByText('Must be <= 100', { exact: true }).waitFor();
    assert.equal(await page.getByTestId('error-alert').count(), 0, 'the refusal sits at the discount, not above the form');
    await cleanScreenshot(page, 'campaign-edit-refused');
    assert.equal(await page.getByRole('textbox', { name: 'Name' }).isDisabled(), true, 'the API does not rename campaigns');

    await page.getByText('Amount off', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Amount off' }).fill('7.5');
    assert.equal(await page.getByText('Must be <= 100', { exact: true }).count(), 0, 'the refusal of 150% went with the percent input');
    await page.getByLabel('Starts').fill('2027-01-01T09:00');
    await page.getByLabel('Expires').fill('2027-03-31T18:30');
    await page.getByText('Mon', { exact: true }).click();
    await page.getByText('Sat', { exact: true }).click();
    for (const i of [1, 2]) {
      if ((await page.getByRole('textbox', { name: `Metadata key ${i}` }).inputValue()) === 'channel') await page.getByRole('textbox', { name: `Metadata value ${i}` }).fill('sms');
    }
    await page.getByRole('button', { name: 'Add metadata' }).click();
    await page.getByRole('textbox', { name: 'Metadata key 3' }).fill('audience');
    await page.getByRole('textbox', { name: 'Metadata value 3' }).fill('members');
    await page.getByRole('textbox', { name: 'Category' }).fill('Seasonal');
    await page.getByRole('button', { name: 'Add hours' }).click();
    await page.getByLabel('Hours 1 from').fill('08:00');
    await page.getByLabel('Hours 1 until').fill('12:30');
    await page.getByTestId('hours-0').getByText('Sat', { exact: true }).click();
    await page.getByRole('combobox', { name: 'Validation rule' }).click();
    await page.getByRole('option', { name: 'Big orders' }).click();
    await page.getByTestId('campaign-rule').filter({ hasText: 'Order amount at least 100.00' }).waitFor();
    await cleanScreenshot(page, 'campaign-edit');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(new RegExp(`/dashboard/campaigns/${couponId}$`));
    await page.getByText('7.50 off').waitFor();
    assert.equal(await page.getByTestId('campaign-windows').innerText(), 'Mon, Sat only; at set hours');
    assert.match(await page.getByTestId('campaign-details').innerText(), /Category: Seasonal · Metadata: .*channel = sms/);

    const stored = (await t.request('GET', `/v1/campaigns/${couponId}`)).body;
    assert.deepEqual([stored.voucher.discount.type, stored.voucher.discount.amount_off, stored.voucher.discount.percent_off], ['AMOUNT', 750, undefined]);
    assert.equal(stored.start_date, isoOfLocal('2027-01-01T09:00'));
    assert.equal(stored.expiration_date, isoOfLocal('2027-03-31T18:30'));
    assert.deepEqual(stored.validity_day_of_week, [1, 6]);
    assert.equal(stored.category, 'Seasonal');
    assert.deepEqual(stored.validity_hours, { daily: [{ start_time: '08:00', expiration_time: '12:30', days_of_week: [1, 2, 3, 4, 5, 6] }] });
    assert.deepEqual(stored.metadata, { channel: 'sms', wave: 2, audience: 'members' }, 'the number left alone stays a number');
    assert.deepEqual(stored.validation_rules_assignments.data.map((a: { rule_id: string }) => a.rule_id), [ruleId]);
    // The codes not yet published or redeemed follow the template.
    const codes = (await t.request('GET', `/v1/vouchers?campaign_id=${couponId}`)).body.vouchers as Array<{ discount: { amount_off: number } }>;
    assert.ok(codes.length === 3 && codes.every((v) => v.discount.amount_off === 750));
  });

  test('disable, then enable', async () => {
    const { page } = browser;
    await open(`/campaigns/${couponId}`);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByTestId('campaign-status').filter({ hasText: 'disabled' }).waitFor();
    assert.equal((await t.request('GET', `/v1/campaigns/${couponId}`)).body.active, false);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByTestId('campaign-status').filter({ hasText: 'active' }).waitFor();
    assert.equal((await t.request('GET', `/v1/campaigns/${couponId}`)).body.active, true);
  });

  test('duplicate under another name, with one new code; then delete the copy', async () => {
    const { page } = browser;
    await open(`/campaigns/${couponId}`);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Duplicate Spring 10' });
    const name = dialog.getByRole('textbox', { name: 'Name of the copy' });
    assert.equal(await name.inputValue(), 'Spring 10 copy');
    await name.fill('Spring 10 again');
    await dialog.getByRole('textbox', { name: 'Codes to generate now' }).fill('1');
    await cleanScreenshot(page, 'campaign-duplicate');
    await dialog.getByRole('button', { name: 'Create copy' }).click();
    await page.getByRole('heading', { name: 'Spring 10 again' }).waitFor();
    const copyId = new URL(page.url()).pathname.split('/').pop() ?? '';
    assert.notEqual(copyId, couponId);
    const [original, copy] = [(await t.request('GET', `/v1/campaigns/${couponId}`)).body, (await t.request('GET', `/v1/campaigns/${copyId}`)).body];
    assert.equal(copy.campaign_type, 'DISCOUNT_COUPONS');
    assert.deepEqual(copy.voucher.discount, original.voucher.discount);
    assert.deepEqual(copy.voucher.redemption, original.voucher.redemption);
    assert.deepEqual(copy.metadata, original.metadata);
    assert.deepEqual(copy.validity_day_of_week, [1, 6]);
    assert.equal(copy.start_date, original.start_date);
    assert.deepEqual(copy.validation_rules_assignments.data.map((a: { rule_id: string }) => a.rule_id), [ruleId]);
    assert.equal(copy.vouchers_count, 1);

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Spring 10 again?' });
    await confirm.getByText('Spring 10 again and its 1 code(s) will be deleted', { exact: false }).waitFor();
    await confirm.getByText('Redemptions already made stay in the redemption history', { exact: false }).waitFor();
    await cleanScreenshot(page, 'campaign-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete campaign' }).click();
    await page.waitForURL(/\/dashboard\/campaigns$/);
    await page.getByRole('link', { name: 'Spring 10', exact: true }).waitFor();
    assert.equal((await t.request('GET', `/v1/campaigns/${copyId}`)).status, 404);
    assert.equal(await page.getByRole('link', { name: 'Spring 10 again' }).count(), 0);
  });

  test('delete refused: the campaign was deleted elsewhere meanwhile, the API says so', async () => {
    const { page } = browser;
    const gone = await t.request('POST', '/v1/campaigns', { json: { name: 'Gone soon', campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } } });
    await open(`/campaigns/${gone.body.id}`);
    await page.getByRole('heading', { name: 'Gone soon' }).waitFor();
    assert.equal((await t.request('DELETE', `/v1/campaigns/${gone.body.id}`)).status, 202);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete Gone soon?' }).getByRole('button', { name: 'Delete campaign' }).click();
    await page.getByText('Gone soon was not deleted').waitFor();
    await page.getByText(/Cannot find campaign|not found/i).first().waitFor();
    assert.match(page.url(), new RegExp(`/campaigns/${gone.body.id}$`), 'the page stays');
  });

  test('a promotion: add a tier, edit it, move it to the top, disable it, remove another', async () => {
    const { page } = browser;
    const promo = await t.request('POST', '/v1/campaigns', {
      json: {
        name: 'Weekend deals',
        campaign_type: 'PROMOTION',
        promotion: {
          tiers: [
            { name: 'First', action: { discount: { type: 'PERCENT', percent_off: 5 } }, hierarchy: 1 },
            { name: 'Second', action: { discount: { type: 'PERCENT', percent_off: 8 } }, hierarchy: 2 },
          ],
        },
      },
    });
    assert.equal(promo.status, 200, JSON.stringify(promo.body));
    const id = promo.body.id as string;
    const tiers = async () =>
      ((await t.request('GET', `/v1/promotions/${id}/tiers`)).body.tiers as Array<Record<string, any>>).sort((a, b) => a.hierarchy - b.hierarchy);
    await open(`/campaigns/${id}`);

    await page.getByRole('button', { name: 'Add tier' }).click();
    let dialog = page.getByRole('dialog', { name: 'New tier' });
    await dialog.getByRole('textbox', { name: 'Tier name' }).fill('Third');
    await dialog.getByRole('textbox', { name: 'Tier Percent off' }).fill('25');
    await dialog.getByRole('button', { name: 'Add tier' }).click();
    await page.getByText('25% off').waitFor();
    let stored = await tiers();
    assert.deepEqual(stored.map((tier) => [tier.name, tier.hierarchy]), [['First', 1], ['Second', 2], ['Third', 3]]);

    await page.getByRole('button', { name: 'Edit Third' }).click();
    dialog = page.getByRole('dialog', { name: 'Edit Third' });
    await dialog.getByRole('textbox', { name: 'Tier name' }).fill('Members');
    await dialog.getByRole('textbox', { name: 'Banner (shown to customers)' }).fill('Members save more');
    await dialog.getByRole('textbox', { name: 'Tier Percent off' }).fill('150');
    await dialog.getByRole('button', { name: 'Save tier' }).click();
    await dialog.getByText('Must be <= 100', { exact: true }).waitFor();
    assert.equal(await dialog.getByTestId('error-alert').count(), 0, 'the refusal sits at the tier discount');
    await dialog.getByText('Amount off', { exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Tier Amount off' }).fill('3');
    await dialog.getByLabel('Expires').fill('2027-06-30T23:00');
    await dialog.getByRole('combobox', { name: 'Validation rule' }).click();
    await page.getByRole('option', { name: 'Big orders' }).click();
    await cleanScreenshot(page, 'campaign-tier-edit');
    await dialog.getByRole('button', { name: 'Save tier' }).click();
    await page.getByText('Members save more').waitFor();
    const members = (await tiers()).find((tier) => tier.name === 'Members');
    assert.deepEqual([members?.action.discount.type, members?.action.discount.amount_off], ['AMOUNT', 300]);
    assert.equal(members?.banner, 'Members save more');
    assert.equal(members?.expiration_date, isoOfLocal('2027-06-30T23:00'));
    assert.deepEqual(members?.validation_rule_assignments.data.map((a: { rule_id: string }) => a.rule_id), [ruleId]);

    await page.getByRole('button', { name: 'Move Members up' }).click();
    await page.getByText('Members moved up').waitFor();
    await page.getByRole('button', { name: 'Move Members up' }).click();
    await page.getByRole('button', { name: 'Move Members up' }).and(page.locator('[disabled]')).waitFor();
    stored = await tiers();
    assert.deepEqual(stored.map((tier) => [tier.name, tier.hierarchy]), [['Members', 1], ['First', 2], ['Second', 3]]);

    await page.getByRole('button', { name: 'Disable Members' }).click();
    await page.getByRole('button', { name: 'Enable Members' }).waitFor();
    assert.equal((await tiers()).find((tier) => tier.name === 'Members')?.active, false);

    await page.getByRole('button', { name: 'Remove Second' }).click();
    await page.getByRole('dialog', { name: 'Remove tier Second?' }).getByRole('button', { name: 'Remove tier' }).click();
    await page.getByRole('button', { name: 'Remove Second' }).waitFor({ state: 'detached' });
    assert.deepEqual((await tiers()).map((tier) => tier.name), ['Members', 'First']);
    await cleanScreenshot(page, 'campaign-tiers');
  });

  test('duplicating a promotion copies its tiers, their order, state, banner and rule', async () => {
    const { page } = browser;
    const promo = (await t.request('GET', '/v1/campaigns/Weekend%20deals')).body;
    await open(`/campaigns/${promo.id}`);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Duplicate Weekend deals' });
    assert.equal(await dialog.getByRole('textbox', { name: 'Codes to generate now' }).count(), 0, 'a promotion has no codes');
    await dialog.getByRole('button', { name: 'Create copy' }).click();
    await page.getByRole('heading', { name: 'Weekend deals copy' }).waitFor();
    const copyId = new URL(page.url()).pathname.split('/').pop() ?? '';
    const tiers = ((await t.request('GET', `/v1/promotions/${copyId}/tiers`)).body.tiers as Array<Record<string, any>>).sort((a, b) => a.hierarchy - b.hierarchy);
    assert.deepEqual(
      tiers.map((tier) => [tier.name, tier.active, tier.banner, tier.action.discount.type, tier.validation_rule_assignments.data.map((a: { rule_id: string }) => a.rule_id)]),
      [
        ['Members', false, 'Members save more', 'AMOUNT', [ruleId]],
        ['First', true, null, 'PERCENT', []],
      ],
    );
  });

  test('gift cards, a loyalty program and a referral program are edited with their own value inputs', async () => {
    const { page } = browser;
    const make = async (json: Record<string, unknown>) => {
      const made = await t.request('POST', '/v1/campaigns', { json });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      return made.body.id as string;
    };
    const gift = await make({ name: 'Gift 25', campaign_type: 'GIFT_VOUCHERS', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2500 } } });
    const club = await make({ name: 'Club', campaign_type: 'LOYALTY_PROGRAM', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 12 } } } });
    const referral = await make({
      name: 'Bring a friend',
      campaign_type: 'REFERRAL_PROGRAM',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 }, is_referral_code: true },
      referral_program: { conversion_event_type: 'redemption' },
    });

    await open(`/campaigns/${gift}/edit`);
    await page.getByRole('textbox', { name: 'Credits on each card' }).fill('40');
    // Half a recurring window: the API names the missing duration, shown under the window's inputs.
    await page.getByRole('textbox', { name: 'Repeats every' }).fill('P7D');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The API's 'Property .validity_timeframe.duration must NOT have fewer than 2 characters', in words
    // beside the window's inputs.
    await page.getByText('Must NOT have fewer than 2 characters', { exact: true }).waitFor();
    assert.equal(await page.getByTestId('error-alert').count(), 0);
    await page.getByRole('textbox', { name: 'Each window lasts' }).fill('PT2H');
    // Windows repeat from a start: the API refuses them without one (a refusal naming no single input).
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('error-alert').filter({ hasText: 'validity_timeframe requires start_date' }).waitFor();
    await page.getByLabel('Starts').fill('2027-02-01T10:00');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('40.00 credits per card').waitFor();
    let stored = (await t.request('GET', `/v1/campaigns/${gift}`)).body;
    assert.equal(stored.voucher.gift.amount, 4000);
    assert.deepEqual(stored.validity_timeframe, { interval: 'P7D', duration: 'PT2H' });

    await open(`/campaigns/${club}/edit`);
    await page.getByRole('textbox', { name: 'Points each new card starts with' }).fill('5');
    await page.getByRole('textbox', { name: 'Points expire after (months)' }).fill('');
    assert.equal(await page.getByRole('combobox', { name: 'Validation rule' }).count(), 0, 'loyalty programs take rules per earning rule, not here');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Cards start with 5 points').waitFor();
    stored = (await t.request('GET', `/v1/campaigns/${club}`)).body;
    assert.deepEqual(stored.voucher.loyalty_card, { points: 5 }, 'an emptied expiry means points never expire');

    await open(`/campaigns/${referral}/edit`);
    await page.getByRole('textbox', { name: 'Percent off' }).fill('15');
    await page.getByText('A custom event', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Custom event name' }).fill('friend_signed_up');
    await page.getByRole('combobox', { name: 'Extra reward for the referred friend' }).click();
    await page.getByRole('option', { name: 'Loyalty points' }).click();
    await page.getByRole('combobox', { name: 'Loyalty program' }).click();
    await page.getByRole('option', { name: 'Club' }).click();
    await page.getByRole('textbox', { name: 'Points', exact: true }).fill('30');
    await cleanScreenshot(page, 'campaign-edit-referral');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('15% off').waitFor();
    stored = (await t.request('GET', `/v1/campaigns/${referral}`)).body;
    assert.equal(stored.voucher.discount.percent_off, 15);
    assert.equal(stored.voucher.is_referral_code, true);
    assert.equal(stored.referral_program.conversion_event_type, 'custom_event');
    assert.equal(stored.referral_program.custom_event.name, 'friend_signed_up');
    assert.deepEqual([stored.referral_program.referee_reward.type, stored.referral_program.referee_reward.amount, stored.referral_program.referee_reward.related_object_parent.id], ['LOYALTY_CARD', 30, club]);
  });

  test('Enter in the list search filters the list instead of opening a page named after the text', async () => {
    const { page } = browser;
    await open('/campaigns');
    await page.getByRole('link', { name: 'Weekend deals', exact: true }).waitFor();
    const search = page.getByRole('textbox', { name: 'Search' });
    await search.fill('spring');
    await search.press('Enter');
    await page.getByRole('link', { name: 'Weekend deals', exact: true }).waitFor({ state: 'detached' });
    assert.match(page.url(), /\/dashboard\/campaigns$/);
    assert.equal(await page.getByRole('link', { name: 'Spring 10', exact: true }).count(), 1);
    assert.equal(await page.getByText('Campaign not found').count(), 0);
  });

  test('at 390 px the edit form fits the screen and saves', async () => {
    const phone = await openBrowser(PHONE);
    try {
      const { page } = phone;
      await signInThroughPage(page, t.url);
      await page.goto(`${t.url}/dashboard/campaigns/${couponId}/edit`);
      await page.getByRole('heading', { name: 'Edit Spring 10' }).waitFor();
      const width = await pageWidth(page);
      assert.ok(width <= PHONE.width, `no sideways scrolling (page is ${width} px wide)`);
      await screenshot(page, 'phone-campaign-edit', { fullPage: true });
      // A code with its own end date keeps it: a save sends only what changed (here the description),
      // and unchanged campaign dates would otherwise be passed on to the unused codes.
      const own = await t.request('POST', `/v1/campaigns/${couponId}/vouchers/OWN-END`, { json: { expiration_date: '2027-12-24T12:00:00.000Z' } });
      assert.equal(own.status, 200, JSON.stringify(own.body));
      await page.getByRole('textbox', { name: 'Description' }).fill('Written on a phone');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL(new RegExp(`/dashboard/campaigns/${couponId}$`));
      assert.equal((await t.request('GET', `/v1/campaigns/${couponId}`)).body.description, 'Written on a phone');
      assert.equal((await t.request('GET', '/v1/vouchers/OWN-END')).body.expiration_date, '2027-12-24T12:00:00.000Z');
      await page.getByRole('button', { name: 'Duplicate' }).waitFor();
      assert.equal(await page.evaluate('window.scrollY'), 0, 'the saved campaign shows from its top');
      await screenshot(page, 'phone-campaign-detail', { fullPage: false });

      // A promotion's tiers stack, their actions wrap inside the screen, and a tier's form fills it.
      const promo = (await t.request('GET', '/v1/campaigns/Weekend%20deals')).body;
      await page.goto(`${t.url}/dashboard/campaigns/${promo.id}`);
      await page.getByText('Members save more').waitFor();
      assert.ok((await pageWidth(page)) <= PHONE.width, 'the tiers fit the screen');
      await screenshot(page, 'phone-campaign-tiers', { fullPage: true });
      await page.getByRole('button', { name: 'Edit First' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit First' });
      await dialog.getByRole('textbox', { name: 'Tier name' }).waitFor();
      assert.ok((await pageWidth(page)) <= PHONE.width, 'the tier form fits the screen');
      await screenshot(page, 'phone-campaign-tier-edit', { fullPage: false });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await phone.close();
    }
  });

  test('a VIEWER sees the campaign and its tiers without any of the actions, and the edit page says it is not for the role', async () => {
    await addUser(t, 'viewer@shop.example.com', 'VIEWER', 'viewer-password-1');
    const viewer = await openBrowser();
    try {
      const { page } = viewer;
      await signInThroughPage(page, t.url, 'viewer@shop.example.com', 'viewer-password-1');
      const promo = (await t.request('GET', '/v1/campaigns/Weekend%20deals')).body;
      await page.goto(`${t.url}/dashboard/campaigns/${promo.id}`);
      await page.getByText('Members save more').waitFor();
      for (const name of ['Edit', 'Duplicate', 'Delete', 'Disable', 'Add tier', 'Remove First', 'Move First up', 'Disable First']) {
        assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} button`);
      }
      assert.equal(await page.getByRole('link', { name: 'Edit', exact: true }).count(), 0, 'no Edit link');
      await page.goto(`${t.url}/dashboard/campaigns/${couponId}/edit`);
      await page.getByTestId('not-permitted').waitFor();
    } finally {
      await viewer.close();
    }
  });
});
