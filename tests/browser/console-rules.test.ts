import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, openBrowser, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, signInThroughPage, startSignedIn } from './console-sign-in.ts';

// The rule and setup screens in a real browser: a validation rule built with the builder (a product in
// the cart picked by name, with a quantity, and a per-customer redemption limit), stored and described,
// assigned to a campaign made through the API and unassigned; segments (static and auto-update), a
// metadata schema and consents; and the same screens at a phone's width.

const PHONE = { width: 390, height: 844 };

describe('console: validation rules and setup', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;
  let shoeId = '';
  let campaignId = '';
  let ruleId = '';

  before(async () => {
    ({ t, browser } = await startSignedIn());
    const shoe = await t.request('POST', '/v1/products', { json: { name: 'Trail runner', source_id: 'trail-runner', price: 12000 } });
    assert.equal(shoe.status, 200, shoe.text);
    shoeId = shoe.body.id;
    assert.equal((await t.request('POST', '/v1/products', { json: { name: 'Wool socks', source_id: 'wool-socks' } })).status, 200);
    const campaign = await t.request('POST', '/v1/campaigns', {
      json: {
        name: 'Spring shoes',
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        vouchers_count: 1,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 }, code_config: { prefix: 'SPRING-', length: 6 } },
      },
    });
    assert.equal(campaign.status, 200, campaign.text);
    campaignId = campaign.body.id;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('build a rule: a product in the cart picked by name with a quantity, and a per-customer limit', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('link', { name: 'New rule' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Two trail runners, thrice per customer');
    await page.getByLabel('Message when the rule fails (optional)').fill('Add two pairs of Trail runner');

    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByRole('combobox', { name: 'Condition 1 field' }).click();
    await page.getByRole('option', { name: 'Cart contains', exact: true }).click();
    await page.getByRole('combobox', { name: 'Condition 1 items' }).fill('Trail');
    await page.getByRole('option', { name: 'Trail runner', exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Add quantity or price condition' }).click();
    await page.getByLabel('Condition 1 line 1 value').fill('2');

    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByRole('combobox', { name: 'Condition 2 field' }).click();
    await page.getByRole('option', { name: 'Redemptions by this customer', exact: true }).click();
    await page.getByRole('combobox', { name: 'Condition 2 operator' }).click();
    await page.getByRole('option', { name: 'less than', exact: true }).click();
    await page.getByLabel('Condition 2 value').fill('3');

    const summary = 'Cart contains Trail runner (product) with quantity at least 2 AND Redemptions by this customer less than 3';
    await page.getByTestId('rule-summary').filter({ hasText: summary }).waitFor();
    await cleanScreenshot(page, 'rules-builder');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByTestId('rule-description').filter({ hasText: summary }).waitFor();

    const list = await t.request('GET', '/v1/validation-rules');
    assert.equal(list.body.total, 1);
    ruleId = list.body.data[0].id;
    assert.equal(page.url().endsWith(`/validation-rules/${ruleId}`), true, page.url());
    assert.deepEqual(list.body.data[0].rules, {
      '1': {
        name: 'order.items.any',
        property: null,
        conditions: { $in: [{ object: 'product', id: shoeId }] },
        rules: { '1': { name: 'order.items.quantity', property: null, conditions: { $more_than_or_equal: [2] }, rules: {} }, logic: '1' },
      },
      '2': { name: 'redemption.count.per_customer', property: null, conditions: { $less_than: [3] }, rules: {} },
      logic: '1 AND 2',
    });
    assert.deepEqual(list.body.data[0].error, { message: 'Add two pairs of Trail runner' });
    // The stored JSON is shown as the API answers it.
    const stored = JSON.parse((await page.getByLabel('Stored rule').textContent()) ?? '{}');
    assert.deepEqual(stored.rules, list.body.data[0].rules);
    await cleanScreenshot(page, 'rules-detail');
  });

  test('assign the rule to a campaign made through the API; the assignment links to it; unassign', async () => {
    const { page } = browser;
    const card = page.getByTestId('assignments');
    await card.getByText('Not assigned yet').waitFor();
    await card.getByRole('combobox', { name: 'Campaign' }).click();
    await page.getByRole('option', { name: 'Spring shoes', exact: true }).click();
    await card.getByRole('button', { name: 'Assign', exact: true }).click();
    await card.getByRole('link', { name: 'Spring shoes' }).waitFor();
    const assignments = await t.request('GET', `/v1/validation-rules/${ruleId}/assignments`);
    assert.deepEqual(
      assignments.body.data.map((a: { related_object_type: string; related_object_id: string }) => [a.related_object_type, a.related_object_id]),
      [['campaign', campaignId]],
    );
    assert.equal(await card.getByRole('link', { name: 'Spring shoes' }).getAttribute('href'), `/dashboard/campaigns/${campaignId}`);

    // Assigning the same campaign again: the API refuses, and the console says why.
    await card.getByRole('combobox', { name: 'Campaign' }).click();
    await page.getByRole('option', { name: 'Spring shoes', exact: true }).click();
    await card.getByRole('button', { name: 'Assign', exact: true }).click();
    await card.getByRole('alert').filter({ hasText: 'The rule was not assigned' }).waitFor();
    await cleanScreenshot(page, 'rules-assigned');

    // The delete confirmation names where the rule is assigned; cancelled here.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByTestId('delete-assignments').filter({ hasText: 'Campaign Spring shoes' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await card.getByRole('button', { name: 'Unassign' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unassign' }).click();
    await card.getByText('Not assigned yet').waitFor();
    assert.equal((await t.request('GET', `/v1/validation-rules/${ruleId}/assignments`)).body.total, 0);
  });

  test('edit the rule: the builder reads it back; a change is stored', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('combobox', { name: 'Condition 1 items' }).waitFor();
    await page.getByTestId('condition-0').getByText('Trail runner').waitFor();
    await page.getByLabel('Condition 2 value').fill('5');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByTestId('rule-description').filter({ hasText: 'Redemptions by this customer less than 5' }).waitFor();
    const rule = await t.request('GET', `/v1/validation-rules/${ruleId}`);
    assert.deepEqual(rule.body.rules['2'].conditions, { $less_than: [5] });
    assert.equal(rule.body.rules['1'].name, 'order.items.any', 'the rest stays as it was');
  });

  test('a static segment of customers named by source_id and e-mail; its members are listed', async () => {
    const { page } = browser;
    const ana = await t.request('POST', '/v1/customers', { json: { source_id: 'ana', name: 'Ana Gold', email: 'ana@example.com' } });
    const ben = await t.request('POST', '/v1/customers', { json: { source_id: 'ben', name: 'Ben Brown', email: 'ben@example.com' } });
    assert.equal(ana.status, 200, ana.text);
    assert.equal(ben.status, 200, ben.text);
    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByRole('link', { name: /^Segments/ }).click();
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Friends');
    await page.getByRole('textbox', { name: 'Customers' }).fill('ana\nben@example.com');
    await page.getByRole('button', { name: 'Create segment' }).click();
    const members = page.getByTestId('segment-members');
    await members.getByRole('link', { name: 'Ana Gold' }).waitFor();
    await members.getByRole('link', { name: 'Ben Brown' }).waitFor();
    const segments = (await t.request('GET', '/v1/segments')).body.data;
    assert.deepEqual(segments.map((s: { name: string; type: string }) => [s.name, s.type]), [['Friends', 'static']]);
    const listed = await t.request('GET', `/v1/customers?segment_id=${segments[0].id}`);
    assert.deepEqual(listed.body.customers.map((c: { source_id: string }) => c.source_id).sort(), ['ana', 'ben']);

    // An e-mail no customer has is named, and nothing is created.
    await page.goto(`${t.url}/dashboard/segments/new`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Nobody');
    await page.getByRole('textbox', { name: 'Customers' }).fill('nobody@example.com');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('alert').filter({ hasText: 'No customer has the e-mail nobody@example.com' }).waitFor();
    assert.equal((await t.request('GET', '/v1/segments')).body.total, 1);
  });

  test('an auto-update segment built with the filter builder; a rule using it keeps it from being deleted', async () => {
    const { page } = browser;
    await page.getByText('By filter (auto-update)').click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Example.com people');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('combobox', { name: 'Filter 1 operator' }).click();
    await page.getByRole('option', { name: 'ends with', exact: true }).click();
    await page.getByLabel('Filter 1 value').fill('@example.com');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('combobox', { name: 'Filter 2 field' }).fill('Name');
    await page.getByRole('option', { name: 'Name', exact: true }).click();
    await page.getByRole('combobox', { name: 'Filter 2 operator' }).click();
    await page.getByRole('option', { name: 'starts with', exact: true }).click();
    await page.getByLabel('Filter 2 value').fill('Ana');
    await page.getByTestId('filter-summary').filter({ hasText: 'E-mail ends with @example.com and Name starts with Ana' }).waitFor();
    await cleanScreenshot(page, 'segments-auto-new');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByTestId('segment-summary').filter({ hasText: 'E-mail ends with @example.com and Name starts with Ana' }).waitFor();
    await page.getByTestId('segment-members').getByRole('link', { name: 'Ana Gold' }).waitFor();
    assert.equal(await page.getByTestId('segment-members').getByRole('link', { name: 'Ben Brown' }).count(), 0);
    const segment = (await t.request('GET', '/v1/segments')).body.data.find((s: { name: string }) => s.name === 'Example.com people');
    assert.deepEqual(segment.filter, { junction: 'and', email: { conditions: { $ends_with: ['@example.com'] } }, name: { conditions: { $starts_with: ['Ana'] } } });
    await cleanScreenshot(page, 'segments-auto-detail');

    // A rule names the segment: the API refuses to delete it, and the console shows why.
    const rule = await t.request('POST', '/v1/validation-rules', { json: { name: 'Ana only', rules: { '1': { name: 'customer.segment', conditions: { $in: [segment.id] } }, logic: '1' } } });
    assert.equal(rule.status, 200, rule.text);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete segment' }).click();
    await page.getByText(`is in use by validation_rules with ids [${rule.body.id}]`).waitFor();
    assert.equal((await t.request('GET', `/v1/segments/${segment.id}`)).status, 200);
    // The rule list describes the segment condition by the segment's name.
    await page.getByRole('link', { name: 'Rules' }).click();
    await page.getByTestId(`rule-${rule.body.id}`).filter({ hasText: 'Customer segment is one of Example.com people' }).waitFor();
  });

  test('a metadata schema: create with properties, edit one, remove one, delete', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByRole('link', { name: /^Metadata schemas/ }).click();
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByRole('textbox', { name: 'Object' }).or(page.getByRole('combobox', { name: 'Object' })).fill('customer');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Add property' }).click();
    await page.getByLabel('Property 1 name').fill('tier');
    await page.getByLabel('Property 1 allowed values').fill('gold, silver');
    await page.getByLabel('Property 1 required').check();
    await page.getByRole('button', { name: 'Add property' }).click();
    await page.getByLabel('Property 2 name').fill('visits');
    await page.getByRole('combobox', { name: 'Property 2 type' }).click();
    await page.getByRole('option', { name: 'number', exact: true }).click();
    await page.getByLabel('Property 2 minimum').fill('0');
    await cleanScreenshot(page, 'metadata-schema-new');
    await page.getByRole('button', { name: 'Create schema' }).click();
    await page.getByTestId('schema-customer').waitFor();
    const base = `/management/v1/projects/${t.projectId}/metadata-schemas`;
    const mgmt = async () => (await t.request('GET', base, { headers: t.managementHeaders() })).body.data;
    let [schema] = await mgmt();
    assert.deepEqual(schema.properties.tier, { type: 'string', optional: false, array: false, object_type: null, eq: ['gold', 'silver'] });
    assert.deepEqual(schema.properties.visits, { type: 'number', optional: true, array: false, object_type: null, gte: 0 });

    await page.getByRole('link', { name: 'customer', exact: true }).click();
    await page.getByLabel('Property 1 allowed values').fill('gold, silver, bronze');
    await page.getByRole('button', { name: 'Remove property 2' }).click();
    await page.getByRole('button', { name: 'Save schema' }).click();
    await page.getByTestId('schema-customer').waitFor();
    [schema] = await mgmt();
    assert.deepEqual(schema.properties.tier.eq, ['gold', 'silver', 'bronze']);
    assert.equal(schema.properties.visits.deleted, true, 'a removed property is soft-removed');

    await page.getByRole('link', { name: 'customer', exact: true }).click();
    await page.getByRole('button', { name: 'Delete schema' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete schema' }).click();
    await page.getByText('No metadata schemas yet').waitFor();
    assert.equal((await mgmt()).length, 0);
  });

  test('consents and a consent group: create, edit, delete', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByRole('link', { name: /^Consents/ }).click();
    await page.getByLabel('Consent name').fill('Newsletter');
    await page.getByLabel('Category').fill('marketing');
    await page.getByRole('button', { name: 'Create consent' }).click();
    await page.getByRole('button', { name: 'Edit consent Newsletter' }).waitFor();
    await page.getByLabel('Consent name').fill('SMS offers');
    await page.getByRole('button', { name: 'Create consent' }).click();
    await page.getByRole('button', { name: 'Edit consent SMS offers' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create consent' }).count(), 1, 'one form for a new consent');

    await page.getByRole('button', { name: 'Edit consent Newsletter' }).click();
    await page.getByRole('heading', { name: 'Edit consent Newsletter' }).waitFor();
    await page.getByRole('textbox', { name: 'Description', exact: true }).fill('Monthly news');
    await page.getByRole('button', { name: 'Save consent' }).click();
    await page.getByRole('cell', { name: 'Monthly news' }).waitFor();

    await page.getByLabel('Group name').fill('Marketing');
    await page.getByRole('combobox', { name: 'Consents in the group (in display order)' }).click();
    await page.getByRole('option', { name: 'Newsletter' }).click();
    await page.getByRole('option', { name: 'SMS offers' }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('cell', { name: 'Newsletter, SMS offers' }).waitFor();
    await cleanScreenshot(page, 'consents');

    const mgmt = (path: string) => t.request('GET', `/management/v1/projects/${t.projectId}/${path}`, { headers: t.managementHeaders() });
    const consents = (await mgmt('consents')).body.data as Array<{ id: string; name: string; category: string | null; description: string | null }>;
    assert.deepEqual(consents.map((c) => [c.name, c.category, c.description]).sort(), [['Newsletter', 'marketing', 'Monthly news'], ['SMS offers', null, null]]);
    const groups = (await mgmt('consent-groups')).body.data;
    assert.equal(groups[0].name, 'Marketing');
    assert.equal(groups[0].consents.length, 2);

    await page.getByRole('button', { name: 'Delete consent SMS offers' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete consent' }).click();
    await page.getByRole('cell', { name: 'Newsletter', exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Edit consent SMS offers' }).waitFor({ state: 'detached' });
    assert.equal((await mgmt('consents')).body.data.length, 1);
    await page.getByRole('button', { name: 'Delete group Marketing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete group' }).click();
    await page.getByText('No groups yet.').waitFor();
  });

  test('at 390 px the rule, segment and setup screens fit the screen', async () => {
    const phone = await openBrowser(PHONE);
    try {
      const { page } = phone;
      await signInThroughPage(page, t.url);
      const width = () => page.evaluate('document.documentElement.scrollWidth') as Promise<number>;
      for (const [path, ready, name] of [
        [`/validation-rules/${ruleId}`, 'rule-description', 'phone-rule-detail'],
        [`/validation-rules/${ruleId}/edit`, 'rule-builder', 'phone-rule-edit'],
        ['/validation-rules', `rule-${ruleId}`, 'phone-rules'],
        ['/segments', 'segment-members', 'phone-segments'],
        ['/consents', '', 'phone-consents'],
        ['/configure', '', 'phone-setup'],
      ] as const) {
        await page.goto(`${t.url}/dashboard${path}`);
        if (path === '/segments') await page.getByRole('link', { name: 'Friends' }).click();
        if (ready) await page.getByTestId(ready).first().waitFor();
        else await page.getByRole('heading', { level: 1 }).waitFor();
        assert.ok((await width()) <= PHONE.width, `${path}: no sideways scrolling (${await width()} px)`);
        await cleanScreenshot(page, name);
      }
    } finally {
      await phone.close();
    }
  });
});
