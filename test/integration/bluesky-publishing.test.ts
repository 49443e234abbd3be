/**
 * Publishing to a real PDS with a real worker: a post made from a variant goes out at its time with its image,
 * alt text and attributed link, exactly once, under the record key chosen when it was drafted; rescheduling,
 * cancelling, deleting (on the network too), the refusals (an invalid post, editing a published one), a PDS
 * that is down (retried with back-off, then failed with a clear error, and published by `retry` once it is
 * back), and an account disconnected while a post waits.
 */
import { AtpAgent } from '@atproto/api';
import { ChannelPost } from '../../src/domain/channels/channel-post.entity.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { startBlueskyNetwork, type BlueskyAccount, type BlueskyNetwork } from '../support/bluesky-network.ts';
import {
  connectBluesky,
  ownerScope,
  postRow,
  postsOnPds,
  publishedCampaign,
  stillRender,
  waitForPost,
} from '../support/channels.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { installQuietTemporalRuntime, profileUrl, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { Worker } from '@temporalio/worker';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { modernRpc } from '../support/mcp-clients.ts';
import { pollUntil } from '../support/poll.ts';

let network: BlueskyNetwork;
let platform: TestPlatform;
let tenant: Tenant;
let brand: BlueskyAccount;
let accountId: string;
let campaign: { campaignId: string; variantId: string; slug: string };

const scope = () => ownerScope(platform.container, tenant);
const posts = () => platform.container.services.channelPosts;
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** Replays a finished run's history against the workflows as they are: the run was deterministic. */
async function replaysCleanly(jobId: string): Promise<void> {
  const job = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: jobId });
  const handle = platform.container.temporal.client.workflow.getHandle(job.workflowId, job.runId ?? undefined);
  await handle.result().catch(() => undefined);
  installQuietTemporalRuntime();
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } },
    await handle.fetchHistory(),
    job.workflowId,
  );
}

beforeAll(async () => {
  network = await startBlueskyNetwork();
  platform = await startTestPlatform({
    label: 'bskypublish',
    worker: true,
    env: { BLUESKY_SERVICE_URL: network.pdsUrl, CHANNEL_PUBLISH_ATTEMPTS: '3', CHANNEL_PUBLISH_RETRY_SECONDS: '0.5' },
  });
  tenant = await createTenant(platform.container);
  brand = await network.createAccount('brand');
  accountId = await connectBluesky(platform.container, tenant, brand);
  campaign = await publishedCampaign(platform.container, tenant);
});

afterAll(async () => {
  await platform?.close();
  await network?.stop();
  await closeTestFetch();
});

it('publishes a post made from a variant at its time: image with alt text, attributed link, one record', async () => {
  const imageJobId = await stillRender(platform.container, tenant, campaign.campaignId, campaign.variantId);
  const { post: draft, validation } = await posts().draft(scope(), 'bluesky', {
    accountId,
    variantId: campaign.variantId,
    imageJobIds: [imageJobId],
    altTexts: ['A green recycled shell jacket on a mountain trail'],
    langs: ['en'],
  });
  expect(validation).toMatchObject({ valid: true, issues: [] });
  expect(draft).toMatchObject({ status: 'draft', campaignId: campaign.campaignId, variantId: campaign.variantId });
  expect(draft.text).toBe('Our recycled shell jacket is here — repaired for life. 🏔️\n\n#hiking');
  const siteOrigin = new URL(platform.urls.base);
  expect(draft.link).toEqual({
    url: `${siteOrigin.protocol}//${await workspaceSlug()}.${platform.urls.brandRootDomain}:${siteOrigin.port}/_cp/go?c=${campaign.campaignId}&v=${campaign.variantId}&p=${draft.id}`,
    display: expect.stringMatching(/\/campaigns\/winter-shell-launch$/),
  });

  const scheduledAt = inSeconds(3);
  const { post: scheduled, job } = await posts().schedule(scope(), 'bluesky', { postId: draft.id, scheduledAt });
  expect(scheduled).toMatchObject({ status: 'scheduled', scheduledAt, attempts: 1, jobId: job!.id });
  expect(await postsOnPds(network, brand.did)).toEqual([]);

  const published = await waitForPost(platform.container, draft.id, (post) => post.status === 'published');
  expect(published.publishedAt!.getTime()).toBeGreaterThanOrEqual(Date.parse(scheduledAt));
  const records = await postsOnPds(network, brand.did);
  expect(records).toHaveLength(1);
  const [record] = records;
  expect(record!.uri).toBe(published.externalId);
  expect(record!.rkey).toBe(published.recordKey);
  expect(published.externalUrl).toBe(`https://bsky.app/profile/${brand.did}/post/${published.recordKey}`);
  expect(record!.value.text).toBe(`${draft.text}\n\n${draft.link!.display}`);
  expect(record!.value.langs).toEqual(['en']);
  expect(record!.value.createdAt).toBe(published.firstAttemptAt!.toISOString());
  // The link facet spans the link's text (UTF-8 bytes: the emoji before it counts four) and carries the
  // tracked hand-off URL; the hashtag is a tag facet.
  const bytes = Buffer.from(record!.value.text, 'utf8');
  const linkFacet = record!.value.facets!.find((facet) => facet.features[0]!.$type === 'app.bsky.richtext.facet#link')!;
  expect(bytes.subarray(linkFacet.index.byteStart, linkFacet.index.byteEnd).toString('utf8')).toBe(draft.link!.display);
  expect(linkFacet.features[0]!.uri).toBe(draft.link!.url);
  expect(record!.value.facets!.map((facet) => facet.features[0]!.$type)).toContain('app.bsky.richtext.facet#tag');
  expect(record!.value.embed).toMatchObject({
    $type: 'app.bsky.embed.images',
    images: [{ alt: 'A green recycled shell jacket on a mountain trail', image: { mimeType: 'image/png' } }],
  });

  // The job of the run is done; the transitions are all in the audit log.
  const jobRow = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: job!.id });
  expect(jobRow).toMatchObject({ status: 'succeeded', kind: 'bluesky_post', subjectId: draft.id });
  const audited = await platform.container.orm.em
    .getConnection()
    .execute<{ action: string; actor: string; details: { from?: string } }[]>(
      `select action, actor, details from audit_events where target_id = ? order by created_at, id`,
      [draft.id],
    );
  expect(audited.map((row) => [row.action, row.details.from ?? null])).toEqual([
    ['channel_post.draft', null],
    ['channel_post.scheduled', 'draft'],
    ['channel_post.publishing', 'scheduled'],
    ['channel_post.published', 'publishing'],
  ]);
  expect(audited[2]!.actor).toBe(`workflow:${job!.id}`);
  await replaysCleanly(job!.id);

  // Bluesky has no editing: a published post is refused, with what to do instead.
  await expect(posts().update(scope(), 'bluesky', { postId: draft.id, text: 'Edited' })).rejects.toMatchObject({
    code: 'conflict',
    message: 'The post is published: Bluesky does not allow editing a published post: delete it and publish a new one',
  });

  // Deleting removes it from the PDS, then here; deleting again changes nothing.
  const { post: deleted } = await posts().remove(scope(), 'bluesky', draft.id);
  expect(deleted.status).toBe('deleted');
  expect(await postsOnPds(network, brand.did)).toEqual([]);
  const again = await posts().remove(scope(), 'bluesky', draft.id);
  expect(again.post.status).toBe('deleted');
});

async function workspaceSlug(): Promise<string> {
  const [row] = await platform.container.orm.em
    .getConnection()
    .execute<{ slug: string }[]>('select slug from workspaces where id = ?', [tenant.workspaceId]);
  return row!.slug;
}

it('refuses to schedule a post Bluesky would refuse, naming each rule, and stores nothing', async () => {
  const before = await acrossWorkspaces(platform.container.orm.em).count(ChannelPost, {
    workspace: tenant.workspaceId,
  });
  const refusal = await posts()
    .schedule(scope(), 'bluesky', {
      scheduledAt: inSeconds(60),
      fields: { accountId, text: 'ü'.repeat(301) },
    })
    .catch((error: unknown) => error);
  expect(refusal).toMatchObject({
    code: 'validation_failed',
    details: {
      issues: [
        {
          field: 'text',
          rule: 'text_too_long',
          message: 'The post is 301 graphemes; Bluesky allows 300: shorten it by 1',
        },
      ],
    },
  });
  expect(await acrossWorkspaces(platform.container.orm.em).count(ChannelPost, { workspace: tenant.workspaceId })).toBe(
    before,
  );
});

it('reschedules and cancels a waiting post; a cancelled post is a draft again, and nothing was published', async () => {
  const { post, job } = await posts().schedule(scope(), 'bluesky', {
    scheduledAt: inSeconds(3600),
    fields: { accountId, text: 'A post that never goes out' },
  });
  const later = inSeconds(7200);
  const moved = await posts().reschedule(scope(), 'bluesky', { postId: post.id, scheduledAt: later });
  expect(moved.post).toMatchObject({ status: 'scheduled', scheduledAt: later });
  expect(moved.job!.id).toBe(job!.id);

  const cancelled = await posts().cancel(scope(), 'bluesky', post.id);
  expect(cancelled.post).toMatchObject({ status: 'draft', scheduledAt: null });
  const jobRow = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Job, { id: job!.id });
  expect(jobRow.status).toBe('cancelled');
  // The run's history, with its two updates, replays on the current workflow code.
  await replaysCleanly(job!.id);
  // Cancelling again is refused with the status.
  await expect(posts().cancel(scope(), 'bluesky', post.id)).rejects.toMatchObject({
    code: 'conflict',
    message: 'The post is draft; only a scheduled post can be cancelled',
  });
  expect((await postsOnPds(network, brand.did)).map((record) => record.value.text)).not.toContain(
    'A post that never goes out',
  );
});

it('a PDS that is down: retried with back-off, then failed with a clear error; retry publishes it once back', async () => {
  const { post } = await posts().draft(scope(), 'bluesky', { accountId, text: 'Published after an outage' });
  await network.pdsDown();
  try {
    await posts()
      .publishNow(scope(), 'bluesky', { postId: post.id })
      .catch((error: unknown) => {
        // The live checks cannot reach the PDS either; the offline verdict lets it through.
        throw error;
      });
    const failed = await waitForPost(platform.container, post.id, (row) => row.status === 'failed');
    expect(failed.error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(
        /^Bluesky did not answer when asked to publish the post \(Could not connect to localhost:\d+\); try again later \(gave up after 3 attempts; retry the post once the network answers\)$/,
      ),
    });
  } finally {
    await network.pdsUp();
  }
  const retried = await posts().retry(scope(), 'bluesky', { postId: post.id });
  expect(retried.post).toMatchObject({ status: 'scheduled', attempts: 2, error: null });
  const published = await waitForPost(platform.container, post.id, (row) => row.status === 'published');
  const records = (await postsOnPds(network, brand.did)).filter((record) => record.rkey === published.recordKey);
  expect(records).toHaveLength(1);
  expect(records[0]!.value.text).toBe('Published after an outage');
});

it('schedule and publish_now answer with MCP task handles in both eras; each task resolves to its own action', async () => {
  const url = await profileUrl(platform, 'bluesky_ops');

  // 2025-11-25, through the v1 SDK's task client, which itself checks the final result against the output
  // schema the tool was listed with.
  const client = new ClientV1({ name: 'bluesky-tasks', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(url), { fetch: testFetch, requestInit: { headers: { 'x-api-key': tenant.apiKey } } }),
  );
  try {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'manage_bluesky')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((tool) => tool.name === 'query_bluesky')?.execution).toBeUndefined();
    const messages: { type: string; [key: string]: unknown }[] = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: 'manage_bluesky', arguments: { action: 'publish_now', accountId, text: 'Published as a task (2025)' } },
      CallToolResultSchema,
      { timeout: 60_000 },
    );
    for await (const message of stream) messages.push(message as never);
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { taskId: expect.stringMatching(/^tsk_/) } });
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: {
        structuredContent: {
          action: 'publish_now',
          post: { status: 'published', externalId: expect.stringMatching(/^at:\/\//) },
          workspace: { id: tenant.workspaceId },
        },
      },
    });
  } finally {
    await client.close();
  }

  // 2026-07-28, through the tasks extension: a flat `resultType: "task"`, then tasks/get until it completes
  // with the schedule's own answer inlined.
  const created = await modernRpc(url, tenant.apiKey, 'tools/call', 'manage_bluesky', {
    name: 'manage_bluesky',
    arguments: { action: 'schedule', accountId, text: 'Scheduled as a task (2026)', scheduledAt: inSeconds(2) },
  });
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
  const taskId = created.result!.taskId as string;
  const task = await pollUntil(
    () => modernRpc(url, tenant.apiKey, 'tasks/get', taskId, { taskId }),
    (current) => current.result?.status !== 'working',
    { timeoutMs: 60_000, intervalMs: 200, timeoutMessage: `task ${taskId} still working` },
  );
  expect(task.result).toMatchObject({
    status: 'completed',
    result: { structuredContent: { action: 'schedule', post: { status: 'published' } } },
  });

  const texts = (await postsOnPds(network, brand.did)).map((record) => record.value.text);
  expect(texts.filter((text) => text === 'Published as a task (2025)')).toHaveLength(1);
  expect(texts.filter((text) => text === 'Scheduled as a task (2026)')).toHaveLength(1);
});

it('disconnecting the account stops its scheduled posts; reconnected, a stopped post is retried', async () => {
  const { post } = await posts().schedule(scope(), 'bluesky', {
    scheduledAt: inSeconds(3600),
    fields: { accountId, text: 'Waiting while the account is disconnected' },
  });
  const { stopped } = await platform.container.services.channelAccounts.disconnect(scope(), accountId);
  expect(stopped).toEqual([post.id]);
  const row = await postRow(platform.container, post.id);
  expect(row.status).toBe('failed');
  expect(row.error).toMatchObject({
    code: 'account_disconnected',
    message: `Not published: the Bluesky account @${brand.handle} was disconnected. Reconnect it and retry the post, or delete it.`,
  });
  // Retrying on a disconnected account is refused up front.
  await expect(posts().retry(scope(), 'bluesky', { postId: post.id })).rejects.toMatchObject({
    code: 'validation_failed',
    details: { issues: [expect.objectContaining({ rule: 'account_disconnected' })] },
  });

  const owner = new AtpAgent({ service: network.pdsUrl });
  await owner.login({ identifier: brand.handle, password: brand.password });
  const { data } = await owner.com.atproto.server.createAppPassword({ name: 'campaign-platform-again' });
  await platform.container.services.channelAccounts.reconnect(scope(), accountId, { secret: data.password });
  await posts().retry(scope(), 'bluesky', { postId: post.id });
  const published = await waitForPost(platform.container, post.id, (current) => current.status === 'published');
  expect(published.externalId).toMatch(/^at:\/\//);
});
