/**
 * Every network's posting rules, as data the tools, pages and docs describe (the adapters enforce the same
 * objects): length limits, media, what can be edited, which engagement measures exist.
 */
import type { NetworkRules } from './channel-adapter.ts';
import type { ChannelNetwork } from './channel-networks.ts';
import { BLUESKY_RULES } from './bluesky/bluesky-post.ts';

export const NETWORK_RULES: Record<ChannelNetwork, NetworkRules> = {
  bluesky: BLUESKY_RULES,
};
