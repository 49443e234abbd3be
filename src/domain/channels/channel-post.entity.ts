import { defineEntity, p } from '@mikro-orm/core';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import { ChannelAccount } from './channel-account.entity.ts';
import type { ChannelMetricCounts } from './channel-networks.ts';
import { POST_STATUSES } from './channel-status.ts';

/** An image or video of a post: a file of the platform's media store (a render, a generated image). */
export interface PostMedia {
  key: string;
  mimeType: string;
  bytes: number;
  width: number;
  height: number;
  /** Alt text: what the image or video shows, for people who cannot see it. */
  alt: string;
  durationSeconds: number | null;
  /** The render job it came from, when it came from one. */
  sourceJobId: string | null;
}

/** The attributed link of a post made from a campaign variant (through the brand site's hand-off). */
export interface PostLink {
  /** The URL the link leads to: the brand host's hand-off, naming the campaign, variant and post. */
  url: string;
  /** The text shown for it: where the visitor ends up, shortened as apps show links. */
  display: string;
}

/**
 * A network's own fields of a post, flat (the tools take them as top-level arguments): a Reddit subreddit,
 * title and flair, a TikTok privacy level, an Instagram media type. Each adapter declares the ones it takes
 * (`ChannelAdapter.postOptions`); the framework stores them with the post and hands them back unchanged.
 */
export type PostOptions = Record<string, string | boolean | number | undefined>;

/**
 * Progress of a publish that takes several calls (an Instagram media container, a TikTok publish id), saved
 * on the post before the next call so that an attempt repeated after a crash resumes it instead of starting
 * a second post. Adapter-defined JSON; never shown to anyone.
 */
export type PublishProgress = Record<string, unknown>;

export interface PostError {
  code: string;
  message: string;
  at: string;
}

/**
 * A post on a connected account: written directly or made from a campaign variant, kept as a draft,
 * scheduled, published (by one Temporal workflow per publishing run) and deleted. `recordKey` is chosen when
 * the post is created and never changes: the network stores the post under it, so a publish retried after a
 * crash writes the same record instead of a second one.
 */
export const ChannelPostSchema = defineEntity({
  name: 'ChannelPost',
  tableName: 'channel_posts',
  properties: {
    id: idProperty('channelPost'),
    workspace: () => p.manyToOne(Workspace).ref(),
    account: () => p.manyToOne(ChannelAccount).ref(),
    network: p.string().length(20),
    status: p.enum(POST_STATUSES).nativeEnumName('channel_post_status').default('draft'),
    campaign: () => p.manyToOne(Campaign).ref().nullable(),
    variant: () => p.manyToOne(Variant).ref().nullable(),
    /** The post's text as written, without the attributed link (added when the post is published). */
    text: p.text(),
    link: p.json<PostLink>().nullable(),
    media: p.json<PostMedia[]>().default('[]'),
    /** Languages of the text (BCP 47), as the network's clients filter by them. */
    langs: p.array<string>().default([]),
    /** The network's own fields (a subreddit, title and flair; a privacy level; a media type): `PostOptions`. */
    // `onCreate`, not `default('{}')`: a json default is assigned to a new entity as the string itself.
    options: p
      .json<PostOptions>()
      .onCreate(() => ({}))
      .defaultRaw(`'{}'`),
    /** What an interrupted multi-step publish saved (a media container, a publish id); never shown. */
    publishProgress: p.json<PublishProgress>().nullable(),
    /** When this post, being published, took one of its account's daily places (`daily-allowance.ts`). */
    allowanceClaimedAt: p.datetime().columnType('timestamptz').nullable(),
    scheduledAt: p.datetime().columnType('timestamptz').nullable(),
    /** The network's key for this post, chosen once (a Bluesky record key, a TID). */
    recordKey: p.string().length(64),
    /** When publishing was first attempted: the post's own creation time on the network, the same on every retry. */
    firstAttemptAt: p.datetime().columnType('timestamptz').nullable(),
    /** The network's id of the published post (an `at://` URI) and its public URL. */
    externalId: p.string().length(400).nullable(),
    externalUrl: p.string().length(400).nullable(),
    publishedAt: p.datetime().columnType('timestamptz').nullable(),
    /** Publishing runs started for this post (1 for a post that published at the first try). */
    attempts: p.integer().default(0),
    error: p.json<PostError>().nullable(),
    /** The counts as last pulled, with what the network said beyond them (Reddit's upvote ratio, a removal). */
    metrics: p.json<ChannelMetricCounts & { upvoteRatio?: number | null; removedBy?: string | null }>().nullable(),
    metricsUpdatedAt: p.datetime().columnType('timestamptz').nullable(),
    /** The job of the latest publishing run (its task handle, its workflow). */
    jobId: p.string().length(40).nullable(),
    /** Bumped by every change of the content, so an edit based on an older read is refused. */
    version: p.integer().default(1),
    createdBy: p.string().length(200),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    deletedAt: p.datetime().columnType('timestamptz').nullable(),
  },
  indexes: [
    { properties: ['workspace', 'createdAt', 'id'] },
    { properties: ['workspace', 'account', 'status'] },
    { properties: ['status', 'publishedAt'] },
  ],
  uniques: [{ properties: ['account', 'recordKey'] }],
});
export class ChannelPost extends ChannelPostSchema.class {}
ChannelPostSchema.setClass(ChannelPost);
