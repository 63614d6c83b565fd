import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, ensureConsoleBuilt, openBrowser, screenshot, waitForCondition } from '../helpers/browser.ts';
import { addUser, ADMIN, createFirstAdmin } from '../helpers/console.ts';
import { RECEIVER_NETWORKS } from '../helpers/webhook-receiver.ts';
import { signInThroughPage } from './console-sign-in.ts';

// The console at a phone's width (390 × 844) and with the keyboard alone, in a real browser:
// - every section is reached through the menu, shows its heading, closes the menu and never scrolls
//   sideways; the loyalty program's tabs stay on one row;
// - sign-in, moving to a form with Tab, submitting it with Enter, closing a dialog with Escape (focus back
//   on the button that opened it), and a focus ring on what Tab reaches;
// - a VIEWER sees no API keys in Settings (nor team changes), and the server refuses the viewer's session
//   on the key routes.

const PHONE = { width: 390, height: 844 };
const HOOK_URL = 'http://127.0.0.1:9/phone-hook';

/** The sections of the menu, with the heading each one shows. */
const SECTIONS = [
  ['Home', 'Home'],
  ['Campaigns', 'Campaigns'],
  ['Vouchers', 'Vouchers'],
  ['Customers', 'Customers'],
  ['Redemptions', 'Redemptions'],
  ['Loyalty', 'Loyalty'],
  ['Exports', 'Exports'],
  ['Webhooks', 'Webhooks'],
  ['Settings', 'Settings'],
] as const;

const pageWidth = (page: Page) => page.evaluate('document.documentElement.scrollWidth').then(Number);
/** Which element has the keyboard focus: its accessible label or text, as a person would read it. */
const focused = (page: Page) =>
  page.evaluate(`(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].textContent) || e.textContent || '').replace(/\\s*\\*$/, '').trim() : ''; })()`).then(String);
/**
 * Whether the focused element looks different from when it is not focused (outline, border or shadow):
 * a person using the keyboard sees where they are. Blurs and refocuses it to compare.
 */
const focusShown = (page: Page) =>
  page
    .evaluate(
      `(async () => {
        const e = document.activeElement;
        if (!e || e === document.body) return false;
        const look = () => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.borderColor, s.boxShadow].join('|'); };
        // Mantine eases the border colour in and out: compare once each transition has ended.
        const settle = () => new Promise((resolve) => setTimeout(resolve, 400));
        await settle();
        const focusedLook = look();
        e.blur();
        await settle();
        const plainLook = look();
        e.focus();
        return document.activeElement === e && focusedLook !== plainLook;
      })()`,
    )
    .then(Boolean);

/** Whether any of the element is inside the window (the phone menu slides out to the left when closed). */
async function onScreen(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  return box !== null && box.x + box.width > 0;
}

async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  for (const started = Date.now(); !(await check()); ) {
    if (Date.now() - started > 5000) throw new Error(`still not true after 5 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Presses Tab until `label` has the focus (at most `limit` times); how many presses it took. */
async function tabTo(page: Page, label: RegExp, limit = 40): Promise<number> {
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab');
    if (label.test(await focused(page))) return presses;
  }
  throw new Error(`Tab never reached ${label} (last: ${await focused(page)})`);
}

describe('console at phone width and with the keyboard', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let programId = '';
  let memberCard = '';

  before(async () => {
    ensureConsoleBuilt();
    t = await startTestApp({ clockStart: new Date().toISOString(), config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
    await createFirstAdmin(t);
    // Something on every screen: a coupon campaign with codes, a customer who redeemed one, a loyalty
    // program with a member, a webhook, an export.
    const coupons = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Phone ten', campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', vouchers_count: 3, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } },
    });
    assert.equal(coupons.status, 200, coupons.text);
    const codes = await t.request('GET', `/v1/vouchers?campaign_id=${coupons.body.id}`);
    const code = codes.body.vouchers[0].code as string;
    const redeemed = await t.request('POST', '/v1/redemptions', { json: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 4200 }, customer: { source_id: 'kb-alice', email: 'alice@shop.example.com' } } });
    assert.equal(redeemed.status, 200, redeemed.text);
    const program = await t.request('POST', '/v1/loyalties', {
      json: { name: 'Club', campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } },
    });
    assert.equal(program.status, 200, program.text);
    programId = program.body.id;
    const member = await t.request('POST', `/v1/loyalties/${programId}/members`, { json: { customer: { source_id: 'kb-alice' } } });
    assert.equal(member.status, 200, member.text);
    memberCard = member.body.code;
    const hook = await t.request('POST', `/management/v1/projects/${t.projectId}/webhooks`, {
      headers: t.managementHeaders(),
      json: { target_url: HOOK_URL, events: ['customer.created'] },
    });
    assert.equal(hook.status, 200, hook.text);
    assert.equal((await t.request('POST', '/v1/exports', { json: { exported_object: 'voucher', parameters: { fields: ['code', 'value'] } } })).status, 200);
  });
  after(async () => {
    await t?.close();
  });

  test('at 390 px every section opens from the menu, fits the screen, and the loyalty tabs stay on one row', async () => {
    const phone = await openBrowser(PHONE);
    try {
      const { page } = phone;
      await signInThroughPage(page, t.url);
      const menu = page.getByRole('button', { name: 'Menu' });
      const sections = page.getByRole('navigation', { name: 'Sections' });
      assert.equal(await onScreen(sections), false, 'the menu starts closed on a phone');
      for (const [link, heading] of SECTIONS) {
        await menu.click();
        await waitUntil(() => onScreen(sections), 'the menu opens');
        await sections.getByRole('link', { name: link }).click();
        await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        await waitUntil(async () => !(await onScreen(sections)), `the menu closes after choosing ${link}`);
        // The screenshot shows the section's data, not its loading spinner.
        await page.locator('.mantine-Loader-root').first().waitFor({ state: 'detached', timeout: 5000 });
        const width = await pageWidth(page);
        assert.ok(width <= PHONE.width, `${link}: no sideways scrolling (page is ${width} px wide)`);
        await screenshot(page, `phone-${link.toLowerCase()}`, { fullPage: false });
      }

      // A list's rows stack on a phone: every cell of a redemption is on screen, after its column's heading.
      await menu.click();
      await waitUntil(() => onScreen(sections), 'the menu opens');
      await sections.getByRole('link', { name: 'Redemptions' }).click();
      await page.locator('[data-testid^="redemption-row-"]').first().waitFor();
      const cells = (await page.evaluate(
        `[...document.querySelector('[data-testid^="redemption-row-"]').querySelectorAll('td')].map((td) => {
          const box = td.getBoundingClientRect();
          return { heading: getComputedStyle(td, '::before').content, left: box.left, right: box.right, text: td.textContent };
        })`,
      )) as Array<{ heading: string; left: number; right: number; text: string }>;
      assert.deepEqual(cells.map((c) => c.heading), ['"Date"', '"Code"', '"Customer"', '"Order"', '"Status"']);
      for (const cell of cells) assert.ok(cell.left >= 0 && cell.right <= PHONE.width, `${cell.heading} ${cell.text} is on screen (${cell.left}–${cell.right} px)`);
      assert.ok(cells.some((c) => c.text === 'alice@shop.example.com'), 'the customer is shown by e-mail');
      await screenshot(page, 'phone-redemptions-stacked', { fullPage: false });

      await menu.click();
      await waitUntil(() => onScreen(sections), 'the menu opens');
      await sections.getByRole('link', { name: 'Loyalty' }).click();
      await page.getByRole('link', { name: 'Club' }).click();
      const tabs = page.getByTestId('loyalty-tabs').getByRole('tab');
      await tabs.first().waitFor();
      const rows = new Set<number>();
      for (const tab of await tabs.all()) rows.add(Math.round((await tab.boundingBox())?.y ?? -1));
      assert.equal(rows.size, 1, `the four tabs are on one row (rows at y = ${[...rows].join(', ')})`);
      await tabs.filter({ hasText: 'Members' }).click();
      await page.getByText(memberCard).waitFor();
      assert.equal(await tabs.filter({ hasText: 'Members' }).getAttribute('aria-selected'), 'true');
      assert.ok((await pageWidth(page)) <= PHONE.width, 'the loyalty program fits the screen');
      await screenshot(page, 'phone-loyalty-members', { fullPage: false });
    } finally {
      await phone.close();
    }
  });

  test('the keyboard alone: sign in, Tab to a form and submit it with Enter, focus ring on what Tab reaches', async () => {
    const desk = await openBrowser();
    try {
      const { page } = desk;
      await page.goto(`${t.url}/dashboard`);
      await page.getByLabel('E-mail').waitFor();
      assert.equal(await focused(page), 'E-mail', 'the sign-in form starts in the e-mail field');
      await page.keyboard.type(ADMIN.email);
      await page.keyboard.press('Tab');
      assert.match(await focused(page), /^Password/);
      await page.keyboard.type(ADMIN.password);
      await page.keyboard.press('Enter');
      await page.getByTestId('role').waitFor();
      assert.equal(await page.getByTestId('role').textContent(), 'ADMIN');

      // From the top of the page, Tab reaches the menu's Customers link; Enter follows it.
      await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
      await tabTo(page, /^Customers$/);
      assert.equal(await focusShown(page), true, 'the focused link shows that it has the focus');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();

      // Tab on to the search, type, Enter: the one customer found has her page opened.
      await tabTo(page, /^Find a customer/);
      assert.equal(await focusShown(page), true, 'the focused field shows that it has the focus');
      await page.keyboard.type('kb-alice');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'kb-alice' }).waitFor();
      assert.match(page.url(), /\/dashboard\/customers\/cust_[0-9a-f]+$/);
      await screenshot(page, 'keyboard-customer');
    } finally {
      await desk.close();
    }
  });

  test('Escape closes a confirmation without doing anything, and the focus goes back to its button', async () => {
    const desk = await openBrowser();
    try {
      const { page } = desk;
      await signInThroughPage(page, t.url);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      const remove: Locator = page.getByRole('button', { name: `Delete webhook ${HOOK_URL}` });
      await remove.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog');
      await dialog.getByText(`Delete the webhook to ${HOOK_URL}?`).waitFor();
      // The dialog takes the focus once it has rendered, which can be a frame after its text shows on a
      // loaded machine: wait up to 2 s for it, then the assertion below decides.
      const focusInDialog = `Boolean(document.activeElement && document.activeElement.closest('[role=dialog]'))`;
      await waitForCondition(page, focusInDialog, 2_000).catch(() => undefined);
      assert.equal(await page.evaluate(focusInDialog), true, 'the focus moved into the dialog');
      await screenshot(page, 'keyboard-confirm');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await focused(page), `Delete webhook ${HOOK_URL}`, 'the focus is back on the button that opened the dialog');
      const hooks = (await t.request('GET', `/management/v1/projects/${t.projectId}/webhooks`, { headers: t.managementHeaders() })).body.data as Array<{ target_url: string }>;
      assert.deepEqual(hooks.map((h) => h.target_url), [HOOK_URL], 'nothing was deleted');
    } finally {
      await desk.close();
    }
  });

  test('a VIEWER sees no API keys in Settings, and the server refuses the viewer\'s session on the key routes', async () => {
    await addUser(t, 'viewer@shop.example.com', 'VIEWER', 'viewer-password-1');
    const viewer = await openBrowser();
    try {
      const { page } = viewer;
      await signInThroughPage(page, t.url, 'viewer@shop.example.com', 'viewer-password-1');
      assert.equal(await page.getByTestId('role').textContent(), 'VIEWER');
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { name: 'Users and roles' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'API keys' }).count(), 0, 'no API keys section');
      assert.equal(await page.getByRole('button', { name: /^Rotate / }).count(), 0, 'no rotate buttons');
      assert.equal(await page.getByTestId('role-of-viewer@shop.example.com').textContent(), 'VIEWER', 'roles are shown, not offered for change');
      assert.equal(await page.getByRole('button', { name: /^(Invite|Remove|Invitation link)$/ }).count(), 0, 'no team changes offered');
      await page.getByText('Only an ADMIN invites users and changes their roles.').waitFor();
      await screenshot(page, 'viewer-settings');

      // The page hides the section; the server is what refuses. The viewer's own session, from the page,
      // with its CSRF token: reading the keys and rotating one are both 403.
      const [serverKey] = (await t.request('GET', `/management/v1/projects/${t.projectId}/api-keys`, { headers: t.managementHeaders() })).body.data as Array<{ id: string }>;
      assert.ok(serverKey);
      const base = `/management/v1/projects/${t.projectId}/api-keys`;
      const answers = (await page.evaluate(`(async () => {
        const csrf = (/(?:^|;\\s*)punchcard_csrf=([^;]+)/.exec(document.cookie) || [])[1] || '';
        const list = await fetch(${JSON.stringify(base)});
        const rotate = await fetch(${JSON.stringify(`${base}/${serverKey.id}/rotate`)}, { method: 'POST', headers: { 'x-csrf-token': csrf } });
        return [list.status, (await list.json()).key, rotate.status, (await rotate.json()).key, csrf.length > 0];
      })()`)) as [number, string, number, string, boolean];
      assert.deepEqual(answers, [403, 'missing_required_permission', 403, 'missing_required_permission', true]);
      const keysNow = (await t.request('GET', base, { headers: t.managementHeaders() })).body.data as Array<{ id: string }>;
      assert.ok(keysNow.some((k) => k.id === serverKey.id), 'the key was not rotated');
    } finally {
      await viewer.close();
    }
  });
});
