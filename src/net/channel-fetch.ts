/**
 * The SSRF guard's settings for the social networks' API clients: the open-web rules, except that the
 * configured network hosts (an operator's choice: the Bluesky service, e.g. a PDS on the operator's own
 * network, and the Meta, Reddit and TikTok API and sign-in hosts) may be reached on a private address and any
 * port. An account's own server, named by its DID document, gets no such pass.
 */
import type { Config } from '../config.ts';
import type { SafeFetchOptions } from './safe-fetch.ts';

export function channelFetchOptions(
  config: Pick<Config, 'ssrfAllowPrivateHosts' | 'channels'>,
  overrides: SafeFetchOptions = {},
): SafeFetchOptions {
  const { blueskyServiceUrl, meta, reddit, tiktok } = config.channels;
  const configured = [
    blueskyServiceUrl,
    meta.graphUrl,
    meta.dialogUrl,
    reddit.authUrl,
    reddit.apiUrl,
    tiktok.authUrl,
    tiktok.apiUrl,
  ].map((url) => new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase());
  return {
    userAgent: 'campaign-platform/1 (+channels)',
    ...overrides,
    allowPrivateHosts: [
      ...config.ssrfAllowPrivateHosts,
      ...new Set(configured),
      ...(overrides.allowPrivateHosts ?? []),
    ],
  };
}
