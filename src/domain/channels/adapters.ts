/**
 * The network adapters of this platform, built once per process from configuration. Adding a network is
 * adding its adapter here (and its name to `CHANNEL_NETWORKS`, its rules and post fields to `network-rules.ts`).
 */
import type { Config } from '../../config.ts';
import { NotFoundError } from '../../errors.ts';
import type { ChannelAdapter } from './channel-adapter.ts';
import { CHANNEL_NETWORKS, type ChannelNetwork } from './channel-networks.ts';
import { createBlueskyAdapter } from './bluesky/bluesky-adapter.ts';
import { createMetaAdapter } from './meta/meta-adapter.ts';
import { createRedditAdapter } from './reddit/reddit-adapter.ts';
import { createTikTokAdapter } from './tiktok/tiktok-adapter.ts';

export interface ChannelAdaptersOptions {
  channels: Pick<Config['channels'], 'blueskyServiceUrl' | 'meta' | 'reddit' | 'tiktok'>;
  /** The guarded fetch for the networks' APIs (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
}

export interface ChannelAdapters {
  get(network: string): ChannelAdapter;
  all(): ChannelAdapter[];
}

export function createChannelAdapters(options: ChannelAdaptersOptions): ChannelAdapters {
  const { channels, fetch } = options;
  const adapters: Record<ChannelNetwork, ChannelAdapter> = {
    bluesky: createBlueskyAdapter({ serviceUrl: channels.blueskyServiceUrl, fetch }),
    meta: createMetaAdapter({ ...channels.meta, fetch }),
    reddit: createRedditAdapter({ ...channels.reddit, fetch }),
    tiktok: createTikTokAdapter({ ...channels.tiktok, fetch }),
  };
  return {
    get(network) {
      const adapter = adapters[network as ChannelNetwork];
      if (!adapter) throw new NotFoundError('Network', network);
      return adapter;
    },
    all: () => CHANNEL_NETWORKS.map((network) => adapters[network]),
  };
}
