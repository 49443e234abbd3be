/**
 * Reddit behind the channel adapter interface, over its OAuth API with plain `fetch` (the guarded one the
 * platform passes): no client library, as the maintained ones are gone (snoowrap depends on `request`).
 *
 * - **Connecting** is OAuth 2 with the platform's registered "web app" (confidential: the code is exchanged
 *   with the client secret). Reddit does not implement PKCE: the `state` check (`channel-oauth.ts`) and the
 *   secret guard the exchange, and the code challenge is not sent. `duration=permanent` asks for a refresh
 *   token; access tokens last an hour. Reddit's API terms require new apps to be approved under its
 *   Responsible Builder Policy before they get API access: operators register and apply before connecting.
 * - **Scopes**: `identity` (who connected), `submit` (posts, the subreddit's posting rules, image upload
 *   leases), `read` (subreddits, post metrics), `flair` (the post flairs to choose from), `edit` (deleting a
 *   post) and `history`: Reddit serves the account's own submissions (`/user/{name}/submitted`, where a post
 *   whose answer was lost is looked for) under `history` only.
 * - **Refusals**: a 401 is an expired access token (the framework refreshes once and retries); a refresh
 *   refused with `invalid_grant` means the owner revoked access (`CredentialsRefusedError`); 429s and
 *   `RATELIMIT` errors are `RateLimitedError`s with Reddit's wait; 5xx and no answer are `UnavailableError`s.
 * - **Metrics**: `score` (upvotes minus downvotes) and comments; Reddit fuzzes the vote counts themselves, so
 *   likes stay unknown. `postStates` also reports the upvote ratio and whether a moderator removed the post.
 */
import { ChannelRefusedError, UnavailableError, ValidationError } from '../../../errors.ts';
import type {
  ChannelAdapter,
  ConnectedIdentity,
  CredentialState,
  NetworkClient,
  NetworkCredentials,
  OAuthConnect,
  PostContent,
  QuotaObserver,
  AccountContext,
} from '../channel-adapter.ts';
import { CredentialsRefusedError } from '../channel-adapter.ts';
import { unknownMetrics, type ChannelMetricCounts } from '../channel-networks.ts';
import {
  AccessExpiredError,
  createRedditHttp,
  REDDIT_API_URL,
  REDDIT_ENV,
  REDDIT_WWW_URL,
  TokenRefusedError,
  type RedditHttp,
  type TokenAnswer,
} from './reddit-http.ts';
import {
  composeRedditPost,
  randomRecordKey,
  REDDIT_POST_OPTIONS,
  REDDIT_RULES,
  validateRedditPost,
} from './reddit-post.ts';
import { publishRedditPost, type PublishContext } from './reddit-publish.ts';
import { readSubreddit, subredditIssues } from './reddit-subreddit.ts';

export const REDDIT_SCOPES = ['identity', 'submit', 'read', 'flair', 'edit', 'history'] as const;
/** `GET /api/info` takes at most this many ids. */
const INFO_BATCH = 100;

export interface RedditAdapterOptions {
  /** The platform's Reddit app (reddit.com/prefs/apps); empty when the operator has not registered one. */
  clientId: string;
  clientSecret: string;
  /** `<platform>:<app id>:<version> (by /u/<operator>)`, as Reddit asks (`redditUserAgent`). */
  userAgent: string;
  /** The OAuth pages and token endpoints (https://www.reddit.com). */
  authUrl?: string;
  /** The API (https://oauth.reddit.com). */
  apiUrl?: string;
  /** The guarded fetch every request goes through (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
  /** How often and how long to look for an image post Reddit is still processing (2 s, 2 min). */
  imagePollIntervalMs?: number;
  imageWaitMs?: number;
  now?: () => Date;
}

/** What is sealed for a Reddit account. */
interface RedditCredentials {
  accessToken: string;
  refreshToken: string;
  username: string;
  /** The account's fullname (`t2_…`). */
  userId: string;
  scope: string;
}

/** A post as Reddit shows it to its author: the counts, plus what `ChannelMetricCounts` has no name for. */
export interface RedditPostState {
  counts: ChannelMetricCounts;
  /** Upvotes over all votes, 0–1. */
  upvoteRatio: number | null;
  /** Who removed the post (`moderator`, `automod_filtered`, `reddit`, …), or null while it is up. */
  removedBy: string | null;
}

export interface RedditNetworkClient extends NetworkClient {
  /** The posts' counts, upvote ratio and removal; a post its author deleted, or Reddit does not have, is left out. */
  postStates(externalIds: readonly string[]): Promise<Map<string, RedditPostState>>;
}

export interface RedditAdapter extends ChannelAdapter {
  oauth: OAuthConnect;
  client(credentials: NetworkCredentials, onQuota: QuotaObserver, account: AccountContext): RedditNetworkClient;
}

function asCredentials(value: NetworkCredentials): RedditCredentials {
  const credentials = value as Partial<RedditCredentials>;
  for (const field of ['accessToken', 'refreshToken', 'username', 'userId', 'scope'] as const) {
    if (typeof credentials[field] !== 'string') throw new Error(`Reddit credentials lack ${field}`);
  }
  return credentials as RedditCredentials;
}

const notConfigured = () =>
  new ValidationError(
    `Reddit is not set up on this platform: the operator registers the platform's app at https://www.reddit.com/prefs/apps (type "web app", approved for API access under Reddit's Responsible Builder Policy) and sets ${REDDIT_ENV.clientId} and ${REDDIT_ENV.clientSecret}`,
    { field: 'network' },
  );

export function createRedditAdapter(options: RedditAdapterOptions): RedditAdapter {
  const authUrl = options.authUrl ?? REDDIT_WWW_URL;
  const apiUrl = options.apiUrl ?? REDDIT_API_URL;
  const now = options.now ?? (() => new Date());
  const configured = Boolean(options.clientId.trim() && options.clientSecret.trim());
  const http: RedditHttp = createRedditHttp({ ...options, authUrl, apiUrl });
  const expiryOf = (token: TokenAnswer) => new Date(now().getTime() + token.expires_in * 1000);

  const oauth: OAuthConnect = {
    configured,
    scopes: REDDIT_SCOPES,

    authorizationUrl({ state, redirectUri }) {
      if (!configured) throw notConfigured();
      const url = new URL('/api/v1/authorize', authUrl);
      url.searchParams.set('client_id', options.clientId);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('state', state);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('duration', 'permanent');
      url.searchParams.set('scope', REDDIT_SCOPES.join(' '));
      return url.toString();
    },

    async completeAuthorization({ code, redirectUri }): Promise<ConnectedIdentity[]> {
      if (!configured) throw notConfigured();
      const restart = 'Start again from Channels → Connect Reddit.';
      let token: TokenAnswer;
      try {
        token = await http.token(
          { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
          'finish connecting the account',
        );
      } catch (error) {
        if (!(error instanceof TokenRefusedError)) throw error;
        throw new ValidationError(
          `Reddit refused the sign-in code (${error.error}): it was used already, has expired, or was issued for another address. ${restart}`,
          { field: 'code' },
        );
      }
      if (!token.refresh_token) {
        throw new ValidationError(`Reddit granted only temporary access (no refresh token). ${restart}`, {
          field: 'code',
        });
      }
      const granted = new Set(token.scope.split(/[\s,]+/));
      const missing = REDDIT_SCOPES.filter((scope) => !granted.has(scope));
      if (missing.length && !granted.has('*')) {
        throw new ValidationError(`Reddit did not grant the permissions ${missing.join(', ')}. ${restart}`, {
          field: 'code',
        });
      }
      const me = await http.api(token.access_token, { method: 'GET', path: '/api/v1/me', doing: 'read who connected' });
      const identity = (me.body ?? {}) as { id?: string; name?: string; subreddit?: { title?: string } | null };
      if (!identity.id || !identity.name)
        throw new UnavailableError('Reddit did not say which account connected; try again');
      const credentials: RedditCredentials = {
        accessToken: token.access_token,
        refreshToken: token.refresh_token,
        username: identity.name,
        userId: `t2_${identity.id}`,
        scope: token.scope,
      };
      return [
        {
          externalId: credentials.userId,
          handle: identity.name,
          displayName: identity.subreddit?.title?.trim() || null,
          credentials: { ...credentials },
          accessExpiresAt: expiryOf(token),
        },
      ];
    },
  };

  function client(value: NetworkCredentials, onQuota: QuotaObserver): RedditNetworkClient {
    const credentials = asCredentials(value);
    const api = (request: Omit<Parameters<RedditHttp['api']>[1], 'onQuota'>) =>
      http.api(credentials.accessToken, { ...request, onQuota });
    const publishContext: PublishContext = {
      http,
      accessToken: credentials.accessToken,
      username: credentials.username,
      apiUrl,
      onQuota,
      pollIntervalMs: options.imagePollIntervalMs ?? 2_000,
      imageWaitMs: options.imageWaitMs ?? 120_000,
    };

    async function postStates(externalIds: readonly string[]): Promise<Map<string, RedditPostState>> {
      const found = new Map<string, RedditPostState>();
      // Reddit ignores ids with upper-case letters, and every id of a request that has a malformed one.
      const ids = [...new Set(externalIds)].filter((id) => /^t3_[0-9a-z]+$/.test(id));
      for (let start = 0; start < ids.length; start += INFO_BATCH) {
        const answer = await api({
          method: 'GET',
          path: '/api/info',
          query: { id: ids.slice(start, start + INFO_BATCH).join(','), raw_json: '1' },
          doing: 'read the posts’ scores',
        });
        const children = (answer.body as { data?: { children?: { kind: string; data: Record<string, unknown> }[] } })
          ?.data?.children;
        for (const child of children ?? []) {
          const post = child.data;
          const removedBy = typeof post.removed_by_category === 'string' ? post.removed_by_category : null;
          // Deleted by its author: Reddit no longer shows it, so it has no figures to report.
          if (child.kind !== 't3' || removedBy === 'deleted' || removedBy === 'author') continue;
          const count = (name: string) => (typeof post[name] === 'number' ? (post[name] as number) : null);
          found.set(String(post.name), {
            counts: { ...unknownMetrics(), score: count('score'), replies: count('num_comments') },
            upvoteRatio: count('upvote_ratio'),
            removedBy,
          });
        }
      }
      return found;
    }

    return {
      async validate(content: PostContent) {
        const composed = composeRedditPost(content);
        const offline = validateRedditPost(content, composed);
        // Without a valid name there is no subreddit to ask about.
        if (offline.issues.some((issue) => issue.field === 'subreddit')) return offline;
        const facts = await readSubreddit(http, credentials.accessToken, composed.subreddit, onQuota);
        const live = subredditIssues(composed, facts);
        const issues = [...offline.issues, ...live.issues];
        return { ...offline, valid: issues.length === 0, issues, warnings: [...offline.warnings, ...live.warnings] };
      },

      publish(input) {
        return publishRedditPost(publishContext, input);
      },

      async remove(externalId) {
        // Deleting a post that is already gone answers 200 as well: deleting twice is deleting once.
        await api({ method: 'POST', path: '/api/del', form: { id: externalId }, doing: 'delete the post' });
      },

      async metrics(externalIds) {
        const states = await postStates(externalIds);
        return new Map(
          [...states].map(([id, state]) => [
            id,
            { ...state.counts, upvoteRatio: state.upvoteRatio, removedBy: state.removedBy },
          ]),
        );
      },

      postStates,
    };
  }

  return {
    network: 'reddit',
    rules: REDDIT_RULES,
    postOptions: REDDIT_POST_OPTIONS,
    oauth,

    async refresh(value): Promise<CredentialState> {
      const credentials = asCredentials(value);
      let token: TokenAnswer;
      try {
        token = await http.token(
          { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
          'refresh the account’s access',
        );
      } catch (error) {
        if (!(error instanceof TokenRefusedError)) throw error;
        if (error.error === 'invalid_grant') {
          throw new CredentialsRefusedError(
            `Reddit refused the stored sign-in of u/${credentials.username} (invalid_grant): its owner revoked the platform's access, or the account is suspended. Reconnect the account.`,
          );
        }
        throw new ChannelRefusedError(`Reddit refused to refresh the account's access (${error.error})`, {
          network: 'reddit',
          networkError: error.error,
          status: 200,
        });
      }
      const next: RedditCredentials = {
        ...credentials,
        accessToken: token.access_token,
        // Reddit may hand back the refresh token (the same one, or a new one); keep whichever is current.
        refreshToken: token.refresh_token ?? credentials.refreshToken,
        scope: token.scope ?? credentials.scope,
      };
      return { credentials: { ...next }, accessExpiresAt: expiryOf(token) };
    },

    async signOut(value) {
      const credentials = asCredentials(value);
      // Revoking the refresh token revokes the access tokens issued with it.
      await http.appCall(
        '/api/v1/revoke_token',
        { token: credentials.refreshToken, token_type_hint: 'refresh_token' },
        'end the platform’s access',
      );
    },

    client,

    validateOffline(content) {
      return validateRedditPost(content);
    },

    newRecordKey() {
      return randomRecordKey();
    },

    isAuthExpired(error) {
      return error instanceof AccessExpiredError;
    },
  };
}
