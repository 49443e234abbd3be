/**
 * Channel performance as `query_analytics` reports it: the `channels` section of a snapshot (per network,
 * campaign, variant and post) and, for the CVG dashboard, a campaign's variants compared across networks.
 *
 * These figures are the networks' own (engagement) plus what the posts' attributed links brought (visits,
 * conversions). They are kept apart from the brand sites' Impressions and Reach, and a measure a network does
 * not have (Bluesky's impressions) is null — unknown — never 0.
 */
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { CHANNEL_METRICS, NETWORK_NAMES, type ChannelMetricCounts, type ChannelNetwork } from './channel-networks.ts';
import { ChannelPost } from './channel-post.entity.ts';
import {
  engagementOf,
  readPostPerformance,
  sumPerformance,
  type ChannelFigures,
  type PostPerformance,
} from './channel-metrics.ts';
import { NETWORK_RULES } from './network-rules.ts';

export interface ChannelsSection {
  /** How to read the figures (say it to the user when reporting them). */
  note: string;
  networks: ({ network: string; name: string; unknownMetrics: string[] } & ChannelFigures)[];
  campaigns: ({ campaignId: string; name: string; network: string } & ChannelFigures)[];
  variants: ({ campaignId: string; variantId: string; name: string; network: string } & ChannelFigures)[];
  posts: {
    postId: string;
    network: string;
    accountId: string;
    campaignId: string | null;
    variantId: string | null;
    externalUrl: string | null;
    publishedAt: string | null;
    /** Gained in the window. */
    metrics: ChannelMetricCounts;
    /** As last pulled. */
    totals: ChannelMetricCounts;
    clicks: number;
    conversions: number;
    conversionValue: number;
  }[];
  /** Posts left out by `limit` (the rest of the list, by engagement). */
  truncatedPosts: number;
}

export const CHANNELS_NOTE =
  "Engagement the posts gained in the window, from the networks' daily figures; clicks are visits through the posts' " +
  'attributed links and conversions are sessions that converted after such a visit. A measure a network does not ' +
  "report is null (unknown), never 0. These are not part of the brand sites' Impressions or Reach.";

function group<K>(
  rows: readonly PostPerformance[],
  key: (row: PostPerformance) => K | null,
): Map<K, PostPerformance[]> {
  const groups = new Map<K, PostPerformance[]>();
  for (const row of rows) {
    const value = key(row);
    if (value === null) continue;
    const list = groups.get(value) ?? [];
    list.push(row);
    groups.set(value, list);
  }
  return groups;
}

const byEngagement = <T extends { engagement: number; clicks: number }>(a: T, b: T) =>
  b.engagement - a.engagement || b.clicks - a.clicks;

/** The `channels` section of a snapshot over UTC days `[from, to]` (optionally one campaign). */
export async function channelsSection(
  scope: WorkspaceScope,
  window: { from: string; to: string },
  options: { campaignId?: string; limit: number },
): Promise<ChannelsSection> {
  const rows = await readPostPerformance(
    scope,
    window,
    options.campaignId ? { campaignIds: [options.campaignId] } : {},
  );
  const campaignIds = [...new Set(rows.flatMap((row) => (row.campaignId ? [row.campaignId] : [])))];
  const variantIds = [...new Set(rows.flatMap((row) => (row.variantId ? [row.variantId] : [])))];
  const [campaigns, variants, posts] = await Promise.all([
    campaignIds.length ? scope.em.find(Campaign, { id: { $in: campaignIds } }) : [],
    variantIds.length ? scope.em.find(Variant, { id: { $in: variantIds } }) : [],
    rows.length ? scope.em.find(ChannelPost, { id: { $in: rows.map((row) => row.postId) } }) : [],
  ]);
  const campaignName = new Map(campaigns.map((campaign) => [campaign.id, campaign.name]));
  const variantName = new Map(variants.map((variant) => [variant.id, variant.name]));
  const postOf = new Map(posts.map((post) => [post.id, post]));

  const networks = [...group(rows, (row) => row.network)].map(([network, list]) => ({
    network,
    name: NETWORK_NAMES[network as ChannelNetwork] ?? network,
    unknownMetrics: CHANNEL_METRICS.filter((name) => !NETWORK_RULES[network as ChannelNetwork]?.metrics.includes(name)),
    ...sumPerformance(list),
  }));
  const campaignRows = [...group(rows, (row) => (row.campaignId ? `${row.campaignId}|${row.network}` : null))].map(
    ([key, list]) => {
      const [campaignId, network] = key.split('|') as [string, string];
      return {
        campaignId,
        name: campaignName.get(campaignId) ?? '(unknown campaign)',
        network,
        ...sumPerformance(list),
      };
    },
  );
  const variantRows = [
    ...group(rows, (row) =>
      row.campaignId && row.variantId ? `${row.campaignId}|${row.variantId}|${row.network}` : null,
    ),
  ].map(([key, list]) => {
    const [campaignId, variantId, network] = key.split('|') as [string, string, string];
    return {
      campaignId,
      variantId,
      name: variantName.get(variantId) ?? '(unknown variant)',
      network,
      ...sumPerformance(list),
    };
  });
  const postRows = rows
    .map((row) => {
      const post = postOf.get(row.postId);
      return {
        postId: row.postId,
        network: row.network,
        accountId: post?.account.id ?? row.accountId ?? '',
        campaignId: row.campaignId,
        variantId: row.variantId,
        externalUrl: post?.externalUrl ?? null,
        publishedAt: post?.publishedAt?.toISOString() ?? null,
        metrics: row.metrics,
        totals: row.totals,
        clicks: row.clicks,
        conversions: row.conversions,
        conversionValue: row.conversionValue,
        engagement: engagementOf(row.metrics),
      };
    })
    .sort(byEngagement);
  return {
    note: CHANNELS_NOTE,
    networks: networks.sort(byEngagement),
    campaigns: campaignRows.sort(byEngagement).slice(0, options.limit),
    variants: variantRows.sort(byEngagement).slice(0, options.limit),
    posts: postRows.slice(0, options.limit).map(({ engagement: _engagement, ...post }) => post),
    truncatedPosts: Math.max(0, postRows.length - options.limit),
  };
}

export interface ChannelComparison {
  network: string;
  name: string;
  variants: ({ variantId: string } & ChannelFigures)[];
}

/**
 * For the CVG dashboard: each campaign's variants compared on every network they were posted to, over all
 * time (the experiments cover their whole runtime too). Campaigns never posted are left out.
 */
export async function compareVariantsAcrossChannels(
  scope: WorkspaceScope,
  campaignIds: readonly string[],
): Promise<Map<string, ChannelComparison[]>> {
  if (campaignIds.length === 0) return new Map();
  const rows = await readPostPerformance(scope, null, { campaignIds });
  const result = new Map<string, ChannelComparison[]>();
  for (const [campaignId, campaignRows] of group(rows, (row) => row.campaignId)) {
    const comparisons = [...group(campaignRows, (row) => row.network)].map(([network, networkRows]) => ({
      network,
      name: NETWORK_NAMES[network as ChannelNetwork] ?? network,
      variants: [...group(networkRows, (row) => row.variantId)]
        .map(([variantId, list]) => ({ variantId, ...sumPerformance(list) }))
        .sort(byEngagement),
    }));
    result.set(campaignId, comparisons);
  }
  return result;
}
