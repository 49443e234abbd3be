/**
 * The SSRF guard's settings for the social networks' API clients: the open-web rules, except that the
 * configured Bluesky service (an operator's choice, e.g. a PDS on the operator's own network) may be reached on
 * a private address and any port. An account's own server, named by its DID document, gets no such pass.
 */
import type { Config } from '../config.ts';
import type { SafeFetchOptions } from './safe-fetch.ts';

export function channelFetchOptions(
  config: Pick<Config, 'ssrfAllowPrivateHosts' | 'channels'>,
  overrides: SafeFetchOptions = {},
): SafeFetchOptions {
  const serviceHost = new URL(config.channels.blueskyServiceUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return {
    userAgent: 'campaign-platform/1 (+channels)',
    ...overrides,
    allowPrivateHosts: [...config.ssrfAllowPrivateHosts, serviceHost, ...(overrides.allowPrivateHosts ?? [])],
  };
}
