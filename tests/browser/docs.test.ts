import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { BROWSER_MISSING, CHROMIUM, waitForCondition } from '../helpers/browser.ts';

// README "API reference": /docs in a real browser (Debian's chromium driven by Playwright; no browser is
// downloaded). The page shows content at once, then Redoc's reference with search, request and response
// samples and the authentication schemes, all served by Punchcard itself (no other host is contacted).
// Screenshots land in PUNCHCARD_SCREENSHOTS (default: the system's temp folder) for a person to look at.

// CI installs chromium (.ci/run); elsewhere a machine without it skips this file, loudly.

describe('/docs in a browser', { skip: BROWSER_MISSING, timeout: 600_000 }, () => {
  let t: TestApp;
  let browser: BrowserContext;
  let profile: string;
  const screenshots = process.env.PUNCHCARD_SCREENSHOTS ?? join(tmpdir(), 'punchcard-screenshots');
  const foreignRequests: string[] = [];

  before(async () => {
    t = await startTestApp();
    profile = mkdtempSync(join(tmpdir(), 'punchcard-chromium-'));
    mkdirSync(screenshots, { recursive: true });
    // A fresh profile each run (Playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  // Redoc lays out a large document: well past npm test's default per-test limit on a busy machine.
  test('content at first paint, then the full reference with search, examples and auth schemes', { timeout: 300_000 }, async (ctx) => {
    const page = await browser.newPage();
    // Whatever the page asked of another host: sent, or refused by the page's policy (which the console reports).
    const problems: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(t.url) && !request.url().startsWith('data:') && !request.url().startsWith('blob:')) foreignRequests.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });

    // What the page shows before any script has run: the summary drawn by the server (the renderer is
    // held back here so the screenshot shows it).
    const held = await browser.newPage();
    await held.route('**/docs/redoc.standalone.js', (route) => route.abort());
    await held.goto(`${t.url}/docs`);
    assert.ok(await held.getByRole('heading', { name: /Punchcard API/ }).isVisible());
    assert.ok(await held.getByRole('heading', { name: 'Authentication' }).isVisible());
    assert.ok(await held.getByText('X-Management-Token', { exact: true }).first().isVisible());
    assert.ok(await held.getByText('/v1/redemptions', { exact: true }).first().isVisible());
    await held.screenshot({ path: join(screenshots, 'docs-first-paint.png') });
    await held.close();

    const started = Date.now();
    await page.goto(`${t.url}/docs`);
    // Redoc replaces the summary once it has laid the document out.
    await page.locator('#redoc .menu-content').waitFor({ timeout: 90_000 });
    ctx.diagnostic(`Redoc ready ${Date.now() - started} ms after navigation`);
    assert.equal(await page.locator('#summary').count(), 0);
    await page.screenshot({ path: join(screenshots, 'docs-reference.png') });

    // The authentication schemes are described.
    const auth = page.locator('#redoc').getByText('X-Management-Token', { exact: false }).first();
    assert.ok(await auth.count() > 0, 'the management key scheme is listed');

    // Search finds an operation and leads to it.
    const search = page.locator('#redoc input[placeholder="Search..."]');
    await search.fill('resend');
    const hit = page.locator('#redoc [role="search"] li, #redoc .search-results li, #redoc [data-role="search:results"] li').first();
    await hit.waitFor({ timeout: 30_000 });
    assert.match((await hit.textContent()) ?? '', /send a FAILED or SUCCEEDED delivery again/i);
    await page.screenshot({ path: join(screenshots, 'docs-search.png') });
    await hit.click();
    // Checked from here: the page's Content Security Policy refuses waitForFunction's in-page polling.
    await waitForCondition(page, 'location.hash.includes("resendWebhookDelivery")');

    // Request and response samples of an operation.
    await page.goto(`${t.url}/docs#operation/createCustomer`);
    await page.locator('#redoc .menu-content').waitFor({ timeout: 90_000 });
    const samples = page.locator('#redoc').getByText('Response samples').first();
    await samples.waitFor({ timeout: 30_000 });
    assert.ok(await page.locator('#redoc').getByText('Request samples').first().isVisible());
    await page.screenshot({ path: join(screenshots, 'docs-operation.png') });

    assert.deepEqual(foreignRequests, [], 'everything is served by Punchcard');
    assert.deepEqual(problems, [], 'no console errors: nothing blocked by the Content Security Policy');
    // Headless Chromium fetches no icons itself: the page's icon link is followed from the page.
    const icon = await page.evaluate("fetch(document.querySelector('link[rel=icon]').href).then((r) => r.status + ' ' + r.headers.get('content-type'))");
    assert.equal(icon, '200 image/svg+xml');
  });

  test('at phone width the reference shows an operation without sideways scrolling', { timeout: 300_000 }, async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/docs#operation/createCustomer`);
    await page.locator('#redoc .menu-content').waitFor({ state: 'attached', timeout: 90_000 });
    await page.locator('#redoc').getByText('Request samples').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(screenshots, 'docs-phone.png') });
    await waitForCondition(page, 'document.documentElement.scrollWidth <= window.innerWidth + 1');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
