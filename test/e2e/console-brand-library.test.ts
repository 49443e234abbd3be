/**
 * The brand kit and the library (products, media, surfaces) as people use them, in headless Chromium with a
 * real worker (a brand save republishes the brand site the page previews): an editor edits the kit and sees a
 * contrast warning for a poor pair, creates and edits a product, creates a surface and a zone; a viewer sees
 * every page with no action form. Each page at desktop and phone width: screenshots under test-artifacts/, no
 * sideways scrolling, no serious or critical axe-core finding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { fitsTheScreen, launchBrowser, screenshot, seriousViolations } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';

const PASSWORD = 'console brand password 1';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SIZES = [
  ['desktop', DESKTOP, ''],
  ['phone', PHONE, '-phone'],
] as const;

/** A 1×1 PNG: the generated image the media page shows as a thumbnail. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z/C/HgAGgwJ/lK3Q6wAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A shop on this machine: a product page with JSON-LD and a CSV feed. The platform runs with
 * `SSRF_ALLOW_PRIVATE_HOSTS=localhost`, so the name `localhost` may reach it (as in product-import.test.ts).
 */
const SHOP: Record<string, { type: string; body: string }> = {
  '/tea.html': {
    type: 'text/html; charset=utf-8',
    body:
      '<!doctype html><html><head><title>Sencha | Tea shop</title><script type="application/ld+json">' +
      JSON.stringify({
        '@type': 'Product',
        name: 'Sencha green tea',
        description: 'Steamed Japanese green tea.',
        offers: { price: '12.50', priceCurrency: 'EUR' },
      }) +
      '</script></head><body><h1>Sencha</h1></body></html>',
  },
  '/feed.csv': { type: 'text/csv', body: 'title,price,currency\nGenmaicha tin,9.00,EUR\nHojicha tin,11.00,EUR\n' },
};
const shops: http.Server[] = [];
let shopPort = 0;

async function listenShop(host: string, port: number): Promise<number> {
  const server = http.createServer((req, res) => {
    const found = SHOP[new URL(req.url ?? '/', 'http://localhost').pathname];
    res.writeHead(found ? 200 : 404, { 'content-type': found?.type ?? 'text/plain' });
    res.end(found?.body ?? 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  shops.push(server);
  return (server.address() as AddressInfo).port;
}

let platform: TestPlatform;
let browser: Browser;
let tenant: Tenant;
let seeded: SeededWorkspace;
const emails = { editor: '', viewer: '' };

beforeAll(async () => {
  shopPort = await listenShop('127.0.0.1', 0);
  // `localhost` may resolve to ::1 first: the shop answers there too.
  await listenShop('::1', shopPort).catch(() => undefined);
  platform = await startTestPlatform({
    worker: true,
    label: 'console-brand-e2e',
    env: { SSRF_ALLOW_PRIVATE_HOSTS: 'localhost' },
  });
  tenant = await createTenant(platform.container, { name: 'Linen House', password: PASSWORD });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  const { workspaces, media, campaigns } = platform.container.services;
  const em = acrossWorkspaces(platform.container.orm.em);
  for (const role of ['editor', 'viewer'] as const) {
    emails[role] = `${role}@linenhouse.example`;
    await workspaces.createUser(em, { email: emails[role], name: `Lin the ${role}`, password: PASSWORD });
    await workspaces.setMember(em, tenant.workspaceId, { email: emails[role], role });
  }
  // Generated media: an image in the platform's store on a variant, and a finished still render.
  const imageKey = `${tenant.workspaceId}/generated/linen-hero.png`;
  await media.put(imageKey, PIXEL_PNG, 'image/png');
  const scope = scopeOf(platform.container, tenant);
  await campaigns.updateVariant(scope, seeded.variantId, {
    imageRefs: [{ url: media.urlFor(imageKey), alt: 'Linen shirt drying on a line' }],
  });
  const stillKey = `${tenant.workspaceId}/renders/linen-still.png`;
  await media.put(stillKey, PIXEL_PNG, 'image/png');
  const job = await em.findOneOrFail(Job, { id: seeded.jobId });
  job.result = {
    output: {
      key: stillKey,
      url: media.urlFor(stillKey),
      mimeType: 'image/png',
      bytes: PIXEL_PNG.length,
      sha256: 'test',
      width: 1200,
      height: 630,
      durationSeconds: null,
    },
  };
  await em.flush();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  for (const server of shops) server.close();
  await closeTestFetch();
});

const w = () => `${platform.urls.platform}/w/${tenant.workspaceId}`;

async function signedIn(
  role: 'editor' | 'viewer',
  viewport = DESKTOP,
): Promise<{ context: BrowserContext; page: Page }> {
  const phone = viewport.width < 600;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  await page.goto(`${platform.urls.platform}/signin`);
  await page.getByLabel('Email').fill(emails[role]);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/workspaces|\/w\//);
  return { context, page };
}

/** A page is readable and accessible at this size, and its screenshot is kept. */
// The brand-site preview frame runs no script (sandboxed), so axe cannot run inside it; the brand site's own
// pages are checked by brand-site-browser.test.ts. The frame element itself (its title) is checked here.
async function check(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('load');
  await fitsTheScreen(page);
  expect(await seriousViolations(page, { mustRun: ['document-title'], exclude: 'iframe.preview-frame' })).toEqual([]);
  await screenshot(page, name);
}

it('an editor edits the brand kit, sees a contrast warning for a poor pair, and the preview shows the site', async () => {
  const { context, page } = await signedIn('editor');
  const response = await page.goto(`${w()}/brand`);
  // The preview may frame the brand site, and only that: the rest of the policy is the dashboard's.
  const policy = response!.headers()['content-security-policy']!;
  expect(policy).toMatch(/frame-src http:\/\/[a-z0-9-]+\.[^ ;]+:\d+/);
  expect(policy).toContain("default-src 'none'");
  expect(policy).not.toContain('img-src');

  await page.getByRole('heading', { name: 'Brand kit of Linen House' }).waitFor();
  await page.getByLabel('Primary (links, headings, buttons)').fill('#f5e663');
  await page.getByLabel('Heading font').fill('Georgia, serif');
  await page.getByLabel('Brand rules').fill('Never promise delivery dates');
  await page.getByRole('button', { name: 'Save colours, fonts and logo' }).click();
  await page.getByText('Saved the colours, fonts, logo and rules.').waitFor();
  const warning = page.locator('.notice.warn', { hasText: 'Contrast warning' });
  await warning.waitFor();
  expect(await warning.textContent()).toContain('Links and headings (primary) on the page background');
  expect(await page.getByText('Too low (needs 4.5:1)').count()).toBe(1);

  await page.getByLabel('Tagline').fill('Linen shirts for hot summers');
  await page.getByRole('button', { name: 'Save public profile' }).click();
  await page.getByText('Saved the public profile.').waitFor();

  await page.getByRole('textbox', { name: 'Banned phrases' }).fill('cheap\nbest ever');
  await page.getByRole('button', { name: 'Save voice and banned phrases' }).click();
  await page.getByText('Saved the voice and banned phrases.').waitFor();

  await page.getByLabel('Question 1', { exact: true }).fill('Do you ship abroad?');
  await page.getByLabel('Answer 1', { exact: true }).fill('Across the EU, in 3 to 5 working days.');
  await page.getByRole('button', { name: 'Save concierge and FAQ' }).click();
  await page.getByText('Saved the concierge settings and FAQ.').waitFor();
  expect(await page.getByLabel('Question 1', { exact: true }).inputValue()).toBe('Do you ship abroad?');

  // The republished site shows the new tagline in the preview frame (reloading until the worker published it).
  const deadline = Date.now() + 30_000;
  let framed = '';
  while (Date.now() < deadline) {
    await page.goto(`${w()}/brand`);
    const frame = page.frameLocator('iframe[title^="Preview of the"]');
    framed =
      (await frame
        .locator('body')
        .textContent({ timeout: 5000 })
        .catch(() => '')) ?? '';
    if (framed.includes('Linen shirts for hot summers')) break;
    await page.waitForTimeout(500);
  }
  expect(framed).toContain('Linen shirts for hot summers');

  await check(page, 'console-brand-kit-editor');
  for (const [, viewport, suffix] of SIZES.slice(1)) {
    await page.setViewportSize(viewport);
    await page.goto(`${w()}/brand`);
    await check(page, `console-brand-kit-editor${suffix}`);
  }
  await context.close();
});

it('an editor creates and edits a product, and creates a surface and a zone', async () => {
  const { context, page } = await signedIn('editor');
  await page.goto(`${w()}/products`);
  await page.getByLabel('Title', { exact: true }).fill('Linen apron');
  await page.getByLabel('Price').fill('24.50');
  await page.getByLabel('Currency').fill('EUR');
  await page.getByLabel('Description').fill('Heavy linen, with a pocket.');
  await page.getByRole('button', { name: 'Add product' }).click();
  await page.getByText('Created the product “Linen apron”.').waitFor();
  await check(page, 'console-products-editor');

  await page.getByRole('link', { name: 'Linen apron' }).click();
  await page.getByRole('heading', { name: 'Linen apron', level: 1 }).waitFor();
  await page.getByLabel('Title', { exact: true }).fill('Linen apron, natural');
  await page.getByRole('button', { name: 'Save product' }).click();
  await page.getByText('Saved the product “Linen apron, natural”.').waitFor();
  expect(await page.locator('dl.facts').textContent()).toContain('24.50');
  await check(page, 'console-product-editor');

  await page.goto(`${w()}/surfaces`);
  await page.getByLabel('Name', { exact: true }).first().fill('Summer landing');
  await page.getByLabel('Kind', { exact: true }).first().selectOption('brand_page');
  await page.getByLabel('Page path (brand-site pages)').fill('/summer');
  await page.getByRole('button', { name: 'Create surface' }).click();
  await page.getByText('Created the surface “Summer landing”.').waitFor();

  await page.getByLabel('On the surface').selectOption({ label: 'Summer landing' });
  await page.locator('#zone-name').fill('Summer hero');
  await page.getByLabel('Key').fill('hero');
  await page.locator('#zone-kind').selectOption('hero');
  await page.getByLabel('Longest headline').fill('60');
  await page.getByRole('button', { name: 'Create zone' }).click();
  await page.getByText('Created the zone “Summer hero” (hero).').waitFor();
  const summer = page.locator('section', { has: page.getByRole('heading', { name: 'Summer landing' }) });
  expect(await summer.textContent()).toContain('headline ≤ 60 characters');
  await check(page, 'console-surfaces-editor');
  await context.close();
});

it('an editor imports a product from its page, and starts a CSV import the page links to on the jobs page', async () => {
  const { context, page } = await signedIn('editor');
  await page.goto(`${w()}/products`);
  await page.getByLabel('Public address of the page or CSV file').fill(`http://localhost:${shopPort}/tea.html`);
  await page.getByRole('button', { name: 'Import product' }).click();
  await page.getByText('Imported the product “Sencha green tea”.').waitFor();
  await page.getByRole('link', { name: 'Sencha green tea' }).first().click();
  await page.getByRole('heading', { name: 'Sencha green tea', level: 1 }).waitFor();
  expect(await page.locator('main').textContent()).toContain('read from a third-party page');
  await check(page, 'console-product-imported');

  await page.goto(`${w()}/products`);
  await page.getByLabel('Public address of the page or CSV file').fill(`http://localhost:${shopPort}/feed.csv`);
  await page.getByLabel('What the address is').selectOption('csv');
  await page.getByRole('button', { name: 'Import product' }).click();
  await page.getByText('The CSV import started; it runs in the background.').waitFor();
  const jobLink = page.getByRole('link', { name: 'Follow the import on the jobs page' });
  expect(await jobLink.getAttribute('href')).toMatch(new RegExp(`^/w/${tenant.workspaceId}/jobs/job_\\w+$`));
  await check(page, 'console-products-import-started');

  // The worker runs the import: its products appear in the list.
  const deadline = Date.now() + 30_000;
  let listed = '';
  while (Date.now() < deadline && !listed.includes('Hojicha tin')) {
    await page.waitForTimeout(500);
    await page.goto(`${w()}/products?q=tin`);
    listed = (await page.locator('main').textContent()) ?? '';
  }
  expect(listed).toContain('Genmaicha tin');
  expect(listed).toContain('Hojicha tin');
  await context.close();
});

describe.each(SIZES)('a viewer at %s size', (_, viewport, suffix) => {
  it('sees the brand kit, products, a product, media and surfaces with no action form', async () => {
    const { context, page } = await signedIn('viewer', viewport);
    const pages: [string, string, string][] = [
      ['/brand', 'Brand kit of Linen House', 'console-brand-kit-viewer'],
      ['/products', 'Products of Linen House', 'console-products-viewer'],
      [`/products/${seeded.productId}`, 'Linen linen shirt', 'console-product-viewer'],
      ['/media', 'Media of Linen House', 'console-media-viewer'],
      ['/surfaces', 'Surfaces of Linen House', 'console-surfaces-viewer'],
    ];
    for (const [path, heading, name] of pages) {
      const response = await page.goto(`${w()}${path}`);
      expect(response!.status()).toBe(200);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await page.locator('main form[method="post"]').count()).toBe(0);
      await check(page, `${name}${suffix}`);
      if (path === '/media') {
        // The thumbnails are the platform's own files, allowed by this page's img-src 'self' and loaded.
        expect(response!.headers()['content-security-policy']).toContain("img-src 'self'");
        const thumbs = await page
          .locator('img.thumb')
          .evaluateAll((nodes) =>
            nodes.map((node) => (node as HTMLImageElement).complete && (node as HTMLImageElement).naturalWidth > 0),
          );
        expect(thumbs).toEqual([true, true]);
        expect(await page.locator('main').textContent()).toContain('Linen summer');
      }
      if (path === '/surfaces') {
        const home = page.locator('section', { has: page.getByRole('heading', { name: 'Linen home' }) });
        expect(await home.textContent()).toContain('Linen summer');
      }
    }
    await context.close();
  });
});
