/**
 * The Campaigns console as people use it, in headless Chromium against a real platform with its worker:
 *
 * - an editor (a member added with the editor role) starts a generation from a brief, sees the credit quote and
 *   confirms it, watches the generation complete on the campaign page, edits a variant, publishes the campaign
 *   with the keyboard only (Tab and Enter), places it on a brand-page zone, and the brand site's page shows the
 *   edited variant;
 * - an editor adds a variant by hand, pauses it, changes its weight and makes it the control, deletes it after the
 *   confirmation says what changes publicly, and changes the campaign's public summary and schedule (a schedule
 *   that ends before it starts is refused at the field, the input kept);
 * - a viewer sees the list and the campaign and is offered no form that changes anything;
 * - the list, campaign, quote and confirmation pages have no serious or critical axe-core finding, and fit a
 *   phone screen; screenshots at desktop and phone width go to test-artifacts/console-campaigns-*.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { fitsTheScreen, launchBrowser, screenshot, seriousViolations } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { eventually, pollUntil } from '../support/poll.ts';
import { scopeOf } from '../support/seed.ts';

let platform: TestPlatform;
let browser: Browser;
let tenant: Tenant;
let site: string;
let zoneName: string;
let zoneId: string;

const PASSWORD = 'a long enough password';
const EDITOR = 'eddie.editor@example.test';
const VIEWER = 'vera.viewer@example.test';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const EDITED_HEADLINE = 'Linen that breathes with you';
const PAGE_PATH = '/summer';

const campaignsUrl = () => `${platform.urls.platform}/w/${tenant.workspaceId}/campaigns`;

/** A page passes the checks every console page must: axe, no sideways scrolling; then its screenshot. */
async function checkAndShoot(page: Page, name: string): Promise<void> {
  expect({ name, violations: await seriousViolations(page) }).toEqual({ name, violations: [] });
  await fitsTheScreen(page);
  await screenshot(page, `console-campaigns-${name}`);
}

async function signIn(context: BrowserContext, email: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${platform.urls.platform}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
  return page;
}

/** Presses Tab until the focused element is the link or button named `name`, then Enter (no mouse). */
async function tabToAndPress(page: Page, name: string | RegExp): Promise<void> {
  for (let step = 0; step < 80; step++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      return element ? { tag: element.tagName, text: element.innerText?.trim() ?? '' } : null;
    });
    if (
      focused &&
      (focused.tag === 'A' || focused.tag === 'BUTTON') &&
      (typeof name === 'string' ? focused.text === name : name.test(focused.text))
    ) {
      await page.keyboard.press('Enter');
      return;
    }
  }
  throw new Error(`Tab never reached ${String(name)}`);
}

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'console-campaigns-e2e' });
  tenant = await createTenant(platform.container, { name: 'Linen Works', credits: 1000 });
  const { workspaces, surfaces } = platform.container.services;
  const em = acrossWorkspaces(platform.container.orm.em);
  // The owner adds an editor and a viewer, as the Members page does.
  for (const [email, role] of [
    [EDITOR, 'editor'],
    [VIEWER, 'viewer'],
  ] as const) {
    await workspaces.createUser(em, {
      email,
      name: role === 'editor' ? 'Eddie Editor' : 'Vera Viewer',
      password: PASSWORD,
    });
    await workspaces.setMember(em, tenant.workspaceId, { email, role });
  }
  // A brand page with a hero zone (the library pages that create them are another page group's).
  const scope = scopeOf(platform.container, tenant);
  const surface = await surfaces.createSurface(scope, { name: 'Summer page', kind: 'brand_page', path: PAGE_PATH });
  const zone = await surfaces.createZone(scope, { surfaceId: surface.id, name: 'Hero', key: 'hero', kind: 'hero' });
  zoneName = zone.name;
  zoneId = zone.id;
  const workspace = await em.findOneOrFail(Workspace, { id: tenant.workspaceId });
  site = brandSiteUrl(platform.config, workspace.slug);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await closeTestFetch();
});

let campaignUrl: string;

it('an editor generates a campaign from a brief, edits, publishes with the keyboard and places it; the brand page shows it', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await signIn(context, EDITOR);

  // The empty list says what to do.
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}`);
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Campaigns' }).click();
  await page.getByRole('heading', { name: 'No campaigns yet' }).waitFor();
  await checkAndShoot(page, 'empty');

  // The brief, then the quote: nothing is spent until the price is confirmed.
  await page.getByRole('link', { name: 'New campaign from a brief' }).first().click();
  await page
    .getByLabel('What should the campaign achieve, and for whom?')
    .fill('Sell our linen shirts to people planning a summer holiday by the sea');
  await page.getByLabel('Campaign name (optional)').fill('Summer linen');
  await page.getByLabel('How many variants (1–5)').fill('2');
  await page.getByLabel(/Also create one AI image per variant/).check();
  await checkAndShoot(page, 'brief');
  await page.getByRole('button', { name: 'Show the price' }).click();
  await page.getByRole('heading', { name: 'Confirm the price' }).waitFor();
  const before = await platform.container.services.credits.balance(
    acrossWorkspaces(platform.container.orm.em),
    tenant.workspaceId,
  );
  expect(before).toMatchObject({ available: 1000, spent: 0, held: 0 });
  await expect(page.locator('main').innerText()).resolves.toContain('The workspace has 1,000 credits available');
  await checkAndShoot(page, 'quote');
  const confirm = page.getByRole('button', { name: /^Confirm and spend \d+ credits$/ });
  const price = Number(/(\d+) credits/.exec((await confirm.innerText()).trim())![1]);
  await confirm.click();

  // The campaign page follows the generation until it is complete (the page refreshes itself).
  await page.waitForURL(/\/campaigns\/cmp_[0-9A-Z]+\?done=started$/);
  campaignUrl = page.url().replace(/\?.*$/, '');
  await page.getByRole('heading', { name: /Summer linen/ }).waitFor();
  await screenshot(page, 'console-campaigns-generating');
  const campaignId = /cmp_[0-9A-Z]+/.exec(campaignUrl)![0];
  const job = await pollUntil(
    async () => {
      const [row] = await platform.container.orm.em
        .getConnection()
        .execute<{ status: string; progress: unknown; error: unknown }[]>(
          'select status, progress, error from jobs where subject_id = ? order by created_at desc limit 1',
          [campaignId],
        );
      return row!;
    },
    (row) => !['queued', 'running'].includes(row.status),
    { timeoutMs: 240_000, intervalMs: 500, timeoutMessage: (row) => `generation stuck: ${JSON.stringify(row)}` },
  );
  expect(job).toMatchObject({ status: 'succeeded', error: null });
  // The page reloads itself every 3 s while the generation runs; it then says how it ended.
  await page.waitForFunction(() => /Finished .+: 2 variants written/.test(document.body.innerText), undefined, {
    timeout: 15_000,
  });
  await expect(page.locator('.variants > li').count()).resolves.toBe(2);
  const after = await platform.container.services.credits.balance(
    acrossWorkspaces(platform.container.orm.em),
    tenant.workspaceId,
  );
  expect(after.spent).toBe(price);
  // The generated images are the platform's own media, and load under the page's CSP.
  await page.waitForLoadState('load');
  const images = await page
    .locator('.cp-preview img')
    .evaluateAll((nodes) =>
      nodes.map((node) => (node as HTMLImageElement).complete && (node as HTMLImageElement).naturalWidth > 0),
    );
  expect(images).toEqual([true, true]);
  await checkAndShoot(page, 'detail');

  // Edit the first variant.
  const firstEdit = page.getByRole('link', { name: /^Edit / }).first();
  const variantName = (await firstEdit.innerText()).replace(/^Edit /, '');
  await firstEdit.click();
  await page.getByLabel('Headline').fill(EDITED_HEADLINE);
  await checkAndShoot(page, 'edit');
  await page.getByRole('button', { name: `Save ${variantName}` }).click();
  await page.getByText('Variant saved.').waitFor();
  await expect(page.locator('.cp-headline').allInnerTexts()).resolves.toContain(EDITED_HEADLINE);

  // Publishing with the keyboard only: Tab to the link, Enter; Tab to the button, Enter.
  await page.goto(campaignUrl);
  await tabToAndPress(page, 'Publish Summer linen…');
  await page.getByRole('heading', { name: 'Publish Summer linen' }).waitFor();
  await expect(page.locator('.changes').innerText()).resolves.toContain(`${site}/campaigns/`);
  await checkAndShoot(page, 'confirm-publish');
  await tabToAndPress(page, 'Publish Summer linen');
  await page.getByText('Published. The brand site is being republished').waitFor();

  // Place it on the hero zone of the summer page: the confirmation names the page and the zone.
  await page.getByRole('link', { name: 'Place on a brand-site zone…' }).click();
  await page.getByLabel('Zone').selectOption({ label: `${zoneName} on Summer page (${site}${PAGE_PATH})` });
  await page.getByRole('button', { name: 'Show what changes' }).click();
  await expect(page.locator('.changes').innerText()).resolves.toContain(
    `will be shown on ${site}${PAGE_PATH} in zone ${zoneName}`,
  );
  await checkAndShoot(page, 'confirm-deploy');
  await page.getByRole('button', { name: `Place on ${zoneName}` }).click();
  await page.getByText('Placed on the zone.').waitFor();
  await expect(page.locator('main').innerText()).resolves.toContain(`${site}${PAGE_PATH}`);

  // The brand page shows the campaign: each new visitor is given one of the two variants (a variant whose image
  // carries its headline does not print it again), and the edited one is among them with its new headline.
  await eventually(
    async () => {
      for (let visitor = 0; visitor < 24; visitor++) {
        const text = await (await testFetch(`${site}${PAGE_PATH}`)).text();
        if (text.includes(`class="cp-headline">${EDITED_HEADLINE}<`)) return true;
      }
      return undefined;
    },
    'the brand page with the edited variant',
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  // And a visitor's browser shows it: new visitors until one is given the edited variant.
  for (let attempt = 0; attempt < 20; attempt++) {
    const visitor = await browser.newContext({ viewport: DESKTOP });
    const brandPage = await visitor.newPage();
    await brandPage.goto(`${site}${PAGE_PATH}`);
    if ((await brandPage.locator('.cp-headline').allInnerTexts()).includes(EDITED_HEADLINE)) {
      await screenshot(brandPage, 'console-campaigns-brand-page');
      await visitor.close();
      break;
    }
    await visitor.close();
    if (attempt === 19) throw new Error('no visitor was shown the edited variant');
  }

  // The list shows the campaign with its status, variants and placement.
  await page.goto(campaignsUrl());
  const row = page.locator('table.stack tbody tr').first();
  await expect(row.innerText()).resolves.toMatch(
    /Summer linen[\s\S]*published[\s\S]*2 variants[\s\S]*1 live placement/,
  );
  await checkAndShoot(page, 'list');

  // The same pages at phone width.
  const phone = await browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    storageState: await context.storageState(),
  });
  const small = await phone.newPage();
  await small.goto(campaignsUrl());
  await checkAndShoot(small, 'list-phone');
  await small.goto(campaignUrl);
  await checkAndShoot(small, 'detail-phone');
  await small.goto(`${campaignUrl}/archive`);
  await checkAndShoot(small, 'confirm-archive-phone');
  await small.goto(`${campaignsUrl()}/new`);
  await checkAndShoot(small, 'brief-phone');
  await phone.close();
  await context.close();
}, 300_000);

it('a viewer sees the campaigns and is offered nothing that changes them', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await signIn(context, VIEWER);
  for (const [url, name] of [
    [campaignsUrl(), 'viewer-list'],
    [campaignUrl, 'viewer-detail'],
    [`${campaignUrl}/deploy?zoneId=${zoneId}`, 'viewer-deploy'],
  ] as const) {
    const response = await page.goto(url);
    expect(response!.status()).toBe(200);
    const postForms = await page
      .locator('form[method="post"]')
      .evaluateAll((forms) => forms.map((form) => form.getAttribute('action')));
    expect({ url, postForms }).toEqual({ url, postForms: ['/signout'] });
    await checkAndShoot(page, name);
  }
  await expect(page.locator('main').innerText()).resolves.toContain('Your role (viewer) can see this but not do it.');
  await page.goto(campaignUrl);
  await expect(page.locator('.cp-headline').allInnerTexts()).resolves.toContain(EDITED_HEADLINE);
  expect(
    await page
      .getByRole('link', { name: /^Edit |Publish|Archive|Place on|Add a variant|^Delete |weight or control|^Change / })
      .count(),
  ).toBe(0);
  const brief = await page.goto(`${campaignsUrl()}/new`);
  expect(brief!.status()).toBe(403);
  await context.close();
});

it('an editor adds a variant, pauses it, weighs it, makes it the control, deletes it, and changes the campaign', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await signIn(context, EDITOR);
  const main = page.locator('main');
  await page.goto(campaignUrl);

  // A variant written by hand.
  await page.getByRole('link', { name: 'Add a variant…' }).click();
  await page.getByLabel('Headline').fill('Cool linen for hot days');
  await page.getByLabel('Text', { exact: true }).fill('Shirts that let the sea breeze through, washed soft.');
  await page.getByLabel('Button text').fill('Shop linen');
  await page.getByLabel('Label (optional)').fill('Hand-written');
  await checkAndShoot(page, 'variant-new');
  await page.getByRole('button', { name: 'Add the variant' }).click();
  await page.getByText('Variant added.').waitFor();
  await expect(page.locator('.variants > li').count()).resolves.toBe(3);
  await expect(page.locator('.cp-headline').allInnerTexts()).resolves.toContain('Cool linen for hot days');

  // Its traffic: paused, weight 30, the control.
  await page.getByRole('link', { name: 'Pause, weight or control of Hand-written…' }).click();
  await page.getByRole('radio', { name: /^Paused: no visitor/ }).check();
  await page.getByLabel('Weight (0–100)').fill('30');
  await page.getByRole('checkbox', { name: /^Make Hand-written the control/ }).check();
  await checkAndShoot(page, 'variant-traffic');
  await page.getByRole('button', { name: 'Save traffic for Hand-written' }).click();
  await page.getByText('Traffic saved.').waitFor();
  const card = page.locator('.variants > li', { hasText: 'Hand-written' });
  await expect(card.innerText()).resolves.toMatch(
    /Hand-written \(control\)[\s\S]*paused[\s\S]*no visitors \(paused\), weight 30/,
  );

  // Deleting it: the confirmation says nothing visible changes (it is paused) and who becomes the control.
  await page.getByRole('link', { name: 'Delete Hand-written…' }).click();
  const changes = page.locator('.changes');
  await expect(changes.innerText()).resolves.toContain('Hand-written is paused, so no visitor sees it now');
  await expect(changes.innerText()).resolves.toMatch(
    /Hand-written is the control of the A\/B comparison; .+ becomes the control/,
  );
  await checkAndShoot(page, 'confirm-delete-variant');
  await page.getByRole('button', { name: 'Delete Hand-written' }).click();
  await page.getByText('Variant deleted.').waitFor();
  await expect(page.locator('.variants > li').count()).resolves.toBe(2);
  await expect(page.locator('.variants').innerText()).resolves.toContain('(control)');

  // The campaign's public summary and schedule; an end before the start is refused at the field, input kept.
  await page.getByRole('link', { name: 'Change name, summary and schedule…' }).click();
  await page.getByLabel('Public summary').fill('Linen shirts for a summer by the sea.');
  await page.getByLabel('Starts').fill('2026-12-01T09:00');
  await page.getByLabel('Ends').fill('2026-11-01T09:00');
  await page.getByRole('button', { name: 'Save Summer linen' }).click();
  await main.getByText('Not saved: the end must be after the start (endsAt must be after startsAt).').waitFor();
  await expect(page.getByLabel('Public summary').inputValue()).resolves.toBe('Linen shirts for a summer by the sea.');
  await expect(page.getByLabel('Ends').getAttribute('aria-invalid')).resolves.toBe('true');
  await checkAndShoot(page, 'campaign-edit-refused');
  await page.getByLabel('Ends').fill('2027-01-31T18:00');
  await page.getByRole('button', { name: 'Save Summer linen' }).click();
  await page.getByText('Campaign saved.').waitFor();
  await expect(main.innerText()).resolves.toContain('2026-12-01 09:00 UTC to 2027-01-31 18:00 UTC');
  await expect(main.innerText()).resolves.toContain('Linen shirts for a summer by the sea.');

  // The same forms at phone width.
  const phone = await browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    storageState: await context.storageState(),
  });
  const small = await phone.newPage();
  await small.goto(campaignUrl);
  await checkAndShoot(small, 'detail-after-phone');
  const variantId = /variant-(var_[0-9A-Z]+)/.exec(
    (await small.locator('.variants > li').first().getAttribute('id')) ?? '',
  )![1];
  for (const [path, name] of [
    ['variants/new', 'variant-new-phone'],
    [`variants/${variantId}/traffic`, 'variant-traffic-phone'],
    [`variants/${variantId}/delete`, 'confirm-delete-variant-phone'],
    ['edit', 'campaign-edit-phone'],
  ] as const) {
    await small.goto(`${campaignUrl}/${path}`);
    await checkAndShoot(small, name);
  }
  await phone.close();
  await context.close();
}, 120_000);
