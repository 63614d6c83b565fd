import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, ensureConsoleBuilt, openBrowser } from '../helpers/browser.ts';
import { addUser, createFirstAdmin } from '../helpers/console.ts';
import { cleanScreenshot, signInThroughPage } from './console-sign-in.ts';

// Each role sees only the actions it may take (the session lists them, worked out by the server from the
// table it enforces): the same screens are visited as ADMIN, USER, VIEWER and MERCHANT, and each action's
// button is present exactly for the roles that may call its route. The ADMIN's run shows every button is
// found when it is there, so an absence means the page hid it. A request the page does not offer, forged
// from a VIEWER's page, is still refused by the server.

type Role = 'ADMIN' | 'USER' | 'VIEWER' | 'MERCHANT';
const ROLES: Role[] = ['ADMIN', 'USER', 'VIEWER', 'MERCHANT'];
const SECTIONS = ['Home', 'Campaigns', 'Vouchers', 'Customers', 'Redemptions', 'Orders', 'Products', 'Loyalty', 'Rules', 'Setup', 'Exports', 'Webhooks', 'Settings'];

interface Screen {
  path: string;
  /** Shows once the screen has its data (or says the role may not use it). */
  ready: (page: Page) => Locator;
  /** Each action on the screen, and the roles that may take it. */
  actions: Record<string, { find: (page: Page) => Locator; roles: Role[] }>;
}

const ALL: Role[] = ['ADMIN', 'USER'];
const notPermitted = (page: Page) => page.getByTestId('not-permitted');

describe('console: each role sees only what it may do', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  const ids = { coupons: '', program: '', card: '', customer: '', redemption: '', rule: '', reward: '' };
  const CODE = 'ROLE-TEN';

  before(async () => {
    ensureConsoleBuilt();
    t = await startTestApp({ clockStart: new Date().toISOString() });
    await createFirstAdmin(t);
    for (const role of ['USER', 'VIEWER', 'MERCHANT']) await addUser(t, `${role.toLowerCase()}@shop.example.com`, role, `${role.toLowerCase()}-password-1`);

    const ok = async (method: string, path: string, json: unknown) => {
      const answer = await t.request(method, path, { json });
      assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
      return answer.body;
    };
    ids.coupons = (await ok('POST', '/v1/campaigns', { name: 'Ten off', campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } })).id;
    await ok('POST', `/v1/campaigns/${ids.coupons}/vouchers/${CODE}`, {});
    ids.program = (await ok('POST', '/v1/loyalties', { name: 'Club', campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } })).id;
    const card = await ok('POST', `/v1/loyalties/${ids.program}/members`, { customer: { source_id: 'alice' } });
    [ids.card, ids.customer] = [card.code, card.holder_id];
    const [rule] = await ok('POST', `/v1/loyalties/${ids.program}/earning-rules`, [{ event: 'order.paid', source: { banner: 'Spend' }, loyalty: { type: 'FIXED', points: 10 } }]);
    ids.rule = rule.id;
    ids.reward = (await ok('POST', '/v1/rewards', { name: 'Coupon prize', type: 'CAMPAIGN', parameters: { campaign: { id: ids.coupons } }, stock: 5 })).id;
    await ok('POST', `/v1/loyalties/${ids.program}/rewards`, [{ reward: ids.reward, parameters: { loyalty: { points: 100 } } }]);
    ids.redemption = (await ok('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: CODE }], order: { amount: 5000 }, customer: { source_id: 'alice' } })).redemptions[0].id;
  });
  after(async () => t?.close());

  const screens = (): Screen[] => [
    {
      path: '/campaigns',
      ready: (page) => page.getByRole('link', { name: 'Ten off' }),
      actions: {
        'new campaign': { find: (page) => page.getByRole('link', { name: 'New coupon campaign' }), roles: ALL },
        'other campaign types': { find: (page) => page.getByRole('button', { name: 'Other types ▾' }), roles: ALL },
      },
    },
    {
      path: `/campaigns/${ids.coupons}`,
      ready: (page) => page.getByRole('cell', { name: CODE }),
      actions: {
        'disable the campaign': { find: (page) => page.getByRole('button', { name: 'Disable' }), roles: ALL },
        'generate codes': { find: (page) => page.getByRole('button', { name: 'Generate codes' }), roles: ALL },
        'publish a code': { find: (page) => page.getByRole('button', { name: `Publish ${CODE}` }), roles: ALL },
      },
    },
    {
      path: '/campaigns/new',
      ready: (page) => page.getByRole('button', { name: 'Create campaign' }).or(notPermitted(page)),
      actions: { 'the new campaign form': { find: (page) => page.getByRole('button', { name: 'Create campaign' }), roles: ALL } },
    },
    {
      path: `/vouchers/${CODE}`,
      ready: (page) => page.getByTestId('voucher-value'),
      actions: {
        'publish the voucher': { find: (page) => page.getByRole('button', { name: 'Publish…' }), roles: ALL },
        'disable the voucher': { find: (page) => page.getByRole('button', { name: 'Disable' }), roles: ALL },
      },
    },
    {
      path: `/vouchers/${ids.card}`,
      ready: (page) => page.getByTestId('voucher-value'),
      actions: { 'change a card balance': { find: (page) => page.getByRole('button', { name: 'Apply' }), roles: ALL } },
    },
    {
      path: `/customers/${ids.customer}`,
      ready: (page) => page.getByTestId(`balance-${ids.card}`),
      actions: { 'adjust points': { find: (page) => page.getByRole('button', { name: 'Adjust' }), roles: ALL } },
    },
    {
      path: `/redemptions?open=${ids.redemption}`,
      ready: (page) => page.getByTestId('redemption-status'),
      actions: { 'roll back': { find: (page) => page.getByRole('button', { name: 'Roll back…' }), roles: ALL } },
    },
    {
      path: `/loyalty/${ids.program}`,
      ready: (page) => page.getByTestId(`earning-rule-${ids.rule}`),
      actions: {
        'disable an earning rule': { find: (page) => page.getByTestId(`earning-rule-${ids.rule}`).getByRole('button', { name: 'Disable' }), roles: ALL },
        'delete an earning rule': { find: (page) => page.getByRole('button', { name: 'Delete Spend' }), roles: ALL },
        'add an earning rule': { find: (page) => page.getByRole('button', { name: 'Add earning rule' }), roles: ALL },
      },
    },
    {
      path: `/loyalty/${ids.program}?tab=rewards`,
      ready: (page) => page.getByTestId('reward-stock').filter({ hasText: '5 left' }),
      actions: {
        'change a reward stock': { find: (page) => page.getByRole('button', { name: 'Change stock of Coupon prize' }), roles: ALL },
        'add a reward': { find: (page) => page.getByRole('button', { name: 'Add reward' }), roles: ALL },
      },
    },
    {
      path: `/loyalty/${ids.program}?tab=tiers`,
      ready: (page) => page.getByText('No tiers: every member is treated alike.'),
      actions: { 'add a tier': { find: (page) => page.getByRole('button', { name: 'Add tier' }), roles: ALL } },
    },
    {
      path: `/loyalty/${ids.program}?tab=members`,
      ready: (page) => page.getByTestId(`member-${ids.card}`),
      actions: { 'add a member': { find: (page) => page.getByRole('button', { name: 'Add member' }), roles: ALL } },
    },
    {
      path: '/exports',
      ready: (page) => page.getByText('No exports yet.').or(notPermitted(page)),
      actions: { 'create an export': { find: (page) => page.getByRole('button', { name: 'Export', exact: true }), roles: ALL } },
    },
    {
      path: '/webhooks',
      ready: (page) => page.getByText('No webhook yet.').or(notPermitted(page)),
      actions: { 'create a webhook': { find: (page) => page.getByRole('button', { name: 'Create webhook' }), roles: ['ADMIN'] } },
    },
    {
      path: '/configure/branding',
      ready: (page) => page.getByTestId('no-branding').or(notPermitted(page)),
      actions: { 'create the cockpit branding': { find: (page) => page.getByRole('button', { name: 'Create branding' }), roles: ['ADMIN'] } },
    },
    {
      path: '/settings',
      ready: (page) => page.getByRole('cell', { name: /merchant@shop\.example\.com/ }).or(notPermitted(page)),
      actions: {
        'save the project': { find: (page) => page.getByRole('button', { name: 'Save' }), roles: ['ADMIN'] },
        'the API keys': { find: (page) => page.getByRole('heading', { name: 'API keys' }), roles: ['ADMIN'] },
        'invite a user': { find: (page) => page.getByRole('button', { name: 'Invite' }), roles: ['ADMIN'] },
        'remove a user': { find: (page) => page.getByRole('button', { name: 'Remove' }).first(), roles: ['ADMIN'] },
      },
    },
  ];

  /** Every screen as `role`: which actions it found, and which sections the navigation offers. */
  async function tour(role: Role, shots: Record<string, string> = {}): Promise<{ actions: Record<string, boolean>; sections: string[]; landing: string; page: Page; close: () => Promise<void> }> {
    const browser = await openBrowser();
    const { page } = browser;
    await signInThroughPage(page, t.url, role === 'ADMIN' ? undefined : `${role.toLowerCase()}@shop.example.com`, role === 'ADMIN' ? undefined : `${role.toLowerCase()}-password-1`);
    assert.equal(await page.getByTestId('role').textContent(), role);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const landing = new URL(page.url()).pathname;
    const sections = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents();
    const actions: Record<string, boolean> = {};
    for (const screen of screens()) {
      await page.goto(`${t.url}/dashboard${screen.path}`);
      await screen.ready(page).first().waitFor();
      for (const [name, action] of Object.entries(screen.actions)) actions[name] = (await action.find(page).count()) > 0;
      const shot = shots[screen.path];
      if (shot) await cleanScreenshot(page, shot);
    }
    return { actions, sections, landing, page, close: () => browser.close() };
  }

  const expected = (role: Role) => Object.fromEntries(screens().flatMap((s) => Object.entries(s.actions).map(([name, a]) => [name, a.roles.includes(role)])));

  test('an ADMIN finds every action, so each one is found when it is there', async () => {
    const admin = await tour('ADMIN');
    try {
      assert.deepEqual(admin.actions, expected('ADMIN'));
      // This ADMIN is the first admin, the organisation's owner: Projects too (tests/browser/console-projects.test.ts).
      assert.deepEqual(admin.sections, [...SECTIONS, 'Projects']);
    } finally {
      await admin.close();
    }
  });

  test('a USER does the day-to-day work but not the project settings, webhooks or team', async () => {
    const user = await tour('USER');
    try {
      assert.deepEqual(user.actions, expected('USER'));
      assert.deepEqual(user.sections, SECTIONS);
    } finally {
      await user.close();
    }
  });

  test('a VIEWER reads every section and is offered no change; a change forged from its page is refused', async () => {
    const viewer = await tour('VIEWER', { [`/campaigns/${ids.coupons}`]: 'roles-viewer-campaign', '/settings': 'roles-viewer-settings' });
    try {
      assert.deepEqual(viewer.actions, expected('VIEWER'));
      assert.deepEqual(viewer.sections, SECTIONS);
      assert.equal(await viewer.page.getByRole('textbox', { name: 'Name' }).getAttribute('readonly'), '', 'the project form is read-only');

      // What the page no longer offers, sent anyway from the page with the viewer's session and CSRF token
      // (a string: the tests are type-checked without the DOM's types).
      const forged = (await viewer.page.evaluate(`(async () => {
        const csrf = (/(?:^|;\\s*)punchcard_csrf=([^;]+)/.exec(document.cookie) || [])[1] || '';
        const answer = await fetch('/v1/campaigns/${ids.coupons}/disable', { method: 'POST', headers: { 'x-csrf-token': csrf }, credentials: 'same-origin' });
        return { status: answer.status, body: await answer.json(), csrf };
      })()`)) as { status: number; body: { key: string; details: string }; csrf: string };
      assert.notEqual(forged.csrf, '', 'the request carries the CSRF token, so only the role refuses it');
      assert.equal(forged.status, 403);
      assert.equal(forged.body.key, 'missing_required_permission');
      assert.match(forged.body.details, /Your role VIEWER may not POST \/v1\/campaigns\/:campaignId\/disable/);
      assert.equal((await t.request('GET', `/v1/campaigns/${ids.coupons}`)).body.active, true, 'nothing changed');
    } finally {
      await viewer.close();
    }
  });

  test('a MERCHANT sees the counter’s sections only, is offered none of these changes, and lands on Campaigns', async () => {
    const merchant = await tour('MERCHANT', { [`/customers/${ids.customer}`]: 'roles-merchant-customer' });
    try {
      assert.deepEqual(merchant.actions, expected('MERCHANT'));
      assert.deepEqual(merchant.sections, ['Campaigns', 'Vouchers', 'Customers', 'Redemptions', 'Orders', 'Products', 'Loyalty', 'Rules', 'Setup']);
      assert.equal(merchant.landing, '/dashboard/campaigns', 'no reports for a MERCHANT: the home page sends it to its first section');
      await merchant.page.goto(`${t.url}/dashboard/exports`);
      assert.match((await notPermitted(merchant.page).textContent()) ?? '', /Your role MERCHANT may not use this page/);
    } finally {
      await merchant.close();
    }
  });
});
