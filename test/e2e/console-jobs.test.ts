/**
 * The Jobs pages in headless Chromium on a real platform (PostgreSQL, Temporal, worker): an agent starts a
 * campaign generation and commissions a film; the owner watches the generation's progress and credits on the
 * Jobs page, opens the film waiting at its storyboard gate, looks at the storyboard, approves it there, and the
 * film goes on to render and waits at its final gate. Desktop (1280) and phone (390) widths, axe-core on each
 * page (no serious or critical finding), no sideways scrolling, screenshots in test-artifacts/.
 */
import type { Browser } from 'playwright-core';
import type { FilmView } from '../../src/domain/films/films.service.ts';
import { actors, workspaceScope } from '../../src/domain/shared/scope.ts';
import { fitsTheScreen, launchBrowser, screenshot, seriousViolations, signedInPage } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

const PASSWORD = 'a long enough password';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let platform: TestPlatform;
let tenant: Tenant;
let seeded: SeededWorkspace;
let browser: Browser;
let client: ConnectedClient;
let film: FilmView;
let generationCampaignId: string;

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content.map((c) => c.text).join(' ')}`);
  return result.structuredContent as Record<string, any>;
}

const ownerScope = () => workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.user(tenant.userId));
const filmNow = () => platform.container.services.films.get(ownerScope(), film.id);

const signedIn = (viewport: { width: number; height: number }) =>
  signedInPage(browser, platform.urls.platform, { email: tenant.email, password: PASSWORD }, viewport);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, label: 'console-jobs-e2e' });
  tenant = await createTenant(platform.container, { name: 'Linen Co', password: PASSWORD, credits: 1000 });
  seeded = await seedWorkspace(platform.container, tenant, 'Linen');
  browser = await launchBrowser();
  client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });

  // The owner's agent commissions a film (quote, then the confirmed call) and starts a generation.
  const { films } = platform.container.services;
  const request = {
    title: 'Linen in the heat',
    brief: 'A short film about wearing linen on the hottest day of summer.',
    campaignId: seeded.campaignId,
  };
  const quoted = await films.create(ownerScope(), request);
  if (quoted.status !== 'quote_required') throw new Error('expected a quote first');
  const created = await films.create(ownerScope(), { ...request, quoteId: quoted.quote.id });
  if (created.status !== 'done') throw new Error('expected the film to start');
  film = created.film;
}, 180_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await platform?.close();
  await closeTestFetch();
});

it('shows the generation with its progress and credits, at desktop and phone widths', async () => {
  const { context, page } = await signedIn(DESKTOP);
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/jobs`);
  await page.getByRole('heading', { name: 'Jobs and approvals' }).waitFor();
  // The agent starts the generation now, and the page is read again at once: it is caught at work.
  const start = {
    mode: 'start',
    intent: 'Launch linen shirts to city cyclists',
    name: 'Cycle in linen',
    productIds: [seeded.productId],
    variantCount: 2,
  };
  const quote = ok(await client.callTool('generate_campaign', start));
  const started = ok(await client.callTool('generate_campaign', { ...start, quoteId: quote.quote.id }));
  generationCampaignId = started.campaignId;
  const row = page.getByRole('row', { name: /Campaign generation: campaign “Cycle in linen”/ });
  await page.reload();
  await row.waitFor();
  const text = await row.innerText();
  expect(text).toMatch(/Running|Waiting to start/);
  await expect(row.getByRole('progressbar', { name: 'Progress of this job' }).count()).resolves.toBe(1);
  expect(text).toMatch(/16 reserved/);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'console-jobs-list');

  // Following progress live, the page reloads itself (no script) until the generation is done, then shows
  // what it spent.
  await expect(page.getByRole('link', { name: 'Follow progress live' }).count()).resolves.toBe(1);
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/jobs?live=1`);
  await page
    .getByRole('row', { name: /Campaign generation: campaign “Cycle in linen”/ })
    .filter({ hasText: 'Done' })
    .waitFor({ timeout: 120_000 });
  const doneRow = await page.getByRole('row', { name: /Campaign generation: campaign “Cycle in linen”/ }).innerText();
  expect(doneRow).toMatch(/16 credits spent/);
  expect(doneRow).toContain('API key “test key”');
  await screenshot(page, 'console-jobs-list-done');
  await context.close();

  const phone = await signedIn(PHONE);
  await phone.page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/jobs`);
  await phone.page.getByRole('heading', { name: 'Jobs and approvals' }).waitFor();
  await fitsTheScreen(phone.page);
  expect(await seriousViolations(phone.page)).toEqual([]);
  await screenshot(phone.page, 'console-jobs-list-phone');
  await phone.context.close();
  expect(generationCampaignId).toMatch(/^cmp_/);
});

it('lets the owner approve a film at its storyboard gate; the film renders and waits at its final gate', async () => {
  await pollUntil(filmNow, (f) => f.status === 'awaiting_storyboard_approval' && f.job?.status === 'input_required', {
    timeoutMs: 120_000,
    intervalMs: 250,
    timeoutMessage: (f) => `film stuck in ${f.status}`,
  });
  const { context, page } = await signedIn(DESKTOP);
  // The workspace's home says the film waits, and links to it.
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}`);
  await page
    .getByRole('region', { name: 'Waiting for a decision' })
    .getByRole('link', { name: 'Review film' })
    .waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'console-overview');
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/jobs`);
  await page.getByText('1 film waits for your decision').waitFor();
  await page
    .getByRole('link', { name: /“Linen in the heat”/ })
    .first()
    .click();
  await page.getByRole('heading', { name: 'Film “Linen in the heat”' }).waitFor();
  await page.getByText('It waits for your decision on the storyboard.').waitFor();
  // The storyboard is shown as the tools give it: every frame loads (the page allows the platform's own media).
  // The frames load lazily (`loading="lazy"`): one below the fold has not been fetched at all, so each is
  // scrolled into view and waited for until it has loaded or failed; a broken one then fails the check below.
  const frames = page.getByRole('img', { name: /Storyboard frame/ });
  expect(await frames.count()).toBe((await filmNow()).storyboard!.length);
  for (const frame of await frames.all()) await frame.scrollIntoViewIfNeeded();
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll<HTMLImageElement>('ol.frames img')).every((image) => image.complete),
  );
  await expect(
    frames.evaluateAll((images) => images.every((image) => (image as HTMLImageElement).naturalWidth > 0)),
  ).resolves.toBe(true);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'console-jobs-film-gate');

  await page.getByRole('button', { name: 'Approve the storyboard and render the film' }).click();
  await page.getByText('Approved: the film continues.').waitFor();
  await screenshot(page, 'console-jobs-film-approved');
  const after = await pollUntil(filmNow, (f) => f.status === 'awaiting_final_approval', {
    timeoutMs: 120_000,
    intervalMs: 250,
    timeoutMessage: (f) => `film stuck in ${f.status}`,
  });
  expect(after.output?.url).toMatch(/\/media\/.+\.mp4$/);
  await page.reload();
  await page.getByText('It waits for your decision on the finished film.').waitFor();
  await page.getByRole('button', { name: 'Approve the final film' }).waitFor();
  await screenshot(page, 'console-jobs-film-final-gate');
  await context.close();

  const phone = await signedIn(PHONE);
  await phone.page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}`);
  await phone.page.getByRole('heading', { name: 'Last 7 days' }).waitFor();
  await fitsTheScreen(phone.page);
  expect(await seriousViolations(phone.page)).toEqual([]);
  await screenshot(phone.page, 'console-overview-phone');
  await phone.page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/jobs/${after.jobId}`);
  await phone.page.getByRole('heading', { name: 'Film “Linen in the heat”' }).waitFor();
  await fitsTheScreen(phone.page);
  expect(await seriousViolations(phone.page)).toEqual([]);
  await screenshot(phone.page, 'console-jobs-film-phone');
  await phone.context.close();

  // The approval was the owner's, through the tool: audited as the agent's would be.
  const [line] = await platform.container.orm.em
    .fork()
    .getConnection()
    .execute<{ action: string; outcome: string }[]>(
      `select action, outcome from audit_events where workspace_id = ? and actor = ? and action like 'mcp.video_commission.%'`,
      [tenant.workspaceId, `user:${tenant.userId}`],
    );
  expect(line).toEqual({ action: 'mcp.video_commission.approve', outcome: 'success' });
});
