import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, openBrowser, screenshot, type Browser } from '../helpers/browser.ts';
import { cockpitShop, ok, type CockpitShop } from '../helpers/cockpit.ts';
import { addUser } from '../helpers/console.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// The cockpit branding under Setup, in a real browser: an ADMIN creates the branding of a project that
// has none while the preview beside the form (the cockpit's own wallet, with sample cards) follows every
// keystroke, a half-typed colour included; what is saved is what the management API and the customer's
// real cockpit then show. A bad URL is refused beside its field and changes nothing; a VIEWER reads the
// values without a way to change them; removing the branding asks first and sends the cockpit back to
// the project's name and default colours. At desktop width and at 390x844.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PHONE = { width: 390, height: 844 };
const BROWN = 'rgb(91, 58, 41)'; // #5b3a29
const ORANGE = 'rgb(217, 72, 15)'; // #d9480f
const DEFAULT_BLUE = 'rgb(28, 126, 214)'; // #1c7ed6, the cockpit's own

/** Polls `read` until it gives `expected` (what a page shows arrives after a render or a request). */
async function until<T>(read: () => Promise<T>, expected: T, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let last = await read();
  while (last !== expected) {
    if (Date.now() > deadline) assert.equal(last, expected, what);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
}

// The browser's own function, run in the page by evaluate (the tests' TypeScript has no DOM types).
declare const getComputedStyle: (element: unknown) => { backgroundColor: string; color: string };
const background = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).backgroundColor);
const color = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).color);

describe('console: cockpit branding with a live preview', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let shop: CockpitShop;
  let projectName: string;
  const path = () => `/management/v1/projects/${t.projectId}/branding`;
  const stored = async (): Promise<Json[]> => (await ok(t, 'GET', path(), undefined, t.managementHeaders())).data;

  before(async () => {
    ({ t, browser } = await startSignedIn());
    shop = await cockpitShop(t, 350);
    await addUser(t, 'viewer@shop.example.com', 'VIEWER', 'viewer-password-1');
    projectName = (await ok(t, 'GET', `/management/v1/projects/${t.projectId}`, undefined, t.managementHeaders())).name;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const preview = (page: Page) => page.getByTestId('cockpit-preview');
  const header = (page: Page) => preview(page).getByTestId('cockpit-header');

  test('an ADMIN creates the branding from Setup; the preview follows every keystroke', async () => {
    const { page } = browser;
    assert.deepEqual(await stored(), [], 'the project starts without a branding');
    await page.getByRole('link', { name: 'Setup', exact: true }).click();
    await page.getByRole('link', { name: /Cockpit branding/ }).click();
    await page.getByTestId('no-branding').waitFor();
    await header(page).getByRole('heading', { name: projectName }).waitFor();
    assert.equal(await background(header(page)), DEFAULT_BLUE, 'without a branding the preview has the default colour');
    await preview(page).getByRole('heading', { name: 'Hi Alex' }).waitFor();
    await page.getByText('with a sample customer and sample cards').waitFor();

    const name = page.getByLabel('Name', { exact: true });
    await name.pressSequentially('Bean There');
    await header(page).getByRole('heading', { name: 'Bean There' }).waitFor();
    await name.press('Backspace');
    await header(page).getByRole('heading', { name: 'Bean Ther', exact: true }).waitFor();
    await name.press('e');

    const primary = page.getByLabel('Primary colour', { exact: true });
    await primary.fill('#5b3a29');
    await until(() => background(header(page)), BROWN, 'the header takes the typed colour');
    // A colour half typed again is not a colour: the preview keeps the last valid one and says why.
    await primary.fill('#2f9');
    await page.getByText('A colour as #rrggbb; the preview keeps the last valid one').waitFor();
    assert.equal(await background(header(page)), BROWN);
    await primary.fill('#5b3a29');
    await page.getByText('A colour as #rrggbb').waitFor({ state: 'detached' });

    await page.getByLabel('Accent colour', { exact: true }).fill('#d9480f');
    await until(() => color(preview(page).getByTestId('balance')), ORANGE, 'the balance takes the accent colour');
    await page.getByLabel('E-mail', { exact: true }).fill('hello@beanthere.example.com');
    await preview(page).getByRole('link', { name: 'hello@beanthere.example.com' }).waitFor();
    await page.getByLabel('Website', { exact: true }).fill('beanthere.example.com');
    await preview(page).getByRole('link', { name: 'Website' }).waitFor();
    await page.getByLabel('City', { exact: true }).fill('Leeds');
    await page.getByLabel('Country', { exact: true }).fill('United Kingdom');
    await preview(page).getByText('Leeds, United Kingdom').waitFor();
    assert.deepEqual(await stored(), [], 'typing saves nothing');
    await cleanScreenshot(page, 'branding-desktop-typing');

    await page.getByRole('button', { name: 'Create branding' }).click();
    await page.getByText('Branding created').waitFor();
    const [created] = await stored();
    assert.deepEqual(created.brand, { name: 'Bean There', privacy_policy_url: null, terms_of_use_url: null, permission_reminder: null, website_url: 'beanthere.example.com' });
    assert.deepEqual(created.cockpit, { logo_url: null, primary_color: '#5b3a29', accent_color: '#d9480f' });
    assert.deepEqual(created.contact, { email: 'hello@beanthere.example.com', phone: null });
    assert.deepEqual(created.address, { street: null, city: 'Leeds', postal: null, state: null, country: 'United Kingdom' });

    await page.reload();
    const reloaded = page.getByLabel('Name', { exact: true });
    await reloaded.waitFor();
    assert.equal(await reloaded.inputValue(), 'Bean There');
    assert.equal(await page.getByLabel('Primary colour', { exact: true }).inputValue(), '#5b3a29');
    assert.equal(await page.getByLabel('City', { exact: true }).inputValue(), 'Leeds');
    assert.equal(await page.getByTestId('no-branding').count(), 0);
    await header(page).getByRole('heading', { name: 'Bean There' }).waitFor();
    assert.equal(await background(header(page)), BROWN);
    assert.equal(await page.getByRole('button', { name: 'Save' }).isDisabled(), true, 'nothing to save before a change');
    await cleanScreenshot(page, 'branding-desktop-saved');
  });

  test("the customer's real cockpit shows the saved name and colours", async () => {
    const cockpit = await browser.context.newPage();
    try {
      await cockpit.goto(shop.customer.assets.cockpit_url);
      const top = cockpit.getByTestId('cockpit-header');
      await top.getByRole('heading', { name: 'Bean There' }).waitFor();
      assert.equal(await background(top), BROWN);
      assert.equal(await color(cockpit.getByTestId('balance')), ORANGE);
    } finally {
      await cockpit.close();
    }
  });

  test('a change sends only what changed; a bad URL is refused beside its field and changes nothing', async () => {
    const { page } = browser;
    const before = (await stored())[0];
    await page.getByLabel('Phone', { exact: true }).fill('+44 113 496 0000');
    await page.getByLabel('Name', { exact: true }).fill('Bean There Roasters');
    const terms = page.getByLabel('Terms of use', { exact: true });
    await terms.fill('javascript:alert(1)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Must be an http(s) URL').waitFor();
    assert.equal(await terms.getAttribute('aria-invalid'), 'true', 'the error is on the Terms of use field');
    assert.deepEqual((await stored())[0], before, 'a refused change stores nothing');

    await terms.fill('https://beanthere.example.com/terms');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Branding saved').waitFor();
    const [after] = await stored();
    assert.equal(after.brand.name, 'Bean There Roasters');
    assert.equal(after.brand.terms_of_use_url, 'https://beanthere.example.com/terms');
    assert.equal(after.contact.phone, '+44 113 496 0000');
    assert.deepEqual(after.cockpit, before.cockpit, 'members not changed stay as they were');
    assert.equal(await page.getByText('Must be an http(s) URL').count(), 0);
  });

  test('at phone width the preview is one tap away and nothing overflows', async () => {
    const { page } = browser;
    await page.setViewportSize(PHONE);
    try {
      await page.reload();
      await page.getByLabel('Name', { exact: true }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Bean Phone');
      await cleanScreenshot(page, 'branding-phone-form');
      await page.locator('label', { hasText: /^Preview$/ }).click();
      await header(page).getByRole('heading', { name: 'Bean Phone' }).waitFor();
      assert.equal(await background(header(page)), BROWN);
      const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
      assert.ok(width <= PHONE.width, `nothing overflows the phone's width (${width}px)`);
      await screenshot(page, 'branding-phone-preview', { fullPage: false });
      await page.locator('label', { hasText: /^Edit$/ }).click();
      assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Bean Phone', 'the draft is kept while the preview is shown');
      await page.getByRole('button', { name: 'Discard changes' }).click();
      assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Bean There Roasters');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  test('a VIEWER sees the values read-only and no Save or Remove', async () => {
    for (const viewport of [undefined, PHONE]) {
      const viewer = await openBrowser(viewport);
      try {
        await signInThroughPage(viewer.page, t.url, 'viewer@shop.example.com', 'viewer-password-1');
        await viewer.page.goto(`${t.url}/dashboard/configure/branding`);
        const name = viewer.page.getByLabel('Name', { exact: true });
        await name.waitFor();
        assert.equal(await name.inputValue(), 'Bean There Roasters');
        assert.equal(await name.getAttribute('readonly'), '');
        assert.equal(await viewer.page.getByLabel('Primary colour', { exact: true }).getAttribute('readonly'), '');
        await viewer.page.getByText('Your role may read the branding').waitFor();
        for (const button of ['Save', 'Create branding', 'Remove branding']) assert.equal(await viewer.page.getByRole('button', { name: button }).count(), 0, `no ${button}`);
        if (!viewport) {
          await header(viewer.page).getByRole('heading', { name: 'Bean There Roasters' }).waitFor();
          await cleanScreenshot(viewer.page, 'branding-viewer');
        } else {
          await cleanScreenshot(viewer.page, 'branding-viewer-phone');
        }
      } finally {
        await viewer.close();
      }
    }
  });

  test('Remove branding asks first; the cockpit goes back to the project name and default colours', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Remove branding' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('default colours').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await stored()).length, 1, 'cancel keeps the branding');

    await page.getByRole('button', { name: 'Remove branding' }).click();
    await cleanScreenshot(page, 'branding-remove-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Remove branding' }).click();
    await page.getByTestId('no-branding').waitFor();
    assert.deepEqual(await stored(), []);
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), '');
    await header(page).getByRole('heading', { name: projectName }).waitFor();
    assert.equal(await background(header(page)), DEFAULT_BLUE);

    const cockpit = await browser.context.newPage();
    try {
      await cockpit.goto(shop.customer.assets.cockpit_url);
      const top = cockpit.getByTestId('cockpit-header');
      await top.getByRole('heading', { name: projectName }).waitFor();
      assert.equal(await background(top), DEFAULT_BLUE);
    } finally {
      await cockpit.close();
    }
  });
});
