/**
 * Engagement of published TikTok videos (`/v2/video/query/`, 20 ids a call): views, likes, comments (replies)
 * and shares (reposts); TikTok has no impressions, reach, quotes or saves through this API, so those are unknown.
 *
 * An external id that is a publish id (a post that was not public yet when it was published) is resolved
 * through the status endpoint each time: once moderation made the post public, its counts are read under the
 * public id; until then its engagement is unknown (null), never 0. A publish that failed, or that TikTok no
 * longer knows, is left out, as a deleted post is.
 */
import { ChannelRefusedError } from '../../../errors.ts';
import { unknownMetrics, type ChannelMetricCounts } from '../channel-networks.ts';
import type { TikTokApi } from './tiktok-api.ts';
import { fetchStatus, isPostId, publicIdOf } from './tiktok-publish.ts';

/** `/v2/video/query/` takes at most 20 ids. */
const METRICS_BATCH = 20;

interface QueriedVideo {
  id: string;
  like_count?: number;
  comment_count?: number;
  share_count?: number;
  view_count?: number;
}

export async function readMetrics(
  api: TikTokApi,
  externalIds: readonly string[],
): Promise<Map<string, ChannelMetricCounts>> {
  const found = new Map<string, ChannelMetricCounts>();
  // Public post id → the external ids it answers for (a publish id resolves to the post TikTok made).
  const wanted = new Map<string, string[]>();
  for (const externalId of externalIds) {
    let postId: string | null = externalId;
    if (!isPostId(externalId)) {
      const status = await fetchStatus(api, externalId).catch((error: unknown) => {
        // A publish TikTok no longer knows is left out, as a deleted post is.
        if (error instanceof ChannelRefusedError) return null;
        throw error;
      });
      if (!status || status.status === 'FAILED') continue;
      postId = publicIdOf(status);
      // Not public yet (moderation, a private post, a draft): its engagement is unknown, not 0.
      if (!postId) found.set(externalId, unknownMetrics());
    }
    if (postId) wanted.set(postId, [...(wanted.get(postId) ?? []), externalId]);
  }
  const postIds = [...wanted.keys()];
  for (let start = 0; start < postIds.length; start += METRICS_BATCH) {
    const data = await api.call<{ videos?: QueriedVideo[] }>({
      doing: 'read the videos’ engagement',
      method: 'POST',
      path: '/v2/video/query/?fields=id,like_count,comment_count,share_count,view_count',
      json: { filters: { video_ids: postIds.slice(start, start + METRICS_BATCH) } },
    });
    for (const video of data.videos ?? []) {
      const counts: ChannelMetricCounts = {
        ...unknownMetrics(),
        views: video.view_count ?? null,
        likes: video.like_count ?? null,
        replies: video.comment_count ?? null,
        reposts: video.share_count ?? null,
      };
      for (const externalId of wanted.get(String(video.id)) ?? []) found.set(externalId, counts);
    }
  }
  return found;
}
