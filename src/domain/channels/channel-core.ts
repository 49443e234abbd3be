/**
 * What both the API and the worker build from configuration to reach the networks: the adapters, the access
 * layer over the connected accounts' sealed credentials, the OAuth flows that connect accounts, and the
 * expiring media links networks fetch media from. The API adds the account and post services on top
 * (`container.ts`); the worker's activities use these directly (`worker.ts`).
 */
import type { Config } from '../../config.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createChannelAdapters, type ChannelAdapters } from './adapters.ts';
import { createChannelAccess, type ChannelAccess } from './channel-access.ts';
import type { ChannelNetwork } from './channel-networks.ts';
import { createChannelOAuth, type ChannelOAuth } from './channel-oauth.ts';
import { createMediaLinks, type MediaLinks } from '../media/media-links.ts';

export interface ChannelCore {
  adapters: ChannelAdapters;
  access: ChannelAccess;
  oauth: ChannelOAuth;
  mediaLinks: MediaLinks;
}

/** The path a network sends a person back to after its consent page; the operator registers it with the app. */
export const oauthCallbackPath = (network: ChannelNetwork) => `/channels/oauth/${network}/callback`;

export function createChannelCore(deps: {
  config: Pick<Config, 'channels' | 'secrets' | 'urls'>;
  /** The guarded fetch for the networks' APIs (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
  audit: AuditService;
}): ChannelCore {
  const adapters = createChannelAdapters({ channels: deps.config.channels, fetch: deps.fetch });
  const access = createChannelAccess({
    adapters,
    audit: deps.audit,
    credentialKeys: deps.config.secrets.credentialKeys,
    refreshAheadSeconds: deps.config.channels.tokenRefreshAheadSeconds,
  });
  const oauth = createChannelOAuth({
    adapters,
    credentialKeys: deps.config.secrets.credentialKeys,
    redirectUri: (network) => `${deps.config.urls.platform}${oauthCallbackPath(network)}`,
  });
  const mediaLinks = createMediaLinks({
    credentialKeys: deps.config.secrets.credentialKeys,
    publicBaseUrl: deps.config.urls.platform,
  });
  return { adapters, access, oauth, mediaLinks };
}
