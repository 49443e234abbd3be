/**
 * Publishing a Reddit post exactly once. Reddit has no client-chosen keys, so the guarantee comes from saved
 * progress and from looking before sending again:
 *
 * 1. An image is uploaded first (`POST /api/media/asset.json` for an upload lease, then the bytes to the
 *    lease's storage bucket); its asset id and URL are saved, so a repeated attempt does not upload it again.
 * 2. `submitting` is saved before `POST /api/submit`. An attempt that finds it there may have lost the answer
 *    to a submit Reddit accepted (the worker was killed), so it first looks for the post among the account's
 *    newest submissions (`GET /user/{name}/submitted`): same subreddit and title, created at or after the
 *    post's `createdAt`, and the same attributed link (a link post's URL, a text post's body) or image.
 * 3. A text or link post's id comes in the submit answer. An image post is made asynchronously: Reddit
 *    answers with the account's submitted page and a websocket that announces the post when the image is
 *    processed. The platform does not open that websocket (its connections go through the SSRF guard, which
 *    speaks HTTP); it polls the submitted listing instead, heartbeating, until the post shows.
 */
import { ChannelRefusedError, RateLimitedError, UnavailableError } from '../../../errors.ts';
import type { PostContent, PublishedPost, PublishProgress, QuotaObserver } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';
import { REDDIT_WWW_URL, type RedditHttp } from './reddit-http.ts';
import { composeRedditPost, markdownUrl, type ComposedRedditPost } from './reddit-post.ts';

/** Our clock and Reddit's may differ by a little: a post this much older than `createdAt` still matches. */
const CLOCK_SKEW_SECONDS = 60;
/** Pages of 100 submissions searched for a lost post (a busy account posts more than 100 in minutes rarely). */
const LOOKUP_PAGES = 3;

/** What an interrupted publish keeps (`PublishProgress`). */
interface RedditProgress {
  assetId?: string;
  imageUrl?: string;
  /** A submit was (about to be) sent: look for the post before sending another. */
  submitting?: boolean;
}

export interface PublishContext {
  http: RedditHttp;
  accessToken: string;
  username: string;
  apiUrl: string;
  onQuota: QuotaObserver;
  /** How often, and how long, to look for an image post Reddit is still processing. */
  pollIntervalMs: number;
  imageWaitMs: number;
}

export interface PublishInput {
  content: PostContent;
  createdAt: Date;
  loadMedia(key: string): Promise<Buffer>;
  progress: PublishProgress | null;
  saveProgress(progress: PublishProgress): Promise<void>;
  heartbeat(): void;
}

/** A submission as listings show it (the fields the lookup reads). */
interface ListedPost {
  name: string;
  subreddit: string;
  title: string;
  created_utc: number;
  is_self?: boolean;
  selftext?: string;
  url?: string;
  permalink: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const collapse = (value: string) => value.replace(/\s+/g, ' ').trim();

/** The wait in a `RATELIMIT` error: its `ratelimit` seconds when given, else read from the words. */
export function rateLimitWait(message: string, seconds?: unknown): number {
  if (typeof seconds === 'number' && seconds > 0) return Math.ceil(seconds);
  const found = /(\d+)\s*(millisecond|second|minute|hour)/i.exec(message);
  if (!found) return 60;
  const unit = { millisecond: 0.001, second: 1, minute: 60, hour: 3600 }[found[2]!.toLowerCase() as 'second'];
  return Math.max(1, Math.ceil(Number(found[1]) * unit));
}

/** `json.errors` of an `api_type=json` answer, thrown as the platform's errors. */
export function throwJsonErrors(body: unknown, doing: string): void {
  const json = (body as { json?: { errors?: unknown[]; ratelimit?: unknown } } | undefined)?.json;
  const first = json?.errors?.[0];
  if (!Array.isArray(first)) return;
  const [code, message] = [String(first[0] ?? 'UNKNOWN'), String(first[1] ?? '')];
  if (code === 'RATELIMIT') {
    const wait = rateLimitWait(message, json?.ratelimit);
    throw new RateLimitedError(`Reddit asks the account to wait before it can ${doing}: ${message}`, wait);
  }
  throw new ChannelRefusedError(`Reddit refused to ${doing}: ${message || code} (${code})`, {
    network: 'reddit',
    networkError: code,
    status: 200,
  });
}

function matches(post: ListedPost, composed: ComposedRedditPost, content: PostContent, assetId?: string): boolean {
  if (post.subreddit.toLowerCase() !== composed.subreddit.toLowerCase()) return false;
  if (collapse(post.title) !== collapse(composed.title)) return false;
  if (composed.kind === 'self') {
    if (!post.is_self) return false;
    const body = post.selftext ?? '';
    // The attributed link names this post and no other; without one, the whole text has to agree.
    return content.link ? body.includes(markdownUrl(content.link.url)) : collapse(body) === collapse(composed.body);
  }
  if (post.is_self) return false;
  if (composed.kind === 'link') return post.url === composed.url;
  return assetId ? (post.url ?? '').includes(assetId) : true;
}

/** The account's submission that is this post, if Reddit has it. */
export async function findSubmitted(
  context: PublishContext,
  content: PostContent,
  createdAt: Date,
  assetId?: string,
): Promise<PublishedPost | null> {
  const composed = composeRedditPost(content);
  const since = Math.floor(createdAt.getTime() / 1000) - CLOCK_SKEW_SECONDS;
  let after: string | null = null;
  for (let page = 0; page < LOOKUP_PAGES; page += 1) {
    const answer = await context.http.api(context.accessToken, {
      method: 'GET',
      path: `/user/${encodeURIComponent(context.username)}/submitted`,
      query: { sort: 'new', limit: '100', raw_json: '1', ...(after ? { after } : {}) },
      doing: 'look for a post it may have published already',
      onQuota: context.onQuota,
    });
    const listing = (answer.body as { data?: { children?: { data: ListedPost }[]; after?: string | null } })?.data;
    const posts = (listing?.children ?? []).map((child) => child.data);
    for (const post of posts) {
      if (post.created_utc < since) return null; // newest first: the rest are older still
      if (matches(post, composed, content, assetId)) {
        return { externalId: post.name, externalUrl: new URL(post.permalink, REDDIT_WWW_URL).toString() };
      }
    }
    after = listing?.after ?? null;
    if (!after) return null;
  }
  return null;
}

/** Looks for the post until it shows or `imageWaitMs` passes, telling the run it is alive. */
async function waitForPost(
  context: PublishContext,
  input: PublishInput,
  assetId: string | undefined,
): Promise<PublishedPost | null> {
  const deadline = Date.now() + context.imageWaitMs;
  for (;;) {
    input.heartbeat();
    const found = await findSubmitted(context, input.content, input.createdAt, assetId);
    if (found || Date.now() >= deadline) return found;
    await sleep(context.pollIntervalMs);
  }
}

/** Uploads the image to Reddit's media storage; returns its asset id and the URL a submit names. */
async function uploadImage(context: PublishContext, image: PostMedia, bytes: Buffer) {
  const extension = image.mimeType.split('/')[1]!.replace('jpeg', 'jpg');
  const filepath = `${image.key
    .split('/')
    .pop()!
    .replace(/\.[^.]*$/, '')}.${extension}`;
  const lease = await context.http.api(context.accessToken, {
    method: 'POST',
    path: '/api/media/asset.json',
    form: { filepath, mimetype: image.mimeType },
    doing: 'take the image',
    onQuota: context.onQuota,
  });
  throwJsonErrors(lease.body, 'take the image');
  const { args, asset } = (lease.body ?? {}) as {
    args?: { action?: string; fields?: { name: string; value: string }[] };
    asset?: { asset_id?: string };
  };
  if (!args?.action || !args.fields || !asset?.asset_id) {
    throw new UnavailableError('Reddit answered the image upload request without an upload lease; try again later');
  }
  // The action is protocol-relative (`//reddit-uploaded-media.s3-accelerate.amazonaws.com`): it takes the API's scheme.
  const action = new URL(args.action, context.apiUrl);
  const form = new FormData();
  for (const field of args.fields) form.append(field.name, field.value);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: image.mimeType }), filepath);
  const stored = await context.http.upload(action, form, 'upload the image');
  if (stored.status < 200 || stored.status >= 300) {
    const why = /<Message>([^<]*)<\/Message>/.exec(String(stored.body ?? ''))?.[1] ?? `HTTP ${stored.status}`;
    if (stored.status >= 500)
      throw new UnavailableError(`Reddit's media storage did not take the image (${why}); try again later`);
    throw new ChannelRefusedError(`Reddit's media storage refused the image: ${why}`, {
      network: 'reddit',
      networkError: 'media_upload_refused',
      status: stored.status,
    });
  }
  const key = args.fields.find((field) => field.name === 'key')?.value ?? '';
  return { assetId: asset.asset_id, imageUrl: `${action.toString().replace(/\/+$/, '')}/${key}` };
}

function submitForm(composed: ComposedRedditPost, imageUrl: string | undefined): Record<string, string> {
  const form: Record<string, string> = {
    api_type: 'json',
    sr: composed.subreddit,
    kind: composed.kind,
    title: composed.title,
    nsfw: String(composed.nsfw),
    spoiler: String(composed.spoiler),
    sendreplies: 'true',
    // The attributed link is new for every post; never refuse it as a repost.
    resubmit: 'true',
  };
  if (composed.kind === 'self') form.text = composed.body;
  if (composed.kind === 'link') form.url = composed.url!;
  if (composed.kind === 'image') form.url = imageUrl!;
  if (composed.flairId) form.flair_id = composed.flairId;
  if (composed.flairText) form.flair_text = composed.flairText;
  return form;
}

export async function publishRedditPost(context: PublishContext, input: PublishInput): Promise<PublishedPost> {
  const composed = composeRedditPost(input.content);
  let progress = { ...(input.progress ?? {}) } as RedditProgress;

  if (progress.submitting) {
    // An image post takes a while to show: give it the same time a first attempt would wait.
    const found =
      composed.kind === 'image'
        ? await waitForPost(context, input, progress.assetId)
        : await findSubmitted(context, input.content, input.createdAt);
    if (found) return found;
  }

  if (composed.kind === 'image' && !progress.imageUrl) {
    if (!composed.image)
      throw new ChannelRefusedError('An image post needs an image', {
        network: 'reddit',
        networkError: 'image_missing',
        status: 0,
      });
    const uploaded = await uploadImage(context, composed.image, await input.loadMedia(composed.image.key));
    progress = { ...progress, ...uploaded };
    await input.saveProgress({ ...progress });
  }

  await input.saveProgress({ ...progress, submitting: true });
  const answer = await context.http.api(context.accessToken, {
    method: 'POST',
    path: '/api/submit',
    form: submitForm(composed, progress.imageUrl),
    doing: `publish the post to r/${composed.subreddit}`,
    onQuota: context.onQuota,
  });
  throwJsonErrors(answer.body, `publish the post to r/${composed.subreddit}`);
  const data = (answer.body as { json?: { data?: { name?: string; id?: string; url?: string } } })?.json?.data ?? {};
  if (data.name || data.id) {
    const externalId = data.name ?? `t3_${data.id}`;
    return {
      externalId,
      externalUrl: data.url ?? new URL(`/comments/${externalId.replace(/^t3_/, '')}/`, REDDIT_WWW_URL).toString(),
    };
  }
  const found = await waitForPost(context, input, progress.assetId);
  if (found) return found;
  throw new UnavailableError(
    `Reddit took the image post but has not shown it after ${Math.round(context.imageWaitMs / 1000)} s; the next attempt looks for it before posting again`,
  );
}
