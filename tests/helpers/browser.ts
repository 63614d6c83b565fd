import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build-web.ts';

// Browser tests drive Debian's Chromium (`apt-get install chromium`; .ci/run installs it) through
// playwright-core, which never downloads a browser of its own. Each run gets a fresh profile. The
// flags keep Chromium off the network: this machine reaches none but the package registries.

export const CHROMIUM = process.env.PUNCHCARD_CHROMIUM ?? '/usr/bin/chromium';
/** Why browser tests skip here (no Chromium, outside CI: loudly, as a skipped suite), or false. CI fails instead. */
export const BROWSER_MISSING = !existsSync(CHROMIUM) && process.env.CI !== 'true' ? `no browser at ${CHROMIUM} (apt-get install chromium)` : false;
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Screenshots the tests take, for a person to look at (a few are copied to docs/console for the README). */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** The console, built if its sources changed since the last build (fast when they did not). */
export function ensureConsoleBuilt(): void {
  buildWeb();
}

export async function openBrowser(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  const profile = mkdtempSync(join(tmpdir(), 'punchcard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** `fullPage` false takes the viewport only (a phone's screen: its fixed header stays on top). */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // A dialog or menu still fading in or out would be caught half-drawn: let finite animations end first.
  // A full-page shot of a scrolled page draws the fixed header where the scroll left it, mid-page.
  if (options.fullPage ?? true) await page.evaluate('window.scrollTo(0, 0)');
  await page.evaluate('Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations !== Infinity).map((a) => a.finished.catch(() => null)))');
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

/**
 * Waits until `expression` is true in the page. Unlike page.waitForFunction, whose polling evaluates the
 * text inside the page, each check is sent from here (as page.evaluate is), so a page whose Content
 * Security Policy forbids eval — the cockpit's — can be waited on too: waitForFunction passed there only
 * when its first check, which is sent from here, already found the condition true.
 */
export async function waitForCondition(page: Page, expression: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
