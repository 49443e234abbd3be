/**
 * Every network's posting rules, as data the tools, pages and docs describe (the adapters enforce the same
 * objects): length limits, media, what can be edited, which engagement measures exist.
 */
import type { NetworkRules } from './channel-adapter.ts';
import type { ChannelNetwork } from './channel-networks.ts';
import type { z } from 'zod';
import { BLUESKY_POST_OPTIONS, BLUESKY_RULES } from './bluesky/bluesky-post.ts';
import { META_POST_OPTIONS, META_RULES } from './meta/meta-rules.ts';
import { REDDIT_POST_OPTIONS, REDDIT_RULES } from './reddit/reddit-post.ts';
import { TIKTOK_POST_OPTIONS, TIKTOK_RULES } from './tiktok/tiktok-post.ts';

export const NETWORK_RULES: Record<ChannelNetwork, NetworkRules> = {
  bluesky: BLUESKY_RULES,
  meta: META_RULES,
  reddit: REDDIT_RULES,
  tiktok: TIKTOK_RULES,
};

/**
 * Every network's own post fields (`ChannelAdapter.postOptions`, the same objects): the tools add them to
 * their input schemas, flat, and the posts service checks a post's options against them.
 */
export const NETWORK_POST_OPTIONS: Record<ChannelNetwork, z.ZodObject> = {
  bluesky: BLUESKY_POST_OPTIONS,
  meta: META_POST_OPTIONS,
  reddit: REDDIT_POST_OPTIONS,
  tiktok: TIKTOK_POST_OPTIONS,
};
