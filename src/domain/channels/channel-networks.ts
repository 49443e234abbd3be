/**
 * The social networks the platform publishes to. Each is an adapter (`channel-adapter.ts`) behind the one
 * channel framework: connected accounts, posts as durable jobs, validation, metrics, and a pair of MCP tools
 * generated from the same definitions (`mcp/tools/channel-tools.ts`).
 */
export const CHANNEL_NETWORKS = ['bluesky', 'meta', 'reddit', 'tiktok'] as const;
export type ChannelNetwork = (typeof CHANNEL_NETWORKS)[number];

/** How each network is named to people (tool titles, pages, messages). */
export const NETWORK_NAMES: Record<ChannelNetwork, string> = {
  bluesky: 'Bluesky',
  meta: 'Meta (Facebook and Instagram)',
  reddit: 'Reddit',
  tiktok: 'TikTok',
};

export function isChannelNetwork(value: unknown): value is ChannelNetwork {
  return typeof value === 'string' && (CHANNEL_NETWORKS as readonly string[]).includes(value);
}

/**
 * Engagement a network may report for a post. A network that does not have a measure reports it as unknown
 * (`null`), never as 0 — Bluesky, for one, has no impressions — and channel figures are never added to the
 * brand sites' Impressions or Reach.
 */
export const CHANNEL_METRICS = [
  'impressions',
  'reach',
  'views',
  'likes',
  'reposts',
  'replies',
  'quotes',
  'bookmarks',
  'score',
] as const;
export type ChannelMetric = (typeof CHANNEL_METRICS)[number];
export type ChannelMetricCounts = Record<ChannelMetric, number | null>;

/**
 * What each measure means, normalised across networks: `likes` are Facebook reactions, Instagram, TikTok and
 * Bluesky likes; `reposts` are shares; `replies` are comments; `bookmarks` are Instagram saves; `score` is
 * Reddit's upvotes minus downvotes; `views` are video plays (TikTok, Instagram reels).
 */
export function unknownMetrics(): ChannelMetricCounts {
  return Object.fromEntries(CHANNEL_METRICS.map((name) => [name, null])) as ChannelMetricCounts;
}
