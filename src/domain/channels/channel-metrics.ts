/**
 * Channel metrics: what the networks say about published posts (likes, reposts, replies, quotes, bookmarks —
 * and impressions where a network has them), pulled by the `channel-metrics` schedule into per-post, per-day
 * snapshots, and the visits and conversions that came through the posts' attributed links.
 *
 * Networks report running totals, so a day's row holds the totals as last pulled that day; what a post gained
 * in a window is its total at the window's end minus its total before the window began (nothing before it: it
 * was published inside the window, or first measured there). A measure a network does not have stays null —
 * unknown — through every sum: an unknown is never a zero, and channel figures are never added to the brand
 * sites' Impressions or Reach (they live in tables of their own).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { acrossWorkspaces, actors, workspaceScope, type WorkspaceScope } from '../shared/scope.ts';
import { AppError } from '../../errors.ts';
import { sqlRows } from '../analytics/analytics-reader.ts';
import type { ChannelAccess } from './channel-access.ts';
import type { ChannelAccount } from './channel-account.entity.ts';
import { CHANNEL_METRICS, unknownMetrics, type ChannelMetric, type ChannelMetricCounts } from './channel-networks.ts';
import { ChannelPost } from './channel-post.entity.ts';
import type { PostMeasurement } from './channel-adapter.ts';
import { normaliseMetrics } from './channel-views.ts';

// --- Pulling ------------------------------------------------------------------------------------------

export interface MetricsPullResult {
  accounts: number;
  posts: number;
  /** Posts whose figures were stored. */
  measured: number;
  /** Accounts skipped: they need reconnecting, or their network did not answer (tried again next run). */
  skippedAccounts: { accountId: string; reason: string }[];
}

/**
 * Pulls the engagement of every post published in the last `maxAgeDays` days, account by account, across
 * workspaces (an operator's sweep: each account is used in its own workspace's scope). One account's trouble
 * (a rate limit, a refused sign-in) skips that account for this run only.
 */
export async function pullChannelMetrics(input: {
  orm: MikroORM;
  access: ChannelAccess;
  maxAgeDays: number;
  now?: Date;
  /** Called after each account (the activity heartbeats here). */
  onAccount?: () => void;
}): Promise<MetricsPullResult> {
  const now = input.now ?? new Date();
  const since = new Date(now.getTime() - input.maxAgeDays * 86_400_000);
  const posts = await acrossWorkspaces(input.orm.em).find(
    ChannelPost,
    { status: 'published', publishedAt: { $gte: since }, externalId: { $ne: null } },
    { populate: ['account'], orderBy: { account: 'asc', id: 'asc' } },
  );
  const byAccount = new Map<string, { account: ChannelAccount; posts: ChannelPost[] }>();
  for (const post of posts) {
    const account = post.account.getEntity();
    const entry = byAccount.get(account.id) ?? { account, posts: [] };
    entry.posts.push(post);
    byAccount.set(account.id, entry);
  }
  const result: MetricsPullResult = { accounts: byAccount.size, posts: posts.length, measured: 0, skippedAccounts: [] };
  for (const { account, posts: accountPosts } of byAccount.values()) {
    const scope = workspaceScope(input.orm.em, account.workspace.id, actors.workflow('channel-metrics'));
    try {
      const counts = await input.access.withClient(scope, account, (client) =>
        client.metrics(accountPosts.map((post) => post.externalId!)),
      );
      for (const post of accountPosts) {
        const metrics = counts.get(post.externalId!);
        if (!metrics) continue;
        await storeMetrics(scope, post, metrics, now);
        result.measured += 1;
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      result.skippedAccounts.push({ accountId: account.id, reason: `${error.code}: ${error.message}` });
    }
    input.onAccount?.();
  }
  return result;
}

/** Stores a post's totals: on the post (its latest), and as the day's snapshot. */
export async function storeMetrics(
  scope: WorkspaceScope,
  post: ChannelPost,
  metrics: PostMeasurement,
  at: Date,
): Promise<void> {
  const em = scope.em.fork();
  // The post keeps what the network said beyond counts (a ratio, a removal); the daily table keeps the counts.
  const latest: PostMeasurement = {
    ...normaliseMetrics(metrics),
    ...(typeof metrics.upvoteRatio === 'number' ? { upvoteRatio: metrics.upvoteRatio } : {}),
    ...(metrics.removedBy ? { removedBy: metrics.removedBy } : {}),
  };
  await em.nativeUpdate(ChannelPost, { id: post.id }, { metrics: latest, metricsUpdatedAt: at });
  await em.getConnection().execute(
    `insert into analytics_channel_metrics_daily (workspace_id, post_id, day, network, account_id, campaign_id, variant_id,
       ${CHANNEL_METRICS.join(', ')}, captured_at)
     values (?, ?, (?::timestamptz at time zone 'UTC')::date, ?, ?, ?, ?, ${CHANNEL_METRICS.map(() => '?').join(', ')}, ?)
     on conflict (post_id, day) do update set ${CHANNEL_METRICS.map((name) => `${name} = excluded.${name}`).join(', ')},
       captured_at = excluded.captured_at
     where analytics_channel_metrics_daily.captured_at <= excluded.captured_at`,
    [
      scope.workspaceId,
      post.id,
      at.toISOString(),
      post.network,
      post.account.id,
      post.campaign?.id ?? null,
      post.variant?.id ?? null,
      ...CHANNEL_METRICS.map((name) => metrics[name]),
      at.toISOString(),
    ],
  );
}

// --- Reading ------------------------------------------------------------------------------------------

/** One post's performance: engagement gained in the window, its totals now, visits and conversions. */
export interface PostPerformance {
  postId: string;
  network: string;
  /** Null for a post visited before its first metrics pull (the clicks and conversions tables do not name it). */
  accountId: string | null;
  campaignId: string | null;
  variantId: string | null;
  /** Gained within the window (totals, for an all-time read). */
  metrics: ChannelMetricCounts;
  /** The post's totals as last pulled. */
  totals: ChannelMetricCounts;
  /** Visits through the post's attributed link. */
  clicks: number;
  /** Sessions whose first attributed conversion came after a visit from the post. */
  conversions: number;
  conversionValue: number;
}

type Counts = Record<ChannelMetric, string | null>;

/** Gained = after − before, keeping unknown unknown (a measure the network does not report). */
function gained(after: Counts, before: Counts | undefined): ChannelMetricCounts {
  const out = unknownMetrics();
  for (const name of CHANNEL_METRICS) {
    if (after[name] === null) continue;
    const previous = before?.[name];
    out[name] = Math.max(0, Number(after[name]) - (previous === null || previous === undefined ? 0 : Number(previous)));
  }
  return out;
}

function totalsOf(row: Counts): ChannelMetricCounts {
  const out = unknownMetrics();
  for (const name of CHANNEL_METRICS) out[name] = row[name] === null ? null : Number(row[name]);
  return out;
}

/**
 * Every measured post of the workspace (or of some campaigns) over UTC days `[from, to]`, or over all time
 * when `window` is null. Raw SQL with the workspace bound (these tables are outside the ORM's filter).
 */
export async function readPostPerformance(
  scope: WorkspaceScope,
  window: { from: string; to: string } | null,
  filter: { campaignIds?: readonly string[] } = {},
): Promise<PostPerformance[]> {
  const from = window?.from ?? '0001-01-01';
  const to = window?.to ?? '9999-12-31';
  // $1 workspace, $2 first day, $3 last day, $4 the campaigns (when filtered). Every statement names each
  // parameter it is sent (`$2::date is not null` where it needs no first day): PostgreSQL types every one.
  const params: unknown[] = [scope.workspaceId, from, to, ...(filter.campaignIds ? [[...filter.campaignIds]] : [])];
  const campaigns = filter.campaignIds ? 'and campaign_id = any($4::varchar[])' : '';
  const columns = CHANNEL_METRICS.join(', ');
  type Ids = { post_id: string; network: string; campaign_id: string | null; variant_id: string | null };
  const [latest, before, clicks, conversions] = await Promise.all([
    sqlRows<Counts & Ids & { account_id: string }>(
      scope,
      `select distinct on (post_id) post_id, network, account_id, campaign_id, variant_id, ${columns}
       from analytics_channel_metrics_daily
       where workspace_id = $1 and day <= $3::date and $2::date is not null ${campaigns}
       order by post_id, day desc`,
      params,
    ),
    window
      ? sqlRows<Counts & { post_id: string }>(
          scope,
          `select distinct on (post_id) post_id, ${columns}
           from analytics_channel_metrics_daily
           where workspace_id = $1 and day < $2::date and $3::date is not null ${campaigns}
           order by post_id, day desc`,
          params,
        )
      : Promise.resolve([]),
    sqlRows<Ids & { clicks: string }>(
      scope,
      `select post_id, min(network) as network, min(campaign_id) as campaign_id, min(variant_id) as variant_id,
         count(*) as clicks
       from analytics_channel_clicks
       where workspace_id = $1 and occurred_at >= $2::date and occurred_at < $3::date + 1 ${campaigns}
       group by post_id`,
      params,
    ),
    sqlRows<Ids & { converted: string; value: string }>(
      scope,
      `select post_id, min(network) as network, min(campaign_id) as campaign_id, min(variant_id) as variant_id,
         sum(converted_sessions) as converted, sum(conversion_value) as value
       from analytics_channel_conversions_daily
       where workspace_id = $1 and day between $2::date and $3::date ${campaigns}
       group by post_id`,
      params,
    ),
  ]);
  const beforeOf = new Map(before.map((row) => [row.post_id, row]));
  const rows = new Map<string, PostPerformance>();
  for (const row of latest) {
    rows.set(row.post_id, {
      postId: row.post_id,
      network: row.network,
      accountId: row.account_id,
      campaignId: row.campaign_id,
      variantId: row.variant_id,
      metrics: gained(row, beforeOf.get(row.post_id)),
      totals: totalsOf(row),
      clicks: 0,
      conversions: 0,
      conversionValue: 0,
    });
  }
  const entry = (row: { post_id: string; network: string; campaign_id: string | null; variant_id: string | null }) => {
    let found = rows.get(row.post_id);
    if (!found) {
      // Visited or converted before its first metrics pull: its engagement is not known yet.
      found = {
        postId: row.post_id,
        network: row.network,
        accountId: null,
        campaignId: row.campaign_id,
        variantId: row.variant_id,
        metrics: unknownMetrics(),
        totals: unknownMetrics(),
        clicks: 0,
        conversions: 0,
        conversionValue: 0,
      };
      rows.set(row.post_id, found);
    }
    return found;
  };
  for (const row of clicks) entry(row).clicks = Number(row.clicks);
  for (const row of conversions) {
    const found = entry(row);
    found.conversions = Number(row.converted);
    found.conversionValue = Number(row.value);
  }
  return [...rows.values()];
}

/** Posts' figures summed: per network, campaign or variant. */
export interface ChannelFigures {
  posts: number;
  metrics: ChannelMetricCounts;
  /** Likes, reposts, replies and quotes together (the measures the network has). */
  engagement: number;
  /** Visits through the posts' attributed links. */
  clicks: number;
  /** Sessions that converted after such a visit. */
  conversions: number;
  conversionValue: number;
}

/** The measures that make up a post's engagement (a bookmark is private to its maker, an impression is not engagement). */
const ENGAGEMENT_MEASURES = ['likes', 'reposts', 'replies', 'quotes'] as const;

/** Likes, reposts, replies and quotes together; an unknown measure adds nothing. */
export function engagementOf(metrics: ChannelMetricCounts): number {
  return ENGAGEMENT_MEASURES.reduce((sum, name) => sum + (metrics[name] ?? 0), 0);
}

/** The sum of posts' figures, keeping a measure unknown unless some post has it. */
export function sumPerformance(posts: readonly PostPerformance[]): ChannelFigures {
  const metrics = unknownMetrics();
  for (const post of posts) {
    for (const name of CHANNEL_METRICS) {
      const value = post.metrics[name];
      if (value !== null) metrics[name] = (metrics[name] ?? 0) + value;
    }
  }
  return {
    posts: posts.length,
    metrics,
    engagement: engagementOf(metrics),
    clicks: posts.reduce((sum, post) => sum + post.clicks, 0),
    conversions: posts.reduce((sum, post) => sum + post.conversions, 0),
    conversionValue: Math.round(posts.reduce((sum, post) => sum + post.conversionValue, 0) * 100) / 100,
  };
}

/** One post's history: a snapshot per day it was measured, and everything its link brought. */
export async function readPostHistory(
  scope: WorkspaceScope,
  postId: string,
): Promise<{
  daily: ({ day: string } & ChannelMetricCounts)[];
  clicks: number;
  conversions: number;
  conversionValue: number;
}> {
  const [daily, clicks, conversions] = await Promise.all([
    sqlRows<Counts & { day: string }>(
      scope,
      `select day::text as day, ${CHANNEL_METRICS.join(', ')} from analytics_channel_metrics_daily
       where workspace_id = $1 and post_id = $2 order by day`,
      [scope.workspaceId, postId],
    ),
    sqlRows<{ clicks: number }>(
      scope,
      `select count(*)::int as clicks from analytics_channel_clicks where workspace_id = $1 and post_id = $2`,
      [scope.workspaceId, postId],
    ),
    sqlRows<{ converted: string; value: string }>(
      scope,
      `select coalesce(sum(converted_sessions), 0) as converted, coalesce(sum(conversion_value), 0) as value
       from analytics_channel_conversions_daily where workspace_id = $1 and post_id = $2`,
      [scope.workspaceId, postId],
    ),
  ]);
  return {
    daily: daily.map((row) => ({ day: row.day, ...totalsOf(row) })),
    clicks: clicks[0]?.clicks ?? 0,
    conversions: Number(conversions[0]?.converted ?? 0),
    conversionValue: Number(conversions[0]?.value ?? 0),
  };
}
