/**
 * Publishing a video to TikTok exactly once, across crashes. TikTok has no record keys, so the guarantee comes
 * from the saved progress (`PublishProgress`) and from what TikTok's answers allow:
 *
 * 1. Before the init call, the attempt saves that it is about to ask (`initiatedAt`). After it, the
 *    `publish_id` and upload URL TikTok handed back are saved before anything else is sent.
 * 2. A repeated attempt with a saved `publish_id` never initiates again: it asks TikTok for that publish's status
 *    and goes on from there — sending the rest of the file only while TikTok still waits for it
 *    (`PROCESSING_UPLOAD` with fewer bytes than the file), otherwise waiting for the outcome. A publish that
 *    ended `FAILED` is no post on TikTok, so a repeated attempt (the person's retry, or the run's after an
 *    outage) starts a new one.
 * 3. A repeated attempt that saved `initiatedAt` but no `publish_id` lost the init's answer. With FILE_UPLOAD
 *    (the default) nothing can have been posted: TikTok waits for a file whose upload URL was lost, and drops
 *    the publish after an hour. So it initiates again. With PULL_FROM_URL TikTok may be fetching and posting the
 *    video already: the attempt first looks for it on the account (`/v2/video/list/`: the exact caption, which
 *    ends with the attributed link, created at or after `createdAt`). That list only shows public videos that
 *    finished moderation; a private or not yet moderated post cannot be found, and that one case may post
 *    twice — one more reason FILE_UPLOAD is the default.
 *
 * The external id is TikTok's public post id when TikTok gave one (after moderation; never for a private
 * SELF_ONLY post), else the publish id (`v_pub_…`, `v_inbox_…`): metrics resolve a publish id through the status
 * endpoint each time, and report a post that is not public yet as unknown (null), never as 0.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ChannelRefusedError, UnavailableError } from '../../../errors.ts';
import type { PostContent, PublishedPost, PublishProgress } from '../channel-adapter.ts';
import { putChunk, type Budget, type TikTokApi } from './tiktok-api.ts';
import { chunkPlan, chunkRange, composeCaption, parseOptions, type TikTokPostOptions } from './tiktok-post.ts';

export type VideoSource = 'FILE_UPLOAD' | 'PULL_FROM_URL';

/** People's TikTok: the web app, whatever API host the adapter is pointed at. */
export const TIKTOK_WEB = 'https://www.tiktok.com';

/** TikTok's documented per-token budgets of the Content Posting API (requests a minute). */
export const BUDGETS = {
  publishInit: { limit: 6, windowSeconds: 60 },
  status: { limit: 30, windowSeconds: 60 },
  creatorInfo: { limit: 20, windowSeconds: 60 },
} satisfies Record<string, Budget>;

/** What an attempt saves (`PublishProgress`). */
interface TikTokProgress {
  mode: 'direct' | 'inbox';
  source: VideoSource;
  /** Saved before the init call: an attempt that finds it without a publish id lost the init's answer. */
  initiatedAt: string;
  publishId?: string;
  uploadUrl?: string;
  videoSize?: number;
  chunkSize?: number;
  totalChunks?: number;
}

export interface PublishStatus {
  status: 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';
  fail_reason?: string;
  /** TikTok's own spelling; int64 ids, read as strings (see `parseJson`). */
  publicaly_available_post_id?: (string | number)[];
  uploaded_bytes?: number;
  downloaded_bytes?: number;
}

export interface PublishTuning {
  /** Between status polls (TikTok allows 30 a minute per token). */
  pollIntervalMs: number;
  /** How long an attempt waits for TikTok to take and process the video before it gives up for now. */
  processingTimeoutMs: number;
  /** How long an attempt waits, after `PUBLISH_COMPLETE`, for moderation to give the public post id. */
  moderationWaitMs: number;
  /** The FILE_UPLOAD chunk size (5 to 64 MB). */
  uploadChunkBytes: number;
}

export const videoUrl = (username: string, id: string) => `${TIKTOK_WEB}/@${username}/video/${id}`;
export const profileUrl = (username: string) => `${TIKTOK_WEB}/@${username}`;

/** A public post id (digits) rather than a publish id. */
export const isPostId = (externalId: string) => /^\d+$/.test(externalId);

export function fetchStatus(api: TikTokApi, publishId: string): Promise<PublishStatus> {
  return api.call<PublishStatus>({
    doing: 'tell how the video is getting on',
    method: 'POST',
    path: '/v2/post/publish/status/fetch/',
    json: { publish_id: publishId },
    budget: BUDGETS.status,
  });
}

export function publicIdOf(status: PublishStatus): string | null {
  const id = status.publicaly_available_post_id?.[0];
  return id === undefined || id === null || id === '' ? null : String(id);
}

/** Why TikTok failed a publish, for the person (`fail_reason` as the status reference lists them). */
const FAIL_REASONS: Record<string, string> = {
  file_format_check_failed: 'TikTok could not read the video file; render it as MP4 (H.264)',
  duration_check_failed: 'the video is longer than this account may post (or too short); shorten it',
  frame_rate_check_failed: 'TikTok takes videos of 23 to 60 frames per second',
  picture_size_check_failed: 'TikTok takes videos of 360 to 4,096 pixels on each side',
  video_pull_failed: "TikTok could not download the video from the platform's media link",
  auth_removed: "the creator removed the platform's access to the account; reconnect it",
  publish_cancelled: 'the post was cancelled on TikTok',
  spam_risk_too_many_posts: 'the account reached the number of posts TikTok allows through apps in a day',
  spam_risk_user_banned_from_posting: 'TikTok does not let this account post at the moment',
  spam_risk_text: 'TikTok took the caption for spam; rewrite it',
  spam_risk: 'TikTok took the post for spam',
};

function publishFailed(reason: string | undefined): Error {
  const code = reason || 'unknown';
  // TikTok's own trouble: the run retries, and its next attempt starts a new publish (the failed one is no post).
  if (code === 'internal')
    return new UnavailableError('TikTok failed the post on its side (internal); try again later');
  return new ChannelRefusedError(`TikTok did not publish the video: ${FAIL_REASONS[code] ?? code}`, {
    network: 'tiktok',
    networkError: code,
    status: 200,
  });
}

export interface PublishInput {
  content: PostContent;
  createdAt: Date;
  loadMedia(key: string): Promise<Buffer>;
  mediaUrl(key: string): string;
  progress: PublishProgress | null;
  saveProgress(progress: PublishProgress): Promise<void>;
  heartbeat(): void;
}

export interface PublishContext {
  api: TikTokApi;
  fetch: typeof globalThis.fetch;
  username: string;
  videoSource: VideoSource;
  tuning: PublishTuning;
}

export async function publishVideo(context: PublishContext, input: PublishInput): Promise<PublishedPost> {
  const { api, username, tuning } = context;
  const { options } = parseOptions(input.content);
  const caption = composeCaption(input.content);
  const video = input.content.media.find((media) => media.mimeType.startsWith('video/'))!;
  let progress = (input.progress as TikTokProgress | null) ?? null;
  const save = async (next: TikTokProgress) => {
    progress = next;
    await input.saveProgress({ ...next });
  };

  const outcome = (publishId: string, mode: TikTokProgress['mode']) =>
    awaitOutcome(context, input, publishId, mode === 'inbox' || options.privacyLevel === 'SELF_ONLY');

  if (progress?.publishId) {
    const status = await fetchStatus(api, progress.publishId);
    if (status.status !== 'FAILED') {
      if (status.status === 'PROCESSING_UPLOAD' && progress.source === 'FILE_UPLOAD') {
        await upload(context, input, progress, status.uploaded_bytes ?? 0);
      }
      return outcome(progress.publishId, progress.mode);
    }
  } else if (progress?.initiatedAt && progress.source === 'PULL_FROM_URL' && progress.mode === 'direct') {
    const found = await findPublished(api, caption, input.createdAt);
    if (found) return { externalId: found, externalUrl: videoUrl(username, found) };
  }

  const mode = options.asDraft ? 'inbox' : 'direct';
  const source = context.videoSource;
  await save({ mode, source, initiatedAt: new Date().toISOString() });
  let bytes: Buffer | null = null;
  let sourceInfo: Record<string, unknown>;
  if (source === 'FILE_UPLOAD') {
    bytes = await input.loadMedia(video.key);
    const plan = chunkPlan(bytes.length, tuning.uploadChunkBytes);
    sourceInfo = { source, video_size: bytes.length, chunk_size: plan.chunkSize, total_chunk_count: plan.totalChunks };
  } else {
    sourceInfo = { source, video_url: input.mediaUrl(video.key) };
  }
  const init = await api.call<{ publish_id: string; upload_url?: string }>({
    doing: mode === 'inbox' ? "send the video to the creator's TikTok inbox" : 'publish the video',
    method: 'POST',
    path: mode === 'inbox' ? '/v2/post/publish/inbox/video/init/' : '/v2/post/publish/video/init/',
    // The inbox takes the video only: the creator writes the caption and chooses the settings in the app.
    json:
      mode === 'inbox'
        ? { source_info: sourceInfo }
        : { post_info: postInfo(caption, options), source_info: sourceInfo },
    budget: BUDGETS.publishInit,
  });
  const started: TikTokProgress = {
    mode,
    source,
    initiatedAt: progress!.initiatedAt,
    publishId: init.publish_id,
    ...(source === 'FILE_UPLOAD'
      ? {
          uploadUrl: init.upload_url,
          videoSize: sourceInfo.video_size as number,
          chunkSize: sourceInfo.chunk_size as number,
          totalChunks: sourceInfo.total_chunk_count as number,
        }
      : {}),
  };
  await save(started);
  if (source === 'FILE_UPLOAD') await upload(context, input, started, 0, bytes!);
  return outcome(init.publish_id, mode);
}

/** `post_info`: interactions are off unless the person turned them on (TikTok's content sharing guidelines). */
function postInfo(caption: string, options: TikTokPostOptions): Record<string, unknown> {
  return {
    title: caption,
    privacy_level: options.privacyLevel,
    disable_comment: options.disableComment ?? true,
    disable_duet: options.disableDuet ?? true,
    disable_stitch: options.disableStitch ?? true,
    ...(options.coverTimestampMs !== undefined ? { video_cover_timestamp_ms: options.coverTimestampMs } : {}),
    brand_content_toggle: options.brandContent ?? false,
    brand_organic_toggle: options.brandOrganic ?? false,
  };
}

/** Sends the file's chunks in order, from the chunk holding byte `fromByte` (chunks already taken are skipped). */
async function upload(
  context: PublishContext,
  input: PublishInput,
  progress: TikTokProgress,
  fromByte: number,
  loaded?: Buffer,
): Promise<void> {
  const { uploadUrl, videoSize, chunkSize, totalChunks } = progress;
  if (!uploadUrl || !videoSize || !chunkSize || !totalChunks || fromByte >= videoSize) return;
  const video = input.content.media.find((media) => media.mimeType.startsWith('video/'))!;
  const bytes = loaded ?? (await input.loadMedia(video.key));
  const plan = { chunkSize, totalChunks };
  for (let index = Math.min(Math.floor(fromByte / chunkSize), totalChunks - 1); index < totalChunks; index += 1) {
    input.heartbeat();
    const { first, last } = chunkRange(index, plan, videoSize);
    await putChunk(context.fetch, {
      uploadUrl,
      bytes: bytes.subarray(first, last + 1),
      first,
      last,
      total: videoSize,
      contentType: video.mimeType,
    });
  }
}

/**
 * Polls the publish until TikTok has the post (or the draft is in the inbox). Waits a little longer for the
 * public id when moderation may give one (`moderationWaitMs`); a publish still processing after
 * `processingTimeoutMs` is an outage for now: the next attempt polls the same publish id.
 */
async function awaitOutcome(
  context: PublishContext,
  input: PublishInput,
  publishId: string,
  neverPublic: boolean,
): Promise<PublishedPost> {
  const { api, username, tuning } = context;
  const started = Date.now();
  let completedAt: number | null = null;
  for (;;) {
    input.heartbeat();
    const status = await fetchStatus(api, publishId);
    const publicId = publicIdOf(status);
    if (status.status === 'FAILED') throw publishFailed(status.fail_reason);
    if (publicId) return { externalId: publicId, externalUrl: videoUrl(username, publicId) };
    if (status.status === 'SEND_TO_USER_INBOX') return { externalId: publishId, externalUrl: profileUrl(username) };
    if (status.status === 'PUBLISH_COMPLETE') {
      completedAt ??= Date.now();
      if (neverPublic || Date.now() - completedAt >= tuning.moderationWaitMs) {
        return { externalId: publishId, externalUrl: profileUrl(username) };
      }
    } else if (Date.now() - started >= tuning.processingTimeoutMs) {
      throw new UnavailableError(
        `TikTok is still processing the video after ${Number((tuning.processingTimeoutMs / 1000).toFixed(2))} s (${status.status}); the next attempt goes on with the same publish`,
      );
    }
    await sleep(tuning.pollIntervalMs);
  }
}

interface ListedVideo {
  id: string;
  title?: string;
  video_description?: string;
  create_time?: number;
}

/**
 * The public video of this account with exactly this caption, created at or after `createdAt`, if any. The
 * list is newest first, so the search stops at the first older video.
 */
export async function findPublished(api: TikTokApi, caption: string, createdAt: Date): Promise<string | null> {
  const since = Math.floor(createdAt.getTime() / 1000);
  let cursor: number | undefined;
  for (let page = 0; page < 10; page += 1) {
    const data = await api.call<{ videos?: ListedVideo[]; cursor?: number; has_more?: boolean }>({
      doing: 'look for the video on the account',
      method: 'POST',
      path: '/v2/video/list/?fields=id,title,video_description,create_time',
      json: { max_count: 20, ...(cursor !== undefined ? { cursor } : {}) },
    });
    for (const video of data.videos ?? []) {
      if ((video.create_time ?? 0) < since) return null;
      // TikTok's reference does not say which of the two holds a Content Posting caption: either matches.
      if ([video.title, video.video_description].some((text) => text?.trim() === caption.trim()))
        return String(video.id);
    }
    if (!data.has_more || data.cursor === undefined) return null;
    cursor = data.cursor;
  }
  return null;
}
