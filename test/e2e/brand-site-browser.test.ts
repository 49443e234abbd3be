/**
 * A person's view of a brand site in headless Chromium, at desktop (1280×800) and phone (390×844) sizes: the
 * home page (the brand, a hero of the live campaign with its product photo), a campaign page, a product page
 * and the 404 page render without sideways scrolling and with no serious or critical axe-core violation (the
 * screenshots are kept in test-artifacts/); the ask box answers without JavaScript (a form post, an answer page)
 * and with it (answered in place, in the live region). The impression beacon fires for the variant shown,
 * following the call to action sends a click beacon — both recorded against the visitor's anonymous session —
 * and a call to action that leads off the site arrives there with the visitor's id (the hand-off for
 * server-side conversions).
 *
 * The seeded product's photo lives on a CDN the test cannot reach; the browser is given a drawing of a shirt
 * for it (`page.route`), so the pages are seen as a visitor would see them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SIZES = [
  ['desktop', DESKTOP, ''],
  ['phone', PHONE, '-phone'],
] as const;
const TAGLINE = 'Linen shirts for hot summers, cut and sewn in Porto.';
const PRODUCT_TITLE = 'Linen linen shirt';

/** A product photo stand-in: a linen shirt on a soft backdrop (an SVG, so the test needs no binary file). */
const SHIRT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1200 900" width="1200" height="900">
<defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f4efe6"/><stop offset="1" stop-color="#e2d8c6"/></linearGradient>
<linearGradient id="cloth" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fbf8f2"/><stop offset="1" stop-color="#d9cfbd"/></linearGradient></defs>
<rect width="1200" height="900" fill="url(#bg)"/><ellipse cx="600" cy="820" rx="320" ry="24" fill="#000" opacity=".10"/>
<path d="M470 170 L540 150 Q600 200 660 150 L730 170 L900 260 L980 470 L880 510 L830 400 L830 800 Q600 830 370 800 L370 400 L320 510 L220 470 L300 260Z" fill="url(#cloth)" stroke="#b9ab93" stroke-width="4"/>
<path d="M540 150 Q600 250 660 150 L640 140 Q600 200 560 140Z" fill="#e9e1d2" stroke="#b9ab93" stroke-width="3"/>
<line x1="600" y1="215" x2="600" y2="805" stroke="#b9ab93" stroke-width="3"/>
<g fill="#a8997f"><circle cx="615" cy="290" r="7"/><circle cx="615" cy="400" r="7"/><circle cx="615" cy="510" r="7"/><circle cx="615" cy="620" r="7"/><circle cx="615" cy="730" r="7"/></g>
<path d="M420 330 L510 330 L510 400 L420 400Z" fill="none" stroke="#b9ab93" stroke-width="3"/></svg>`;

/** A browser context of one size, with the product photo served (and JavaScript on unless said otherwise). */
async function contextOf(
  viewport: { width: number; height: number },
  javaScriptEnabled = true,
): Promise<BrowserContext> {
  const phone = viewport.width < 600;
  const context = await browser.newContext({ viewport, javaScriptEnabled, isMobile: phone, hasTouch: phone });
  await context.route('https://cdn.example.test/**', (route) =>
    route.fulfill({ status: 200, contentType: 'image/svg+xml', body: SHIRT_SVG }),
  );
  return context;
}

/** Serious and critical axe-core findings on the page as it is now (WCAG 2.x A and AA rules). */
async function seriousViolations(page: Page): Promise<{ id: string; impact: string; targets: string[] }[]> {
  const { violations, passes } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  // The rules ran (contrast, names, labels): an empty list of findings is a result, not a skipped check.
  expect(passes.map((rule) => rule.id)).toEqual(expect.arrayContaining(['color-contrast', 'document-title']));
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact!,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
}

async function fitsTheScreen(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, screen: innerWidth }));
  expect(widths.content).toBeLessThanOrEqual(widths.screen);
}

/** Every image on the page has loaded (none is broken). */
async function imagesLoaded(page: Page): Promise<number> {
  await page.waitForLoadState('load');
  const images = await page.locator('main img').evaluateAll((nodes) =>
    nodes.map((node) => {
      const img = node as HTMLImageElement;
      return { src: img.currentSrc, loaded: img.complete && img.naturalWidth > 0 };
    }),
  );
  for (const image of images) expect(image).toEqual({ src: image.src, loaded: true });
  return images.length;
}

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
  // The brand's own words, contact and FAQ, as a brand that has filled them in.
  const scope = scopeOf(platform.container, tenant);
  await platform.container.services.brand.updateProfile(scope, {
    tagline: TAGLINE,
    description:
      'Linen House makes shirts, dresses and trousers from European flax. Every piece is cut and sewn in our Porto workshop.',
    contactEmail: 'hello@linenhouse.example',
  });
  await platform.container.services.brand.updateConcierge(scope, {
    enabled: true,
    faq: [{ question: 'How long does delivery take?', answer: 'We deliver across the EU within 3 to 5 working days.' }],
  });
  await waitFor(
    async () => ((await (await testFetch(`${site}/`)).text()).includes(TAGLINE) ? true : undefined),
    'the publication with the brand profile',
  );
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

test.each(SIZES)(
  'the home page at %s size: the brand, a hero with the product photo, cards, no serious axe finding',
  async (_, viewport, suffix) => {
    const context = await contextOf(viewport);
    const page = await context.newPage();
    const response = await page.goto(`${site}/`);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Linen House');
    await page.getByRole('heading', { level: 1, name: 'Linen House' }).waitFor();
    await expect(page.locator('.page-head').innerText()).resolves.toContain(TAGLINE);
    // The hero: the live campaign's product photo beside the visitor's variant and its call to action.
    const hero = page.locator('.feature');
    await expect(hero.locator('.eyebrow').innerText()).resolves.toMatch(/Linen summer/i);
    await expect(hero.locator('img').getAttribute('alt')).resolves.toBe(PRODUCT_TITLE);
    await expect(hero.locator('h2').innerText()).resolves.toMatch(/Stay cool|Feel light/);
    await hero.locator('[data-cp-cta]').waitFor();
    // Campaigns and products as cards that link to their pages.
    await expect(
      page.locator('.card h3 a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    ).resolves.toEqual([campaignPath, `/products/${seeded.productId}`]);
    expect(await imagesLoaded(page)).toBeGreaterThanOrEqual(3);
    await fitsTheScreen(page);
    await screenshot(page, `brand-site-home${suffix}`);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  },
);

test.each(SIZES)(
  'the campaign page at %s size: the product photo, the variant, a clear call to action',
  async (_, viewport, suffix) => {
    const context = await contextOf(viewport);
    const page = await context.newPage();
    expect((await page.goto(`${site}${campaignPath}`))?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Linen summer' }).waitFor();
    const head = page.locator('.page-head');
    await expect(head.locator('.head-media img').getAttribute('alt')).resolves.toBe(PRODUCT_TITLE);
    await expect(head.locator('h2.cp-headline').innerText()).resolves.toMatch(/Stay cool|Feel light/);
    const cta = head.locator('[data-cp-cta]');
    await expect(cta.innerText()).resolves.toMatch(/Shop now|See more/);
    // The call to action is the most visible thing in the head: a button-sized target above the fold.
    const box = (await cta.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    if (viewport === DESKTOP) expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    await imagesLoaded(page);
    await fitsTheScreen(page);
    await screenshot(page, `brand-site-campaign${suffix}`);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  },
);

test.each(SIZES)('the product page at %s size: photo, price and facts', async (_, viewport, suffix) => {
  const context = await contextOf(viewport);
  const page = await context.newPage();
  expect((await page.goto(`${site}/products/${seeded.productId}`))?.status()).toBe(200);
  await page.getByRole('heading', { level: 1, name: PRODUCT_TITLE }).waitFor();
  await expect(page.locator('.facts .price').innerText()).resolves.toBe('€49.50');
  await expect(page.locator('.page-head').innerText()).resolves.toContain('Breathable linen.');
  await expect(page.locator('.head-media img').getAttribute('src')).resolves.toBe('https://cdn.example.test/shirt.jpg');
  await page
    .getByRole('link', { name: /Linen summer/ })
    .first()
    .waitFor();
  await imagesLoaded(page);
  await fitsTheScreen(page);
  await screenshot(page, `brand-site-product${suffix}`);
  expect(await seriousViolations(page)).toEqual([]);
  await context.close();
});

test('a missing page is a page of the site: 404, the brand, what was asked for and the ways on', async () => {
  for (const [, viewport, suffix] of SIZES) {
    const context = await contextOf(viewport);
    const page = await context.newPage();
    const response = await page.goto(`${site}/campaigns/gone-for-good`);
    expect(response?.status()).toBe(404);
    expect(response?.headers()['cache-control']).toBe('no-store');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await expect(page.locator('main').innerText()).resolves.toContain(
      'There is no page at /campaigns/gone-for-good on this site.',
    );
    await expect(page.title()).resolves.toContain('Page not found');
    await fitsTheScreen(page);
    await imagesLoaded(page);
    await screenshot(page, `brand-site-404${suffix}`);
    expect(await seriousViolations(page)).toEqual([]);
    // The site's own header and the ways on: a live campaign, home, all campaigns.
    await page.getByRole('link', { name: 'Linen summer' }).first().waitFor();
    await page.getByRole('link', { name: 'All campaigns' }).click();
    await page.waitForURL(`${site}/campaigns`);
    await context.close();
  }
});

test.each(SIZES)(
  'the ask box works without JavaScript at %s size: a form post gets an answer page',
  async (_, viewport, suffix) => {
    const context = await contextOf(viewport, false);
    const page = await context.newPage();
    await page.goto(`${site}/`);
    // The enhancement script is on the page, but does not run: the plain form is all there is.
    await page.getByLabel('Your question').fill('How much is the Linen linen shirt?');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${site}/ask` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Ask', exact: true }).click(),
    ]);
    expect(response.request().headers()['content-type']).toBe('application/x-www-form-urlencoded');
    expect(response.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Here is what we found' }).waitFor();
    const answer = page.locator('.page-head .answer');
    await expect(answer.innerText()).resolves.toContain('€49.50');
    await fitsTheScreen(page);
    await screenshot(page, `brand-site-ask-nojs${suffix}`);
    // The citation leads to the product's page.
    await answer.locator('a.cite').first().click();
    await page.waitForURL(`${site}/products/${seeded.productId}`);
    // An empty question: a page that says what to do, with the box to try again.
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'What would you like to know?' }).waitFor();
    await expect(page.locator('main').innerText()).resolves.toContain('Type your question in the box below');
    await context.close();
    // axe runs its checks as script, which this context does not allow: the same pages are checked in one that
    // does, reached by the form's plain submit (which skips the enhancement's submit handler).
    const checking = await contextOf(viewport);
    const checked = await checking.newPage();
    const asked: [string, string][] = [
      ['How much is the Linen linen shirt?', 'Here is what we found'],
      ['', 'What would you like to know?'],
    ];
    for (const [question, title] of asked) {
      await checked.goto(`${site}/`);
      await Promise.all([
        checked.waitForURL(`${site}/ask`),
        checked.evaluate((text) => {
          const form = document.querySelector<HTMLFormElement>('form.ask-form')!;
          form.querySelector<HTMLInputElement>('input[name="query"]')!.value = text;
          HTMLFormElement.prototype.submit.call(form);
        }, question),
      ]);
      await checked.getByRole('heading', { level: 1, name: title }).waitFor();
      expect(await seriousViolations(checked)).toEqual([]);
    }
    await checking.close();
  },
);

test.each(SIZES)(
  'the ask box with JavaScript at %s size: answered in place, in the live region',
  async (_, viewport, suffix) => {
    const context = await contextOf(viewport);
    const page = await context.newPage();
    await page.goto(`${site}${campaignPath}`);
    const before = page.url();
    const region = page.locator('[data-cp-answer]');
    await expect(region.getAttribute('aria-live')).resolves.toBe('polite');
    // An empty box is caught in place, without a request.
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(region.innerText()).resolves.toContain('Type your question in the box first');
    await page.getByLabel('Your question').fill('How long does delivery take?');
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url() === `${site}/ask` && r.method() === 'POST'),
      page.getByRole('button', { name: 'Ask', exact: true }).click(),
    ]);
    expect(request.headers()['content-type']).toBe('application/json');
    expect(JSON.parse(request.postData()!)).toMatchObject({ query: 'How long does delivery take?' });
    await page.waitForFunction(() => document.querySelector('[data-cp-answer]')?.textContent?.includes('working days'));
    expect(page.url()).toBe(before);
    await expect(region.innerText()).resolves.toContain('3 to 5 working days');
    await region.locator('a.cite').first().waitFor();
    await region.scrollIntoViewIfNeeded();
    await fitsTheScreen(page);
    await screenshot(page, `brand-site-ask-js${suffix}`);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  },
);

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
