import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, openBrowser, type Browser } from '../helpers/browser.ts';
import { ok } from '../helpers/cockpit.ts';
import { addUser } from '../helpers/console.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// The header's search, as an agent at the counter uses it: Ctrl+K (or Cmd+K, or "/"), a few letters, the
// arrow keys and Enter open a customer, a code, a campaign or an order; Escape closes it and gives focus
// back. Then at phone width with the header's button and a tap, and for roles: a MERCHANT reads all four
// kinds, and a session that does not list a kind's route neither shows nor asks for that kind.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PHONE = { width: 390, height: 844 };
const BOX = 'Search customers, codes, campaigns and orders';

describe('console: global search', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let alice: Json;
  let festival: Json;
  let tea: Json;
  let order: Json;

  before(async () => {
    ({ t, browser } = await startSignedIn());
    await addUser(t, 'merchant@shop.example.com', 'MERCHANT', 'merchant-password-1');
    await addUser(t, 'viewer@shop.example.com', 'VIEWER', 'viewer-password-1');
    alice = await ok(t, 'POST', '/v1/customers', { source_id: 'alice-1', name: 'Alice Smith', email: 'alice.smith@example.com' });
    await ok(t, 'POST', '/v1/customers', { source_id: 'sam-1', name: 'Sam Summers', email: 'sam@example.com' });
    const coupons = { campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } };
    festival = await ok(t, 'POST', '/v1/campaigns', { name: 'Summer Coffee Festival', ...coupons });
    tea = await ok(t, 'POST', '/v1/campaigns', { name: 'Summer Tea Week', ...coupons });
    await ok(t, 'POST', `/v1/campaigns/${festival.id}/vouchers/BREW-TEN-2026`, {});
    await ok(t, 'POST', `/v1/campaigns/${festival.id}/vouchers/SUMMER`, {});
    order = await ok(t, 'POST', '/v1/orders', { source_id: 'WEB-4711', status: 'PAID', customer: { id: alice.id }, amount: 4250 });
    await ok(t, 'POST', '/v1/orders', { source_id: 'SUMMER', status: 'CREATED', amount: 1000 });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const box = (page: Page) => page.getByRole('combobox', { name: BOX });
  const option = (page: Page, name: string | RegExp) => page.getByRole('dialog', { name: 'Search' }).getByRole('option', { name });
  const group = (page: Page, name: string) => page.getByRole('dialog', { name: 'Search' }).getByRole('group', { name });

  test('Ctrl+K, a few letters of her name, Enter: her page', async () => {
    const { page } = browser;
    await page.getByTestId('role').waitFor();
    await page.keyboard.press('Control+k');
    await box(page).waitFor();
    await box(page).pressSequentially('ali');
    const hit = option(page, /Alice Smith/);
    await hit.waitFor();
    assert.match(await hit.innerText(), /alice\.smith@example\.com/);
    await box(page).press('Enter');
    await page.getByRole('heading', { name: 'Alice Smith' }).waitFor();
    assert.match(page.url(), new RegExp(`/dashboard/customers/${alice.id}$`));
    await box(page).waitFor({ state: 'detached' });
  });

  test('a whole code opens the code; part of one says to type it whole', async () => {
    const { page } = browser;
    await page.keyboard.press('Control+k');
    await box(page).fill('BREW-TEN');
    await page.getByText('Codes: type the whole code').waitFor();
    await page.getByText('Nothing found for “BREW-TEN”.').waitFor();
    await box(page).fill('BREW-TEN-2026');
    const hit = option(page, /BREW-TEN-2026/);
    await hit.waitFor();
    assert.match(await hit.innerText(), /Campaign Summer Coffee Festival/);
    await box(page).press('Enter');
    await page.waitForURL(/\/dashboard\/vouchers\/BREW-TEN-2026$/);
  });

  test('Cmd+K, part of a campaign name, arrow keys choose between two', async () => {
    const { page } = browser;
    await page.keyboard.press('Meta+k');
    await box(page).fill('mmer t');
    await option(page, /Summer Tea Week/).waitFor();
    assert.equal(await option(page, /Summer Coffee Festival/).count(), 0);
    await box(page).fill('SUMMER');
    // Every kind answers "SUMMER": Sam Summers, the code and the order of that name, both campaigns.
    for (const kind of ['Customers', 'Codes', 'Campaigns', 'Orders']) await group(page, kind).waitFor();
    await cleanScreenshot(page, 'search-desktop');
    const campaigns = group(page, 'Campaigns').getByRole('option');
    assert.deepEqual((await campaigns.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ')), ['Summer Tea Week Discount coupons', 'Summer Coffee Festival Discount coupons']);
    // The first result is chosen; the arrows move to the festival (customer, code, tea, festival).
    assert.equal(await group(page, 'Customers').getByRole('option').first().getAttribute('aria-selected'), 'true');
    for (let i = 0; i < 3; i += 1) await box(page).press('ArrowDown');
    assert.equal(await campaigns.filter({ hasText: 'Summer Coffee Festival' }).getAttribute('aria-selected'), 'true');
    await box(page).press('ArrowUp');
    assert.equal(await campaigns.filter({ hasText: 'Summer Tea Week' }).getAttribute('aria-selected'), 'true');
    await box(page).press('ArrowDown');
    await box(page).press('Enter');
    await page.waitForURL(new RegExp(`/dashboard/campaigns/${festival.id}$`));
    assert.ok(tea.id);
  });

  test('"/" opens it outside fields; an order by its source id shows its customer and amount', async () => {
    const { page } = browser;
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    await page.keyboard.press('/');
    await box(page).waitFor();
    await box(page).fill('WEB-4711');
    const hit = option(page, /WEB-4711/);
    await hit.waitFor();
    await hit.getByText(/Alice Smith/).waitFor();
    assert.match(await hit.innerText(), /42\.50/);
    await box(page).press('Enter');
    await page.waitForURL(new RegExp(`/dashboard/orders/${order.id}$`));
  });

  test('Escape closes it and gives focus back to the button', async () => {
    const { page } = browser;
    const button = page.getByRole('button', { name: 'Search everywhere' });
    await button.click();
    await box(page).fill('ali');
    await option(page, /Alice Smith/).waitFor();
    await box(page).press('Escape');
    await box(page).waitFor({ state: 'detached' });
    assert.equal(await page.evaluate("document.activeElement && document.activeElement.getAttribute('aria-label')"), 'Search everywhere');
    // Opened again it starts empty.
    await button.click();
    assert.equal(await box(page).inputValue(), '');
    await box(page).press('Escape');
    await box(page).waitFor({ state: 'detached' });
  });

  test('"/" typed into a field stays in the field', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Customers' }).click();
    const find = page.getByRole('textbox', { name: 'Find a customer' });
    await find.click();
    await find.press('/');
    assert.equal(await find.inputValue(), '/');
    assert.equal(await box(page).count(), 0);
  });

  test('at phone width the header button opens it and a result is tappable', async () => {
    const phone = await openBrowser(PHONE);
    try {
      const { page } = phone;
      await signInThroughPage(page, t.url);
      await page.getByRole('button', { name: 'Search everywhere' }).click();
      await box(page).fill('ali');
      await option(page, /Alice Smith/).waitFor();
      await cleanScreenshot(page, 'search-phone');
      const fits = await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
      assert.ok(fits, 'nothing overflows the phone screen');
      await option(page, /Alice Smith/).click();
      await page.getByRole('heading', { name: 'Alice Smith' }).waitFor();
    } finally {
      await phone.close();
    }
  });

  test('a MERCHANT searches all four kinds it may read', async () => {
    const merchant = await openBrowser();
    try {
      const { page } = merchant;
      await signInThroughPage(page, t.url, 'merchant@shop.example.com', 'merchant-password-1');
      await page.keyboard.press('Control+k');
      await box(page).fill('SUMMER');
      for (const kind of ['Customers', 'Codes', 'Campaigns', 'Orders']) await group(page, kind).waitFor();
    } finally {
      await merchant.close();
    }
  });

  test('a kind whose route the session does not list is neither shown nor asked for', async () => {
    const viewer = await openBrowser();
    try {
      const { page } = viewer;
      // The server lets every role read all four kinds; a session (as signing in and reading it answer) without the customers and orders routes
      // (as a narrower role would have) shows the console reads the list rather than assuming them.
      await page.route('**/console/v1/session', async (route) => {
        const answer = await route.fetch();
        const body = await answer.json();
        if (Array.isArray(body.permissions)) body.permissions = body.permissions.filter((p: string) => p !== 'GET /v1/customers' && p !== 'GET /v1/orders/:orderId');
        await route.fulfill({ response: answer, json: body });
      });
      const asked: string[] = [];
      page.on('request', (request) => asked.push(new URL(request.url()).pathname));
      await signInThroughPage(page, t.url, 'viewer@shop.example.com', 'viewer-password-1');
      await page.keyboard.press('Control+k');
      await box(page).fill('SUMMER');
      await group(page, 'Campaigns').waitFor();
      await group(page, 'Codes').waitFor();
      assert.equal(await group(page, 'Customers').count(), 0);
      assert.equal(await group(page, 'Orders').count(), 0);
      assert.deepEqual(
        asked.filter((p) => p === '/v1/customers' || p.startsWith('/v1/orders/')),
        [],
      );
    } finally {
      await viewer.close();
    }
  });
});
