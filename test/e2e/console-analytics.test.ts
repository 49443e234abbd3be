/**
 * The Analytics page in headless Chromium, on a workspace with 30 days of seeded traffic (an A/B test, clicks,
 * conversions, unanswered concierge questions): at desktop (1280) and phone (390) widths, for each window, with
 * no serious or critical axe-core finding and no sideways scrolling; the daily charts are images with a name
 * and a description, the same days are a table; the windows are reached with the keyboard alone. Screenshots
 * in test-artifacts/.
 */
import { v7 as uuidv7 } from 'uuid';
import type { Browser } from 'playwright-core';
import { createSiteEventRecorder } from '../../src/domain/analytics/event-recorder.ts';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import type { SiteEvent } from '../../src/domain/analytics/site-events.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { launchBrowser, screenshot, seriousViolations, signedInPage } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seededRandom } from '../support/random.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const PASSWORD = 'a long enough password';
const DAY_MS = 86_400_000;
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let browser: Browser;

function traffic(): SiteEvent[] {
  const random = seededRandom(5);
  const events: SiteEvent[] = [];
  const now = Date.now() - 60_000;
  const arms = [
    { variantId: seeded.variantId, rate: 0.03 },
    { variantId: seeded.secondVariantId, rate: 0.08 },
  ];
  for (let s = 0; s < 2_000; s++) {
    const sessionId = `e2e-${s.toString(36).padStart(10, '0')}`;
    const at = now - Math.floor(30 * random() ** 1.4 * DAY_MS);
    const arm = arms[s % 2]!;
    const base = {
      workspaceId: tenant.workspaceId,
      sessionId,
      campaignId: seeded.campaignId,
      variantId: arm.variantId,
    };
    const place = { zoneId: seeded.zoneId, surfaceId: seeded.surfaceId };
    events.push({ ...base, ...place, eventId: uuidv7(), type: 'impression', occurredAt: new Date(at) });
    if (random() < 0.5)
      events.push({ ...base, ...place, eventId: uuidv7(), type: 'impression', occurredAt: new Date(at + 1000) });
    if (random() < 0.12)
      events.push({ ...base, ...place, eventId: uuidv7(), type: 'click', occurredAt: new Date(at + 2000) });
    if (random() < arm.rate) {
      events.push({
        ...base,
        eventId: uuidv7(),
        type: 'conversion',
        occurredAt: new Date(at + 3000),
        goal: 'purchase',
        value: 49.5,
      });
    }
    if (random() < 0.01) {
      events.push({
        eventId: uuidv7(),
        workspaceId: tenant.workspaceId,
        sessionId,
        type: 'concierge_question',
        occurredAt: new Date(at + 4000),
        properties: { query: 'can I return a shirt after 30 days?', answered: false },
      });
    }
  }
  return events;
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'console-analytics-e2e' });
  tenant = await createTenant(platform.container, { name: 'Linen Co', password: PASSWORD });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  await acrossWorkspaces(platform.container.orm.em)
    .getConnection()
    .execute(`select analytics_ensure_partitions(current_date - 35, current_date + 2)`);
  await createSiteEventRecorder(platform.container.orm).record(traffic());
  await runRollupPass(platform.container.orm, { lagMs: 0 });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await closeTestFetch();
});

const signedIn = (viewport: { width: number; height: number }) =>
  signedInPage(browser, platform.urls.platform, { email: tenant.email, password: PASSWORD }, viewport);

describe.each(Object.entries(SIZES))('at %s size', (size, viewport) => {
  it.each(['7d', '28d', '90d'])('shows the %s window accessibly, without sideways scrolling', async (window) => {
    const { context, page } = await signedIn(viewport);
    await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/analytics?window=${window}`);
    await page.getByRole('heading', { name: 'Analytics', exact: true }).waitFor();
    // Impressions and Reach: two figures, side by side.
    const impressions = await page.locator('[data-metric="snapshot.summary.impressions"]').innerText();
    const reach = await page.locator('[data-metric="snapshot.summary.reach"]').innerText();
    expect(Number(impressions.replace(/,/g, ''))).toBeGreaterThan(Number(reach.replace(/,/g, '')));
    // Four daily charts, each an image with its name, and a description saying the total.
    const charts = page.getByRole('img', { name: /per day/ });
    expect(await charts.count()).toBe(4);
    await page.getByRole('img', { name: /Impressions per day.*in total/ }).waitFor();
    // The A/B test's verdict in words.
    await page.getByRole('heading', { name: 'Linen summer' }).waitFor();
    await page
      .getByText(/Keep running|Winner|Loser|Inconclusive/)
      .first()
      .waitFor();
    await page.getByRole('cell', { name: /can I return a shirt after 30 days\?/ }).waitFor();

    const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, screen: innerWidth }));
    expect(widths.content).toBeLessThanOrEqual(widths.screen);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, `console-analytics-${window}-${size}`);
    await context.close();
  });
});

it('reaches another window with the keyboard alone, and shows the days as a table', async () => {
  const { context, page } = await signedIn(SIZES.desktop);
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/analytics`);
  const target = page.getByRole('link', { name: 'Last 28 days' });
  for (
    let presses = 0;
    presses < 40 && !(await target.evaluate((link) => link === document.activeElement));
    presses++
  ) {
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
  await page.waitForURL(/window=28d/);
  await page.getByRole('link', { name: 'Last 28 days' }).and(page.locator('[aria-current="page"]')).waitFor();
  await page.getByText('The same days as a table').click();
  expect(await page.locator('details table tbody tr').count()).toBe(28);
  await screenshot(page, 'console-analytics-table');
  await context.close();
});
