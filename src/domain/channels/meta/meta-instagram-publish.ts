/**
 * Publishing to Instagram: Instagram fetches the media from the platform's public media URLs into containers
 * (`POST /{ig}/media`; a carousel's items first, each `is_carousel_item`, then the carousel), processes them
 * (`status_code` IN_PROGRESS → FINISHED, or ERROR / EXPIRED), and `media_publish` makes a container a post.
 * Every container id is saved before the next call. The container says whether it was published
 * (`PUBLISHED`): a repeat whose last answer was lost finds the post in the account's media rather than
 * publishing again; an EXPIRED one (never published) is made again.
 */
import { ChannelRefusedError, UnavailableError } from '../../../errors.ts';
import type { PublishedPost, PublishProgress } from '../channel-adapter.ts';
import type { PostMedia } from '../channel-post.entity.ts';
import type { Graph } from './meta-graph.ts';
import { planInstagramPost, type InstagramPlan } from './meta-post.ts';
import {
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

interface InstagramProgress extends PublishProgress {
  /** Carousel item containers, in order. */
  children?: string[];
  /** The container to publish. */
  container?: string;
  mediaId?: string;
}

interface ContainerState {
  id: string;
  status_code?: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  status?: string;
}

interface MediaListing {
  id: string;
  caption?: string;
  timestamp?: string;
}

export async function publishToInstagram(
  graph: Graph,
  account: { igUserId: string; token: string },
  input: PublishInput,
  polling: Polling,
): Promise<PublishedPost> {
  const { igUserId, token } = account;
  const plan = planInstagramPost(input.content);
  const progress = progressKeeper<InstagramProgress>(input);
  const since = input.createdAt.getTime() - CLOCK_SKEW_MS;

  const readContainer = (id: string) =>
    graph.call<ContainerState>('check the media container', {
      path: id,
      token,
      query: { fields: 'status_code,status' },
    });

  function refused(state: ContainerState): ChannelRefusedError {
    return new ChannelRefusedError(
      `Instagram could not take the media (${state.status_code}${state.status ? `: ${state.status}` : ''})`,
      { network: 'meta', networkError: `container_${state.status_code?.toLowerCase()}`, status: 200 },
    );
  }

  async function createContainer(fields: Record<string, unknown>): Promise<string> {
    const { id } = await graph.call<{ id: string }>('take the media', {
      method: 'POST',
      path: `${igUserId}/media`,
      token,
      json: fields,
      timeoutMs: 120_000,
    });
    return id;
  }

  /** A container's media fields; an image that is not JPEG (a PNG render) goes as its JPEG copy. */
  async function itemFields(item: PostMedia, extra: Record<string, unknown>): Promise<Record<string, unknown>> {
    const jpegOnly = item.mimeType.startsWith('image/') && item.mimeType !== 'image/jpeg';
    const url = input.mediaUrl(jpegOnly ? await input.jpegCopy(item.key) : item.key);
    if (item.mimeType.startsWith('video/')) return { video_url: url, ...extra };
    return { image_url: url, ...(item.alt.trim() ? { alt_text: item.alt.trim() } : {}), ...extra };
  }

  /** Waits until Meta has processed a container (FINISHED, or ERROR / EXPIRED). */
  async function waitFinished(id: string): Promise<ContainerState> {
    return pollUntil(
      'the media',
      polling,
      input.heartbeat,
      () => readContainer(id),
      (state) => state.status_code !== 'IN_PROGRESS',
    );
  }

  async function carouselChildren(items: PostMedia[]): Promise<string[]> {
    const children = [...(progress.get().children ?? [])];
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      // A child saved by an earlier attempt is used if it is ready; one that expired or failed is made again.
      if (children[index] && (await waitFinished(children[index]!)).status_code === 'FINISHED') continue;
      const extra = { is_carousel_item: true, ...(item.mimeType.startsWith('video/') ? { media_type: 'VIDEO' } : {}) };
      children[index] = await createContainer(await itemFields(item, extra));
      await progress.set({ ...progress.get(), children: [...children] });
      const state = await waitFinished(children[index]!);
      if (state.status_code !== 'FINISHED') throw refused(state);
    }
    return children;
  }

  async function newContainer(current: InstagramPlan): Promise<string> {
    switch (current.kind) {
      case 'image':
        return createContainer(await itemFields(current.image, { caption: current.caption }));
      case 'reel':
        return createContainer(
          await itemFields(current.video, {
            media_type: 'REELS',
            caption: current.caption,
            share_to_feed: current.shareToFeed,
          }),
        );
      case 'story':
        return createContainer(await itemFields(current.item, { media_type: 'STORIES' }));
      case 'carousel': {
        const children = await carouselChildren(current.items);
        return createContainer({ media_type: 'CAROUSEL', children, caption: current.caption });
      }
    }
  }

  /**
   * A story has no caption to match: the one it made is the earliest published since the first attempt by the
   * platform's clock, or else (the clocks differ) the latest just before it. Another story published through
   * another tool in those seconds could be taken for it; nothing Meta returns tells them apart.
   */
  function earliestStory(recent: MediaListing[]): MediaListing | undefined {
    const at = (media: MediaListing) => graphTime(media.timestamp);
    // Meta's times are whole seconds.
    const firstAttempt = Math.floor(input.createdAt.getTime() / 1000) * 1000;
    const after = recent.filter((media) => at(media) >= firstAttempt).sort((a, b) => at(a) - at(b));
    return after[0] ?? [...recent].sort((a, b) => at(b) - at(a))[0];
  }

  /** The post a published container made (its answer was lost): same caption, published since the first attempt. */
  async function findPublished(): Promise<string> {
    const story = plan.kind === 'story';
    let after: string | undefined;
    for (let batch = 0; batch < LOOKUP_BATCHES; batch++) {
      const listing = await graph.call<Listed<MediaListing>>('look up the published post', {
        path: `${igUserId}/${story ? 'stories' : 'media'}`,
        token,
        query: { fields: story ? 'id,timestamp' : 'id,caption,timestamp', limit: 25, after },
      });
      const recent = listing.data.filter((media) => graphTime(media.timestamp) >= since);
      const found = story ? earliestStory(recent) : recent.find((media) => sameText(media.caption, plan.caption));
      if (found) return found.id;
      after = listing.paging?.next && recent.length === listing.data.length ? listing.paging.cursors?.after : undefined;
      if (!after) break;
    }
    throw new UnavailableError(
      'Instagram says the post was published but does not list it yet; the platform looks again shortly',
    );
  }

  if (!progress.get().mediaId) {
    const saved = progress.get().container;
    if (saved) {
      const state = await readContainer(saved);
      if (state.status_code === 'PUBLISHED') {
        await progress.set({ ...progress.get(), mediaId: await findPublished() });
      } else if (state.status_code === 'EXPIRED' || state.status_code === 'ERROR') {
        // Never published, and never publishable: an earlier attempt stopped (or was refused) for it. This
        // attempt starts over with fresh containers, and is refused in turn if Meta fails them again.
        await progress.set({});
      }
    }
  }
  if (!progress.get().mediaId) {
    if (!progress.get().container) {
      const container = await newContainer(plan);
      await progress.set({ ...progress.get(), container });
    }
    const container = progress.get().container!;
    const state = await waitFinished(container);
    if (state.status_code !== 'FINISHED') throw refused(state);
    const { id } = await graph.call<{ id: string }>('publish the post', {
      method: 'POST',
      path: `${igUserId}/media_publish`,
      token,
      json: { creation_id: container },
    });
    await progress.set({ ...progress.get(), mediaId: id });
  }
  const mediaId = progress.get().mediaId!;
  const { permalink } = await graph.call<{ permalink?: string }>('read the post’s address', {
    path: mediaId,
    token,
    query: { fields: 'permalink' },
  });
  return { externalId: mediaId, externalUrl: permalink ?? `https://www.instagram.com/` };
}
