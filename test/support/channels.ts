/**
 * Builders for the channel tests: a connected Bluesky account (through the real accounts service, against the
 * test network's PDS), a published campaign with a variant, a still render of it in the media store, and
 * reads of what a PDS holds.
 */
import { AtpAgent, AtUri } from '@atproto/api';
import { imageSize } from 'image-size';
import { PNG } from 'pngjs';
import { encodeVideo } from '../../src/domain/creative/video/ffmpeg.ts';
import type { Container } from '../../src/container.ts';
import { ChannelPost } from '../../src/domain/channels/channel-post.entity.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { newTaskId } from '../../src/domain/jobs/task-ids.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { acrossWorkspaces, actors, workspaceScope, type WorkspaceScope } from '../../src/domain/shared/scope.ts';
import type { BlueskyAccount, BlueskyNetwork } from './bluesky-network.ts';
import type { Tenant } from './factories.ts';
import { pollUntil } from './poll.ts';

export const POST_COLLECTION = 'app.bsky.feed.post';

export function ownerScope(container: Container, tenant: Tenant): WorkspaceScope {
  return workspaceScope(container.orm.em, tenant.workspaceId, actors.user(tenant.userId));
}

/** Connects `account` to the tenant's workspace the way the dashboard does; returns the account id. */
export async function connectBluesky(container: Container, tenant: Tenant, account: BlueskyAccount): Promise<string> {
  const { account: connected } = await container.services.channelAccounts.connect(ownerScope(container, tenant), {
    network: 'bluesky',
    identifier: account.handle,
    secret: account.appPassword,
  });
  return connected.id;
}

/** A published campaign with one active variant (a social caption and hashtags, no off-site link). */
export async function publishedCampaign(
  container: Container,
  tenant: Tenant,
  options: { ctaUrl?: string | null; caption?: string } = {},
): Promise<{ campaignId: string; variantId: string; slug: string }> {
  const { campaigns } = container.services;
  const scope = ownerScope(container, tenant);
  const campaign = await campaigns.create(scope, { name: 'Winter shell launch', objective: 'Sell jackets' });
  const variant = await campaigns.createVariant(scope, campaign.id, {
    headline: 'Built for the long haul',
    body: 'Three layers of recycled fabric, repaired for life.',
    callToAction: 'See the jacket',
    ...(options.ctaUrl ? { ctaUrl: options.ctaUrl } : {}),
    channelFields: {
      social: {
        caption: options.caption ?? 'Our recycled shell jacket is here — repaired for life. 🏔️',
        hashtags: ['hiking'],
      },
    },
  });
  await campaigns.publish(scope, campaign.id);
  return { campaignId: campaign.id, variantId: variant.id, slug: campaign.slug };
}

/** A solid-colour PNG of the given size. */
export function png(width: number, height: number, rgb: [number, number, number] = [0x2d, 0x6a, 0x4f]): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < image.data.length; i += 4) image.data.set([...rgb, 0xff], i);
  return PNG.sync.write(image);
}

/**
 * A finished render job of the workspace with its output in the media store, as `render_video` leaves them (the
 * rendering itself is tested with the render workflow; here only its output matters).
 */
async function finishedRender(
  container: Container,
  tenant: Tenant,
  campaignId: string,
  output: { file: string; bytes: Buffer; mimeType: 'image/png' | 'video/mp4'; width: number; height: number },
  request: Record<string, unknown>,
  durationSeconds: number | null = null,
): Promise<string> {
  const jobId = newId('job');
  const key = `${tenant.workspaceId}/renders/${jobId}/${output.file}`;
  await container.services.media.put(key, output.bytes, output.mimeType);
  const em = acrossWorkspaces(container.orm.em);
  em.create(Job, {
    id: jobId,
    workspace: tenant.workspaceId,
    taskId: newTaskId(),
    kind: 'render',
    status: 'succeeded',
    workflowId: `render:${tenant.workspaceId}:${jobId}`,
    runId: null,
    subjectId: campaignId,
    input: { request },
    progress: { fraction: 1 },
    result: {
      output: {
        key,
        url: container.services.media.urlFor(key),
        mimeType: output.mimeType,
        bytes: output.bytes.length,
        sha256: '',
        width: output.width,
        height: output.height,
        durationSeconds,
      },
    },
    error: null,
    createdBy: 'test:seed',
    startedAt: new Date(),
    finishedAt: new Date(),
    cancelRequestedAt: null,
  });
  await em.flush();
  return jobId;
}

/** A finished still render of a variant: a PNG (120×63 by default). */
export async function stillRender(
  container: Container,
  tenant: Tenant,
  campaignId: string,
  variantId: string,
  bytes = png(120, 63),
): Promise<string> {
  const { width, height } = imageSize(new Uint8Array(bytes));
  return finishedRender(
    container,
    tenant,
    campaignId,
    { file: 'still.png', bytes, mimeType: 'image/png', width: width!, height: height! },
    { mode: 'still', campaignId, variantId, format: 'landscape' },
  );
}

/**
 * A finished video render of the campaign, as `render_video mode=campaign` leaves it: a real H.264 MP4 (360×640,
 * `seconds` long, made with the platform's own encoder).
 */
export async function videoRender(
  container: Container,
  tenant: Tenant,
  campaignId: string,
  seconds = 3,
): Promise<{ jobId: string; bytes: Buffer }> {
  const [width, height] = [360, 640];
  const { mp4, durationSeconds } = await encodeVideo({
    keyframes: [{ png: png(width, height, [0x1b, 0x4d, 0x3e]), seconds }],
    width,
    height,
  });
  const jobId = await finishedRender(
    container,
    tenant,
    campaignId,
    { file: 'video.mp4', bytes: mp4, mimeType: 'video/mp4', width, height },
    { mode: 'campaign', campaignId },
    durationSeconds,
  );
  return { jobId, bytes: mp4 };
}

/** Every post record in an account's repository on the PDS (read as anyone can, without a session). */
export async function postsOnPds(network: BlueskyNetwork, did: string) {
  const reader = new AtpAgent({ service: network.pdsUrl });
  const { data } = await reader.com.atproto.repo.listRecords({ repo: did, collection: POST_COLLECTION, limit: 100 });
  return data.records.map((record) => ({
    uri: record.uri,
    rkey: new AtUri(record.uri).rkey,
    value: record.value as {
      text: string;
      createdAt: string;
      facets?: { index: { byteStart: number; byteEnd: number }; features: { $type: string; uri?: string }[] }[];
      embed?: { $type: string; images?: { alt: string; image: { ref: { toString(): string }; mimeType: string } }[] };
      langs?: string[];
    },
  }));
}

/** The post row, read as it is (across workspaces: tests inspect rows). */
export async function postRow(container: Container, postId: string): Promise<ChannelPost> {
  return acrossWorkspaces(container.orm.em).findOneOrFail(ChannelPost, { id: postId }, { refresh: true });
}

/** Waits until the post's row satisfies `until`. */
export async function waitForPost(
  container: Container,
  postId: string,
  until: (post: ChannelPost) => boolean,
  timeoutMs = 60_000,
): Promise<ChannelPost> {
  return pollUntil(() => postRow(container, postId), until, {
    timeoutMs,
    intervalMs: 100,
    timeoutMessage: (post) => `post ${postId} stayed ${post.status} (${JSON.stringify(post.error)})`,
  });
}

/**
 * Connects the accounts a person grants on a network's consent page, the way the dashboard does (begin → the
 * network's page → the callback → finish → store), without a browser: `authorize` answers the network's page
 * (a stand-in's `authorize`) and returns the redirect back to the platform. Returns the connected accounts' ids.
 */
export async function connectThroughOAuth(
  container: Container,
  tenant: Tenant,
  network: string,
  authorize: (authorizationUrl: string) => Promise<string>,
): Promise<string[]> {
  const { oauth } = container.services.channels;
  const actor = actors.user(tenant.userId);
  const { authorizationUrl, flow } = oauth.begin({ network, workspaceId: tenant.workspaceId, actor });
  const callback = new URL(await authorize(authorizationUrl));
  const granted = await oauth.finish({
    network,
    flow,
    query: Object.fromEntries(callback.searchParams),
    actor,
  });
  const stored = await container.services.channelAccounts.connectGranted(
    ownerScope(container, tenant),
    granted.network,
    granted.identities,
  );
  return stored.map(({ account }) => account.id);
}
