/**
 * The network adapters of this platform, built once per process from configuration. Adding a network is
 * adding its adapter here (and its name to `CHANNEL_NETWORKS`).
 */
import { NotFoundError } from '../../errors.ts';
import type { ChannelAdapter } from './channel-adapter.ts';
import { CHANNEL_NETWORKS, type ChannelNetwork } from './channel-networks.ts';
import { createBlueskyAdapter } from './bluesky/bluesky-adapter.ts';

export interface ChannelAdaptersOptions {
  blueskyServiceUrl: string;
  /** The guarded fetch for the networks' APIs (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
}

export interface ChannelAdapters {
  get(network: string): ChannelAdapter;
  all(): ChannelAdapter[];
}

export function createChannelAdapters(options: ChannelAdaptersOptions): ChannelAdapters {
  const adapters: Record<ChannelNetwork, ChannelAdapter> = {
    bluesky: createBlueskyAdapter({ serviceUrl: options.blueskyServiceUrl, fetch: options.fetch }),
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
