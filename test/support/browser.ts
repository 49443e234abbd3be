/**
 * Headless Chromium (Debian's, driven by playwright-core) for pages a person uses. Screenshots go to
 * `test-artifacts/` so a failing run leaves something to look at.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from '../../src/dev/chromium.ts';

export const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Serious and critical axe-core findings (WCAG 2.x A and AA rules) on the page as it is now. `mustRun` rules must
 * have passed somewhere on the page, so a page axe could not read does not pass by finding nothing; `exclude`
 * leaves out a part axe cannot enter (a sandboxed frame without scripts).
 */
export async function seriousViolations(
  page: Page,
  options: { mustRun?: readonly string[]; exclude?: string } = {},
): Promise<{ id: string; targets: string[] }[]> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (options.exclude) builder = builder.exclude(options.exclude);
  const { violations, passes } = await builder.analyze();
  expect(passes.map((rule) => rule.id)).toEqual(
    expect.arrayContaining([...(options.mustRun ?? ['color-contrast', 'document-title'])]),
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, targets: violation.nodes.map((node) => node.target.join(' ')) }));
}

/** The page is no wider than the screen (nothing scrolls sideways). */
export async function fitsTheScreen(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, screen: innerWidth }));
  expect(widths.content).toBeLessThanOrEqual(widths.screen);
}

/** A new browser context at `viewport` (a touch phone below 600 px), signed in through the real sign-in form. */
export async function signedInPage(
  browser: Browser,
  platformUrl: string,
  credentials: { email: string; password: string },
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page }> {
  const phone = viewport.width < 600;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  await page.goto(`${platformUrl}/signin`);
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/w\/|\/workspaces/);
  return { context, page };
}
