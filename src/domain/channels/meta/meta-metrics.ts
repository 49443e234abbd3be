/**
 * Engagement of published Page posts and Instagram media, normalised (`channel-networks.ts`).
 *
 * - **Page posts**: `GET /{post}/insights` for impressions (`post_impressions`) and reach
 *   (`post_impressions_unique`), and `GET /{post}?fields=shares,comments.summary(true),reactions.summary(true)`
 *   for likes (all reactions), replies (comments) and reposts (shares). Meta leaves `shares` out of a post
 *   nobody shared: that is 0, not unknown.
 * - **Instagram**: `GET /{media}/insights` for reach, likes, comments, shares, saved and views. Meta removed
 *   `impressions` for media created after 2024-07-02, so impressions stay unknown.
 * - A metric Meta refuses (code 100: retired, or not offered for this kind of media, such as likes on a story)
 *   is unknown (null); when a list of metrics is refused, each is asked for alone so that one retired metric
 *   does not hide the others. A post Meta no longer has (code 100, subcode 33) is left out.
 */
import { unknownMetrics, type ChannelMetric, type ChannelMetricCounts } from '../channel-networks.ts';
import { GraphApiError, translate, type Graph } from './meta-graph.ts';

/** "Unsupported get request. Object with ID … does not exist": the post is gone. */
const MISSING_OBJECT_SUBCODE = 33;

const PAGE_INSIGHTS: Record<string, ChannelMetric | null> = {
  post_impressions: 'impressions',
  post_impressions_unique: 'reach',
  // Read for completeness of the request Meta documents; likes come from the reactions summary.
  post_reactions_by_type_total: null,
};

const INSTAGRAM_INSIGHTS: Record<string, ChannelMetric> = {
  reach: 'reach',
  likes: 'likes',
  comments: 'replies',
  shares: 'reposts',
  saved: 'bookmarks',
  views: 'views',
};

interface InsightsAnswer {
  data: { name: string; values?: { value?: unknown }[]; total_value?: { value?: unknown } }[];
}

const isMissing = (error: unknown) =>
  error instanceof GraphApiError && error.code === 100 && error.subcode === MISSING_OBJECT_SUBCODE;
const isRefusedMetric = (error: unknown) => error instanceof GraphApiError && error.code === 100 && !isMissing(error);

class MissingPost extends Error {}

function valueOf(entry: InsightsAnswer['data'][number]): unknown {
  return entry.values?.[0]?.value ?? entry.total_value?.value;
}

export function createMetaMetrics(graph: Graph, token: string) {
  /** Insights by metric name: null for one Meta refuses; throws `MissingPost` for a post that is gone. */
  async function insights(id: string, metrics: string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    const ask = async (names: string[]) => {
      const answer = await graph.request<InsightsAnswer>({
        path: `${id}/insights`,
        token,
        query: { metric: names.join(',') },
      });
      for (const entry of answer.data) found.set(entry.name, valueOf(entry));
    };
    try {
      await ask(metrics);
    } catch (error) {
      if (isMissing(error)) throw new MissingPost();
      if (!isRefusedMetric(error)) translate(error, 'read the post’s insights');
      for (const metric of metrics) {
        try {
          await ask([metric]);
        } catch (single) {
          if (isMissing(single)) throw new MissingPost();
          if (!isRefusedMetric(single)) translate(single, 'read the post’s insights');
          found.set(metric, null);
        }
      }
    }
    return found;
  }

  const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

  async function pagePost(id: string): Promise<ChannelMetricCounts> {
    let fields: {
      shares?: { count?: number };
      comments?: { summary?: { total_count?: number } };
      reactions?: { summary?: { total_count?: number } };
    };
    try {
      fields = await graph.request({
        path: id,
        token,
        query: { fields: 'shares,comments.summary(true),reactions.summary(true)' },
      });
    } catch (error) {
      if (isMissing(error)) throw new MissingPost();
      translate(error, 'read the post’s engagement');
    }
    const counts = unknownMetrics();
    counts.reposts = count(fields.shares?.count) ?? 0;
    counts.replies = count(fields.comments?.summary?.total_count);
    counts.likes = count(fields.reactions?.summary?.total_count);
    const figures = await insights(id, Object.keys(PAGE_INSIGHTS));
    for (const [name, metric] of Object.entries(PAGE_INSIGHTS)) {
      if (metric) counts[metric] = count(figures.get(name));
    }
    if (counts.likes === null) {
      // Without the reactions summary, the reactions by type add up to the same figure.
      const byType = figures.get('post_reactions_by_type_total');
      if (byType && typeof byType === 'object') {
        counts.likes = Object.values(byType as Record<string, unknown>).reduce<number>(
          (sum, value) => sum + (count(value) ?? 0),
          0,
        );
      }
    }
    return counts;
  }

  async function instagramMedia(id: string): Promise<ChannelMetricCounts> {
    const figures = await insights(id, Object.keys(INSTAGRAM_INSIGHTS));
    const counts = unknownMetrics();
    for (const [name, metric] of Object.entries(INSTAGRAM_INSIGHTS)) counts[metric] = count(figures.get(name));
    return counts;
  }

  return {
    async metrics(kind: 'facebook_page' | 'instagram', externalIds: readonly string[]) {
      const found = new Map<string, ChannelMetricCounts>();
      for (const id of externalIds) {
        try {
          found.set(id, kind === 'instagram' ? await instagramMedia(id) : await pagePost(id));
        } catch (error) {
          if (!(error instanceof MissingPost)) throw error;
        }
      }
      return found;
    },
  };
}
