/**
 * Reddit through the platform, against the Reddit stand-in (real HTTP, Reddit's protocol, every exchange
 * checked against the vendor specification): an account connected through Reddit's OAuth, a post validated
 * against the subreddit's rules (flair required), drafted, published by the post workflow on a real worker, its
 * score and comments pulled, a moderator's removal shown, and the post deleted on Reddit.
 */
import { standinEnv } from '../support/standins/standin-env.ts';
import { startRedditStandin, type RedditStandin } from '../support/standins/reddit-standin.ts';
import { connectThroughOAuth, ownerScope, publishedCampaign, waitForPost } from '../support/channels.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';
import { ChannelAccount } from '../../src/domain/channels/channel-account.entity.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { pullChannelMetrics } from '../../src/domain/channels/channel-metrics.ts';

let reddit: RedditStandin;
let platform: TestPlatform;
let tenant: Tenant;
let accountId: string;

beforeAll(async () => {
  reddit = await startRedditStandin({ username: 'fjell_outdoor' });
  platform = await startTestPlatform({
    label: 'redditpub',
    worker: true,
    env: {
      ...standinEnv({ reddit }),
    },
  });
  tenant = await createTenant(platform.container);
  reddit.createSubreddit('CampingGear', {
    flairRequired: true,
    flairs: [
      { id: 'flair-review', text: 'Review' },
      { id: 'flair-news', text: 'News' },
    ],
  });
  [accountId] = (await connectThroughOAuth(platform.container, tenant, 'reddit', (url) => reddit.authorize(url))) as [
    string,
  ];
});

afterAll(async () => {
  await platform?.close();
  await reddit?.close();
});

it('connects the Reddit account the person granted', async () => {
  const account = await platform.container.services.channelAccounts.get(
    ownerScope(platform.container, tenant),
    accountId,
  );
  expect(account).toMatchObject({ network: 'reddit', handle: 'fjell_outdoor', status: 'active' });
});

it('refuses a post to a subreddit that requires flair, naming the flairs; publishes it with one', async () => {
  const { channelPosts } = platform.container.services;
  const scope = ownerScope(platform.container, tenant);
  const { variantId } = await publishedCampaign(platform.container, tenant);
  const fields = {
    accountId,
    variantId,
    options: { subreddit: 'CampingGear', title: 'Our recycled shell jacket, repaired for life' },
  };
  const refused = await channelPosts.validate(scope, 'reddit', fields);
  expect(refused.valid).toBe(false);
  expect(refused.issues).toContainEqual(
    expect.objectContaining({ field: 'flairId', message: expect.stringContaining('Review') }),
  );

  const { post } = await channelPosts.draft(scope, 'reddit', {
    ...fields,
    options: { ...fields.options, flairId: 'flair-review' },
  });
  expect(post.options).toMatchObject({ subreddit: 'CampingGear', flairId: 'flair-review' });
  await channelPosts.publishNow(scope, 'reddit', { postId: post.id });
  const published = await waitForPost(platform.container, post.id, (row) =>
    ['published', 'failed'].includes(row.status),
  );
  expect(published.error).toBeNull();
  expect(published.status).toBe('published');
  // The worker counts the publication once, by network (docs/metrics.md), just after the row moved.
  const counted = await pollUntil(
    async () => (await platform.worker!.metrics.scrape()).body,
    (text) => text.includes('cp_channel_posts_total{network="reddit",outcome="published"}'),
    { timeoutMs: 5000, intervalMs: 20, timeoutMessage: 'the publication was never counted' },
  );
  expect(counted).toContain('cp_channel_posts_total{network="reddit",outcome="published"} 1');
  expect(counted).toContain('cp_channel_posts_total{network="reddit",outcome="attempt_sent"} 1');
  expect(counted).not.toContain('outcome="attempt_failed"');

  const onReddit = reddit.posts().filter((candidate) => candidate.subreddit === 'CampingGear');
  expect(onReddit).toHaveLength(1);
  expect(onReddit[0]).toMatchObject({
    title: fields.options.title,
    flairId: 'flair-review',
    name: published.externalId,
  });
  // The attributed link names the post, so visits count for it.
  expect(`${onReddit[0]!.url}${onReddit[0]!.selftext}`).toContain(`p=${post.id}`);

  reddit.setEngagement(published.externalId!, { score: 12, numComments: 3, upvoteRatio: 0.9 });
  reddit.removePost(published.externalId!, 'moderator');
  const pulled = await pullChannelMetrics({
    orm: platform.container.orm,
    access: platform.container.services.channels.access,
    maxAgeDays: 30,
  });
  expect(pulled.measured).toBeGreaterThanOrEqual(1);
  const measured = await channelPosts.get(scope, 'reddit', post.id);
  expect(measured.metrics).toMatchObject({ score: 12, replies: 3, likes: null, upvoteRatio: 0.9 });
  expect(measured.removedBy).toBe('moderator');

  const deleted = await channelPosts.remove(scope, 'reddit', post.id);
  expect(deleted.post.status).toBe('deleted');
  expect(reddit.posts().find((candidate) => candidate.name === published.externalId)?.removedByCategory).toBe(
    'deleted',
  );
});

it('waits for a spent rate budget to reset instead of sending requests Reddit would refuse', async () => {
  const em = acrossWorkspaces(platform.container.orm.em);
  const resetAt = new Date(Date.now() + 45_000).toISOString();
  await em.nativeUpdate(
    ChannelAccount,
    { id: accountId },
    {
      quota: { policy: null, limit: 100, remaining: 0, resetAt, observedAt: new Date().toISOString() },
    },
  );
  const sent = reddit.exchanges.length;
  const checked = await platform.container.services.channelPosts.validate(
    ownerScope(platform.container, tenant),
    'reddit',
    {
      accountId,
      text: 'Quiet please',
      options: { subreddit: 'CampingGear', title: 'A title', flairId: 'flair-news' },
    },
  );
  expect(checked.warnings).toContainEqual(
    expect.objectContaining({
      rule: 'network_unchecked',
      message: expect.stringContaining(`Reddit's rate budget for @fjell_outdoor is used up until ${resetAt}`),
    }),
  );
  // Nothing was sent to Reddit while the budget was spent.
  expect(reddit.exchanges.length).toBe(sent);
  await em.nativeUpdate(ChannelAccount, { id: accountId }, { quota: null });
});

it('every exchange followed Reddit’s specification', () => {
  expect(reddit.violations).toEqual([]);
});
