/**
 * A person's view of a brand site in headless Chromium: the brand home and a campaign page render (the
 * screenshots are kept in test-artifacts/), the impression beacon fires for the variant shown, and following
 * the call to action sends a click beacon — both recorded against the visitor's anonymous session — and a call to
 * action that leads off the site arrives there with the visitor's id (the hand-off for server-side conversions).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { eventually } from '../support/poll.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let browser: Browser;
let tenant: Tenant;
let seeded: SeededWorkspace;
let site: string;
let campaignPath: string;

async function eventsOf(sessionId: string, type: string) {
  return platform.container.orm.em
    .getConnection()
    .execute<{ campaign_id: string; variant_id: string; zone_id: string | null }[]>(
      'select campaign_id, variant_id, zone_id from analytics_events where workspace_id = ? and session_id = ? and type = ?',
      [tenant.workspaceId, sessionId, type],
    );
}

/** The session's events of `type`, once at least one has landed. */
function recorded(sessionId: string, type: 'impression' | 'click') {
  return waitFor(async () => {
    const rows = await eventsOf(sessionId, type);
    return rows.length > 0 ? rows : undefined;
  }, `the recorded ${type}`);
}

async function visitorCookie(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'cp_vid');
  if (!cookie) throw new Error('no visitor cookie was set');
  return cookie.value;
}

const waitFor = <T>(probe: () => Promise<T | undefined>, what: string) =>
  eventually(probe, what, { timeoutMs: 20_000, intervalMs: 200 });

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'brandbrowser' });
  tenant = await createTenant(platform.container, { name: 'Linen House' });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  const workspace = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Workspace, {
    id: tenant.workspaceId,
  });
  site = brandSiteUrl(platform.config, workspace.slug);
  const campaign = await platform.container.services.campaigns.get(
    scopeOf(platform.container, tenant),
    seeded.campaignId,
  );
  campaignPath = `/campaigns/${campaign.slug}`;
  await waitFor(
    async () => ((await testFetch(`${site}${campaignPath}`)).status === 200 ? true : undefined),
    'the first publication',
  );
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await closeTestFetch();
});

test('the brand home renders with its campaign', async () => {
  const page = await browser.newPage();
  const response = await page.goto(`${site}/`);
  expect(response?.status()).toBe(200);
  await expect(page.title()).resolves.toBeTruthy();
  await expect(page.locator('body').innerText()).resolves.toContain('Linen summer');
  await screenshot(page, 'brand-site-home');
  await page.close();
});

test('at phone width the home and campaign pages fit the screen: nothing scrolls sideways', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  for (const [path, name] of [
    ['/', 'brand-site-home-phone'],
    [campaignPath, 'brand-site-campaign-phone'],
  ] as const) {
    expect((await page.goto(`${site}${path}`))?.status()).toBe(200);
    const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, screen: innerWidth }));
    expect(widths.content).toBeLessThanOrEqual(widths.screen);
    await screenshot(page, name);
  }
  await page.close();
});

test('a missing page is a page of the site: 404, the brand, what was asked for and the ways on', async () => {
  for (const [viewport, name] of [
    [{ width: 1280, height: 900 }, 'brand-site-404'],
    [{ width: 390, height: 844 }, 'brand-site-404-phone'],
  ] as const) {
    const page = await browser.newPage({ viewport });
    const response = await page.goto(`${site}/campaigns/gone-for-good`);
    expect(response?.status()).toBe(404);
    expect(response?.headers()['cache-control']).toBe('no-store');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await expect(page.locator('main').innerText()).resolves.toContain(
      'There is no page at /campaigns/gone-for-good on this site.',
    );
    await expect(page.title()).resolves.toContain('Page not found');
    // The site's own header and the ways on: a live campaign, home, all campaigns.
    await page.getByRole('link', { name: 'Linen summer' }).first().waitFor();
    await page.getByRole('link', { name: 'All campaigns' }).click();
    await page.waitForURL(`${site}/campaigns`);
    const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, screen: innerWidth }));
    expect(widths.content).toBeLessThanOrEqual(widths.screen);
    await page.goBack();
    await screenshot(page, name);
    await page.close();
  }
});

test('a campaign page renders its variant and fires the impression beacon; the CTA fires a click', async () => {
  const page = await browser.newPage();
  const beacon = page.waitForRequest((request) => request.url().endsWith('/_cp/events') && request.method() === 'POST');
  await page.goto(`${site}${campaignPath}`);
  // The beacon request itself (its Blob body is not exposed by the browser's network events; what it carried
  // is checked where it lands, in the events table).
  await beacon;
  const slot = page.locator('[data-cp-campaign]').first();
  const shownVariant = await slot.getAttribute('data-cp-variant');
  expect([seeded.variantId, seeded.secondVariantId]).toContain(shownVariant);
  await expect(slot.innerText()).resolves.toMatch(/Stay cool|Feel light/);
  await screenshot(page, 'brand-site-campaign');

  const sessionId = await visitorCookie(page);
  const impressions = await recorded(sessionId, 'impression');
  expect(impressions).toEqual([{ campaign_id: seeded.campaignId, variant_id: shownVariant, zone_id: null }]);

  // The CTA leads off the page; the click beacon must still arrive (sendBeacon outlives the page).
  await page.route('**/*', (route) =>
    route.request().url().startsWith(site) ? route.continue() : route.fulfill({ status: 204, body: '' }),
  );
  await slot.locator('[data-cp-cta]').first().click();
  const clicks = await recorded(sessionId, 'click');
  expect(clicks[0]).toMatchObject({ campaign_id: seeded.campaignId, variant_id: shownVariant });
  await page.close();
});

test("an off-site call to action hands the visitor's id to the advertiser's site", async () => {
  // The advertiser's shop: a local HTTP server on loopback that keeps the URL of every request it gets.
  const arrived: string[] = [];
  const shop = http.createServer((request, response) => {
    arrived.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Shop</title>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  try {
    const scope = scopeOf(platform.container, tenant);
    for (const variantId of [seeded.variantId, seeded.secondVariantId]) {
      await platform.container.services.campaigns.updateVariant(scope, variantId, {
        ctaUrl: `${shopOrigin}/checkout?item=linen`,
      });
    }
    await waitFor(async () => {
      const html = await (await testFetch(`${site}${campaignPath}`)).text();
      return html.includes(shopOrigin) ? true : undefined;
    }, 'the republished call to action');

    const page = await browser.newPage();
    await page.goto(`${site}${campaignPath}`);
    const sessionId = await visitorCookie(page);
    const slot = page.locator('[data-cp-campaign]').first();
    const shownVariant = await slot.getAttribute('data-cp-variant');
    await Promise.all([page.waitForURL(`${shopOrigin}/**`), slot.locator('[data-cp-cta]').first().click()]);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/checkout');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ item: 'linen', cp_vid: sessionId });
    expect(arrived).toContain(`/checkout?item=linen&cp_vid=${sessionId}`);
    // The click is still recorded, for the variant that was shown.
    const clicks = await recorded(sessionId, 'click');
    expect(clicks[0]).toMatchObject({ campaign_id: seeded.campaignId, variant_id: shownVariant });
    await page.close();
  } finally {
    await new Promise((resolve) => shop.close(resolve));
  }
});

test('the surface page reports an impression for the zone its campaign is deployed in', async () => {
  const page = await browser.newPage();
  await page.goto(`${site}/home`);
  const sessionId = await visitorCookie(page);
  const rows = await recorded(sessionId, 'impression');
  expect(rows).toEqual([expect.objectContaining({ campaign_id: seeded.campaignId, zone_id: seeded.zoneId })]);
  await screenshot(page, 'brand-site-surface');
  await page.close();
});
