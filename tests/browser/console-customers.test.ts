import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, openBrowser, waitForCondition, type Browser } from '../helpers/browser.ts';
import { cockpitShop, ok, tokenOf, type CockpitShop } from '../helpers/cockpit.ts';
import { addUser } from '../helpers/console.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// The customers screens in a real browser, as a support agent uses them: find Alice by part of her name,
// her e-mail or her phone; create, change and delete a customer; and on Alice's page see her orders with
// their items, her consents, her card's point history and redemptions (a rollback named so), copy and
// replace her cockpit link (the old one then fails), and fix her points with a reason. Then at phone width.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PHONE = { width: 390, height: 844 };

describe('console: customers', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let shop: CockpitShop;
  let alice: Json;

  before(async () => {
    ({ t, browser } = await startSignedIn());
    shop = await cockpitShop(t);
    alice = await ok(t, 'PUT', `/v1/customers/${shop.customer.id}`, { name: 'Alice Smith', email: 'alice.smith@example.com', phone: '+44 7700 900123', metadata: { favourite: 'flat white' } });
    await ok(t, 'POST', '/v1/customers', { source_id: 'bob', name: 'Bob Jones', email: 'bob@example.com', phone: '+1 555 0100' });
    await ok(t, 'POST', '/v1/customers', { source_id: 'alan', name: 'Alan Smithee', email: 'alan@example.com', phone: '+44 20 7946 0000' });
    await ok(t, 'POST', '/v1/orders', {
      source_id: 'ORDER-1001',
      status: 'PAID',
      customer: { id: alice.id },
      items: [{ source_id: 'flat-white-1', related_object: 'product', quantity: 2, price: 350 }],
    });
    const redeemed = await ok(t, 'POST', `/v1/vouchers/${shop.coupon}/redemption`, { customer: { id: alice.id }, order: { amount: 1000 } });
    await ok(t, 'POST', `/v1/redemptions/${redeemed.id}/rollback?reason=${encodeURIComponent('Order cancelled')}`, {});
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const searchFor = async (text: string) => {
    const { page } = browser;
    await page.getByRole('textbox', { name: 'Find a customer' }).fill(text);
    // No Enter: the search runs once typing pauses.
    await page.waitForURL((url) => url.searchParams.get('q') === text.trim());
  };
  const rowNames = async () => {
    const { page } = browser;
    await page.getByRole('table').getByRole('link').first().waitFor();
    return (await page.getByRole('table').getByRole('link').allInnerTexts()).sort();
  };

  test('one box finds her by part of her name, her e-mail or her phone, as the agent types', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Customers' }).click();
    await searchFor('smi');
    await page.getByText('2 in all').waitFor();
    assert.deepEqual(await rowNames(), ['Alan Smithee', 'Alice Smith']);
    await cleanScreenshot(page, 'customers-search');
    await searchFor('alice.sm');
    await page.getByText('1 in all').waitFor();
    assert.deepEqual(await rowNames(), ['Alice Smith']);
    await searchFor('+44 7700');
    await page.getByText('1 in all').waitFor();
    assert.deepEqual(await rowNames(), ['Alice Smith']);
    await searchFor('nobody-like-this');
    await page.getByText(/No customer's name, e-mail, phone or source id starts with/).waitFor();
    // Enter on what finds her alone opens her page.
    await page.getByRole('textbox', { name: 'Find a customer' }).fill('alice.smith@');
    await page.getByRole('textbox', { name: 'Find a customer' }).press('Enter');
    await page.getByRole('heading', { name: 'Alice Smith' }).waitFor();
    assert.match(page.url(), new RegExp(`/dashboard/customers/${alice.id}$`));
    await page.getByRole('link', { name: 'Customers' }).click();
  });

  test('create, change and delete a customer', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'New customer' }).click();
    const form = page.getByRole('form', { name: 'New customer' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Carol Danvers');
    await form.getByRole('textbox', { name: 'Source id' }).fill('crm-carol');
    await form.getByRole('textbox', { name: 'E-mail' }).fill('carol@example.com');
    await form.getByRole('textbox', { name: 'Phone' }).fill('+1 202 555 0199');
    await form.getByRole('textbox', { name: 'City' }).fill('Boston');
    await form.getByRole('textbox', { name: 'Metadata (JSON)' }).fill('["not an object"]');
    await form.getByRole('button', { name: 'Create customer' }).click();
    await form.getByText('Metadata must be a JSON object').waitFor();
    await form.getByRole('textbox', { name: 'Metadata (JSON)' }).fill('{"tier": "gold"}');
    await cleanScreenshot(page, 'customers-new');
    await form.getByRole('button', { name: 'Create customer' }).click();
    await page.getByRole('heading', { name: 'Carol Danvers' }).waitFor();
    const carol = await ok(t, 'GET', '/v1/customers/crm-carol');
    assert.equal(carol.email, 'carol@example.com');
    assert.equal(carol.phone, '+1 202 555 0199');
    assert.equal(carol.address.city, 'Boston');
    assert.deepEqual(carol.metadata, { tier: 'gold' });

    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit customer' });
    await edit.getByRole('textbox', { name: 'Phone' }).fill('+1 202 555 0100');
    await edit.getByRole('textbox', { name: 'City' }).fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('+1 202 555 0100').first().waitFor();
    const changed = await ok(t, 'GET', '/v1/customers/crm-carol');
    assert.equal(changed.phone, '+1 202 555 0100');
    assert.equal(changed.address, null, 'an address left empty is cleared');

    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete Carol Danvers?').waitFor();
    await dialog.getByRole('button', { name: 'Delete Carol Danvers' }).click();
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    const gone = await t.request('GET', `/v1/customers/${carol.id}`);
    assert.equal(gone.status, 404);
  });

  test("her page: orders with items, consents, point history, redemptions and her totals", async () => {
    const { page } = browser;
    await searchFor('alice');
    await page.getByRole('link', { name: 'Alice Smith' }).click();
    await page.getByRole('heading', { name: 'Alice Smith' }).waitFor();
    await page.getByText('ORDER-1001').waitFor();
    await page.getByText('2 × Flat white').waitFor();
    const consents = page.getByRole('table', { name: 'Consents' });
    await consents.getByText('Newsletter').waitFor();
    await consents.getByText('Agreed').waitFor();
    await consents.getByText('Not asked yet').first().waitFor();
    const history = page.getByRole('table', { name: `Point history of ${shop.card}` });
    await history.getByText('Welcome bonus').waitFor();
    await history.getByText('+350').waitFor();
    await page.getByText('rollback', { exact: true }).waitFor();
    await page.getByText('rolled back', { exact: true }).waitFor();
    const totals = page.getByLabel('Lifetime totals');
    await totals.getByText('7.00').first().waitFor();
    const metadata = page.getByRole('table', { name: 'Metadata' });
    await metadata.getByText('flat white').waitFor();
    // An activity opens to its details: the oldest order paid (newest come first) is ORDER-1001; the
    // other one is the order of the redemption.
    await page.getByRole('button', { name: /^Details of customer\.order\.paid/ }).last().click();
    const details = page.getByLabel('Details of customer.order.paid', { exact: true });
    await details.waitFor();
    await cleanScreenshot(page, 'customer-page');
    assert.match((await details.textContent()) ?? '', /ORDER-1001/);
  });

  test('her cockpit link: copied, then replaced; the old one stops working', async () => {
    const { page } = browser;
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const oldUrl = await page.getByTestId('cockpit-link').inputValue();
    assert.equal(oldUrl, alice.assets.cockpit_url);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), oldUrl);
    const before = await t.request('GET', '/cockpit/v1/wallet', { headers: { 'x-cockpit-token': tokenOf(oldUrl) } });
    assert.equal(before.status, 200, before.text);

    await page.getByRole('button', { name: 'Replace link…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(/stops working at once/).waitFor();
    await dialog.getByRole('button', { name: 'Replace the link' }).click();
    await waitForCondition(page, `document.querySelector('[data-testid="cockpit-link"]')?.value !== ${JSON.stringify(oldUrl)}`);
    const newUrl = await page.getByTestId('cockpit-link').inputValue();
    assert.notEqual(newUrl, oldUrl);
    const stale = await t.request('GET', '/cockpit/v1/wallet', { headers: { 'x-cockpit-token': tokenOf(oldUrl) } });
    assert.ok(stale.status >= 400 && stale.status < 500, `the old link: ${stale.status} ${stale.text}`);
    const fresh = await t.request('GET', '/cockpit/v1/wallet', { headers: { 'x-cockpit-token': tokenOf(newUrl) } });
    assert.equal(fresh.status, 200, fresh.text);
  });

  test('her points fixed with a reason', async () => {
    const { page } = browser;
    await page.getByRole('textbox', { name: `Points for ${shop.card}` }).fill('25');
    await page.getByRole('textbox', { name: `Reason for ${shop.card}` }).fill('Sorry for the late delivery');
    await page.getByRole('button', { name: 'Adjust' }).click();
    await page.getByTestId(`balance-${shop.card}`).getByText('375 points').waitFor();
    await page.getByRole('table', { name: `Point history of ${shop.card}` }).getByText('Sorry for the late delivery').waitFor();
    const member = await ok(t, 'GET', `/v1/loyalties/${shop.programId}/members/${shop.card}`);
    assert.equal(member.loyalty_card.balance, 375);
  });

  test('at phone width the list and her page fit the screen', async () => {
    const phone = await openBrowser(PHONE);
    try {
      await signInThroughPage(phone.page, t.url);
      await phone.page.goto(`${t.url}/dashboard/customers?q=ali`);
      await phone.page.getByRole('link', { name: 'Alice Smith' }).waitFor();
      await cleanScreenshot(phone.page, 'customers-phone');
      await phone.page.getByRole('link', { name: 'Alice Smith' }).click();
      await phone.page.getByText('2 × Flat white').waitFor();
      await cleanScreenshot(phone.page, 'customer-page-phone');
      const overflow = (await phone.page.evaluate('document.documentElement.scrollWidth')) as number;
      assert.ok(overflow <= PHONE.width, `the page is ${overflow}px wide`);
    } finally {
      await phone.close();
    }
  });

  test('a VIEWER sees her page but is offered no change: no new, edit, delete, link replacement or points', async () => {
    await addUser(t, 'viewer@shop.example.com', 'VIEWER', 'viewer-password-1');
    const viewer = await openBrowser();
    try {
      const { page } = viewer;
      await signInThroughPage(page, t.url, 'viewer@shop.example.com', 'viewer-password-1');
      await page.goto(`${t.url}/dashboard/customers/${alice.id}`);
      await page.getByRole('heading', { name: 'Alice Smith' }).waitFor();
      await page.getByRole('table', { name: `Point history of ${shop.card}` }).getByText('Welcome bonus').waitFor();
      await page.getByText('Your role may not see cockpit links.').waitFor();
      for (const name of ['Edit', 'Delete…', 'Replace link…', 'Adjust']) assert.equal(await page.getByRole('button', { name }).count(), 0, name);
      await page.goto(`${t.url}/dashboard/customers`);
      await page.getByRole('textbox', { name: 'Find a customer' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'New customer' }).count(), 0);
    } finally {
      await viewer.close();
    }
  });
});
