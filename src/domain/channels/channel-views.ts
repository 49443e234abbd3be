/**
 * How accounts and posts are shown to agents and people: every fact they need, never a credential.
 */
import type { ChannelAccount, ChannelQuota } from './channel-account.entity.ts';
import type { ChannelPost, PostError, PostLink, PostOptions } from './channel-post.entity.ts';
import { CHANNEL_METRICS, NETWORK_NAMES, type ChannelMetricCounts, type ChannelNetwork } from './channel-networks.ts';
import type { AccountStatus, PostStatus } from './channel-status.ts';

export interface AccountView {
  id: string;
  network: string;
  networkName: string;
  handle: string;
  displayName: string | null;
  /** The account's kind within its network (Meta: `facebook_page` or `instagram`), null where there is one. */
  kind: string | null;
  /** The kind as people say it (`Facebook Page`, `Instagram`), null where there is one. */
  kindName: string | null;
  /** The network's id of the account (a DID, a Page id, a Reddit user id, a TikTok open id). */
  externalId: string;
  profileUrl: string;
  status: AccountStatus;
  /** Why it needs reconnecting, or how it was disconnected. */
  statusReason: string | null;
  connectedBy: string;
  connectedAt: string;
  lastSuccessAt: string | null;
  disconnectedAt: string | null;
  /** The network's budget as it last reported it; null before the first call (or when it reports none). */
  quota: ChannelQuota | null;
}

const PROFILE_URLS: Record<ChannelNetwork, (account: ChannelAccount) => string> = {
  bluesky: (account) => `https://bsky.app/profile/${account.handle}`,
  meta: (account) =>
    account.kind === 'instagram'
      ? `https://www.instagram.com/${encodeURIComponent(account.handle)}/`
      : `https://www.facebook.com/${encodeURIComponent(account.externalId)}`,
  reddit: (account) => `https://www.reddit.com/user/${encodeURIComponent(account.handle)}/`,
  tiktok: (account) => `https://www.tiktok.com/@${encodeURIComponent(account.handle)}`,
};

/** How people name an account's kind. */
export const ACCOUNT_KIND_NAMES: Readonly<Record<string, string>> = {
  facebook_page: 'Facebook Page',
  instagram: 'Instagram',
};

export function toAccountView(account: ChannelAccount): AccountView {
  const network = account.network as ChannelNetwork;
  return {
    id: account.id,
    network: account.network,
    networkName: NETWORK_NAMES[network] ?? account.network,
    handle: account.handle,
    displayName: account.displayName ?? null,
    kind: account.kind ?? null,
    kindName: account.kind ? (ACCOUNT_KIND_NAMES[account.kind] ?? account.kind) : null,
    externalId: account.externalId,
    profileUrl: PROFILE_URLS[network]?.(account) ?? '',
    status: account.status,
    statusReason: account.statusReason ?? null,
    connectedBy: account.connectedBy,
    connectedAt: account.connectedAt.toISOString(),
    lastSuccessAt: account.lastSuccessAt?.toISOString() ?? null,
    disconnectedAt: account.disconnectedAt?.toISOString() ?? null,
    quota: account.quota ?? null,
  };
}

export interface PostMediaView {
  url: string;
  mimeType: string;
  bytes: number;
  width: number;
  height: number;
  alt: string;
  sourceJobId: string | null;
}

export interface PostView {
  id: string;
  network: string;
  accountId: string;
  status: PostStatus;
  text: string;
  link: PostLink | null;
  media: PostMediaView[];
  langs: string[];
  /** The network's own fields (a subreddit, title and flair; a privacy level; an Instagram media type). */
  options: PostOptions;
  campaignId: string | null;
  variantId: string | null;
  scheduledAt: string | null;
  publishedAt: string | null;
  /** The network's id of the published post and where people see it. */
  externalId: string | null;
  externalUrl: string | null;
  /** Why the last publishing run failed (kept while the post is retried or edited). */
  error: PostError | null;
  /** Publishing runs so far. */
  attempts: number;
  /** Engagement as last pulled; a measure the network does not have is null (unknown), never 0. */
  /** Counts as last pulled (unknown measures null), plus `upvoteRatio` on Reddit. */
  metrics: (ChannelMetricCounts & { upvoteRatio?: number }) | null;
  metricsUpdatedAt: string | null;
  /** Who removed the published post on the network (a subreddit's moderators), as of the last pull; else null. */
  removedBy: string | null;
  /** The job of the latest publishing run (poll it, or its task handle). */
  jobId: string | null;
  version: number;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export function toPostView(post: ChannelPost, mediaUrl: (key: string) => string): PostView {
  return {
    id: post.id,
    network: post.network,
    accountId: post.account.id,
    status: post.status,
    text: post.text,
    link: post.link ?? null,
    media: (post.media ?? []).map((media) => ({
      url: mediaUrl(media.key),
      mimeType: media.mimeType,
      bytes: media.bytes,
      width: media.width,
      height: media.height,
      alt: media.alt,
      sourceJobId: media.sourceJobId,
    })),
    langs: post.langs ?? [],
    options: post.options ?? {},
    campaignId: post.campaign?.id ?? null,
    variantId: post.variant?.id ?? null,
    scheduledAt: post.scheduledAt?.toISOString() ?? null,
    publishedAt: post.publishedAt?.toISOString() ?? null,
    externalId: post.externalId ?? null,
    externalUrl: post.externalUrl ?? null,
    error: post.error ?? null,
    attempts: post.attempts,
    metrics: post.metrics
      ? {
          ...normaliseMetrics(post.metrics),
          ...(typeof post.metrics.upvoteRatio === 'number' ? { upvoteRatio: post.metrics.upvoteRatio } : {}),
        }
      : null,
    metricsUpdatedAt: post.metricsUpdatedAt?.toISOString() ?? null,
    removedBy: post.status === 'published' ? (post.metrics?.removedBy ?? null) : null,
    jobId: post.jobId ?? null,
    version: post.version,
    createdBy: post.createdBy,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

/** Every measure present, unknown ones as null (stored rows may predate a measure). */
export function normaliseMetrics(metrics: Partial<ChannelMetricCounts>): ChannelMetricCounts {
  return Object.fromEntries(CHANNEL_METRICS.map((name) => [name, metrics[name] ?? null])) as ChannelMetricCounts;
}
