/**
 * Publishing to a Facebook Page: text and link → `POST /{page}/feed`; one photo → `POST /{page}/photos` (the
 * bytes, multipart); several → each uploaded unpublished (ids saved one by one), then one `/feed` post
 * attaching them; a video → `POST /{page}/videos` with `file_url` (Meta fetches it), then polled until Meta
 * has processed it. The call that creates the post is marked in the progress before it is sent: when its
 * answer was lost with the worker, the repeat finds the post on the Page instead of posting it twice.
 */
import { ChannelRefusedError } from '../../../errors.ts';
import type { PublishedPost, PublishProgress } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';
import type { Graph } from './meta-graph.ts';
import { planPagePost } from './meta-post.ts';
import {
  blobOf,
  CLOCK_SKEW_MS,
  graphTime,
  LOOKUP_BATCHES,
  pollUntil,
  progressKeeper,
  sameText,
  type Listed,
  type Polling,
  type PublishInput,
} from './meta-publish.ts';

const WEB_URL = 'https://www.facebook.com';

interface PageProgress extends PublishProgress {
  /** Photos uploaded unpublished for an album, in order. */
  photoIds?: string[];
  videoId?: string;
  /** Set just before the call that creates the post: its answer may be lost, so a repeat looks first. */
  creating?: 'feed' | 'photo' | 'video';
  postId?: string;
}

interface PagePostListing {
  id: string;
  message?: string;
  created_time?: string;
  attachments?: { data?: { unshimmed_url?: string }[] };
}

export async function publishToPage(
  graph: Graph,
  page: { pageId: string; token: string },
  input: PublishInput,
  polling: Polling,
): Promise<PublishedPost> {
  const { pageId, token } = page;
  const plan = planPagePost(input.content);
  const progress = progressKeeper<PageProgress>(input);
  const since = input.createdAt.getTime() - CLOCK_SKEW_MS;
  const message = plan.kind === 'video' ? plan.description : plan.message;

  /** The Page's post with this message (and link), made since the first attempt. */
  async function findPost(link: string | null): Promise<string | null> {
    let after: string | undefined;
    for (let batch = 0; batch < LOOKUP_BATCHES; batch++) {
      const listing = await graph.call<Listed<PagePostListing>>('look up a post on the Page', {
        path: `${pageId}/posts`,
        token,
        query: { fields: 'id,message,created_time,attachments{unshimmed_url}', limit: 25, after },
      });
      for (const post of listing.data) {
        const created = graphTime(post.created_time);
        if (created < since) return null;
        const links = (post.attachments?.data ?? []).map((attachment) => attachment.unshimmed_url);
        if (sameText(post.message, message) && (!link || links.includes(link))) return post.id;
      }
      after = listing.paging?.next ? listing.paging.cursors?.after : undefined;
      if (!after) return null;
    }
    return null;
  }

  async function findVideo(): Promise<string | null> {
    const listing = await graph.call<Listed<{ id: string; description?: string; created_time?: string }>>(
      'look up a video on the Page',
      { path: `${pageId}/videos`, token, query: { fields: 'id,description,created_time' } },
    );
    const found = listing.data.find(
      (video) => sameText(video.description, message) && graphTime(video.created_time) >= since,
    );
    return found?.id ?? null;
  }

  /** Creates the post once: marks the call, sends it, saves what it made; a repeat after a lost answer looks first. */
  async function createOnce(kind: 'feed' | 'photo', link: string | null, create: () => Promise<string>) {
    const before = progress.get();
    const found = before.creating === kind ? await findPost(link) : null;
    if (found) return progress.set({ ...before, creating: undefined, postId: found });
    await progress.set({ ...before, creating: kind });
    const postId = await create();
    await progress.set({ ...progress.get(), creating: undefined, postId });
  }

  async function uploadPhoto(image: PostMedia, published: boolean, caption: string | null) {
    const form = new FormData();
    form.set('source', await blobOf(input, image), `photo.${image.mimeType === 'image/png' ? 'png' : 'jpg'}`);
    if (caption) form.set('message', caption);
    if (image.alt.trim()) form.set('alt_text_custom', image.alt.trim());
    form.set('published', String(published));
    return graph.call<{ id: string; post_id?: string }>('take the photo', {
      method: 'POST',
      path: `${pageId}/photos`,
      token,
      form,
      timeoutMs: 120_000,
    });
  }

  async function publishVideo(video: PostMedia): Promise<void> {
    let state = progress.get();
    if (!state.videoId) {
      const found = state.creating === 'video' ? await findVideo() : null;
      if (found) {
        await progress.set({ ...state, creating: undefined, videoId: found });
      } else {
        await progress.set({ ...state, creating: 'video' });
        const form = new FormData();
        form.set('file_url', input.mediaUrl(video.key));
        if (message) form.set('description', message);
        const { id } = await graph.call<{ id: string }>('take the video', {
          method: 'POST',
          path: `${pageId}/videos`,
          token,
          form,
        });
        await progress.set({ ...progress.get(), creating: undefined, videoId: id });
      }
      state = progress.get();
    }
    const videoId = state.videoId!;
    const processed = await pollUntil(
      'the video',
      polling,
      input.heartbeat,
      () =>
        graph.call<{ id: string; post_id?: string; status?: { video_status?: string } }>('check the video', {
          path: videoId,
          token,
          query: { fields: 'status,post_id' },
        }),
      (answer) => ['ready', 'error', 'expired'].includes(answer.status?.video_status ?? ''),
    );
    if (processed.status?.video_status !== 'ready') {
      throw new ChannelRefusedError(`Meta could not process the video (${processed.status?.video_status})`, {
        network: 'meta',
        networkError: `video_${processed.status?.video_status}`,
        status: 200,
      });
    }
    await progress.set({ ...progress.get(), postId: processed.post_id ?? `${pageId}_${videoId}` });
  }

  if (!progress.get().postId) {
    switch (plan.kind) {
      case 'feed':
        await createOnce('feed', plan.link, async () => {
          const { id } = await graph.call<{ id: string }>('publish the post', {
            method: 'POST',
            path: `${pageId}/feed`,
            token,
            json: { ...(plan.message ? { message: plan.message } : {}), ...(plan.link ? { link: plan.link } : {}) },
          });
          return id;
        });
        break;
      case 'photo':
        await createOnce('photo', null, async () => {
          const answer = await uploadPhoto(plan.image, true, plan.message);
          return answer.post_id ?? `${pageId}_${answer.id}`;
        });
        break;
      case 'album': {
        const photoIds = [...(progress.get().photoIds ?? [])];
        for (const image of plan.images.slice(photoIds.length)) {
          photoIds.push((await uploadPhoto(image, false, null)).id);
          await progress.set({ ...progress.get(), photoIds: [...photoIds] });
        }
        await createOnce('feed', null, async () => {
          const { id } = await graph.call<{ id: string }>('publish the post', {
            method: 'POST',
            path: `${pageId}/feed`,
            token,
            json: {
              ...(plan.message ? { message: plan.message } : {}),
              attached_media: photoIds.map((media_fbid) => ({ media_fbid })),
            },
          });
          return id;
        });
        break;
      }
      case 'video':
        await publishVideo(plan.video);
        break;
    }
  }
  const postId = progress.get().postId!;
  const { permalink_url } = await graph.call<{ permalink_url?: string }>('read the post’s address', {
    path: postId,
    token,
    query: { fields: 'permalink_url' },
  });
  // Video permalinks come as paths (`/page/videos/123/`).
  const externalUrl = permalink_url ? new URL(permalink_url, WEB_URL).toString() : `${WEB_URL}/${postId}`;
  return { externalId: postId, externalUrl };
}
