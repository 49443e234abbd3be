/**
 * Meta (a Facebook Page and its Instagram account), Reddit and TikTok end to end, as a workspace owner and their
 * agent would run them: one platform with a worker, the three networks' stand-ins (real HTTP in each vendor's
 * protocol, every exchange checked against its specification), headless Chromium and a real MCP client on the
 * `autonomous_ops` profile.
 *
 * The owner connects each network in the dashboard through the network's consent page (and cancels once:
 * nothing is connected, and the page says so). The agent drafts a post from a published campaign's variant with
 * its render — a still for Instagram and Reddit, a video for TikTok — meets each network's typical refusal first
 * (Instagram without media, a subreddit that requires flair, a public TikTok post from an unaudited app), and
 * schedules the valid post 20 s ahead. Each is published at its time with its media and attributed link; the
 * networks' engagement is pulled by the metrics workflow and `query_analytics` reports it per network (measures
 * a network does not give are null, never 0). The agent deletes the Meta and Reddit posts on the networks;
 * TikTok, whose API cannot delete a published video, refuses that with the reason, and deletes a draft.
 */
import { standinEnv } from '../support/standins/standin-env.ts';
import { imageSize } from 'image-size';
import type { Browser, Page } from 'playwright-core';
import { v7 as uuidv7 } from 'uuid';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { png, publishedCampaign, stillRender, videoRender } from '../support/channels.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { profileUrl, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { startMetaStandin, type MetaStandin } from '../support/standins/meta-standin.ts';
import { startRedditStandin, type RedditStandin } from '../support/standins/reddit-standin.ts';
import { startTikTokStandin, type TikTokStandin } from '../support/standins/tiktok-standin.ts';

const PASSWORD = 'a long enough password';
const SCHEDULE_AHEAD_MS = 20_000;
const FACEBOOK_USER = 'Ingrid Berg';
const PAGE = { id: '104000000000777', name: 'Fjell Outdoor', username: 'fjelloutdoor' };
const INSTAGRAM = { id: '17841400000000777', username: 'fjell.outdoor', name: 'Fjell Outdoor' };
const REDDITOR = 'fjell_outdoor';
const TIKTOKER = 'fjelloutdoor';

let meta: MetaStandin;
let reddit: RedditStandin;
let tiktok: TikTokStandin;
let platform: TestPlatform;
let tenant: Tenant;
let browser: Browser;
let client: ConnectedClient;

/** The seeded campaign, its variant, a still of it and a video of it. */
let campaign: { campaignId: string; variantId: string };
let still: { jobId: string };
let video: { jobId: string; bytes: Buffer };
/** Each network's scheduled post, as the agent drafted it and when it is due. */
const scheduled: Record<'meta' | 'reddit' | 'tiktok', { post: Record<string, any>; scheduledAt: string }> = {} as never;
const published: Record<'meta' | 'reddit' | 'tiktok', Record<string, any>> = {} as never;

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  return result.structuredContent!;
}

beforeAll(async () => {
  [meta, reddit, tiktok] = await Promise.all([
    startMetaStandin({
      processingMs: 200,
      users: [
        {
          id: '10160000000000777',
          name: FACEBOOK_USER,
          pages: [{ ...PAGE, instagram: INSTAGRAM }],
        },
      ],
    }),
    startRedditStandin({ username: REDDITOR, processingMs: 200 }),
    startTikTokStandin({ audited: false, processingMs: 200 }),
  ]);
  tiktok.createCreator({ username: TIKTOKER, nickname: 'Fjell Outdoor' });
  reddit.createSubreddit('CampingGear', {
    flairRequired: true,
    flairs: [
      { id: 'flair-review', text: 'Review' },
      { id: 'flair-news', text: 'News' },
    ],
  });

  platform = await startTestPlatform({
    label: 'sociale2e',
    worker: true,
    env: {
      RATE_LIMIT_PER_MINUTE: '100000',
      CHANNEL_PUBLISH_RETRY_SECONDS: '1',
      ...standinEnv({ meta, reddit, tiktok }),
    },
  });
  tenant = await createTenant(platform.container, { name: 'Fjell Outdoor', password: PASSWORD });
  campaign = await publishedCampaign(platform.container, tenant);
  still = {
    jobId: await stillRender(platform.container, tenant, campaign.campaignId, campaign.variantId, png(120, 63)),
  };
  video = await videoRender(platform.container, tenant, campaign.campaignId);
  browser = await launchBrowser();
  client = await connectV2(await profileUrl(platform, 'autonomous_ops'), { 'x-api-key': tenant.apiKey });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await platform?.close();
  await Promise.all([meta?.close(), reddit?.close(), tiktok?.close()]);
  await closeTestFetch();
});

const channelsUrl = () => `${platform.urls.platform}/w/${tenant.workspaceId}/channels`;

async function signedInPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${platform.urls.platform}/signin`);
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
  return page;
}

/** Channels → the network's Connect button → its consent page → `decision`; returns the page back on Channels. */
async function throughConsent(page: Page, connectButton: string, consentHeading: RegExp, decision: string) {
  await page.goto(channelsUrl());
  await page.getByRole('heading', { name: 'Channels', exact: true }).waitFor();
  await page.getByRole('link', { name: connectButton, exact: true }).click();
  // The network's own page, on its own host: the person decides there.
  await page.getByRole('heading', { name: consentHeading }).waitFor();
  expect(new URL(page.url()).origin).not.toBe(new URL(platform.urls.platform).origin);
  await page.getByRole('button', { name: decision, exact: true }).click();
  await page.waitForURL((url) => url.origin === new URL(platform.urls.platform).origin);
}

async function accountsOf(network: 'meta' | 'reddit' | 'tiktok'): Promise<Record<string, any>[]> {
  return ok(await client.callTool(`query_${network}`, { action: 'accounts' })).accounts as Record<string, any>[];
}

describe('the channel profiles', () => {
  it.each([
    ['meta_ops', 'meta'],
    ['reddit_ops', 'reddit'],
    ['tiktok_ops', 'tiktok'],
  ])('%s lists the %s tools, campaign reads, analytics and platform info', async (profile, network) => {
    const profiled = await connectV2(await profileUrl(platform, profile), { 'x-api-key': tenant.apiKey });
    try {
      const names = (await profiled.listTools()).map((tool) => tool.name).sort();
      expect(names).toEqual(
        [`query_${network}`, `manage_${network}`, 'query_campaigns', 'query_analytics', 'get_platform_info'].sort(),
      );
    } finally {
      await profiled.close();
    }
  });

  it('autonomous_ops lists every network’s tools', async () => {
    const names = (await client.listTools()).map((tool) => tool.name);
    for (const network of ['bluesky', 'meta', 'reddit', 'tiktok']) {
      expect(names).toEqual(expect.arrayContaining([`query_${network}`, `manage_${network}`]));
    }
  });
});

describe('connecting in the dashboard', () => {
  let page: Page;
  beforeAll(async () => {
    page = await signedInPage();
  });
  afterAll(async () => {
    await page?.close();
  });

  it('Cancel on Meta’s consent page connects nothing and says so', async () => {
    await throughConsent(page, 'Connect Facebook Pages and Instagram', /is requesting access to/, 'Cancel');
    await page
      .getByRole('status')
      .filter({ hasText: 'No account was connected: access was not granted on Meta (Facebook and Instagram).' })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${tenant.workspaceId}/channels`);
    await expect(page.locator('li.account').count()).resolves.toBe(0);
    await page.getByText('No account is connected yet.').waitFor();
    await screenshot(page, 'social-channels-cancelled');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'social-channels-cancelled-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await accountsOf('meta')).toEqual([]);
  });

  it('Meta: the Facebook Page and its Instagram account, named in the notice', async () => {
    await throughConsent(
      page,
      'Connect Facebook Pages and Instagram',
      /is requesting access to/,
      `Continue as ${FACEBOOK_USER}`,
    );
    expect(new URL(page.url()).pathname).toBe(`/w/${tenant.workspaceId}/channels`);
    const notice = page.getByRole('status').filter({ hasText: 'Agents with the Meta (Facebook and Instagram) tools' });
    await notice.waitFor();
    const said = (await notice.textContent())!.replace(/\s+/g, ' ').trim();
    expect(said).toContain(`@${PAGE.username} (Facebook Page)`);
    expect(said).toContain(`@${INSTAGRAM.username} (Instagram)`);
    expect(said).toMatch(/^Connected @\S+ \([^)]+\), @\S+ \([^)]+\)\. .* can post with them now\.$/);
    for (const handle of [PAGE.username, INSTAGRAM.username]) {
      const card = page.locator('li.account', { hasText: `@${handle}` });
      await expect(card.locator('.badge').textContent()).resolves.toBe('active');
    }
    const accounts = await accountsOf('meta');
    expect(accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'facebook_page', handle: PAGE.username, externalId: PAGE.id }),
        expect.objectContaining({ kind: 'instagram', handle: INSTAGRAM.username, externalId: INSTAGRAM.id }),
      ]),
    );
    expect(accounts).toHaveLength(2);
  });

  it('Reddit: the account the person is signed in as', async () => {
    await throughConsent(page, 'Connect a Reddit account', /requests to connect with your Reddit account/, 'Allow');
    await page
      .getByRole('status')
      .filter({ hasText: `Connected @${REDDITOR} (Reddit). Agents with the Reddit tools can post with it now.` })
      .waitFor();
    expect(await accountsOf('reddit')).toEqual([
      expect.objectContaining({ handle: REDDITOR, status: 'active', network: 'reddit' }),
    ]);
  });

  it('TikTok: the creator’s account; the page lists all four accounts at desktop and phone widths', async () => {
    await throughConsent(page, 'Connect a TikTok account', /would like to access your TikTok account/, 'Authorize');
    await page
      .getByRole('status')
      .filter({ hasText: `Connected @${TIKTOKER} (TikTok). Agents with the TikTok tools can post with it now.` })
      .waitFor();
    expect(await accountsOf('tiktok')).toEqual([
      expect.objectContaining({ handle: TIKTOKER, status: 'active', network: 'tiktok' }),
    ]);
    await expect(page.locator('li.account').count()).resolves.toBe(4);
    // No token of any network is on the page.
    expect(await page.content()).not.toMatch(/EAA[A-Za-z0-9_-]{20}|act\.[A-Za-z0-9_-]{20}/);
    await screenshot(page, 'social-channels-connected');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'social-channels-connected-phone');
  });
});

describe('posting through the MCP client', () => {
  it('Meta: Instagram refuses a post without media; the post with the still is drafted and scheduled', async () => {
    const instagram = (await accountsOf('meta')).find((account) => account.kind === 'instagram')!;
    const refused = ok(
      await client.callTool('manage_meta', {
        action: 'validate',
        accountId: instagram.id,
        variantId: campaign.variantId,
      }),
    ).validation;
    expect(refused.valid).toBe(false);
    expect(refused.issues).toEqual([
      expect.objectContaining({
        field: 'media',
        rule: 'media_required',
        message: expect.stringContaining('Instagram'),
      }),
    ]);

    const content = {
      accountId: instagram.id,
      variantId: campaign.variantId,
      imageJobIds: [still.jobId],
      altTexts: ['The recycled shell jacket on a ridge above a fjord'],
    };
    const { validation } = ok(await client.callTool('manage_meta', { action: 'validate', ...content }));
    expect(validation).toMatchObject({ valid: true, issues: [] });
    // Instagram shows caption links as plain text: said, not hidden.
    expect(validation.warnings).toContainEqual(expect.objectContaining({ rule: 'link_not_clickable' }));
    await draftAndSchedule('meta', content);
  });

  it('Reddit: a subreddit that requires flair is refused, naming the flairs; with one, scheduled', async () => {
    const [account] = await accountsOf('reddit');
    const content = {
      accountId: account!.id,
      variantId: campaign.variantId,
      imageJobIds: [still.jobId],
      subreddit: 'CampingGear',
      title: 'Our recycled shell jacket, repaired for life',
    };
    const refused = ok(await client.callTool('manage_reddit', { action: 'validate', ...content })).validation;
    expect(refused.valid).toBe(false);
    expect(refused.issues).toEqual([
      expect.objectContaining({
        field: 'flairId',
        rule: 'flair_required',
        message: expect.stringContaining('"Review" (flairId flair-review), "News" (flairId flair-news)'),
      }),
    ]);

    const withFlair = { ...content, flairId: 'flair-review' };
    const { validation } = ok(await client.callTool('manage_reddit', { action: 'validate', ...withFlair }));
    expect(validation).toMatchObject({ valid: true, issues: [] });
    // An image post carries no link on Reddit: the agent is told its visits will not be counted.
    expect(validation.warnings).toContainEqual(expect.objectContaining({ rule: 'link_not_published' }));
    await draftAndSchedule('reddit', withFlair);
  });

  it('TikTok: an unaudited app may only post privately (SELF_ONLY); the private post is scheduled', async () => {
    const [account] = await accountsOf('tiktok');
    const content = { accountId: account!.id, variantId: campaign.variantId, videoJobId: video.jobId };
    const refused = ok(
      await client.callTool('manage_tiktok', { action: 'validate', ...content, privacyLevel: 'PUBLIC_TO_EVERYONE' }),
    ).validation;
    expect(refused.valid).toBe(false);
    expect(refused.issues).toEqual([
      expect.objectContaining({
        field: 'options.privacyLevel',
        rule: 'app_not_audited',
        message: expect.stringContaining('SELF_ONLY'),
      }),
    ]);

    const privately = { ...content, privacyLevel: 'SELF_ONLY' };
    const { validation } = ok(await client.callTool('manage_tiktok', { action: 'validate', ...privately }));
    expect(validation).toMatchObject({ valid: true, issues: [] });
    expect(validation.preview.text).toContain('/_cp/go?c=');
    await draftAndSchedule('tiktok', privately);
  });
});

async function draftAndSchedule(network: 'meta' | 'reddit' | 'tiktok', content: Record<string, unknown>) {
  const { post: draft } = ok(await client.callTool(`manage_${network}`, { action: 'draft', ...content }));
  expect(draft).toMatchObject({ status: 'draft', campaignId: campaign.campaignId, variantId: campaign.variantId });
  expect(new URL(draft.link.url).searchParams.get('p')).toBe(draft.id);
  const scheduledAt = new Date(Date.now() + SCHEDULE_AHEAD_MS).toISOString();
  const answer = ok(await client.callTool(`manage_${network}`, { action: 'schedule', postId: draft.id, scheduledAt }));
  expect(answer.post).toMatchObject({ id: draft.id, status: 'scheduled', scheduledAt });
  expect(answer.workspace).toEqual({ id: tenant.workspaceId, name: 'Fjell Outdoor' });
  scheduled[network] = { post: draft, scheduledAt };
}

/** The network's post as published (its "published at its time" test says why there is none). */
function publishedOf(network: 'meta' | 'reddit' | 'tiktok'): Record<string, any> {
  const post = published[network];
  if (!post) throw new Error(`the ${network} post was not published (see "published at its time")`);
  return post;
}

/** Reads the post through the client until its run ends; it must be published, not before its time. */
async function publishedPost(network: 'meta' | 'reddit' | 'tiktok') {
  const { post: draft, scheduledAt } = scheduled[network];
  const post = await pollUntil(
    async () => ok(await client.callTool(`query_${network}`, { action: 'get_post', postId: draft.id })).post,
    (current) => current.status === 'published' || current.status === 'failed',
    { timeoutMs: 90_000, intervalMs: 500, timeoutMessage: (current) => `the ${network} post stayed ${current.status}` },
  );
  expect(post.error).toBeNull();
  expect(post.status).toBe('published');
  expect(Date.parse(post.publishedAt)).toBeGreaterThanOrEqual(Date.parse(scheduledAt));
  published[network] = post;
  return post;
}

describe('published at its time', () => {
  it('Meta: on Instagram with a JPEG of the still and the attributed link in the caption', async () => {
    const nothingYet = meta.posts().filter((item) => item.network === 'instagram');
    expect(nothingYet).toEqual([]);
    const post = await publishedPost('meta');
    const onInstagram = meta.posts().filter((item) => item.network === 'instagram');
    expect(onInstagram).toEqual([
      expect.objectContaining({ id: post.externalId, ownerId: INSTAGRAM.id, kind: 'image', deleted: false }),
    ]);
    expect(post.externalUrl).toBe(onInstagram[0]!.permalink);
    expect(onInstagram[0]!.text).toBe(`${scheduled.meta.post.text}\n\n${scheduled.meta.post.link.url}`);
    // Instagram fetched the platform's public media link, and got a JPEG (the still is a PNG).
    const [image] = onInstagram[0]!.media;
    expect(image).toMatchObject({ type: 'image', contentType: 'image/jpeg' });
    expect(image!.url).toContain('/media-links/');
    const fetched = Buffer.from(await (await testFetch(image!.url!)).arrayBuffer());
    expect(fetched.length).toBe(image!.bytes);
    expect(imageSize(new Uint8Array(fetched))).toMatchObject({ type: 'jpg', width: 120, height: 63 });
  });

  it('Reddit: an image post in the subreddit with its flair', async () => {
    const post = await publishedPost('reddit');
    const onReddit = reddit.posts().filter((candidate) => candidate.subreddit === 'CampingGear');
    expect(onReddit).toEqual([
      expect.objectContaining({
        name: post.externalId,
        kind: 'image',
        title: 'Our recycled shell jacket, repaired for life',
        flairId: 'flair-review',
        flairText: 'Review',
        author: REDDITOR,
      }),
    ]);
    expect(onReddit[0]!.url).toMatch(/^https:\/\/i\.redd\.it\/[0-9a-z]+\.png$/);
    expect(post.externalUrl).toBe(`https://www.reddit.com${onReddit[0]!.permalink}`);
    // The still went up through an upload lease for a PNG.
    expect(reddit.exchanges).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        url: expect.stringMatching(/\/api\/media\/asset(\.json)?/),
        requestBody: expect.objectContaining({ mimetype: 'image/png' }),
        status: 200,
      }),
    );
  });

  it('TikTok: the video, private to the creator, with the attributed link in its caption', async () => {
    const post = await publishedPost('tiktok');
    const onTikTok = tiktok.posts();
    expect(onTikTok).toHaveLength(1);
    const [publish] = onTikTok;
    expect(publish!.publishId).toBe(post.externalId);
    expect(publish!.postInfo).toMatchObject({
      privacy_level: 'SELF_ONLY',
      title: `${scheduled.tiktok.post.text}\n\n${scheduled.tiktok.post.link.url}`,
    });
    // The file TikTok has is the render, byte for byte.
    expect(publish!.data.equals(video.bytes)).toBe(true);
    // A private video has no public post: the link is to the creator's profile.
    expect(post.externalUrl).toBe(`https://www.tiktok.com/@${TIKTOKER}`);
  });

  it('the dashboard lists the three published posts (desktop and phone)', async () => {
    const page = await signedInPage();
    await page.goto(channelsUrl());
    await screenshot(page, 'social-channels-posts');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'social-channels-posts-phone');
    const badges = await Promise.all(
      (['meta', 'reddit', 'tiktok'] as const).map((network) =>
        page.locator(`#post-${scheduled[network].post.id} .badge`).textContent(),
      ),
    );
    expect(badges).toEqual(['published', 'published', 'published']);
    await page.close();
  });
});

const NO_FIGURES = {
  impressions: null,
  reach: null,
  views: null,
  likes: null,
  reposts: null,
  replies: null,
  quotes: null,
  bookmarks: null,
  score: null,
};

/** Runs the `channel-metrics` workflow on the platform's worker (what its schedule starts every interval). */
async function pullMetrics() {
  const result = await platform.container.temporal.client.workflow.execute('channelMetricsWorkflow', {
    taskQueue: platform.config.temporal.taskQueue,
    workflowId: `channel-metrics-test-${uuidv7()}`,
    args: [{}],
  });
  expect(result).toMatchObject({ skippedAccounts: [] });
  return result as { accounts: number; posts: number; measured: number };
}

async function measuredPost(network: 'meta' | 'reddit' | 'tiktok') {
  return ok(await client.callTool(`query_${network}`, { action: 'get_post', postId: publishedOf(network).id })).post;
}

/** The network's line of `query_analytics snapshot` `channels`. */
async function analyticsOf(network: 'meta' | 'reddit' | 'tiktok') {
  const { snapshot } = ok(await client.callTool('query_analytics', { action: 'snapshot', sections: ['channels'] }));
  const channels = snapshot.channels as { networks: Record<string, any>[]; posts: Record<string, any>[] };
  expect(channels.posts).toContainEqual(
    expect.objectContaining({
      postId: publishedOf(network).id,
      network,
      externalUrl: publishedOf(network).externalUrl,
      campaignId: campaign.campaignId,
      variantId: campaign.variantId,
    }),
  );
  return channels.networks.find((entry) => entry.network === network);
}

describe('engagement pulled, then reported by query_analytics', () => {
  it('Meta: Instagram’s reach, views, likes, comments, shares and saves; impressions unknown; a visit counted', async () => {
    meta.setEngagement(publishedOf('meta').externalId, {
      impressions: 999,
      reach: 410,
      views: 520,
      likes: 37,
      comments: 5,
      shares: 2,
      saved: 4,
    });
    expect((await pullMetrics()).measured).toBeGreaterThanOrEqual(1);
    const figures = { ...NO_FIGURES, reach: 410, views: 520, likes: 37, reposts: 2, replies: 5, bookmarks: 4 };
    // Meta no longer gives impressions of Instagram media: unknown (null), not the 999 it keeps, nor 0.
    expect((await measuredPost('meta')).metrics).toEqual(figures);

    // Someone copies the caption's link into a browser: the hand-off counts the visit for the post.
    const visit = await testFetch(scheduled.meta.post.link.url, { redirect: 'manual' });
    expect(visit.status).toBe(302);
    expect(visit.headers.get('location')).toMatch(/^\/campaigns\//);

    expect(await analyticsOf('meta')).toMatchObject({
      name: 'Meta (Facebook and Instagram)',
      posts: 1,
      metrics: figures,
      engagement: 37 + 2 + 5,
      clicks: 1,
      unknownMetrics: ['quotes', 'score'],
    });
  });

  it('Reddit: score and comments; every other measure unknown', async () => {
    reddit.setEngagement(publishedOf('reddit').externalId, { score: 12, numComments: 3, upvoteRatio: 0.9 });
    expect((await pullMetrics()).measured).toBeGreaterThanOrEqual(1);
    const figures = { ...NO_FIGURES, score: 12, replies: 3 };
    expect((await measuredPost('reddit')).metrics).toEqual({ ...figures, upvoteRatio: 0.9 });
    expect(await analyticsOf('reddit')).toMatchObject({
      name: 'Reddit',
      posts: 1,
      metrics: figures,
      engagement: 3,
      clicks: 0,
      unknownMetrics: ['impressions', 'reach', 'views', 'likes', 'reposts', 'quotes', 'bookmarks'],
    });
  });

  it('TikTok: a private video’s engagement is unknown, not 0; made public in the app, its counts are pulled', async () => {
    expect((await pullMetrics()).measured).toBeGreaterThanOrEqual(1);
    const privately = await measuredPost('tiktok');
    expect(privately.metricsUpdatedAt).not.toBeNull();
    expect(privately.metrics).toEqual(NO_FIGURES);

    // The creator makes the video public in the TikTok app; people watch it.
    const publicId = tiktok.makePublic(publishedOf('tiktok').externalId);
    tiktok.setEngagement(publicId, { views: 1500, likes: 120, comments: 9, shares: 6 });
    expect((await pullMetrics()).measured).toBeGreaterThanOrEqual(1);
    const figures = { ...NO_FIGURES, views: 1500, likes: 120, replies: 9, reposts: 6 };
    expect((await measuredPost('tiktok')).metrics).toEqual(figures);
    expect(await analyticsOf('tiktok')).toMatchObject({
      name: 'TikTok',
      posts: 1,
      metrics: figures,
      engagement: 120 + 9 + 6,
      unknownMetrics: ['impressions', 'reach', 'quotes', 'bookmarks', 'score'],
    });
  });
});

describe('deleting', () => {
  it('Meta: the Instagram post is deleted on Instagram', async () => {
    const { post } = ok(await client.callTool('manage_meta', { action: 'delete', postId: publishedOf('meta').id }));
    expect(post.status).toBe('deleted');
    expect(meta.posts().find((item) => item.id === publishedOf('meta').externalId)).toMatchObject({ deleted: true });
  });

  it('Reddit: the post is deleted on Reddit', async () => {
    const { post } = ok(await client.callTool('manage_reddit', { action: 'delete', postId: publishedOf('reddit').id }));
    expect(post.status).toBe('deleted');
    expect(reddit.posts().find((candidate) => candidate.name === publishedOf('reddit').externalId)).toMatchObject({
      removedByCategory: 'deleted',
    });
  });

  it('TikTok: a published video cannot be deleted through the API (said plainly); a draft is deleted', async () => {
    const refused = await client.callTool('manage_tiktok', { action: 'delete', postId: publishedOf('tiktok').id });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toContain(
      `TikTok's API cannot delete a published post: delete it in the TikTok app (@${TIKTOKER})`,
    );
    const kept = ok(
      await client.callTool('query_tiktok', { action: 'get_post', postId: publishedOf('tiktok').id }),
    ).post;
    expect(kept.status).toBe('published');
    expect(tiktok.posts()).toHaveLength(1);

    const [account] = await accountsOf('tiktok');
    const { post: draft } = ok(
      await client.callTool('manage_tiktok', {
        action: 'draft',
        accountId: account!.id,
        variantId: campaign.variantId,
        videoJobId: video.jobId,
        privacyLevel: 'SELF_ONLY',
      }),
    );
    const { post: deleted } = ok(await client.callTool('manage_tiktok', { action: 'delete', postId: draft.id }));
    expect(deleted).toMatchObject({ id: draft.id, status: 'deleted' });
    // A draft never reached TikTok: nothing was sent for it.
    expect(tiktok.publishes()).toHaveLength(1);
  });
});

describe('every exchange followed the vendor’s specification', () => {
  it('Meta', () => {
    expect(meta.violations).toEqual([]);
  });
  it('Reddit', () => {
    expect(reddit.violations).toEqual([]);
  });
  it('TikTok', () => {
    expect(tiktok.violations).toEqual([]);
  });
});
