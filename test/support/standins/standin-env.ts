/**
 * The platform's configuration that points a network at its stand-in: the app's credentials the stand-in
 * accepts and its URL as every host of the network (sign-in pages, token endpoints, API).
 */
import type { MetaStandin } from './meta-standin.ts';
import type { RedditStandin } from './reddit-standin.ts';
import type { TikTokStandin } from './tiktok-standin.ts';

/** Reddit refuses requests without a descriptive User-Agent of this form; the platform requires one. */
export const TEST_REDDIT_USER_AGENT = 'web:com.example.campaigns:1.0 (by /u/example)';

export function standinEnv(standins: {
  meta?: MetaStandin;
  reddit?: RedditStandin;
  tiktok?: TikTokStandin;
}): Record<string, string> {
  const { meta, reddit, tiktok } = standins;
  return {
    ...(meta
      ? {
          META_APP_ID: meta.appId,
          META_APP_SECRET: meta.appSecret,
          META_GRAPH_URL: meta.url,
          META_DIALOG_URL: meta.url,
        }
      : {}),
    ...(reddit
      ? {
          REDDIT_CLIENT_ID: reddit.clientId,
          REDDIT_CLIENT_SECRET: reddit.clientSecret,
          REDDIT_AUTH_URL: reddit.url,
          REDDIT_API_URL: reddit.url,
          REDDIT_USER_AGENT: TEST_REDDIT_USER_AGENT,
        }
      : {}),
    ...(tiktok
      ? {
          TIKTOK_CLIENT_KEY: tiktok.clientKey,
          TIKTOK_CLIENT_SECRET: tiktok.clientSecret,
          TIKTOK_AUTH_URL: tiktok.url,
          TIKTOK_API_URL: tiktok.url,
        }
      : {}),
  };
}
