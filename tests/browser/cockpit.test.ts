import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, ensureConsoleBuilt, openBrowser, screenshot, waitForCondition, type Browser } from '../helpers/browser.ts';
import { cockpitShop, ok, type CockpitShop } from '../helpers/cockpit.ts';

// The customer cockpit in a real browser at phone width, opened from the link in the customer object as
// a shop's e-mail would: the balance the API has; a reward redeemed with a double click is one
// redemption and one debit; a consent switched off is stored and on the customer's activity; a tampered
// or rotated link gets a plain error page; a coupon shows its validity, uses left and conditions in words,
// and a card's history adds up to its balance, the points it started with included.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PHONE = { width: 390, height: 844 };

describe('customer cockpit in the browser', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let shop: CockpitShop;

  before(async () => {
    ensureConsoleBuilt();
    t = await startTestApp({ clockStart: new Date().toISOString() });
    await ok(t, 'POST', `/management/v1/projects/${t.projectId}/branding`, {
      brand: { name: 'Bean There', website_url: 'beanthere.example.com', permission_reminder: 'You chose these when you joined. Change them any time.' },
      address: { street: 'Roastery Lane 4', city: 'Leeds', postal: 'LS1 4AP', country: 'United Kingdom' },
      contact: { email: 'hello@beanthere.example.com', phone: '+44 113 496 0000' },
      cockpit: { primary_color: '#5b3a29', accent_color: '#d9480f' },
    }, t.managementHeaders());
    shop = await cockpitShop(t, 350);
    browser = await openBrowser(PHONE);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const balanceInApi = async () => (await ok(t, 'GET', `/v1/loyalties/members/${encodeURIComponent(shop.card)}`)).loyalty_card.balance as number;

  test("the customer's link opens their wallet at phone width with the balance the API has", async () => {
    const { page } = browser;
    await page.goto(shop.customer.assets.cockpit_url);
    const balance = page.getByTestId('balance');
    await balance.waitFor();
    assert.equal(await balance.textContent(), String(await balanceInApi()));
    assert.equal(await balance.textContent(), '350');
    await page.getByRole('heading', { name: 'Hi Ada' }).waitFor();
    await page.getByText('150 points more to reach Gold').waitFor();
    await page.getByText('Silver', { exact: true }).waitFor();
    await page.getByText(shop.coupon).waitFor();
    await page.getByText('10% off').waitFor();
    await page.getByTestId('gift-balance').getByText('25.00').waitFor();
    await page.getByText(shop.referralCode).waitFor();
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= PHONE.width, `nothing overflows the phone's width (${width}px)`);
    await screenshot(page, 'cockpit-phone', { fullPage: false });
    await screenshot(page, 'cockpit-phone-full');

    // The coupon's QR code and barcode: the images the console shows too, drawn by the API.
    const coupons = page.getByRole('region', { name: 'Coupons' });
    await coupons.getByRole('button', { name: 'Show QR code and barcode' }).click();
    for (const name of [`QR code of ${shop.coupon}`, `Barcode of ${shop.coupon}`]) {
      const image = coupons.getByRole('img', { name });
      await image.waitFor();
      // Drawn, not broken: the browser decoded the image the API sent.
      await waitForCondition(page, `[...document.images].some((i) => i.alt === ${JSON.stringify(name)} && i.complete && i.naturalWidth > 0)`);
    }
    await coupons.getByRole('img', { name: `QR code of ${shop.coupon}` }).scrollIntoViewIfNeeded();
    await screenshot(page, 'cockpit-phone-coupon-codes', { fullPage: false });
    await coupons.getByRole('button', { name: 'Hide codes' }).click();
    await page.evaluate('window.scrollTo(0, 0)');
  });

  test('a double click on Confirm redeems the reward once: one redemption record, points taken once', async () => {
    const { page } = browser;
    const reward = page.locator('[data-reward="Free flat white"]');
    await reward.getByRole('button', { name: 'Redeem' }).click();
    await reward.getByRole('button', { name: 'Confirm' }).dblclick();
    await reward.getByRole('status').getByText('Redeemed: Free flat white').waitFor();
    await page.getByTestId('balance').getByText('150', { exact: true }).waitFor();
    await reward.getByText('200 points · 49 left').waitFor();

    assert.equal(await balanceInApi(), 350 - shop.price, 'points taken once');
    const records = await ok(t, 'GET', `/v1/redemptions?customer=${shop.customer.id}&limit=100`);
    const rewardRecords = records.redemptions.filter((r: Json) => r.reward);
    assert.equal(rewardRecords.length, 1, 'one redemption record');
    assert.equal(rewardRecords[0].result, 'SUCCESS');
    await page.getByRole('button', { name: 'Points history' }).click();
    await page.getByText('Reward redeemed').first().waitFor();
    await screenshot(page, 'cockpit-phone-redeemed', { fullPage: false });
  });

  test('the preference center: switching a consent off is stored and is an event on the activity', async () => {
    const { page } = browser;
    await page.goto(shop.customer.assets.cockpit_preference_center_url);
    await page.getByRole('heading', { name: 'Your preferences' }).waitFor();
    await page.getByText('You chose these when you joined.').waitFor();
    const newsletter = page.getByRole('switch', { name: 'Newsletter' });
    assert.equal(await newsletter.isChecked(), true);
    await newsletter.click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    assert.equal(await newsletter.isChecked(), false);

    const stored = await ok(t, 'GET', `/v1/customers/${shop.customer.id}/consents`);
    assert.equal(stored.data.find((c: Json) => c.consent_id === shop.newsletter.id)?.granted, false);
    const activity = await ok(t, 'GET', `/v1/customers/${shop.customer.id}/activity?limit=5`);
    const event = activity.data.find((e: Json) => e.type === 'customer.consents.updated');
    assert.ok(event, 'the change is on the activity');
    assert.deepEqual(event.data.data.consents, { [shop.newsletter.id]: false });
    assert.equal(event.data.event_source.channel, 'CUSTOMER_COCKPIT');
    await screenshot(page, 'cockpit-phone-preferences', { fullPage: false });
  });

  test('a tampered link and a rotated one get a plain error page; the new link works', async () => {
    const { page } = browser;
    const url = shop.customer.assets.cockpit_url as string;
    const tampered = `${url.slice(0, -1)}${url.endsWith('A') ? 'B' : 'A'}`;
    await page.goto('about:blank');
    await page.goto(tampered);
    await page.getByRole('alert').getByRole('heading', { name: 'This link does not work' }).waitFor();
    assert.equal(await page.getByText('Bean There').count(), 0, 'the error page names no shop');
    assert.equal(await page.getByTestId('balance').count(), 0);
    await screenshot(page, 'cockpit-phone-bad-link', { fullPage: false });

    const rotated = await ok(t, 'POST', `/v1/customers/${shop.customer.id}/cockpit/rotate`);
    await page.goto('about:blank');
    await page.goto(url);
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor();
    await page.goto('about:blank');
    await page.goto(rotated.assets.cockpit_url);
    await page.getByTestId('balance').getByText('150', { exact: true }).waitFor();
  });

  test('a coupon shows its days, uses left and conditions in words; a card made with points shows a history that adds up, page by page', async () => {
    const { page } = browser;
    const customer = await ok(t, 'POST', '/v1/customers', { source_id: 'cockpit-terms', name: 'Grace Hopper' });
    const program = await ok(t, 'POST', '/v1/loyalties', { name: 'Starter Beans', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 } } });
    await ok(t, 'POST', `/v1/loyalties/${program.id}/earning-rules`, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 7 } }]);
    const card = await ok(t, 'POST', `/v1/loyalties/${program.id}/members`, { customer: { id: customer.id } });
    for (let i = 1; i <= 22; i++) await ok(t, 'POST', '/v1/orders', { status: 'PAID', source_id: `terms-order-${i}`, customer: { id: customer.id }, amount: 1000 });
    const product = await ok(t, 'POST', '/v1/products', { source_id: 'terms-coffee', name: 'Filter coffee', price: 300 });
    const campaign = await ok(t, 'POST', '/v1/campaigns', {
      name: 'Weekend treat',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 15 }, redemption: { quantity: 3 } },
      expiration_date: '2031-06-30T23:59:59.000Z',
      validity_day_of_week: [0, 6],
    });
    const rule = await ok(t, 'POST', '/v1/validation-rules', {
      name: 'Big weekend orders of VIPs',
      rules: {
        '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } },
        '2': { name: 'redemption.count.per_customer', conditions: { $less_than: [2] } },
        '3': { name: 'customer.metadata', property: 'secret_tier', conditions: { $is: ['whale'] } },
        logic: '1 AND 2 AND 3',
      },
      applicable_to: { included: [{ object: 'product', id: product.id, effect: 'APPLY_TO_EVERY' }], excluded: [] },
    });
    await ok(t, 'POST', `/v1/validation-rules/${rule.id}/assignments`, { related_object_type: 'campaign', related_object_id: campaign.id });
    await ok(t, 'POST', '/v1/publications', { campaign: { id: campaign.id }, customer: { id: customer.id } });
    const link = (await ok(t, 'GET', `/v1/customers/${customer.id}`)).assets.cockpit_url;

    await page.goto('about:blank');
    await page.goto(link);
    const balance = 100 + 22 * 7;
    await page.getByTestId('balance').getByText(String(balance), { exact: true }).waitFor();
    const terms = page.getByTestId('coupon-terms');
    await terms.getByText('Only on Sun, Sat').waitFor();
    await terms.getByText('3 uses left').waitFor();
    await terms.getByText('Order amount at least 50.00').waitFor();
    await terms.getByText('Redemptions by this customer less than 2').waitFor();
    await terms.getByText('Applies to: Filter coffee').waitFor();
    await terms.getByText('Further conditions set by Bean There may apply.').waitFor();
    assert.equal(await page.getByText('whale').count(), 0, "the shop's targeting is not shown");
    await page.getByRole('region', { name: 'Coupons' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'cockpit-phone-coupon-terms', { fullPage: false });

    await page.getByRole('button', { name: 'Points history' }).click();
    const history = page.getByTestId('history');
    // The newest 20 accruals; before them the card held its 100 points and the 2 oldest accruals.
    await history.getByTestId('balance-before').getByText(`Balance before these: ${100 + 2 * 7} points`).waitFor();
    assert.equal(await history.locator('[data-entry]').count(), 20);
    await history.locator('[data-entry]').first().getByText(`Balance ${balance}`).waitFor();
    await screenshot(page, 'cockpit-phone-history', { fullPage: false });
    await history.getByRole('button', { name: 'Show older' }).click();
    const opening = history.locator('[data-entry="OPENING_BALANCE"]');
    await opening.getByText('Starting points').waitFor();
    await opening.getByText('+100').waitFor();
    await opening.getByText('Balance 100').waitFor();
    assert.equal(await history.locator('[data-entry]').count(), 23, '22 accruals and the starting points');
    assert.equal(await history.getByTestId('balance-before').count(), 0, 'the whole history is shown: nothing before it');
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= PHONE.width, `nothing overflows the phone's width (${width}px)`);
    await opening.scrollIntoViewIfNeeded();
    await screenshot(page, 'cockpit-phone-history-start', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, 'cockpit-desktop-history-and-terms');
    await page.setViewportSize(PHONE);
    assert.equal(card.loyalty_card.points, 100);
  });
});
