/**
 * Bluesky end to end, as a workspace owner and their agent would run it, on a real AT Protocol network (PLC,
 * PDS and AppView on loopback), a real platform and worker, headless Chromium and a real MCP client:
 *
 * connect the account in the dashboard → an agent generates a campaign, publishes it, renders a still of a
 * variant, validates and drafts a post from that variant with the still, schedules it 30 s ahead → the post
 * appears on the PDS at its time with the image and the attributed link → other accounts like it, the metrics
 * schedule pulls the counts, a visitor follows the link and converts → `query_analytics` reports the likes,
 * the visit and the conversion under `channels` (impressions unknown, the brand site's Impressions untouched)
 * and the CVG dashboard compares the variants on Bluesky → the agent deletes the post and it is gone from the
 * PDS.
 */
import { AtpAgent, AtUri } from '@atproto/api';
import { v7 as uuidv7 } from 'uuid';
import type { Browser, Page } from 'playwright-core';
import { runRollupPass } from '../../src/domain/analytics/rollups.ts';
import { CONVERSIONS_PATH } from '../../src/http/routes/conversions.ts';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { startBlueskyNetwork, type BlueskyAccount, type BlueskyNetwork } from '../support/bluesky-network.ts';
import { POST_COLLECTION, postsOnPds } from '../support/channels.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { profileUrl, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';

const PASSWORD = 'a long enough password';

let network: BlueskyNetwork;
let platform: TestPlatform;
let tenant: Tenant;
let brand: BlueskyAccount;
let fans: BlueskyAccount[];
let browser: Browser;
let client: ConnectedClient;

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  return result.structuredContent!;
}

beforeAll(async () => {
  network = await startBlueskyNetwork({ appView: true });
  platform = await startTestPlatform({
    label: 'bskye2e',
    worker: true,
    env: { BLUESKY_SERVICE_URL: network.pdsUrl, RATE_LIMIT_PER_MINUTE: '100000' },
  });
  tenant = await createTenant(platform.container, { name: 'Fjell Outdoor', credits: 1000, password: PASSWORD });
  [brand, ...fans] = await Promise.all([
    network.createAccount('fjell'),
    network.createAccount('fanone'),
    network.createAccount('fantwo'),
  ]);
  browser = await launchBrowser();
  const url = await profileUrl(platform, 'autonomous_ops');
  client = await connectV2(url, { 'x-api-key': tenant.apiKey });
});

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await platform?.close();
  await network?.stop();
  await closeTestFetch();
});

async function signIn(page: Page) {
  await page.goto(`${platform.urls.platform}/signin`);
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
}

it('connects the account in the dashboard; a wrong app password is refused with the reason', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page);
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/channels`);
  await page.getByRole('heading', { name: 'Channels', exact: true }).waitFor();
  await screenshot(page, 'channels-empty');

  await page.getByLabel('Handle').fill(brand.handle);
  await page.getByLabel('App password').fill('wxyz-wxyz-wxyz-wxyz');
  await page.getByRole('button', { name: 'Connect Bluesky', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'Bluesky refused the sign-in' }).waitFor();

  await page.getByLabel('Handle').fill(brand.handle);
  await page.getByLabel('App password').fill(brand.appPassword);
  await page.getByRole('button', { name: 'Connect Bluesky', exact: true }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Connected @${brand.handle} on Bluesky` })
    .waitFor();
  const card = page.locator('li.account', { hasText: `@${brand.handle}` });
  await expect(card.locator('.badge').textContent()).resolves.toBe('active');
  // The page never shows the app password, not even in the form it came from.
  expect(await page.content()).not.toContain(brand.appPassword);
  await screenshot(page, 'channels-connected');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'channels-connected-phone');
  await page.close();
});

it('runs the channel end to end through an MCP client', async () => {
  // The agent finds the account the person connected (and cannot connect one itself).
  const capabilities = JSON.parse((await client.readResource('svc://capabilities')).contents[0]!.text!);
  expect(capabilities.channels).toContainEqual(
    expect.objectContaining({
      network: 'bluesky',
      tools: ['query_bluesky', 'manage_bluesky'],
      accounts: [expect.objectContaining({ handle: brand.handle, status: 'active' })],
    }),
  );
  const { accounts } = ok(await client.callTool('query_bluesky', { action: 'accounts' }));
  const accountId = accounts[0].id as string;

  // A generated campaign, published, and a still of its first variant.
  const intent = 'Launch our recycled shell jacket to hikers in Scandinavia before winter';
  const quote = ok(await client.callTool('generate_campaign', { mode: 'start', intent, variantCount: 2 })).quote;
  const started = ok(
    await client.callTool('generate_campaign', { mode: 'start', intent, variantCount: 2, quoteId: quote.id }),
  );
  const campaignId = started.campaignId as string;
  await pollUntil(
    async () => ok(await client.callTool('query_campaigns', { action: 'generation_status', campaignId })).generation,
    (generation) => ['complete', 'failed', 'cancelled'].includes(generation.status),
    { timeoutMs: 120_000, intervalMs: 250, timeoutMessage: 'the generation did not finish' },
  );
  const { variants } = ok(await client.callTool('query_campaigns', { action: 'variants', campaignId }));
  const variant = variants[0];
  ok(await client.callTool('manage_campaigns', { action: 'publish', campaignId }));
  const still = { mode: 'still', campaignId, variantId: variant.id, format: 'square' };
  const stillQuote = ok(await client.callTool('render_video', still)).quote;
  const render = ok(await client.callTool('render_video', { ...still, quoteId: stillQuote.id })).render;
  await pollUntil(
    async () => ok(await client.callTool('query_video', { action: 'progress', jobId: render.jobId })).render,
    (progress) => progress.status === 'complete',
    { timeoutMs: 60_000, intervalMs: 250, timeoutMessage: 'the still did not render' },
  );

  // Validate (a dry run), draft, schedule 30 s ahead.
  const content = {
    accountId,
    variantId: variant.id,
    imageJobIds: [render.jobId],
    altTexts: ['The recycled shell jacket on a Norwegian ridge'],
    langs: ['en'],
  };
  const { validation } = ok(await client.callTool('manage_bluesky', { action: 'validate', ...content }));
  expect(validation).toMatchObject({ valid: true, issues: [], preview: { unit: 'graphemes', limit: 300 } });
  expect(validation.preview.facets).toContainEqual(
    expect.objectContaining({ kind: 'link', target: expect.stringContaining('/_cp/go?c=') }),
  );
  const { post: draft } = ok(await client.callTool('manage_bluesky', { action: 'draft', ...content }));
  const scheduledAt = new Date(Date.now() + 30_000).toISOString();
  const scheduled = ok(await client.callTool('manage_bluesky', { action: 'schedule', postId: draft.id, scheduledAt }));
  expect(scheduled.post).toMatchObject({ id: draft.id, status: 'scheduled', scheduledAt });
  expect(scheduled.workspace).toEqual({ id: tenant.workspaceId, name: 'Fjell Outdoor' });
  expect(await postsOnPds(network, brand.did)).toEqual([]);

  // At its time, on the PDS, with the image and the attributed link.
  const published = await pollUntil(
    async () => ok(await client.callTool('query_bluesky', { action: 'get_post', postId: draft.id })).post,
    (post) => post.status === 'published' || post.status === 'failed',
    { timeoutMs: 90_000, intervalMs: 500, timeoutMessage: (post) => `the post stayed ${post.status}` },
  );
  expect(published.status).toBe('published');
  expect(Date.parse(published.publishedAt)).toBeGreaterThanOrEqual(Date.parse(scheduledAt));
  const reader = new AtpAgent({ service: network.pdsUrl });
  const uri = new AtUri(published.externalId);
  const { data: record } = await reader.com.atproto.repo.getRecord({
    repo: brand.did,
    collection: POST_COLLECTION,
    rkey: uri.rkey,
  });
  const value = record.value as {
    text: string;
    facets: { features: { uri?: string }[] }[];
    embed: { images: { alt: string }[] };
  };
  expect(value.text).toBe(`${draft.text}\n\n${draft.link.display}`);
  expect(value.embed.images).toEqual([
    expect.objectContaining({ alt: 'The recycled shell jacket on a Norwegian ridge' }),
  ]);
  const linkUri = value.facets.flatMap((facet) => facet.features).find((feature) => feature.uri)!.uri!;
  expect(linkUri).toBe(draft.link.url);
  expect(new URL(linkUri).searchParams.get('p')).toBe(draft.id);
  // The image is the still, byte for byte.
  const blobCid = (record.value as any).embed.images[0].image.ref.toString();
  const { data: blob } = await reader.com.atproto.sync.getBlob({ did: brand.did, cid: blobCid });
  const stillFile = await testFetch(await stillUrl(render.jobId));
  expect(Buffer.from(blob)).toEqual(Buffer.from(await stillFile.arrayBuffer()));

  // Two people like it; the AppView indexes the likes; the metrics schedule pulls them.
  for (const fan of fans) {
    const agent = new AtpAgent({ service: network.pdsUrl });
    await agent.login({ identifier: fan.handle, password: fan.appPassword });
    await agent.like(record.uri, record.cid!);
  }
  await pollUntil(
    async () => {
      const agent = new AtpAgent({ service: network.pdsUrl });
      await agent.login({ identifier: fans[0]!.handle, password: fans[0]!.appPassword });
      return (await agent.app.bsky.feed.getPosts({ uris: [record.uri] })).data.posts[0]?.likeCount ?? 0;
    },
    (likes) => likes === 2,
    { timeoutMs: 30_000, intervalMs: 200, timeoutMessage: (likes) => `the AppView shows ${likes} likes` },
  );
  const metricsRun = await platform.container.temporal.client.workflow.execute('channelMetricsWorkflow', {
    taskQueue: platform.config.temporal.taskQueue,
    workflowId: `channel-metrics-test-${uuidv7()}`,
    args: [{}],
  });
  expect(metricsRun).toMatchObject({ accounts: 1, posts: 1, measured: 1, skippedAccounts: [] });

  // A visitor follows the link: the hand-off gives them an id and sends them to the campaign's page; later the
  // shop's server reports their purchase with that id.
  const visit = await testFetch(linkUri, { redirect: 'manual' });
  expect(visit.status).toBe(302);
  expect(visit.headers.get('location')).toMatch(/^\/campaigns\//);
  const visitor = /cp_vid=([A-Za-z0-9_-]{22})/.exec(visit.headers.get('set-cookie') ?? '')![1]!;
  const conversion = await testFetch(`${platform.urls.platform}${CONVERSIONS_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
    body: JSON.stringify({ conversions: [{ eventId: uuidv7(), sessionId: visitor, goal: 'purchase', value: 289 }] }),
  });
  expect(conversion.status).toBe(202);
  await runRollupPass(platform.container.orm, { lagMs: 0 });

  // The numbers, per channel, campaign, variant and post; Bluesky's impressions are unknown, not 0.
  const snapshot = ok(
    await client.callTool('query_analytics', { action: 'snapshot', sections: ['summary', 'channels'] }),
  ).snapshot;
  expect(snapshot.channels.networks).toEqual([
    expect.objectContaining({
      network: 'bluesky',
      posts: 1,
      metrics: {
        impressions: null,
        reach: null,
        views: null,
        likes: 2,
        reposts: 0,
        replies: 0,
        quotes: 0,
        bookmarks: expect.anything(),
        score: null,
      },
      engagement: 2,
      clicks: 1,
      conversions: 1,
      conversionValue: 289,
      unknownMetrics: ['impressions', 'reach', 'views', 'score'],
    }),
  ]);
  expect(snapshot.channels.variants).toEqual([
    expect.objectContaining({ campaignId, variantId: variant.id, network: 'bluesky', engagement: 2, clicks: 1 }),
  ]);
  expect(snapshot.channels.posts).toEqual([
    expect.objectContaining({
      postId: draft.id,
      externalUrl: published.externalUrl,
      totals: expect.objectContaining({ likes: 2 }),
    }),
  ]);
  // Never mixed into the brand site's Impressions or Reach: the visit through the link rendered no page here.
  expect(snapshot.summary).toMatchObject({ impressions: 0, reach: 0 });
  const { experiments } = ok(await client.callTool('query_analytics', { action: 'cvg_dashboard', campaignId }));
  expect(experiments[0].channels).toEqual([
    {
      network: 'bluesky',
      name: 'Bluesky',
      variants: [
        expect.objectContaining({ variantId: variant.id, posts: 1, engagement: 2, clicks: 1, conversions: 1 }),
      ],
    },
  ]);

  // Deleted from the platform: gone from the PDS.
  const { post: deleted } = ok(await client.callTool('manage_bluesky', { action: 'delete', postId: draft.id }));
  expect(deleted.status).toBe('deleted');
  await expect(
    reader.com.atproto.repo.getRecord({ repo: brand.did, collection: POST_COLLECTION, rkey: uri.rkey }),
  ).rejects.toMatchObject({ error: 'RecordNotFound' });

  // The dashboard lists the post with its status.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page);
  await page.goto(`${platform.urls.platform}/w/${tenant.workspaceId}/channels?status=deleted`);
  await page.locator(`#post-${draft.id}`).waitFor();
  await screenshot(page, 'channels-posts');
  await page.close();
}, 300_000);

async function stillUrl(jobId: string): Promise<string> {
  const { render } = ok(await client.callTool('query_video', { action: 'progress', jobId }));
  return render.output.url as string;
}
