/**
 * The social networks the platform publishes to. Each is an adapter (`channel-adapter.ts`) behind the one
 * channel framework: connected accounts, posts as durable jobs, validation, metrics, and a pair of MCP tools
 * generated from the same definitions (`mcp/tools/channel-tools.ts`).
 */
export const CHANNEL_NETWORKS = ['bluesky'] as const;
export type ChannelNetwork = (typeof CHANNEL_NETWORKS)[number];

/** How each network is named to people (tool titles, pages, messages). */
export const NETWORK_NAMES: Record<ChannelNetwork, string> = {
  bluesky: 'Bluesky',
};

export function isChannelNetwork(value: unknown): value is ChannelNetwork {
  return typeof value === 'string' && (CHANNEL_NETWORKS as readonly string[]).includes(value);
}

/**
 * Engagement a network may report for a post. A network that does not have a measure reports it as unknown
 * (`null`), never as 0 — Bluesky, for one, has no impressions — and channel figures are never added to the
 * brand sites' Impressions or Reach.
 */
export const CHANNEL_METRICS = ['impressions', 'likes', 'reposts', 'replies', 'quotes', 'bookmarks'] as const;
export type ChannelMetric = (typeof CHANNEL_METRICS)[number];
export type ChannelMetricCounts = Record<ChannelMetric, number | null>;

export function unknownMetrics(): ChannelMetricCounts {
  return { impressions: null, likes: null, reposts: null, replies: null, quotes: null, bookmarks: null };
}
