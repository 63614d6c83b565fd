import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ensureConsoleBuilt, openBrowser, screenshot, type Browser } from '../helpers/browser.ts';
import { ADMIN, createFirstAdmin } from '../helpers/console.ts';

// What every console browser test starts with: the built console, the API on a random port with a first
// admin, a fresh Chromium, and the admin signed in through the sign-in page.

export async function signInThroughPage(page: Page, url: string, email = ADMIN.email, password = ADMIN.password): Promise<void> {
  await page.goto(`${url}/dashboard`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('role').waitFor();
}

export async function startSignedIn(options: Parameters<typeof startTestApp>[0] = {}): Promise<{ t: TestApp; browser: Browser }> {
  ensureConsoleBuilt();
  const t = await startTestApp({ clockStart: new Date().toISOString(), ...options });
  await createFirstAdmin(t);
  const browser = await openBrowser();
  await signInThroughPage(browser.page, t.url);
  return { t, browser };
}

/** A screenshot without the pointer's hover and the toasts of earlier steps, which would cover the screen. */
export async function cleanScreenshot(page: Page, name: string): Promise<string> {
  await page.mouse.move(0, 0);
  await page.addStyleTag({ content: '.mantine-Notifications-root { display: none !important; }' });
  const path = await screenshot(page, name);
  await page.addStyleTag({ content: '.mantine-Notifications-root { display: block !important; }' });
  return path;
}
