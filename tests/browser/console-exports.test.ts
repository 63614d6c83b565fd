import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, type Browser } from '../helpers/browser.ts';
import { cleanScreenshot, startSignedIn } from './console-sign-in.ts';

// The exports screen in a real browser: a filter the API refuses shows its details under the filters; a
// voucher export with chosen columns and a filter runs in the worker, the screen follows its status to
// DONE, and the file behind the download link holds exactly the filtered codes.

describe('console: exports', { skip: BROWSER_MISSING }, () => {
  let t: TestApp;
  let browser: Browser;

  before(async () => {
    ({ t, browser } = await startSignedIn());
    for (const [name, prefix, count] of [
      ['Keep', 'KEEP-', 3],
      ['Skip', 'SKIP-', 2],
    ] as const) {
      const created = await t.request('POST', '/v1/campaigns', {
        json: {
          name,
          campaign_type: 'DISCOUNT_COUPONS',
          type: 'AUTO_UPDATE',
          vouchers_count: count,
          voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 }, code_config: { prefix, length: 6 } },
        },
      });
      assert.equal(created.status, 200, created.text);
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const addFilter = async (index: number, field: string, operator: string, value: string) => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('combobox', { name: `Filter ${index} field` }).fill(field);
    await page.getByRole('option', { name: field, exact: true }).click();
    await page.getByRole('combobox', { name: `Filter ${index} operator` }).click();
    await page.getByRole('option', { name: operator, exact: true }).click();
    await page.getByRole('textbox', { name: `Filter ${index} value` }).fill(value);
  };

  test('a filter the API refuses: its details under the filters, nothing scheduled', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Exports' }).click();
    await addFilter(1, 'redemption.quantity', '$more_than', 'many');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'parameters.filters' }).waitFor();
    assert.equal((await t.request('GET', '/v1/exports')).body.total, 0);
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
  });

  test('export the KEEP- codes with two columns; follow it to DONE and download the file', async () => {
    const { page } = browser;
    // The default columns are code, voucher_type, value, discount_type: Backspace takes the last three off.
    const columns = page.getByRole('combobox', { name: 'Columns' });
    await columns.click();
    for (let i = 0; i < 3; i++) await columns.press('Backspace');
    await columns.fill('campaign');
    await page.getByRole('option', { name: 'campaign', exact: true }).click();
    await page.keyboard.press('Escape');
    await addFilter(1, 'code', '$starts_with', 'KEEP-');
    const preview = await page.getByLabel('Filter preview').textContent();
    assert.deepEqual(JSON.parse(preview ?? '{}'), { junction: 'and', code: { conditions: { $starts_with: ['KEEP-'] } } });
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.getByText(/^Export exp_\w+ scheduled$/).waitFor();

    const listed = await t.request('GET', '/v1/exports');
    assert.equal(listed.body.total, 1);
    const record = listed.body.exports[0];
    assert.deepEqual(record.parameters.fields, ['code', 'campaign']);
    assert.deepEqual(record.parameters.filters, { junction: 'and', code: { conditions: { $starts_with: ['KEEP-'] } } });
    const row = page.getByTestId(`export-${record.id}`);
    await row.getByTestId('export-status').filter({ hasText: /SCHEDULED|IN_PROGRESS/ }).waitFor();
    await cleanScreenshot(page, 'exports-running');

    while (await t.worker.runOnce()) {
      // the export job (and anything queued before it)
    }
    await row.getByTestId('export-status').filter({ hasText: 'DONE' }).waitFor({ timeout: 10_000 });
    assert.equal(await row.getByRole('cell').nth(3).textContent(), '3');
    const href = await row.getByRole('link', { name: `Download ${record.id}` }).getAttribute('href');
    assert.ok(href);
    const file = await fetch(href);
    assert.equal(file.status, 200);
    const lines = (await file.text()).trim().split(/\r?\n/);
    assert.equal(lines[0], 'code,campaign');
    assert.equal(lines.length, 4);
    for (const line of lines.slice(1)) assert.match(line, /^KEEP-\w+,Keep$/);
    await cleanScreenshot(page, 'exports');
  });
});
